"""One issue: its fields and links, the hub's notes with «Добавить заметку», and its journal."""

from __future__ import annotations

import pytest

from tests.hub.support import claim_ok, done, issue, link

from .conftest import Api, Open
from .support import cells, element_text

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
