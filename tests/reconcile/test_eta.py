"""A batch's run at the agent's pace (DESIGN 6, round 4): the run ahead, the run so far, the whole run, the wait for
approval — and a run on a fake clock that follows the figure never sees it jump up."""

from __future__ import annotations

from datetime import datetime, timedelta

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reconcile.config.settings import DEFAULT_PACING, Settings
from reconcile.guard.policy import AgentPolicy, budget_wait
from reconcile.outlook.approval import Approval, ApprovalState
from reconcile.outlook.eta import (
    AgentPace,
    RunFacts,
    approval_wait_seconds,
    effective_gap,
    elapsed_seconds,
    eta_seconds,
    pace_from_wire,
    paced_settings,
    remaining_seconds,
)
from reconcile.queue.pacing import estimate_seconds
from reconcile.vocabulary.catalogue import CATALOGUE
from reconcile.vocabulary.errors import ValidationError
from reconcile.vocabulary.lifecycle import CommandStatus
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


#: Issue 32's case: the hub paces every type at 4 s, the bank's agent at 12 s (``--min-gap '*=12'``).
HUB_4 = Settings(pacing=dict.fromkeys(DEFAULT_PACING, 4.0))
FLOOR_12 = AgentPace(min_gap={"*": 12.0})
COMMENTS = [Cmd(type="ensure_comment", id=n) for n in (1, 2, 3)] + [Cmd(type="refresh", id=4)]


def test_the_agents_floor_raises_each_gap_and_the_estimate_stays_the_hubs() -> None:
    """3 ensure_comment + refresh: the seed's estimate over the hub's 4 s is 16 s; the run ahead at the agent's
    12 s floor is 48 s; a type's own floor wins over ``*``, and a hub gap above the floor stays."""
    assert estimate_seconds((c.type for c in COMMENTS), HUB_4) == 16
    assert remaining_seconds(COMMENTS, HUB_4, at(0), RunFacts(pace=FLOOR_12)) == 48
    pace = AgentPace(min_gap={"*": 12.0, "refresh": 1.0})
    assert [effective_gap(t, HUB_4, pace) for t in ("ensure_comment", "refresh")] == [12, 4]
    assert remaining_seconds(COMMENTS, HUB_4, at(0), RunFacts(pace=pace)) == 40


def test_an_idle_agent_owes_the_first_command_only_the_rest_of_its_gap() -> None:
    """The agent waits from its last Jira call: idle since 5 s ago, the first comment waits 7 s, not 12; idle
    longer than the gap, not at all. While it holds a command of another batch, the whole gap counts."""
    facts = RunFacts(pace=FLOOR_12, last_call_at=at(-5))
    assert remaining_seconds(COMMENTS, HUB_4, at(0), facts) == 7 + 36
    assert remaining_seconds(COMMENTS, HUB_4, at(0), attrs.evolve(facts, last_call_at=at(-60))) == 36
    assert remaining_seconds(COMMENTS, HUB_4, at(0), attrs.evolve(facts, holding=True)) == 48


def test_the_claimed_command_counts_the_rest_of_its_pause() -> None:
    """Claimed 3 s ago, no word from the agent: 12 − 3 left of its pause, or 12 − 8 when its last command ended
    5 s before the claim; the agent's word (ends in 2.5 s) wins; past its pause it counts nothing."""
    running = [attrs.evolve(COMMENTS[0], status=CommandStatus.CLAIMED, claimed_at=at(-3)), *COMMENTS[1:]]
    assert remaining_seconds(running, HUB_4, at(0), RunFacts(pace=FLOOR_12)) == 9 + 36
    earlier = RunFacts(pace=FLOOR_12, last_call_at=at(-8), holding=True)
    assert remaining_seconds(running, HUB_4, at(0), earlier) == 4 + 36
    told = RunFacts(pace=FLOOR_12, pause=(1, at(2.5)))
    assert remaining_seconds(running, HUB_4, at(0), told) == 2.5 + 36
    assert remaining_seconds(running, HUB_4, at(30), RunFacts(pace=FLOOR_12)) == 36


