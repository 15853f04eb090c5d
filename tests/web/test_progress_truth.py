"""Progress that tells the truth (DESIGN.md 8, round 3): the bar split by status, the batch's state in words,
each command's duration, the wait really left before the agent writes, and the plan's estimate."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.hub.support import claim_ok, cmd, create_ok, done

from .conftest import Api, Clock, Open
from .support import cells, element_text

pytestmark = pytest.mark.anyio

_RECT = re.compile(r'<rect class="bar-(\w+)" data-count="(\d+)" x="([\d.]+)" y="0" width="([\d.]+)"')


def bar_parts(html: str) -> list[tuple[str, int, float]]:
    """The bar's coloured parts in the page (part, commands, width in percent)."""
    return [(part, int(count), float(width)) for part, count, _, width in _RECT.findall(html)]


def state_word(html: str) -> str:
    found = re.search(r'<span class="batch-state state-\w+" data-state="\w+">([^<]+)</span>', html)
    assert found is not None, "no state in the page"
    return found.group(1)


async def _two(api: Api) -> dict[str, Any]:
    return await create_ok(
        api,
        [
            cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23"),
            cmd("ensure_comment", key="AURORA-2", marker="m", body="текст"),
        ],
    )


async def _fail(api: Api, command_id: int) -> None:
    body = {"status": "failed", "error": "HTTP 404: задачи нет", "operations": []}
    assert (await api.report(command_id, body)).status_code == 200


async def test_a_failure_turns_the_bar_red_and_the_batch_reads_with_errors(browser: Open, api: Api) -> None:
    """One done, one failed, the tail refresh done: a third red, never a full green bar; «завершён с ошибками»
    on the batch page, in the queue's row and in the API."""
    batch = await _two(api)
    await done(api, (await claim_ok(api))["id"])
    person = await browser("interface")
    running = (await person.get(f"/batches/{batch['id']}")).text
    assert state_word(running) == "выполняется"
    assert bar_parts(running) == [("done", 1, 33.333), ("queued", 2, 66.667)]
    await _fail(api, (await claim_ok(api))["id"])
    await done(api, (await claim_ok(api))["id"])
    page = (await person.get(f"/batches/{batch['id']}")).text
    assert bar_parts(page) == [("done", 2, 66.667), ("failed", 1, 33.333)]
    assert state_word(page) == "завершён с ошибками"
    queue = (await person.get("/")).text
    assert cells(queue, "batches")[1][4] == "3/3 завершён с ошибками"
    assert bar_parts(queue) == [("done", 2, 66.667), ("failed", 1, 33.333)]
    assert (await api.get(f"/batches/{batch['id']}")).json()["state"] == "done_with_errors"


async def test_a_cancelled_or_rejected_batch_is_grey_and_says_so(browser: Open, api: Api) -> None:
    """A batch cancelled before it ran is all grey and «отменён»; a rejected one «отклонён»."""
    batch = await _two(api)
    assert (await api.post(f"/batches/{batch['id']}/cancel", {})).status_code == 200
    person = await browser("interface")
    page = (await person.get(f"/batches/{batch['id']}")).text
    assert bar_parts(page) == [("stopped", 3, 100.0)]
    assert state_word(page) == "отменён"
    assert (await api.patch("/settings", {"approval": {"http": True}})).status_code == 200
    pending = await _two(api)
    page = (await person.get(f"/batches/{pending['id']}")).text
    assert state_word(page) == "ждёт одобрения"
    rejected = await api.post(f"/batches/{pending['id']}/reject", {"reason": "не сейчас"}, role="admin")
    assert rejected.status_code == 200, rejected.text
    page = (await person.get(f"/batches/{pending['id']}")).text
    assert state_word(page) == "отклонён"
    assert bar_parts(page) == [("stopped", 3, 100.0)]


async def test_each_command_shows_its_duration(browser: Open, api: Api, clock: Clock) -> None:
    """From its delivery to its report; while it runs, so far."""
    batch = await _two(api)
    first = await claim_ok(api)
    clock.advance(seconds=42)
    person = await browser("interface")
    page = (await person.get(f"/commands/{first['id']}")).text
    assert element_text(page, "duration") == "42 с"
    await done(api, first["id"])
    clock.advance(seconds=100)
    page = (await person.get(f"/batches/{batch['id']}")).text
    assert [row[5] for row in cells(page, "commands")[1:]] == ["42 с", "", ""]


async def _heartbeat(api: Api, **pause: Any) -> None:
    body = {"agent_id": "agent-1", "version": "1.0", "last_error": None, **pause}
    assert (await api.post("/agent/status", body, role="agent")).status_code == 204


async def test_the_in_flight_card_shows_the_wait_really_left(browser: Open, api: Api, clock: Clock) -> None:
    """The agent says 8.7 s of its pause are left (it waits from its last Jira call, not the whole 2 min gap):
    the card says so and counts down; once the pause is over it says the agent writes."""
    batch = await create_ok(api, [cmd("ensure_issue", summary="Новая", temp_key="new:1")])
    delivery = await claim_ok(api)
    person = await browser("interface")
    assert "до записи осталось не больше 2 мин (пауза 2 мин)" in element_text((await person.get("/")).text, "in-flight")
    await _heartbeat(api, pause_command_id=delivery["id"], pause_left_seconds=8.7)
    assert "до записи осталось: 8,7 с (пауза 2 мин)" in element_text((await person.get("/")).text, "in-flight")
    clock.advance(seconds=5)
    assert "до записи осталось: 3,7 с" in element_text((await person.get("/")).text, "in-flight")
    # The batch's remaining figure takes the same word: 3.7 s of this pause, then the tail refresh's 2 s.
    assert (await api.get(f"/batches/{batch['id']}")).json()["progress"]["remaining_seconds"] == 5.7
    await _heartbeat(api, pause_command_id=delivery["id"], pause_left_seconds=0)
    assert "пауза выдержана: агент пишет в Jira" in element_text((await person.get("/")).text, "in-flight")
    status = (await api.get("/agent-status")).json()
    assert status["jira_base_url"] is None


async def test_the_plan_shows_the_estimate_and_says_when_it_is_long(browser: Open, api: Api) -> None:
    """«Проверить» shows the batch's estimate; above an hour it says so plainly."""
    commands = [cmd("ensure_fields", key=f"AURORA-{n}", duedate="2026-10-23") for n in range(1, 4)]
    person = await browser("interface")
    await person.get("/new")
    plan = await person.post(
        "/new/plan", {"author": "Иванов", "batch": json.dumps({"title": "сроки", "commands": commands})}
    )
    assert element_text(plan.text, "plan-estimate") == "Оценка: около 6 мин 2 с (паузы темпа между командами)."
    assert (await api.patch("/settings", {"pacing": {"ensure_fields": 10000}})).status_code == 200
    plan = await person.post(
        "/new/plan", {"author": "Иванов", "batch": json.dumps({"title": "сроки", "commands": commands})}
    )
    assert element_text(plan.text, "plan-estimate") == (
        "Оценка: около 8 ч 20 мин — дольше часа (паузы темпа между командами)."
    )
