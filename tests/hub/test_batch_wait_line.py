"""What ``sdlc-hub batch wait`` says of a batch: its live line on a terminal, and the exit code of each state."""

from __future__ import annotations

from typing import Any

import pytest

from hub_app.client_cli.batch_wait import duration, exit_code, live_line


def _batch(state: str, *statuses: str, **progress: Any) -> dict[str, Any]:
    commands = [
        {
            "id": 10 + n,
            "seq": n + 1,
            "type": "ensure_fields",
            "params": {"key": f"AURORA-{n + 1}"},
            "status": s,
            "duration_seconds": 30.0 if s == "claimed" else None,
        }
        for n, s in enumerate(statuses)
    ]
    by: dict[str, int] = {}
    for status in statuses:
        by[status] = by.get(status, 0) + 1
    figures = {"elapsed_seconds": 65.0, "remaining_seconds": 250.0, **progress}
    return {
        "id": 7,
        "state": state,
        "commands": commands,
        "progress": {"total": len(statuses), "by_status": by, **figures},
    }


def test_the_live_line_counts_down_from_the_last_answer() -> None:
    """Done and failed counts, the state in words, elapsed and ETA moved by the time since the hub's answer, and
    the pause the agent keeps before the command it holds (its gap less its time so far)."""
    batch = _batch("running", "done", "failed", "claimed", "queued")
    line = live_line(batch, since_answer=10, pacing={"ensure_fields": 120})
    assert line == (
        "batch 7 running: 1/4 done, 1 failed · elapsed 1 min 15 s · ETA 4 min 00 s"
        " · pause ≤ 1 min 20 s before ensure_fields AURORA-3"
    )


def test_a_finished_batch_has_no_eta_and_no_pause() -> None:
    """Done: the counts and the elapsed time as the hub said them."""
    assert live_line(_batch("done", "done", "done"), since_answer=10) == "batch 7 done: 2/2 done · elapsed 1 min 05 s"


@pytest.mark.parametrize(
    ("state", "code"),
    [
        ("done", 0),
        ("done_with_errors", 1),
        ("cancelled", 1),
        ("rejected", 1),
        ("awaiting_approval", 3),
        ("queued", None),
        ("running", None),
    ],
)
def test_each_state_has_its_exit_code(state: str, code: int | None) -> None:
    """0 all done; 1 failed, skipped, cancelled or rejected; 3 waits for a person; none while it runs."""
    assert exit_code({"state": state}) == code


@pytest.mark.parametrize(("seconds", "said"), [(0, "0 s"), (59.6, "1 min 00 s"), (3725, "1 h 02 min"), (-3, "0 s")])
def test_durations_read_as_a_person_says_them(seconds: float, said: str) -> None:
    """Seconds, minutes with seconds, hours with minutes; never negative."""
    assert duration(seconds) == said