def test_the_write_budget_makes_the_writes_wait() -> None:
    """One write an hour, spent 10 minutes ago: the first comment's write waits 50 minutes, the second an hour
    after the first's; the refresh writes nothing and waits only its gap. Two an hour: the second follows at its
    gap, the old writes having left the hour by then."""
    facts = RunFacts(pace=AgentPace(max_writes_per_hour=1), writes=(at(-600),))
    commands = COMMENTS[1:]  # two comments and the refresh
    assert remaining_seconds(commands, HUB_4, at(0), facts) == 3000 + 3600 + 4
    two = RunFacts(pace=AgentPace(max_writes_per_hour=2), writes=(at(-600), at(-600)))
    assert remaining_seconds(commands, HUB_4, at(0), two) == 3000 + 4 + 4


def test_elapsed_runs_from_the_first_delivery() -> None:
    """«Прошло»: nothing delivered yet is 0 (the wait for approval or behind other batches is not the run); then
    from the first delivery until now, and until the last end once every command is final."""
    assert elapsed_seconds(COMMENTS, at(100)) == 0
    running = [
        attrs.evolve(COMMENTS[0], status=CommandStatus.DONE, claimed_at=at(36), finished_at=at(40)),
        attrs.evolve(COMMENTS[1], status=CommandStatus.CLAIMED, claimed_at=at(40)),
    ]
    assert elapsed_seconds(running, at(45.25)) == 9.25
    done = [attrs.evolve(c, status=CommandStatus.DONE, finished_at=at(70)) if c.id == 2 else c for c in running]
    assert elapsed_seconds(done, at(1000)) == 34


def test_the_whole_run_is_the_run_so_far_and_the_run_ahead() -> None:
    """``eta_seconds`` = elapsed + remaining: 9.25 s into the run with 36 s ahead is 45.25 s."""
    running = [
        attrs.evolve(COMMENTS[0], status=CommandStatus.DONE, claimed_at=at(36), finished_at=at(40)),
        attrs.evolve(COMMENTS[1], status=CommandStatus.CLAIMED, claimed_at=at(40)),
        *COMMENTS[2:],
    ]
    facts = RunFacts(pace=FLOOR_12, pause=(2, at(52)))
    assert eta_seconds(running, HUB_4, at(45.25), facts) == 9.25 + 6.75 + 24


def test_the_wait_for_approval() -> None:
    """No approval needed: None; pending: until now; decided: until the decision («ждал одобрения 36 с»)."""
    assert approval_wait_seconds(T0, None, at(50)) is None
    assert approval_wait_seconds(T0, Approval(state=ApprovalState.PENDING), at(50)) == 50
    approved = Approval(state=ApprovalState.APPROVED, by="lead", at=at(36))
    assert approval_wait_seconds(T0, approved, at(500)) == 36


def test_the_agent_reports_its_floors_and_budget_only() -> None:
    """An agent's policy becomes its pace on the wire; projects and types stay in the bank."""
    policy = AgentPolicy(allow_projects=("AURORA",), min_gap={"*": 12.0}, max_writes_per_hour=30)
    wire = AgentPace.of(policy).to_wire()
    assert wire == {"min_gap": {"*": 12.0}, "max_writes_per_hour": 30}
    assert pace_from_wire(wire) == AgentPace(min_gap={"*": 12.0}, max_writes_per_hour=30)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ([], "policy — ожидается объект {min_gap, max_writes_per_hour}"),
        ({"allow_projects": ["AURORA"]}, "policy — ожидается объект {min_gap, max_writes_per_hour}"),
        ({"min_gap": [1]}, "policy.min_gap — ожидается объект {тип: секунды}"),
        ({"min_gap": {"ensure_nothing": 1}}, "policy.min_gap — неизвестный тип команды ensure_nothing"),
        ({"min_gap": {"*": -1}}, "policy.min_gap.* — ожидается число секунд от 0 до 86400"),
        ({"min_gap": {"refresh": True}}, "policy.min_gap.refresh — ожидается число секунд от 0 до 86400"),
        ({"max_writes_per_hour": 1.5}, "policy.max_writes_per_hour — ожидается целое число не меньше 0"),
    ],
)
def test_a_pace_that_cannot_be_is_refused(value: object, message: str) -> None:
    """A reported pace is checked like any body: 422 naming the part that is wrong."""
    with pytest.raises(ValidationError) as refused:
        pace_from_wire(value)
    assert str(refused.value) == message


# --- a run on a fake clock that follows the figure ----------------------------------------------------------


