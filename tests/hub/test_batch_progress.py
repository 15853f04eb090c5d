"""GET /batches/{id}: the live figures of DESIGN 6 (``progress.remaining_seconds``, ``progress.elapsed_seconds``)."""

from __future__ import annotations

import pytest

from tests.support import cmd

from .conftest import Api, Clock
from .support import claim_ok, create_ok, done

pytestmark = pytest.mark.anyio


async def _progress(api: Api, batch_id: int) -> dict[str, object]:
    response = await api.get(f"/batches/{batch_id}")
    assert response.status_code == 200, response.text
    progress: dict[str, object] = response.json()["progress"]
    return progress


async def test_remaining_counts_down_from_the_estimate(api: Api, clock: Clock) -> None:
    """ensure_issue, ensure_comment, ensure_status + refresh: 182 left; 40.5 s into the first delivery 141.5 left
    (its gap 120 − 40.5 + 30 + 30 + 2); once it is done only the queued gaps, 62; elapsed counts from creation."""
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
    assert (progress["remaining_seconds"], progress["elapsed_seconds"]) == (182, 0)
    clock.advance(seconds=10)
    delivery = await claim_ok(api)
    clock.advance(seconds=40.5)
    progress = await _progress(api, batch["id"])
    assert (progress["remaining_seconds"], progress["elapsed_seconds"]) == (141.5, 50.5)
    await done(api, delivery["id"], {"key": "AURORA-7"})
    progress = await _progress(api, batch["id"])
    assert (progress["remaining_seconds"], progress["elapsed_seconds"]) == (62, 50.5)
    assert (await api.get(f"/batches/{batch['id']}")).json()["estimate_seconds"] == 182


async def test_a_finished_batch_has_nothing_left_and_stops_its_clock(api: Api, clock: Clock) -> None:
    """All commands final: remaining 0, elapsed frozen at the last command's end (3 s), however late one asks."""
    batch = await create_ok(api, [cmd("ensure_comment", key="AURORA-1", marker="[m]", body="b")])
    for _ in range(2):
        clock.advance(seconds=1.5)
        delivery = await claim_ok(api)
        await done(api, delivery["id"], {"comment_id": "1"} if delivery["type"] != "refresh" else None)
    clock.advance(seconds=600)
    progress = await _progress(api, batch["id"])
    assert progress["finished"] == progress["total"] == 2
    assert (progress["remaining_seconds"], progress["elapsed_seconds"]) == (0, 3)
