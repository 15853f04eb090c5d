"""``PATCH /settings`` merges and validates the whole (DESIGN.md 3); ``max_batch_commands`` bounds a batch."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import func, select

from adapters.storage.models import BatchRow, CommandRow
from hub_app.runtime.hub import Hub
from reconcile.config.settings import DEFAULT_PACING
from tests.support import cmd

from .conftest import Api
from .support import assert_refused, create, create_ok

pytestmark = pytest.mark.anyio


async def _stored(hub: Hub) -> tuple[int, int]:
    async with hub.unit() as unit:
        batches = await unit.db.session.scalar(select(func.count()).select_from(BatchRow)) or 0
        commands = await unit.db.session.scalar(select(func.count()).select_from(CommandRow)) or 0
        return batches, commands


async def _settings(api: Api) -> dict[str, Any]:
    response = await api.get("/settings")
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


async def test_a_partial_pacing_keeps_the_other_gaps(api: Api) -> None:
    """Lengthened gaps survive a later PATCH naming another one (the README's own example)."""
    first = await api.patch("/settings", {"pacing": {"ensure_issue": 300, "ensure_comment": 300}})
    assert first.status_code == 200, first.text
    second = await api.patch("/settings", {"pacing": {"ensure_fields": 60}})
    assert second.status_code == 200, second.text
    expected = {**DEFAULT_PACING, "ensure_issue": 300, "ensure_comment": 300, "ensure_fields": 60}
    assert second.json()["pacing"] == expected
    assert (await _settings(api))["pacing"] == expected


async def test_null_restores_a_default_and_removes_an_entry(api: Api) -> None:
    """``{"pacing": null}`` restores every gap; ``{"link_types": {"x": null}}`` removes one link type."""
    await api.patch("/settings", {"pacing": {"refresh": 9}, "link_types": {"дублирует": "Дублирует"}})
    response = await api.patch("/settings", {"pacing": None, "link_types": {"связанные": None}})
    assert response.status_code == 200, response.text
    stored = await _settings(api)
    assert stored["pacing"] == DEFAULT_PACING
    assert stored["link_types"] == {"блокирует начало": "Блокирует начало", "дублирует": "Дублирует"}


async def test_an_error_anywhere_changes_nothing(api: Api) -> None:
    """One bad value among good ones → 422 and every setting stays as it was."""
    before = await _settings(api)
    response = await api.patch("/settings", {"pacing": {"refresh": 1}, "claim_wait_seconds": 0, "jira_project": "X"})
    assert response.status_code == 422, response.text
    assert response.json() == {
        "status_code": 422,
        "detail": "настройки: claim_wait_seconds — положительное число не больше 3600",
    }
    assert await _settings(api) == before


async def test_settings_answer_max_batch_commands(api: Api) -> None:
    """The default limit is 5 000 and an admin may change it."""
    assert (await _settings(api))["max_batch_commands"] == 5000
    response = await api.patch("/settings", {"max_batch_commands": 2})
    assert response.json()["max_batch_commands"] == 2


async def test_a_batch_over_the_limit_is_refused(api: Api, hub: Hub) -> None:
    """More commands than ``max_batch_commands`` → 422 «в пакете N команд; не больше M», nothing written."""
    await api.patch("/settings", {"max_batch_commands": 2})
    commands = [cmd("ensure_fields", key=f"AURORA-{n}", duedate="2026-10-23") for n in (1, 2, 3)]
    assert_refused(await create(api, commands), "в пакете 3 команд; не больше 2", batch=True)
    assert await _stored(hub) == (0, 0)
    dry = await api.post("/batches?dry_run=true", {"author": "a", "title": "t", "commands": commands})
    assert_refused(dry, "в пакете 3 команд; не больше 2", batch=True)
    created = await create_ok(api, commands[:2])
    assert len(created["commands"]) == 3  # the limit counts the body's commands, not the tail refresh


async def test_the_default_limit_refuses_a_huge_batch_before_reading_it(api: Api, hub: Hub) -> None:
    """5 001 commands (each invalid) → the size 422 first, nothing written."""
    commands = [{"type": "nonsense"}] * 5001
    response = await create(api, commands)
    assert response.status_code == 422, response.text
    assert response.json()["detail"] == "в пакете 5001 команд; не больше 5000"
    assert await _stored(hub) == (0, 0)
