"""«Новый пакет»: the author prefilled, «Проверить» shows the plan (nothing written) or the 422 inline,
«В очередь» creates the batch and opens it; JSON pasted or uploaded."""

from __future__ import annotations

import json

import pytest

from tests.hub.support import issue, seed_mirror

from .conftest import Api, Open
from .support import element_text

pytestmark = pytest.mark.anyio

BATCH = {
    "title": "сроки",
    "commands": [{"type": "ensure_fields", "params": {"key": "AURORA-1", "duedate": "2026-10-23"}}],
}


async def _batches(api: Api) -> int:
    total: int = (await api.get("/batches")).json()["total"]
    return total


async def test_author_is_prefilled_with_the_token_name(browser: Open) -> None:
    """The form opens with «Автор» = the name of the person's token and a sample batch."""
    person = await browser("interface")
    page = (await person.get("/new")).text
    assert '<input type="text" id="author" name="author" value="interface-token">' in page
    assert '"commands"' in element_text(page, "batch")


async def test_check_shows_the_plan_and_writes_nothing(browser: Open, api: Api) -> None:
    """«Проверить»: each command's plan from the mirror (Terraform-style: ~ field old → new); no batch is made."""
    await seed_mirror(api, [issue("AURORA-1", duedate="2026-10-01")])
    before = await _batches(api)
    person = await browser("interface")
    await person.get("/new")
    response = await person.post("/new/plan", {"author": "Иванов", "batch": json.dumps(BATCH, ensure_ascii=False)})
    assert response.status_code == 200
    assert element_text(response.text, "plan-totals").startswith("Создать: 0, изменить: 1, удалить: 0.")
    assert element_text(response.text, "plan-command-1") == "1. ensure_fields · AURORA-1 ~ срок: 01.10 → 23.10"
    assert element_text(response.text, "plan-command-2") == (
        "2. refresh · AURORA-1 = нет изменений: только чтение Jira в зеркало"
    )
    assert await _batches(api) == before


async def test_check_over_htmx_answers_the_plan_alone(browser: Open, api: Api) -> None:
    """With htmx the plan comes as a fragment for the page's #plan (a refusal too, so htmx swaps it in)."""
    person = await browser("interface")
    await person.get("/new")
    response = await person.post("/new/plan", {"author": "interface-token", "batch": json.dumps(BATCH)}, htmx=True)
    assert response.status_code == 200
    assert "<html" not in response.text
    assert element_text(response.text, "plan-result").startswith("План: сроки Автор interface-token.")
    refused = await person.post("/new/plan", {"batch": '{"title": "x", "commands": []}'}, htmx=True)
    assert refused.status_code == 200
    assert (
        element_text(refused.text, "plan-error")
        == (await api.post("/batches", {"title": "x", "commands": []})).json()["detail"]
    )


async def test_a_refused_batch_is_shown_inline_in_the_seeds_words(browser: Open, api: Api) -> None:
    """A batch the core refuses: 422 with the API's message under the form, the text kept; nothing stored."""
    body = {"title": "t", "commands": [{"type": "ensure_fields", "params": {"key": "AURORA-1", "bogus": 1}}]}
    expected = (await api.post("/batches", {"author": "a", **body})).json()["detail"]
    person = await browser("interface")
    await person.get("/new")
    text = json.dumps(body)
    for path in ("/new/plan", "/new"):
        response = await person.post(path, {"author": "a", "batch": text})
        assert response.status_code == 422
        assert element_text(response.text, "plan-error") == expected
        assert element_text(response.text, "batch") == text
    assert await _batches(api) == 0


async def test_text_that_is_not_json_is_named(browser: Open, api: Api) -> None:
    """Text that is not JSON: the API's 400 message, inline."""
    person = await browser("interface")
    await person.get("/new")
    response = await person.post("/new", {"batch": "{не json"})
    assert response.status_code == 422
    assert element_text(response.text, "plan-error").startswith("тело запроса — не JSON: ")
    assert await _batches(api) == 0


async def test_queue_creates_the_batch_and_opens_it(browser: Open, api: Api) -> None:
    """«В очередь»: the batch is stored with the form's author and the person's token, and its page opens."""
    person = await browser("interface")
    await person.get("/new")
    response = await person.post("/new", {"author": "Петров", "batch": json.dumps({**BATCH, "author": "json"})})
    created = (await api.get("/batches")).json()["items"][0]
    assert response.headers["location"] == f"/batches/{created['id']}"
    assert (created["author"], created["token_name"], created["title"]) == ("Петров", "interface-token", "сроки")
    page = (await person.follow(response)).text
    assert f"пакет {created['id']} поставлен в очередь" in page


async def test_an_uploaded_file_replaces_the_text(browser: Open, api: Api) -> None:
    """A JSON file chosen in the form is the batch (the textarea is ignored)."""
    person = await browser("interface")
    await person.get("/new")
    upload = {"file": ("batch.json", json.dumps({**BATCH, "title": "из файла"}).encode(), "application/json")}
    response = await person.post("/new", {"author": "a", "batch": "ignored"}, files=upload)
    assert response.status_code == 303
    assert (await api.get("/batches")).json()["items"][0]["title"] == "из файла"
