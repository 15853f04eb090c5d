"""The live figures of a batch (DESIGN 6): the gaps still to wait from now, and the time since it was created."""

from __future__ import annotations

import math
from datetime import datetime, timedelta

import attrs
from hypothesis import given
from hypothesis import strategies as st

from reconcile.lifecycle import FINAL, CommandStatus
from reconcile.pacing import elapsed_seconds, estimate_seconds, pause_left, remaining_seconds
from reconcile.settings import DEFAULT_PACING, Settings
from tests.support import T0


@attrs.frozen(kw_only=True)
class Cmd:
    type: str
    id: int = 0
    status: CommandStatus = CommandStatus.QUEUED
    claimed_at: datetime | None = None
    finished_at: datetime | None = None


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def test_nothing_started_remains_the_estimate() -> None:
    """A batch of queued commands has the whole estimate left: 120 + 30 + 2."""
    commands = [Cmd(type="ensure_fields"), Cmd(type="ensure_comment"), Cmd(type="refresh")]
    assert remaining_seconds(commands, Settings(), at(500)) == 152
    assert estimate_seconds((c.type for c in commands), Settings()) == 152


def test_the_claimed_command_counts_what_is_left_of_its_gap() -> None:
    """Final commands count nothing; the claimed one 120 − 45.5 s since its delivery; queued ones their gap."""
    commands = [
        Cmd(type="ensure_fields", status=CommandStatus.DONE, finished_at=at(100)),
        Cmd(type="ensure_fields", status=CommandStatus.CLAIMED, claimed_at=at(100)),
        Cmd(type="ensure_comment"),
        Cmd(type="refresh"),
    ]
    assert remaining_seconds(commands, Settings(), at(145.5)) == 106.5


def test_a_claimed_command_past_its_gap_counts_zero() -> None:
    """Once its gap has passed, the in-flight command's Jira calls are not a pause: it counts 0, never less."""
    commands = [Cmd(type="ensure_comment", status=CommandStatus.CLAIMED, claimed_at=at(0)), Cmd(type="refresh")]
    assert remaining_seconds(commands, Settings(), at(90)) == 2


def test_remaining_is_rounded_to_milliseconds() -> None:
    """Fractional pacing gives 0.3 s, not 0.30000000000000004."""
    settings = Settings(pacing={**DEFAULT_PACING, "ensure_comment": 0.1, "refresh": 0.1})
    commands = [Cmd(type="ensure_comment"), Cmd(type="ensure_comment"), Cmd(type="refresh")]
    assert remaining_seconds(commands, settings, at(0)) == 0.3


def test_elapsed_runs_until_the_last_command_ends() -> None:
    """Elapsed: created → now while a command is open (12.25 s), created → the last finish once all are final."""
    running = [Cmd(type="ensure_comment", status=CommandStatus.DONE, finished_at=at(3)), Cmd(type="refresh")]
    assert elapsed_seconds(T0, running, at(12.25)) == 12.25
    done = [
        Cmd(type="ensure_comment", status=CommandStatus.DONE, finished_at=at(3)),
        Cmd(type="refresh", status=CommandStatus.DONE, finished_at=at(7.5)),
    ]
    assert elapsed_seconds(T0, done, at(1000)) == 7.5


statuses = st.sampled_from(list(CommandStatus))
paced = st.builds(
    Cmd,
    type=st.sampled_from(list(DEFAULT_PACING)),
    status=statuses,
    claimed_at=st.floats(min_value=0, max_value=500).map(at),
)


@given(st.lists(paced, max_size=10), st.floats(min_value=0, max_value=1000))
def test_remaining_never_exceeds_the_open_commands_gaps(commands: list[Cmd], now: float) -> None:
    """Remaining lies between 0 and the sum of the gaps of the commands not final, queued ones counted whole."""
    settings = Settings()
    remaining = remaining_seconds(commands, settings, at(now))
    open_gaps = math.fsum(settings.gap(c.type) for c in commands if c.status not in FINAL)
    queued = math.fsum(settings.gap(c.type) for c in commands if c.status is CommandStatus.QUEUED)
    assert queued - 0.0005 <= remaining <= open_gaps + 0.0005


def test_the_pause_left_is_the_agents_word_when_it_gave_it() -> None:
    """What is left of a claimed command's pause: until the end the agent reported, else the gap less the time
    since the delivery; never below zero."""
    t0 = T0
    now = t0 + timedelta(seconds=10)
    assert pause_left(120, t0, now) == 110
    assert pause_left(120, t0, now, ends_at=now + timedelta(seconds=13.7)) == 13.7
    assert pause_left(120, t0, now, ends_at=t0) == 0
    assert pause_left(5, t0, now) == 0
    assert pause_left(30, None, now) == 30


def test_the_remaining_figure_takes_the_agents_word_for_its_pause() -> None:
    """A claimed ensure_fields (gap 120 s) delivered 10 s ago whose agent said 8.7 s are left: 8.7 s remain of
    it, not 110; another command's word changes nothing."""
    settings = Settings()
    claimed = Cmd(type="ensure_fields", id=7, status=CommandStatus.CLAIMED, claimed_at=T0)
    now = at(10)
    assert remaining_seconds([claimed], settings, now) == 110
    assert remaining_seconds([claimed], settings, now, pause=(7, at(18.7))) == 8.7
    assert remaining_seconds([claimed], settings, now, pause=(8, at(18.7))) == 110
