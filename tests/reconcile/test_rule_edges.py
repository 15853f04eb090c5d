"""Edges of rules the wider tests pass over: a temp key taken twice, the board types a refresh may record, and
when a stalled agent still counts as online."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from reconcile.queue.agents import BACKOFF_CAP_SECONDS, ONLINE_FACTOR, is_online
from reconcile.queue.reports import board_types
from tests.support import cmd

from .test_batch import body, refused


def test_a_temp_key_taken_twice_names_the_command_that_took_it() -> None:
    batch = body(
        cmd("ensure_issue", temp_key="new:1", summary="Первая", labels=["AWPCA"]),
        cmd("ensure_comment", key="AURORA-1537", marker="m", body="b"),
        cmd("ensure_issue", temp_key="new:1", summary="Вторая", labels=["AWPCA"]),
    )
    assert refused(batch) == "команда 3: временный ключ new:1 уже занят командой 1"


@pytest.mark.parametrize(
    ("boards", "learnt"),
    [
        ({"4216": "scrum", "5120": "kanban"}, {4216: "scrum", 5120: "kanban"}),
        ({"4216": None, "1": "simple", "2": "SCRUM"}, {}),
        ({str(2**31 - 1): "scrum", str(2**31): "scrum"}, {2**31 - 1: "scrum"}),
        ({"9999999999": "kanban", "12345678901": "kanban"}, {}),
        ({"-1": "scrum", "1.5": "scrum", "x": "scrum", "": "scrum"}, {}),
        ({7: "kanban"}, {7: "kanban"}),
    ],
)
def test_a_refresh_records_only_scrum_and_kanban_boards_the_database_can_hold(
    boards: dict[object, object], learnt: dict[int, str]
) -> None:
    assert board_types({"boards": boards}) == learnt


def test_a_refresh_without_boards_learns_nothing() -> None:
    assert board_types({}) == {}
    assert board_types({"boards": ["4216"]}) == {}


def test_a_stalled_agent_counts_as_online_for_two_backoff_caps() -> None:
    """It reports between backoff waits (at most a minute), not between claims: its window is the longer one."""
    now = datetime(2026, 10, 22, 9, 0, tzinfo=UTC)
    cap_window = timedelta(seconds=ONLINE_FACTOR * BACKOFF_CAP_SECONDS)
    assert cap_window == timedelta(minutes=2)
    seen = now - cap_window
    assert is_online(seen, now=now, claim_wait_seconds=25, stalled=True)
    assert not is_online(seen - timedelta(seconds=1), now=now, claim_wait_seconds=25, stalled=True)
    assert not is_online(seen, now=now, claim_wait_seconds=25)
    assert is_online(now - timedelta(seconds=50), now=now, claim_wait_seconds=25)
    assert not is_online(now - timedelta(seconds=51), now=now, claim_wait_seconds=25)
    # a claim wait longer than the cap keeps its own window
    assert is_online(now - timedelta(seconds=180), now=now, claim_wait_seconds=90, stalled=True)
    assert not is_online(now - timedelta(seconds=181), now=now, claim_wait_seconds=90, stalled=True)
