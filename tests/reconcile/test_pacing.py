"""The seed's estimate (DESIGN 6: «Оценка длительности») and the pause left of a claimed command; the live figures
built on them at the agent's pace are tests/reconcile/test_eta.py's."""

from __future__ import annotations

import math
from datetime import datetime, timedelta

import attrs
from hypothesis import given
from hypothesis import strategies as st

from reconcile.config.settings import DEFAULT_PACING, Settings
from reconcile.outlook.eta import RunFacts, remaining_seconds
from reconcile.queue.pacing import estimate_seconds, pause_left
from reconcile.vocabulary.lifecycle import FINAL, CommandStatus
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


def test_the_estimate_is_the_sum_of_the_gaps() -> None:
    """3 ensure_fields and 2 ensure_comment plus the tail refresh: 3 × 120 + 2 × 30 + 2, nothing added; a batch
    nobody has started has exactly that left at the hub's own pace."""
    types = ["ensure_fields"] * 3 + ["ensure_comment"] * 2 + ["refresh"]
    assert estimate_seconds(types, Settings()) == 422
    assert remaining_seconds([Cmd(type=t) for t in types], Settings(), at(500), RunFacts()) == 422


def test_the_estimate_is_rounded_to_milliseconds() -> None:
    """Fractional pacing gives 0.3 s, not 0.30000000000000004."""
    settings = Settings(pacing={**DEFAULT_PACING, "ensure_comment": 0.1, "refresh": 0.1})
    assert estimate_seconds(["ensure_comment", "ensure_comment", "refresh"], settings) == 0.3
    commands = [Cmd(type="ensure_comment"), Cmd(type="ensure_comment"), Cmd(type="refresh")]
    assert remaining_seconds(commands, settings, at(0), RunFacts()) == 0.3


statuses = st.sampled_from(list(CommandStatus))
paced = st.builds(
    Cmd,
    type=st.sampled_from(list(DEFAULT_PACING)),
    status=statuses,
    claimed_at=st.floats(min_value=0, max_value=500).map(at),
)


@given(st.lists(paced, max_size=10), st.floats(min_value=500, max_value=1000))
def test_remaining_never_exceeds_the_open_commands_gaps(commands: list[Cmd], now: float) -> None:
    """At the hub's pace, the run ahead lies between the queued commands' gaps and the sum of the gaps of the
    commands not final, from now (every delivery before now)."""
    settings = Settings()
    remaining = remaining_seconds(commands, settings, at(now), RunFacts())
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
    assert pause_left(30, now + timedelta(seconds=1), now) == 30  # a delivery «after» now (clocks): nothing waited
