"""Tokens, roles, settings, projects, files and the shape of errors."""

from __future__ import annotations

import hashlib

import pytest
from sqlalchemy import func, select

from adapters.storage.models import ApiTokenRow, BatchRow, CommandRow
from hub_app.bodies.admin import TokenIn
from hub_app.operations import admin
from hub_app.runtime.hub import Hub
from reconcile.vocabulary.errors import ConflictError

from .conftest import Api

pytestmark = pytest.mark.anyio


async def _count(hub: Hub, model: type) -> int:
    async with hub.unit() as unit:
        return await unit.db.session.scalar(select(func.count()).select_from(model)) or 0


async def test_health_answers_without_token(api: Api) -> None:
    """/health is open and says ok when the database answers."""
    response = await api.client.get("/health")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


async def test_missing_token_is_401(api: Api) -> None:
    """No Authorization header → 401 with the error body."""
    response = await api.client.get("/batches")
    assert response.status_code == 401
    assert response.json() == {"status_code": 401, "detail": "нужен заголовок Authorization: Bearer <токен>"}


async def test_unknown_token_is_401(api: Api) -> None:
    """A secret no token has → 401."""
    response = await api.client.get("/batches", headers={"Authorization": "Bearer nope"})
    assert response.status_code == 401
    assert response.json()["detail"] == "токен неизвестен или отозван"


async def test_revoked_token_is_401(api: Api, hub: Hub) -> None:
    """A revoked token no longer opens the API."""
    async with hub.unit() as unit:
        await admin.revoke_token(unit, "interface-token")
    response = await api.get("/batches")
    assert response.status_code == 401
    assert response.json()["detail"] == "токен неизвестен или отозван"


async def test_wrong_role_is_403(api: Api) -> None:
    """An agent token cannot read batches; an interface token cannot claim or change settings."""
    assert (await api.get("/batches", role="agent")).status_code == 403
    response = await api.post("/agent/claim", {"agent_id": "a"})
    assert response.status_code == 403
    assert response.json() == {"status_code": 403, "detail": "роли interface это не разрешено; нужна agent"}
    assert (await api.patch("/settings", {"auto_refresh_minutes": 5}, role="interface")).status_code == 403


async def test_tokens_are_stored_as_sha256(api: Api, hub: Hub) -> None:
    """Only the sha256 of a secret is kept."""
    async with hub.unit() as unit:
        row = await unit.db.session.scalar(select(ApiTokenRow).where(ApiTokenRow.name == "admin-token"))
    assert row is not None
    assert row.sha256 == hashlib.sha256(api.tokens["admin"].encode()).hexdigest()
    assert api.tokens["admin"] not in row.sha256


async def test_duplicate_token_name_conflicts(hub: Hub) -> None:
    """Two tokens cannot share a name."""
    async with hub.unit() as unit:
        await admin.add_token(unit, TokenIn(name="x", role="agent"))
    with pytest.raises(ConflictError, match="токен x уже есть"):
        async with hub.unit() as unit:
            await admin.add_token(unit, TokenIn(name="x", role="admin"))


async def test_settings_patch_is_validated_and_stored(api: Api) -> None:
    """PATCH /settings merges, validates with the core, and persists one JSON row."""
    response = await api.patch("/settings", {"auto_refresh_minutes": 5, "pacing": {"refresh": 0.5}})
    assert response.status_code == 200
    assert response.json()["pacing"]["refresh"] == 0.5
    assert (await api.get("/settings")).json()["auto_refresh_minutes"] == 5
    bad = await api.patch("/settings", {"max_file_bytes": -1})
    assert bad.status_code == 422
    assert bad.json() == {
        "status_code": 422,
        "detail": "настройки: max_file_bytes — положительное целое не больше 9007199254740992",
    }
    unknown = await api.patch("/settings", {"colour": "red"})
    assert unknown.json()["detail"] == "настройки: неизвестные параметры colour"
    assert (await api.get("/settings")).json()["max_file_bytes"] == 104857600


async def test_projects_crud(api: Api) -> None:
    """Projects are created, listed in creation order, patched and deleted by an admin."""
    created = await api.post("/projects", {"name": "AWPCA", "board_id": 4216}, role="admin")
    assert created.status_code == 201
    assert created.json()["board_type"] is None
    await api.post("/projects", {"name": "STOCKS_DRRK"}, role="admin")
    names = [p["name"] for p in (await api.get("/projects")).json()["items"]]
    assert names == ["AWPCA", "STOCKS_DRRK"]
    patched = await api.patch("/projects/AWPCA", {"board_type": "scrum"})
    assert patched.json()["board_type"] == "scrum"
    dup = await api.post("/projects", {"name": "awpca"}, role="admin")
    assert dup.status_code == 409
    assert dup.json()["detail"] == "проект AWPCA уже есть"
    assert (await api.delete("/projects/STOCKS_DRRK")).status_code == 204
    missing = await api.delete("/projects/STOCKS_DRRK")
    assert missing.status_code == 404
    assert missing.json() == {"status_code": 404, "detail": "нет проекта STOCKS_DRRK"}


