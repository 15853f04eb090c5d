"""«Новый пакет»'s JSON: the author prefilled in the editor's one «Автор»; a form posting the JSON is checked (the plan,
nothing written, or the 422 inline) or queued (the batch's page opens); JSON pasted or uploaded opens in the
editor."""

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
    """The page opens with its one «Автор» = the name of the person's token, in the editor and in the JSON."""
    person = await browser("interface")
    page = (await person.get("/new")).text
    assert '<input type="text" id="editor-author" name="author" value="interface-token">' in page
    assert 'id="author"' not in page
    assert json.loads(element_text(page, "batch"))["author"] == "interface-token"


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
    """A batch the core refuses: 422 with the API's message beside its command (its parameter ids in the labels on
    screen), the text kept; nothing stored."""
    body = {"title": "t", "commands": [{"type": "ensure_fields", "params": {"key": "AURORA-1", "bogus": 1}}]}
    expected = (await api.post("/batches", {"author": "a", **body})).json()["detail"]
    assert expected.endswith(
        "; ожидаются key; необязательные summary, description, priority, duedate, "
        + ("planned_start, planned_end, labels_add, labels_remove, epic_key, assignee")
    )
    person = await browser("interface")
    await person.get("/new")
    text = json.dumps(body)
    for path in ("/new/plan", "/new"):
        response = await person.post(path, {"author": "a", "batch": text})
        assert response.status_code == 422
        shown = element_text(response.text, "cmd-1-errors")
        assert shown.startswith(
            "команда 1 (ensure_fields): лишние параметры bogus; ожидаются «Задача»; необязательные «Тема»"
        )
        assert element_text(response.text, "batch") == text
    assert await _batches(api) == 0


async def test_text_that_is_not_json_is_named(browser: Open, api: Api) -> None:
    """Text that is not JSON: the API's 400 message, inline."""
    person = await browser("interface")
    await person.get("/new")
    response = await person.post("/new", {"batch": "{не json"})
    assert response.status_code == 422
    assert element_text(response.text, "editor-summary").startswith("тело запроса — не JSON: ")
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


async def test_an_uploaded_json_file_opens_in_the_editor(browser: Open) -> None:
    """«Открыть в редакторе» of a chosen JSON file (no JavaScript): its commands in the editor, its author kept."""
    person = await browser("interface")
    await person.get("/new")
    upload = {"file": ("batch.json", json.dumps({**BATCH, "author": "Петров"}).encode(), "application/json")}
    page = (await person.post("/new/edit", {"op": "load", "batch": ""}, files=upload)).text
    assert element_text(page, "cmd-1").startswith("1. Поля задачи ensure_fields")
    assert '<input type="text" id="editor-author" name="author" value="Петров">' in page


async def test_json_that_is_no_object_is_refused_as_the_api_refuses_it(browser: Open, api: Api) -> None:
    """A JSON view that is no object (a list): the API's 422 message, the editor left as it was."""
    expected = (await api.post("/batches", [1])).json()["detail"]
    person = await browser("interface")
    await person.get("/new")
    response = await person.post("/new/edit", {"op": "load", "batch": "[1]"}, htmx=True)
    assert element_text(response.text, "editor-summary") == expected
    assert response.headers["hx-reswap"] == "none"
