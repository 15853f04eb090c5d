"""Poisoned input never reaches storage (DESIGN.md 3): invalid text, NUL, non-finite numbers, deep nesting and
integers beyond the database's range answer 4xx naming where, and nothing is written."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import func, select

from adapters.storage.models import BatchRow, CommandRow, FileRow, NoteRow, SettingsRow
from hub_app.runtime.hub import Hub
from tests.support import cmd

from .conftest import Api
from .support import assert_refused, claim_ok, create_ok, issue

pytestmark = pytest.mark.anyio

BIG = 864481332306533285888
SURROGATE = "\udfff"


async def _rows(hub: Hub) -> tuple[int, ...]:
    async with hub.unit() as unit:
        return tuple(
            [
                await unit.db.session.scalar(select(func.count()).select_from(model)) or 0
                for model in (BatchRow, CommandRow, NoteRow, FileRow, SettingsRow)
            ]
        )


def _raw(body: Any) -> bytes:
    """JSON as a client may send it: lone surrogates escaped, NaN and Infinity as bare words."""
    return json.dumps(body).encode()


async def _send(api: Api, method: str, path: str, body: Any, role: str = "interface") -> Any:
    headers = {**api.auth(role), "Content-Type": "application/json"}
    return await api.client.request(method, path, content=_raw(body), headers=headers)


async def _refused(
    api: Api, hub: Hub, request: tuple[str, str, Any], status: int, detail: str, *, batch: bool = False, **kw: Any
) -> None:
    """Refused (``batch``: by a batch's validation, else before or outside it), nothing written."""
    method, path, body = request
    before = await _rows(hub)
    assert_refused(await _send(api, method, path, body, **kw), detail, batch=batch, status=status)
    assert await _rows(hub) == before


def _batch(**params: Any) -> dict[str, Any]:
    return {"author": "planner", "title": "план", "commands": [cmd("ensure_comment", **params)]}


@pytest.mark.parametrize("bad", [SURROGATE, "a\x00b"])
async def test_bad_text_in_a_parameter(api: Api, hub: Hub, bad: str) -> None:
    """A lone surrogate or a NUL in a command's parameter → 422 naming it; no batch is stored."""
    body = _batch(key="AURORA-1", marker="[план]", body=bad)
    await _refused(api, hub, ("POST", "/batches", body), 422, "недопустимый символ в commands[0].params.body")
    assert (await api.get("/batches")).json() == {"items": [], "total": 0}


@pytest.mark.parametrize(
    ("body", "where"),
    [
        ({**_batch(key="AURORA-1", marker="m", body="b"), "title": "a\x00b"}, "title"),
        ({**_batch(key="AURORA-1", marker="m", body="b"), "author": SURROGATE}, "author"),
        (
            {**_batch(key="AURORA-1", marker="m", body="b"), "notes": [{"key": "AURORA-1", "text": "\x00"}]},
            "notes[0].text",
        ),
        ({**_batch(key="AURORA-1", marker="m", body="b"), SURROGATE: 1}, "теле запроса"),
    ],
)
async def test_bad_text_anywhere_in_a_batch(api: Api, hub: Hub, body: dict[str, Any], where: str) -> None:
    """Titles, authors, notes and even keys of the body are checked the same way."""
    await _refused(api, hub, ("POST", "/batches", body), 422, f"недопустимый символ в {where}")


async def test_bad_text_in_a_dry_run(api: Api, hub: Hub) -> None:
    """``?dry_run=true`` refuses the same body with the same message."""
    body = _batch(key="AURORA-1", marker="[план]", body=SURROGATE)
    await _refused(
        api, hub, ("POST", "/batches?dry_run=true", body), 422, "недопустимый символ в commands[0].params.body"
    )


async def test_bad_text_in_a_note(api: Api, hub: Hub) -> None:
    """``POST /notes`` with a NUL in the text → 422, no note."""
    await _refused(
        api, hub, ("POST", "/notes", {"key": "AURORA-1", "text": "a\x00"}), 422, "недопустимый символ в text"
    )


async def test_bad_text_in_a_refresh(api: Api, hub: Hub) -> None:
    """``POST /refresh`` with a surrogate in a key → 422 naming ``keys[0]``."""
    await _refused(api, hub, ("POST", "/refresh", {"keys": [SURROGATE]}), 422, "недопустимый символ в keys[0]")


async def test_bad_text_in_settings(api: Api, hub: Hub) -> None:
    """``PATCH /settings`` with a NUL in a link type name → 422; the settings stay."""
    body = {"link_types": {"связанные": "a\x00"}}
    await _refused(
        api, hub, ("PATCH", "/settings", body), 422, "недопустимый символ в link_types.связанные", role="admin"
    )


async def test_bad_text_in_a_report(api: Api, hub: Hub) -> None:
    """An agent's report with a surrogate in its error → 422; the command stays claimed."""
    await create_ok(api, [cmd("ensure_comment", key="AURORA-1", marker="m", body="b")])
    delivery = await claim_ok(api)
    body = {"status": "failed", "error": SURROGATE, "jira_calls": 1, "operations": []}
    path = f"/agent/commands/{delivery['id']}/report"
    await _refused(api, hub, ("POST", path, body), 422, "недопустимый символ в error", role="agent")
    assert (await api.get(f"/commands/{delivery['id']}")).json()["status"] == "claimed"


@pytest.mark.parametrize("bad", ["%ED%BF%BF", "a%00b"])
async def test_bad_text_in_a_file_name(api: Api, hub: Hub, bad: str) -> None:
    """``POST /files?filename=`` with invalid UTF-8 or a NUL → 422, no file recorded."""
    before = await _rows(hub)
    response = await api.client.post(f"/files?filename={bad}", content=b"data", headers=api.auth("interface"))
    assert response.status_code == 422, response.text
    assert response.json() == {"status_code": 422, "detail": "недопустимый символ в filename"}
    assert await _rows(hub) == before


@pytest.mark.parametrize(
    ("method", "path", "where"),
    [
        ("GET", "/issues?project=a%00b", "project"),
        ("GET", "/notes?key=%ED%BF%BF", "key"),
        ("GET", "/notes?%00=1", "имени параметра запроса"),
        ("GET", "/issues/AURORA-1%00", "пути запроса"),
        ("GET", "/issues/%ED%BF%BF/history", "пути запроса"),
        ("DELETE", "/projects/a%00b", "пути запроса"),
        ("DELETE", "/tokens/a%00b", "пути запроса"),
    ],
)
async def test_bad_text_in_a_path_or_query(api: Api, method: str, path: str, where: str) -> None:
    """Paths and query strings are text too: a NUL or invalid UTF-8 → 422 naming where."""
    response = await api.client.request(method, path, headers=api.auth("admin"))
    assert response.status_code == 422, response.text
    assert response.json() == {"status_code": 422, "detail": f"недопустимый символ в {where}"}


@pytest.mark.parametrize(
    ("body", "where"),
    [
        ({"pacing": {"ensure_comment": float("nan")}}, "pacing.ensure_comment"),
        ({"claim_wait_seconds": float("inf")}, "claim_wait_seconds"),
        ({"auto_refresh_minutes": float("-inf")}, "auto_refresh_minutes"),
    ],
)
async def test_non_finite_numbers_in_settings(api: Api, hub: Hub, body: dict[str, Any], where: str) -> None:
    """NaN and ±Infinity → 422 «недопустимое число в <путь>»; the settings stay and batches still work."""
    await _refused(api, hub, ("PATCH", "/settings", body), 422, f"недопустимое число в {where}", role="admin")
    await create_ok(api, [cmd("ensure_comment", key="AURORA-1", marker="m", body="b")])


async def test_non_finite_number_in_a_claim(api: Api, hub: Hub) -> None:
    """A claim's ``wait: Infinity`` → 422 before anything is registered."""
    body = {"agent_id": "agent-1", "wait": float("inf")}
    await _refused(api, hub, ("POST", "/agent/claim", body), 422, "недопустимое число в wait", role="agent")
    assert (await api.get("/agent-status")).json()["agent_id"] is None


async def test_deep_nesting_is_400(api: Api, hub: Hub) -> None:
    """1 000 levels of nesting in ``commands`` → 400, nothing written."""
    raw = b'{"author": "a", "title": "t", "commands": ' + b"[" * 1000 + b"]" * 1000 + b"}"
    before = await _rows(hub)
    headers = {**api.auth("interface"), "Content-Type": "application/json"}
    response = await api.client.post("/batches", content=raw, headers=headers)
    assert response.status_code == 400, response.text
    assert response.json()["detail"] == "тело запроса — не JSON: вложенность JSON глубже 64"
    assert await _rows(hub) == before


@pytest.mark.parametrize("depth", [65, 100_000])
async def test_nesting_just_past_the_limit_is_400(api: Api, depth: int) -> None:
    """65 levels (within the parser, past the limit) and 100 000 (past the parser) → the same 400."""
    raw = b"[" * depth + b"]" * depth
    headers = {**api.auth("interface"), "Content-Type": "application/json"}
    response = await api.client.post("/batches", content=raw, headers=headers)
    assert response.status_code == 400, response.text
    assert response.json()["detail"] == "тело запроса — не JSON: вложенность JSON глубже 64"


@pytest.mark.parametrize(
    ("method", "path", "role"),
    [
        ("GET", f"/batches/{BIG}", "interface"),
        ("GET", "/batches/0", "interface"),
        ("GET", "/batches/2147483648", "interface"),
        ("POST", f"/batches/{BIG}/cancel", "interface"),
        ("GET", f"/commands/{BIG}", "interface"),
        ("POST", f"/commands/{BIG}/cancel", "interface"),
        ("POST", f"/commands/{BIG}/retry", "interface"),
        ("POST", f"/agent/commands/{BIG}/report", "agent"),
        ("POST", f"/agent/commands/{BIG}/pages", "agent"),
    ],
)
async def test_ids_beyond_the_database_are_not_found(api: Api, method: str, path: str, role: str) -> None:
    """An id no row can have → 404 (never a 500 from the database)."""
    bodies = {
        "report": {"status": "done", "result": {}, "jira_calls": 0, "operations": []},
        "pages": {"page": 1, "kind": "issues", "issues": [], "history": []},
    }
    body = next((b for name, b in bodies.items() if path.endswith(name)), {} if method == "POST" else None)
    headers = api.auth(role)
    response = await api.client.request(method, path, json=body, headers=headers)
    assert response.status_code == 404, response.text
    assert response.json()["status_code"] == 404


@pytest.mark.parametrize(
    "path",
    [
        f"/batches?offset={BIG}",
        f"/batches?limit={BIG}",
        "/batches?offset=-1",
        f"/issues?offset={BIG}",
        f"/notes?limit={BIG}",
        f"/issues/AURORA-1/history?offset={BIG}",
    ],
)
async def test_offsets_beyond_reason_are_422(api: Api, path: str) -> None:
    """``?limit`` or ``?offset`` negative or beyond 2**53 → 422 naming it."""
    response = await api.get(path)
    assert response.status_code == 422, response.text
    name = "offset" if "offset" in path else "limit"
    assert response.json() == {"status_code": 422, "detail": f"{name} — ожидается неотрицательное целое"}


async def test_board_id_beyond_the_database_is_422(api: Api, hub: Hub) -> None:
    """A project's ``board_id`` beyond the integer column → 422, no project."""
    response = await api.client.post("/projects", json={"name": "AWPCA", "board_id": BIG}, headers=api.auth("admin"))
    assert response.status_code == 422, response.text
    assert response.json()["detail"] == "board_id — ожидается целое число или null"
    assert (await api.get("/projects")).json() == {"items": [], "total": 0}


@pytest.mark.parametrize(
    ("request_", "role", "detail"),
    [
        (
            ("POST", "/batches", _batch(key="A-" + "1" * 70, marker="m", body="b")),
            "interface",
            "команда 1 (ensure_comment): key — ожидается ключ задачи Jira (AURORA-1538) или временный ключ new:<n> "
            "этого пакета",
        ),
        (
            ("POST", "/notes", {"key": "A-" + "1" * 70, "text": "x"}),
            "interface",
            "key — ожидается ключ задачи Jira (AURORA-1538); new:<n> — только в пакете",
        ),
        (
            ("POST", "/projects", {"name": "P" * 256}),
            "admin",
            f"недопустимое имя проекта: «{'P' * 60}…» длиннее 255 символов",
        ),
        (
            ("POST", "/agent/claim", {"agent_id": "agent-1", "instance": "i" * 65}),
            "agent",
            "instance — ожидается непустая строка не длиннее 64 символов",
        ),
    ],
)
async def test_texts_longer_than_the_hub_keeps(
    api: Api, hub: Hub, request_: tuple[str, str, Any], role: str, detail: str
) -> None:
    """Keys, project names and instances longer than their columns → 422 (on PostgreSQL too), nothing written."""
    await _refused(api, hub, request_, 422, detail, batch=request_[1] == "/batches", role=role)


async def test_a_temp_key_longer_than_the_hub_keeps(api: Api, hub: Hub) -> None:
    """``new:`` with more than 9 digits is no temp key → 422, nothing written."""
    body = {"author": "a", "title": "t", "commands": [cmd("ensure_issue", temp_key="new:" + "1" * 10, summary="x")]}
    await _refused(
        api,
        hub,
        ("POST", "/batches", body),
        422,
        "команда 1 (ensure_issue): temp_key — ожидается временный ключ new:<n>",
        batch=True,
    )


@pytest.mark.parametrize(
    ("record", "detail"),
    [
        ({"key": "A-" + "1" * 70}, "issues[0]: key — длиннее 60 символов"),
        ({"duedate": "9" * 41}, "issues[0]: duedate — длиннее 40 символов"),
        (
            {"links": [{"id": "1" * 61, "type": "Связанные", "source": "AURORA-1", "target": "AURORA-2"}]},
            "issues[0]: links[0].id — длиннее 60 символов",
        ),
    ],
)
async def test_a_page_with_a_record_too_long_is_422(api: Api, record: dict[str, Any], detail: str) -> None:
    """A refresh page whose record does not fit the mirror's columns → 422 naming it; the mirror stays empty."""
    await api.post("/refresh", {"keys": ["AURORA-1"]})
    delivery = await claim_ok(api)
    page = {"page": 1, "kind": "issues", "issues": [{**issue("AURORA-1"), **record}], "history": []}
    response = await api.pages(delivery["id"], page)
    assert response.status_code == 422, response.text
    assert response.json() == {"status_code": 422, "detail": detail}
    assert (await api.get("/issues")).json()["total"] == 0


async def test_a_report_with_numbers_beyond_the_database(api: Api) -> None:
    """A refresh report with ``issues`` and board ids no column holds is recorded without them (no 500)."""
    await api.post("/projects", {"name": "AWPCA", "board_id": 5120}, role="admin")
    await api.post("/refresh", {})
    delivery = await claim_ok(api)
    result = {"issues": 10**12, "neighbours": 0, "boards": {"²": "scrum", "99999999999": "kanban", "5120": "scrum"}}
    response = await api.report(delivery["id"], {"status": "done", "result": result, "jira_calls": 1})
    assert response.status_code == 200, response.text
    assert (await api.get("/projects")).json()["items"][0]["board_type"] == "scrum"