async def test_project_body_errors(api: Api) -> None:
    """Unknown fields and wrong types in a project body are 422 naming the field."""
    extra = await api.post("/projects", {"name": "A", "colour": 1}, role="admin")
    assert extra.status_code == 422
    assert extra.json()["detail"] == "лишние поля colour; ожидаются name; необязательные board_id, board_type"
    wrong = await api.post("/projects", {"name": "A", "board_id": "4216"}, role="admin")
    assert wrong.json()["detail"] == "board_id — ожидается целое число или null"


async def test_file_upload_is_content_addressed(api: Api, hub: Hub) -> None:
    """POST /files stores the bytes under their sha256; the agent reads them back."""
    content = "ОСВ 60".encode() * 100
    response = await api.client.post("/files?filename=a.xlsx", content=content, headers=api.auth("interface"))
    assert response.status_code == 201
    sha = hashlib.sha256(content).hexdigest()
    assert response.json() == {"sha256": sha, "size": len(content)}
    assert hub.files.path(sha).read_bytes() == content
    got = await api.get(f"/agent/files/{sha}", role="agent")
    assert got.status_code == 200
    assert got.content == content
    assert (await api.get(f"/agent/files/{'0' * 64}", role="agent")).status_code == 404


async def test_file_over_limit_is_413(api: Api) -> None:
    """A file over max_file_bytes → 413, nothing kept."""
    await api.patch("/settings", {"max_file_bytes": 10})
    response = await api.client.post("/files", content=b"x" * 11, headers=api.auth("interface"))
    assert response.status_code == 413
    assert response.json() == {"status_code": 413, "detail": "файл больше max_file_bytes = 10 байт"}


async def test_bad_json_is_400_and_writes_nothing(api: Api, hub: Hub) -> None:
    """A body that is not JSON is a clear 400; nothing is written."""
    response = await api.client.post(
        "/batches", content=b"{not json", headers={**api.auth("interface"), "Content-Type": "application/json"}
    )
    assert response.status_code == 400
    assert response.json()["detail"].startswith("тело запроса — не JSON: ")
    assert await _count(hub, BatchRow) == 0
    assert await _count(hub, CommandRow) == 0


async def test_oversized_json_body_is_413(api: Api, hub: Hub) -> None:
    """A JSON body over the API's limit is refused with 413."""
    big = b'{"author": "' + b"x" * (11 * 1024 * 1024) + b'"}'
    response = await api.client.post(
        "/batches", content=big, headers={**api.auth("interface"), "Content-Type": "application/json"}
    )
    assert response.status_code == 413
    assert response.json()["status_code"] == 413
    assert await _count(hub, BatchRow) == 0


async def test_unknown_route_and_method(api: Api) -> None:
    """404 and 405 come in the same error shape."""
    missing = await api.get("/nowhere")
    assert missing.status_code == 404
    assert set(missing.json()) == {"status_code", "detail"}
    wrong = await api.client.put("/batches", headers=api.auth("interface"))
    assert wrong.status_code == 405
    assert set(wrong.json()) == {"status_code", "detail"}


async def test_schema_is_served(api: Api) -> None:
    """The OpenAPI document is at /schema."""
    response = await api.client.get("/schema/openapi.json")
    assert response.status_code == 200
    assert "/batches" in response.json()["paths"]


async def test_bad_query_and_path_parameters_are_400(api: Api) -> None:
    """A non-integer limit or id is a 400 that names the parameter."""
    response = await api.get("/batches?limit=many")
    assert response.status_code == 400
    assert set(response.json()) == {"status_code", "detail"}
    assert "limit" in response.json()["detail"]
    negative = await api.get("/batches?limit=-1")
    assert negative.status_code == 422
    assert negative.json()["detail"] == "limit — ожидается неотрицательное целое"
    assert (await api.get("/batches/abc")).status_code == 404
    missing = await api.get("/batches/12345")
    assert missing.json() == {"status_code": 404, "detail": "пакета 12345 нет"}


async def test_tokens_over_http(api: Api) -> None:
    """An admin adds, lists and revokes tokens over HTTP; the new secret works at once and stops after revoke."""
    created = await api.post("/tokens", {"name": "web", "role": "interface"}, role="admin")
    assert created.status_code == 201
    secret = created.json()["secret"]
    assert (await api.client.get("/batches", headers={"Authorization": f"Bearer {secret}"})).status_code == 200
    names = [t["name"] for t in (await api.get("/tokens", role="admin")).json()["items"]]
    assert "web" in names
    assert (await api.get("/tokens", role="interface")).status_code == 403
    bad = await api.post("/tokens", {"name": "x", "role": "root"}, role="admin")
    assert bad.status_code == 422
    assert bad.json()["detail"] == "роль root неизвестна; ожидаются agent, interface, admin"
    revoked = await api.delete("/tokens/web", role="admin")
    assert revoked.json()["revoked_at"] == "2026-10-22T09:00:00Z"
    assert (await api.client.get("/batches", headers={"Authorization": f"Bearer {secret}"})).status_code == 401