@attrs.frozen(kw_only=True)
class Run:
    """The agent's run of a batch as the model says it goes: claims at once, pauses from its last Jira call,
    waits for the budget before a write, writes at once, reports at once."""

    claimed: tuple[float, ...]
    pause_ends: tuple[float, ...]
    finished: tuple[float, ...]


def run_of(types: list[str], hub: Settings, pace: AgentPace, idle: float, writes: list[float]) -> Run:
    last_call, clock, budget = -idle, 0.0, list(writes)
    claimed, pause_ends, finished = [], [], []
    for command_type in types:
        claimed.append(clock)
        pause_end = max(last_call + effective_gap(command_type, hub, pace), clock)
        write = pause_end
        if CATALOGUE[command_type].writes and pace.max_writes_per_hour:
            write += budget_wait(budget, now=pause_end, max_writes_per_hour=pace.max_writes_per_hour)
            budget.append(write)
        pause_ends.append(pause_end)
        finished.append(write)
        last_call = clock = write
    return Run(claimed=tuple(claimed), pause_ends=tuple(pause_ends), finished=tuple(finished))


def seen_at(moment: float, types: list[str], run: Run, *, told: bool, idle: float, writes: list[float]) -> tuple:
    """What the hub has at ``moment``: the batch's commands and the facts of the agent."""
    commands, holding, pause = [], False, None
    for n, command_type in enumerate(types):
        claimed, finished = run.claimed[n], run.finished[n]
        if finished <= moment and claimed <= moment:
            status = CommandStatus.DONE
        elif claimed <= moment:
            status, holding = CommandStatus.CLAIMED, True
            pause = (n, at(run.pause_ends[n])) if told else None
        else:
            status = CommandStatus.QUEUED
        commands.append(
            Cmd(
                type=command_type,
                id=n,
                status=status,
                claimed_at=at(claimed) if claimed <= moment else None,
                finished_at=at(finished) if status is CommandStatus.DONE else None,
            )
        )
    ended = [run.finished[n] for n, c in enumerate(commands) if c.status is CommandStatus.DONE]
    reported = [at(w) for w in writes] + [
        at(run.finished[n])
        for n, c in enumerate(commands)
        if c.status is CommandStatus.DONE and CATALOGUE[c.type].writes
    ]
    last_call_at = at(max(ended, default=-idle))
    return commands, RunFacts(pause=pause, last_call_at=last_call_at, holding=holding, writes=tuple(reported))


gaps = st.floats(0, 60).map(lambda s: round(s, 1))


@settings(max_examples=200, deadline=None)
@given(
    types=st.lists(st.sampled_from(list(CATALOGUE)), min_size=1, max_size=8),
    hub_gaps=st.fixed_dictionaries(dict.fromkeys(CATALOGUE, gaps)),
    floors=st.dictionaries(st.sampled_from(["*", *CATALOGUE]), gaps, max_size=4),
    budget=st.sampled_from([0, 0, 1, 2, 5]),
    idle=st.floats(0, 120).map(lambda s: round(s, 1)),
    writes=st.lists(st.floats(-3599, 0).map(lambda s: round(s, 1)), max_size=6),
    told=st.booleans(),
    probes=st.lists(st.floats(0, 1), max_size=25),
)
def test_a_run_that_follows_the_figure_counts_it_down_and_never_up(
    *,
    types: list[str],
    hub_gaps: dict[str, float],
    floors: dict[str, float],
    budget: int,
    idle: float,
    writes: list[float],
    told: bool,
    probes: list[float],
) -> None:
    """Law: whatever the hub's gaps, the agent's floors and budget, its idle time and earlier writes, and whether it
    reported its pause: while the run goes as the figure says, ``remaining_seconds`` never rises from one look to
    the next, ends at 0, and ``eta_seconds`` at the start is the run's real length (and stays it)."""
    hub = Settings(pacing=hub_gaps)
    pace = AgentPace(min_gap=floors, max_writes_per_hour=budget)
    run = run_of(types, hub, pace, idle, writes)
    length = run.finished[-1]
    moments = sorted({0.0, length, *run.claimed, *run.pause_ends, *run.finished, *(p * length for p in probes)})
    last = None
    for moment in moments:
        commands, facts = seen_at(moment, types, run, told=told, idle=idle, writes=writes)
        facts = attrs.evolve(facts, pace=pace)
        remaining = remaining_seconds(commands, hub, at(moment), facts)
        if last is not None:
            assert remaining <= last + 0.002, (moment, remaining, last)
        assert eta_seconds(commands, hub, at(moment), facts) == pytest.approx(length, abs=0.005)
        last = remaining
    assert last == 0


