"""Every form follows the API's text rule (DESIGN.md 3): a NUL in a note, «Автор», the project form, a reason,
the settings is refused with the API's own message «недопустимый символ в <поле>» next to the form, and nothing
is stored (on PostgreSQL a NUL would otherwise be a 500, on SQLite a stored NUL). A field that is not UTF-8 is a
422 too, never a U+FFFD stored nor a 500."""

from __future__ import annotations

import json

import pytest

from tests.hub.support import create_ok, issue, seed_mirror
from tests.support import cmd

from .conftest import Api, Open
from .support import HTML, element_text

pytestmark = pytest.mark.anyio

NUL = "a\x00b"


def _message(page: str) -> str:
    """The first message the page shows (what the form's redirect left for it)."""
    start = page.index('<p class="message')
    return page[page.index(">", start) + 1 : page.index("</p>", start)]


async def test_a_note_with_a_nul_is_refused_inline(browser: Open, api: Api) -> None:
    """«Добавить заметку» with a NUL: 422, the API's message under the form, no note."""
    await seed_mirror(api, [issue("AURORA-1")])
    expected = (await api.post("/notes", {"key": "AURORA-1", "text": NUL})).json()["detail"]
    assert expected == "недопустимый символ в text"
    person = await browser("interface")
    await person.get("/issues/AURORA-1")
    response = await person.post("/issues/AURORA-1/notes", {"text": NUL})
    assert response.status_code == 422
    assert element_text(response.text, "note-error") == expected
    assert (await api.get("/notes")).json()["total"] == 0


async def test_an_author_with_a_nul_is_refused_inline(browser: Open, api: Api) -> None:
    """«В очередь» with a NUL in «Автор»: 422 «недопустимый символ в author» in the form, no batch."""
    body = {"title": "t", "commands": [cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23")]}
    expected = (await api.post("/batches", {**body, "author": NUL})).json()["detail"]
    assert expected == "недопустимый символ в author"
    person = await browser("interface")
    await person.get("/new")
    response = await person.post("/new", {"author": NUL, "batch": json.dumps(body)})
    assert response.status_code == 422
    assert element_text(response.text, "editor-summary") == expected
    assert (await api.get("/batches")).json()["total"] == 0


@pytest.mark.parametrize(
    ("path", "fields", "expected"),
    [
        ("/projects", {"name": NUL}, "недопустимый символ в name"),
        ("/projects/AWPCA/edit", {"board_id": "", "board_type": NUL}, "недопустимый символ в board_type"),
    ],
)
async def test_the_project_form_with_a_nul_is_refused(
    browser: Open, api: Api, path: str, fields: dict[str, str], expected: str
) -> None:
    """The project form with a NUL: the API's message on the page, the projects as they were."""
    assert (await api.post("/projects", {"name": "AWPCA", "board_id": 7}, role="admin")).status_code == 201
    before = (await api.get("/projects")).json()
    person = await browser("admin")
    await person.get("/projects")
    response = await person.post(path, fields)
    assert _message((await person.follow(response)).text) == expected
    assert (await api.get("/projects")).json() == before


async def test_a_reason_with_a_nul_is_refused(browser: Open, api: Api) -> None:
    """«Отклонить» with a NUL in the reason: the API's message, the batch still waits."""
    assert (await api.patch("/settings", {"approval": {"http": True}})).status_code == 200
    batch = await create_ok(api, [cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23")])
    expected = (await api.post(f"/batches/{batch['id']}/reject", {"reason": NUL}, role="admin")).json()["detail"]
    assert expected == "недопустимый символ в reason"
    person = await browser("admin")
    await person.get(f"/batches/{batch['id']}")
    response = await person.post(f"/batches/{batch['id']}/reject", {"reason": NUL})
    assert _message((await person.follow(response)).text) == expected
    assert (await api.get(f"/batches/{batch['id']}")).json()["approval"]["state"] == "pending"


async def test_settings_with_a_nul_are_refused_inline(browser: Open, api: Api) -> None:
    """Settings whose JSON holds a NUL: 422 with the API's message under the form; nothing changes."""
    before = (await api.get("/settings")).json()
    text = '{"jira_project": "A\\u0000B"}'
    expected = (await api.patch("/settings", json.loads(text))).json()["detail"]
    assert expected == "недопустимый символ в jira_project"
    person = await browser("admin")
    await person.get("/settings")
    response = await person.post("/settings", {"settings": text})
    assert response.status_code == 422
    assert element_text(response.text, "settings-error") == expected
    assert (await api.get("/settings")).json() == before


async def test_a_field_that_is_not_utf8_is_refused(browser: Open, api: Api) -> None:
    """A note whose bytes are not UTF-8, urlencoded or multipart: 422 naming where, no note stored."""
    person = await browser("interface")
    await person.get("/issues/AURORA-1")
    token = person.csrf()
    encoded = await person.client.post(
        "/issues/AURORA-1/notes",
        content=b"text=a%FFb&_csrf_token=" + token.encode(),
        headers={**HTML, "Content-Type": "application/x-www-form-urlencoded"},
    )
    assert encoded.status_code == 422
    assert element_text(encoded.text, "error") == "недопустимый символ в text"
    multipart = await person.client.post(
        "/issues/AURORA-1/notes", files={"text": (None, b"a\xffb"), "_csrf_token": (None, token)}, headers=HTML
    )
    assert multipart.status_code == 422
    assert element_text(multipart.text, "error") == "недопустимый символ в теле запроса"
    assert (await api.get("/notes")).json()["total"] == 0


@pytest.mark.parametrize("target", ["/\r\nSet-Cookie: x=1", "/a\x00b", "/\x7f"])
async def test_login_never_goes_to_a_place_with_control_characters(browser: Open, api: Api, target: str) -> None:
    """A ``next`` with a control character (a header split, a NUL) is replaced by /."""
    person = await browser("")
    await person.get("/login")
    response = await person.post("/login", {"token": api.tokens["interface"], "next": target})
    assert response.status_code == 303
    assert response.headers["location"] == "/"
