"""One issue: its fields and links, the hub's notes with «Добавить заметку», and its journal."""

from __future__ import annotations

import pytest

from tests.hub.support import claim_ok, cmd, create_ok, done, issue, link

from .conftest import Api, Open
from .support import cells, element_text, has_element

pytestmark = pytest.mark.anyio


async def _mirror(api: Api) -> None:
    """AURORA-1 with a link and one journal entry, as a refresh with history delivers them."""
    response = await api.post("/refresh", {"keys": ["AURORA-1"]})
    assert response.status_code == 201, response.text
    delivery = await claim_ok(api)
    history = {
        "key": "AURORA-1",
        "id": "501",
        "created": "2026-10-21T08:00:00Z",
        "author": "petrov",
        "items": [
            {"field": "duedate", "from": None, "from_string": "2026-10-20", "to": None, "to_string": "2026-10-23"}
        ],
    }
    record = issue("AURORA-1", summary="Сверка", links=[link("10007", "Связанные", "AURORA-1", "AURORA-2")])
    page = {"page": 1, "kind": "issues", "issues": [record], "history": [history]}
    assert (await api.pages(delivery["id"], page)).status_code == 200
    await done(api, delivery["id"], {"issues": 1, "neighbours": 0, "boards": {}})


async def test_issue_page_shows_links_notes_and_journal(browser: Open, api: Api) -> None:
    """Links as source → target, notes with author and time, the journal's changes with who and when."""
    await _mirror(api)
    await api.post("/notes", {"key": "AURORA-1", "text": "проверить с бухгалтерией"})
    person = await browser("interface")
    page = (await person.get("/issues/AURORA-1")).text
    assert element_text(page, "title") == "AURORA-1: Сверка"
    assert cells(page, "links")[1:] == [["AURORA-1", "Связанные", "AURORA-2"]]
    assert element_text(page, "notes") == "проверить с бухгалтерией — interface-token, 22.10.2026 09:00:00 UTC"
    assert cells(page, "journal")[1:] == [["21.10.2026 08:00:00 UTC", "petrov", "Срок", "20.10.2026", "23.10.2026"]]


async def test_add_a_note(browser: Open, api: Api) -> None:
    """«Добавить заметку» stores the note under the person's token and shows it."""
    await _mirror(api)
    person = await browser("interface")
    await person.get("/issues/AURORA-1")
    response = await person.post("/issues/AURORA-1/notes", {"text": "срок сдвинут"})
    page = (await person.follow(response)).text
    assert "заметка добавлена" in page
    assert element_text(page, "notes").startswith("срок сдвинут — interface-token")
    notes = (await api.get("/notes", params={"key": "AURORA-1"})).json()["items"]
    assert [(n["text"], n["author"]) for n in notes] == [("срок сдвинут", "interface-token")]


async def test_an_empty_note_is_refused_inline(browser: Open, api: Api) -> None:
    """An empty note: 422 with the API's message under the form; nothing stored."""
    await _mirror(api)
    person = await browser("interface")
    await person.get("/issues/AURORA-1")
    response = await person.post("/issues/AURORA-1/notes", {"text": "  "})
    assert response.status_code == 422
    assert element_text(response.text, "note-error") == "text — ожидается непустая строка"
    assert (await api.get("/notes")).json()["total"] == 0


async def test_an_issue_not_in_the_mirror_is_named(browser: Open) -> None:
    """A key the mirror does not hold: 404 «Задачи … ещё нет в зеркале» with «Обновить из Jira»."""
    person = await browser("interface")
    response = await person.get("/issues/AURORA-404")
    assert response.status_code == 404
    assert element_text(response.text, "missing-text").startswith("Задачи AURORA-404 ещё нет в зеркале")


async def test_the_issue_lists_the_commands_that_touched_it(browser: Open, api: Api) -> None:
    """Issue 32, on both databases: the commands that wrote to the issue — by key, through a temp key its batch
    created it under, and the ensure_issue that created it — newest batch first, each with its batch, status and
    outcome; a tail refresh only reads (not listed), an issue whose key only contains this one's is another."""
    await api.patch("/settings", {"issue_types": {"task": {"name": "Задача"}}}, role="admin")
    first = await create_ok(api, [cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23")], title="Срок")
    await done(api, (await claim_ok(api))["id"], {"changed": ["duedate"]})
    await done(api, (await claim_ok(api))["id"], {"issues": 0, "neighbours": 0, "boards": {}})
    await create_ok(api, [cmd("ensure_fields", key="AURORA-10", duedate="2026-10-23")], title="Другая")
    await done(api, (await claim_ok(api))["id"], {"changed": []})
    await done(api, (await claim_ok(api))["id"], {"issues": 0, "neighbours": 0, "boards": {}})
    created = await create_ok(
        api,
        [
            cmd("ensure_issue", temp_key="new:1", summary="Новая"),
            cmd("ensure_link", source="new:1", target="AURORA-1", link_type="связанные"),
        ],
        title="Связь",
    )
    await done(api, (await claim_ok(api))["id"], {"key": "AURORA-77"})
    link_command = await claim_ok(api)
    await api.report(link_command["id"], {"status": "failed", "error": "HTTP 400: нет такой связи"})
    await _mirror(api)
    person = await browser("interface")
    page = (await person.get("/issues/AURORA-1")).text
    rows = [[row[0].split(" ")[0], *row[1:3], row[4]] for row in cells(page, "touches")[1:]]
    assert rows == [
        [str(created["id"]), "2. Связь ensure_link", "ошибка", "HTTP 400: нет такой связи"],
        [str(first["id"]), "1. Поля задачи ensure_fields", "выполнена", "срок → 23.10.2026"],
    ]
    assert f'<a href="/commands/{link_command["id"]}" title="команда {link_command["id"]}">' in page
    assert not has_element(page, "more-touches")
