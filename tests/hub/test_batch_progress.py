"""GET /batches/{id}: the live figures of DESIGN 6 (``progress.remaining_seconds``, ``elapsed_seconds``,
``eta_seconds``, ``approval_wait_seconds``) at the pace the agent reports."""

from __future__ import annotations

import pytest

from reconcile.vocabulary.catalogue import CATALOGUE
from tests.support import cmd

from .conftest import Api, Clock
from .support import approve, claim_none, claim_ok, create_ok, done

pytestmark = pytest.mark.anyio


async def _progress(api: Api, batch_id: int) -> dict[str, object]:
    response = await api.get(f"/batches/{batch_id}")
    assert response.status_code == 200, response.text
    progress: dict[str, object] = response.json()["progress"]
    return progress


async def test_remaining_counts_down_from_the_estimate(api: Api, clock: Clock) -> None:
    """ensure_issue, ensure_comment, ensure_status + refresh: 182 left; 40.5 s into the first delivery 141.5 left
    (its gap 120 − 40.5 + 30 + 30 + 2); once it is done only the queued gaps, 62; elapsed counts from the first
    delivery (the 10 s before it are not the run), and the whole run is elapsed + left."""
    batch = await create_ok(
        api,
        [
            cmd("ensure_issue", temp_key="new:1", summary="Отчёт"),
            cmd("ensure_comment", key="AURORA-1", marker="[m]", body="b"),
            cmd("ensure_status", key="AURORA-1", target="Готово"),
        ],
    )
    assert batch["estimate_seconds"] == 182
    progress = await _progress(api, batch["id"])
    assert (progress["remaining_seconds"], progress["elapsed_seconds"], progress["eta_seconds"]) == (182, 0, 182)
    assert progress["approval_wait_seconds"] is None
    clock.advance(seconds=10)
    delivery = await claim_ok(api)
    clock.advance(seconds=40.5)
    progress = await _progress(api, batch["id"])
    assert (progress["remaining_seconds"], progress["elapsed_seconds"], progress["eta_seconds"]) == (141.5, 40.5, 182)
    await done(api, delivery["id"], {"key": "AURORA-7"})
    progress = await _progress(api, batch["id"])
    assert (progress["remaining_seconds"], progress["elapsed_seconds"], progress["eta_seconds"]) == (62, 40.5, 102.5)
    assert (await api.get(f"/batches/{batch['id']}")).json()["estimate_seconds"] == 182


async def test_a_finished_batch_has_nothing_left_and_stops_its_clock(api: Api, clock: Clock) -> None:
    """All commands final: remaining 0, elapsed frozen at the last command's end (1.5 s after the first
    delivery), however late one asks."""
    batch = await create_ok(api, [cmd("ensure_comment", key="AURORA-1", marker="[m]", body="b")])
    for _ in range(2):
        clock.advance(seconds=1.5)
        delivery = await claim_ok(api)
        await done(api, delivery["id"], {"comment_id": "1"} if delivery["type"] != "refresh" else None)
    clock.advance(seconds=600)
    progress = await _progress(api, batch["id"])
    assert progress["finished"] == progress["total"] == 2
    assert (progress["remaining_seconds"], progress["elapsed_seconds"], progress["eta_seconds"]) == (0, 1.5, 1.5)


FLOOR_12 = {"min_gap": {"*": 12}, "max_writes_per_hour": 0}


async def test_the_pace_the_agent_reports_is_part_of_every_figure(api: Api, clock: Clock) -> None:
    """An agent claiming with ``--min-gap '*=12'`` over a hub pacing every type at 4 s: the estimate stays the
    seed's 16 s; the run ahead is 48 s from the agent's first claim on; ``/agent-status`` shows the pace."""
    pacing = dict.fromkeys(CATALOGUE, 4)
    assert (await api.patch("/settings", {"pacing": pacing})).status_code == 200
    await claim_none(api, policy=FLOOR_12)
    comments = [cmd("ensure_comment", key="AURORA-1", marker=f"[m{n}]", body="b") for n in range(3)]
    batch = await create_ok(api, comments)
    assert batch["estimate_seconds"] == 16
    progress = await _progress(api, batch["id"])
    assert (progress["remaining_seconds"], progress["eta_seconds"]) == (48, 48)
    status = (await api.get("/agent-status")).json()
    assert status["policy"] == {"min_gap": {"*": 12.0}, "max_writes_per_hour": 0}
    assert status["queue"]["eta_seconds"] == 48


async def test_a_heartbeat_carries_the_pace_and_a_bad_one_is_refused(api: Api) -> None:
    """``POST /agent/status`` keeps the pace it carries, a claim without ``policy`` leaves it; a pace that cannot
    be is 422 naming it, and nothing of that call is kept."""
    body = {"agent_id": "agent-1", "version": "1.0", "last_error": None}
    assert (await api.post("/agent/status", {**body, "policy": FLOOR_12}, role="agent")).status_code == 204
    await claim_none(api)
    assert (await api.get("/agent-status")).json()["policy"] == {"min_gap": {"*": 12.0}, "max_writes_per_hour": 0}
    bad = {**body, "last_error": "x", "policy": {"min_gap": {"*": -1}}}
    refused = await api.post("/agent/status", bad, role="agent")
    assert refused.json() == {"status_code": 422, "detail": "policy.min_gap.* — ожидается число секунд от 0 до 86400"}
    status = (await api.get("/agent-status")).json()
    assert (status["policy"]["min_gap"], status["last_error"]) == ({"*": 12.0}, None)


async def test_the_wait_for_approval_is_not_the_run(api: Api, clock: Clock) -> None:
    """A batch that waited 36 s for approval: ``approval_wait_seconds`` 36 (counting while it waits), and
    «Прошло» starts at its first delivery, not at its creation."""
    assert (await api.patch("/settings", {"approval": {"http": True}})).status_code == 200
    batch = await create_ok(api, [cmd("ensure_comment", key="AURORA-1", marker="[m]", body="b")])
    clock.advance(seconds=20)
    assert (await _progress(api, batch["id"]))["approval_wait_seconds"] == 20
    clock.advance(seconds=16)
    assert (await approve(api, batch["id"])).status_code == 200
    clock.advance(seconds=4)
    await claim_ok(api)
    clock.advance(seconds=7)
    progress = await _progress(api, batch["id"])
    assert (progress["approval_wait_seconds"], progress["elapsed_seconds"]) == (36, 7)