def test_the_queue_is_paced_at_the_agents_floors() -> None:
    """Every type's gap in the settings the queue's ETA reads is the hub's, raised to the bank's floor where it is
    higher; the rest of the settings is left as it is."""
    settings = Settings()
    pace = AgentPace(min_gap={"ensure_comment": 10_000, "*": 1.0})
    paced = paced_settings(settings, pace)
    assert paced.pacing == {t: max(settings.gap(t), 10_000 if t == "ensure_comment" else 1.0) for t in CATALOGUE}
    assert paced.gap("ensure_comment") == 10_000
    assert attrs.evolve(paced, pacing=settings.pacing) == settings
    assert paced_settings(settings, AgentPace()).pacing == {t: settings.gap(t) for t in CATALOGUE}


def test_the_bounds_of_a_pace() -> None:
    """Floors from 0 to a day of seconds, both ends included; a budget from 0 (none) to 10⁹ writes an hour, 0 when
    not said; past either end it is refused."""
    assert pace_from_wire({"min_gap": {"*": 0, "refresh": 86400}}) == AgentPace(
        min_gap={"*": 0.0, "refresh": 86400.0}, max_writes_per_hour=0
    )
    assert pace_from_wire({"min_gap": {"*": 0.5}, "max_writes_per_hour": 10**9}).max_writes_per_hour == 10**9
    assert pace_from_wire({"max_writes_per_hour": 0}) == AgentPace()
    for value in ({"min_gap": {"*": 86400.5}}, {"max_writes_per_hour": 10**9 + 1}, {"max_writes_per_hour": True}):
        with pytest.raises(ValidationError):
            pace_from_wire(value)


def test_edges_of_the_run_so_far_and_of_the_wait() -> None:
    """A batch whose commands are all final without one saying when it ended ran no time; a decided approval
    without its moment waited until now; a decision taken before the batch (a clock that went back) is no wait,
    and neither is a run whose end came before its delivery."""
    cancelled = [
        attrs.evolve(COMMENTS[0], status=CommandStatus.CANCELLED, claimed_at=at(36), finished_at=None),
        attrs.evolve(COMMENTS[1], status=CommandStatus.DONE, claimed_at=at(40), finished_at=None),
    ]
    assert elapsed_seconds(cancelled, at(1000)) == 0
    backwards = [attrs.evolve(COMMENTS[0], status=CommandStatus.DONE, claimed_at=at(36), finished_at=at(30))]
    assert elapsed_seconds(backwards, at(1000)) == 0
    assert approval_wait_seconds(T0, Approval(state=ApprovalState.APPROVED, by="lead"), at(50)) == 50
    assert approval_wait_seconds(at(60), Approval(state=ApprovalState.APPROVED, by="lead", at=at(36)), at(500)) == 0


def test_writes_an_hour_old_or_older_make_nothing_wait() -> None:
    """Two writes an hour, both spent an hour ago or more: the budget is free again, each command waits only its
    gap."""
    facts = RunFacts(pace=AgentPace(max_writes_per_hour=2), writes=(at(-7200), at(-3600)))
    assert remaining_seconds(COMMENTS[1:], HUB_4, at(0), facts) == 4 + 4 + 4


def test_a_claimed_command_whose_delivery_time_is_unknown_waits_its_whole_gap_from_now() -> None:
    """No claim time and no word from the agent: its pause is counted from now, as if delivered this moment."""
    running = [attrs.evolve(COMMENTS[0], status=CommandStatus.CLAIMED), *COMMENTS[1:]]
    assert remaining_seconds(running, HUB_4, at(0), RunFacts(pace=FLOOR_12)) == 12 + 36


def test_the_figures_are_rounded_to_milliseconds() -> None:
    """1.2344 s since the first delivery reads as 1.234 s; the wait for approval likewise."""
    running = [attrs.evolve(COMMENTS[0], status=CommandStatus.CLAIMED, claimed_at=at(0))]
    assert elapsed_seconds(running, at(1.2344)) == 1.234
    assert approval_wait_seconds(T0, Approval(state=ApprovalState.PENDING), at(1.2346)) == 1.235
