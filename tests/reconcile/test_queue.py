"""The claim decision: re-delivery first, the delivery limit, strict order, temp key dependents settled."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st

from reconcile.config.settings import Settings
from reconcile.queue.claim import (
    DELIVERY_LIMIT_ERROR,
    ClaimDecision,
    ClaimedCommand,
    ClaimSnapshot,
    FailCommand,
    Issue,
    QueuedCommand,
    Redeliver,
    SkipCommand,
    TempKeyOutcome,
    Waiting,
    decide_claim,
    outlook,
)
from tests.support import T0


def _comment(command_id: int, key: str, batch_id: int = 1) -> QueuedCommand:
    return QueuedCommand(
        id=command_id, batch_id=batch_id, type="ensure_comment", params={"key": key, "marker": "m", "body": "b"}
    )


def test_empty_queue_issues_nothing() -> None:
    """Nothing claimed, nothing queued: no action, nothing delivered (the claim answers 204)."""
    decision = decide_claim(ClaimSnapshot())
    assert decision == ClaimDecision()
    assert decision.delivery is None


def test_lost_claim_answer_redelivers_the_same_command() -> None:
    """Scenario «Ответ на claim потерян»: command 40 is delivered again with deliveries = 2, not a queued one."""
    snapshot = ClaimSnapshot(
        claimed=[ClaimedCommand(id=40, claimed_at=T0, deliveries=1)],
        queued_head=[_comment(41, "AURORA-1"), _comment(42, "AURORA-2")],
        queue_complete=True,
    )
    decision = decide_claim(snapshot)
    assert decision.actions == (Redeliver(id=40, deliveries=2),)
    assert decision.delivery == Redeliver(id=40, deliveries=2)


def test_delivery_limit_fails_and_issues_the_next_queued() -> None:
    """Scenario «Предел выдач»: 41 fails «агент не отчитался после 3 выдач», 42 is issued."""
    snapshot = ClaimSnapshot(
        claimed=[ClaimedCommand(id=41, claimed_at=T0, deliveries=3)],
        queued_head=[_comment(42, "AURORA-1")],
    )
    decision = decide_claim(snapshot)
    assert decision.actions == (
        FailCommand(id=41, error="агент не отчитался после 3 выдач"),
        Issue(id=42, params={"key": "AURORA-1", "marker": "m", "body": "b"}),
    )
    assert DELIVERY_LIMIT_ERROR == "агент не отчитался после 3 выдач"


def test_oldest_claimed_first_by_claimed_at_then_id() -> None:
    """Among claimed commands the oldest claimed_at wins, ties broken by the smaller id."""
    snapshot = ClaimSnapshot(
        claimed=[
            ClaimedCommand(id=9, claimed_at=T0 + timedelta(minutes=1), deliveries=1),
            ClaimedCommand(id=8, claimed_at=T0, deliveries=2),
            ClaimedCommand(id=7, claimed_at=T0, deliveries=1),
        ]
    )
    assert decide_claim(snapshot).actions == (Redeliver(id=7, deliveries=2),)


def test_limit_moves_on_to_the_next_claimed() -> None:
    """The oldest claimed at the limit fails; the next claimed one is re-delivered before any queued."""
    snapshot = ClaimSnapshot(
        claimed=[
            ClaimedCommand(id=5, claimed_at=T0, deliveries=3),
            ClaimedCommand(id=6, claimed_at=T0 + timedelta(seconds=1), deliveries=2),
        ],
        queued_head=[_comment(7, "AURORA-1")],
    )
    assert decide_claim(snapshot).actions == (FailCommand(id=5), Redeliver(id=6, deliveries=3))


def test_cancelled_creation_skips_dependent_and_moves_on() -> None:
    """Scenario «Создание отменено» at claim: the comment on new:901 is skipped, the next command issued."""
    snapshot = ClaimSnapshot(
        queued_head=[_comment(11, "new:901", batch_id=3), _comment(12, "AURORA-5", batch_id=4)],
        outcomes={3: {"new:901": TempKeyOutcome(status="cancelled")}},
    )
    assert decide_claim(snapshot).actions == (
        SkipCommand(id=11, error="создание задачи new:901 отменено"),
        Issue(id=12, params={"key": "AURORA-5", "marker": "m", "body": "b"}),
    )


def test_failed_creation_skips_dependent_link() -> None:
    """Scenario «Создание упало» at claim: the link from new:902 is skipped «задача new:902 не создана»."""
    link = QueuedCommand(
        id=21, batch_id=5, type="ensure_link", params={"source": "new:902", "target": "AURORA-1", "link_type": "x"}
    )
    snapshot = ClaimSnapshot(queued_head=[link], outcomes={5: {"new:902": TempKeyOutcome(status="failed")}})
    assert decide_claim(snapshot).actions == (SkipCommand(id=21, error="задача new:902 не создана"),)


def test_ensure_issue_failed_at_the_limit_skips_its_dependents_at_once() -> None:
    """An ensure_issue failed at the delivery limit settles its temp key: its dependents are skipped."""
    snapshot = ClaimSnapshot(
        claimed=[ClaimedCommand(id=30, claimed_at=T0, deliveries=3, batch_id=2, temp_key="new:5")],
        queued_head=[
            _comment(31, "new:5", batch_id=2),
            QueuedCommand(id=32, batch_id=2, type="refresh", params={"keys": ["new:5"]}),
        ],
        outcomes={2: {"new:5": TempKeyOutcome(status="claimed")}},
    )
    assert decide_claim(snapshot).actions == (
        FailCommand(id=30),
        SkipCommand(id=31, error="задача new:5 не создана"),
        SkipCommand(id=32, error="нет ключей для обновления"),
    )


def test_ensure_issue_failed_at_the_limit_from_a_batch_without_outcomes() -> None:
    """The claimed ensure_issue's batch need not be among the outcomes read (nothing of it is queued): it is
    failed all the same, and the next queued command of another batch is issued."""
    snapshot = ClaimSnapshot(
        claimed=[ClaimedCommand(id=40, claimed_at=T0, deliveries=3, batch_id=7, temp_key="new:1")],
        queued_head=[_comment(41, "AURORA-1", batch_id=8)],
        outcomes={8: {}},
    )
    assert decide_claim(snapshot).actions == (
        FailCommand(id=40),
        Issue(id=41, params={"key": "AURORA-1", "marker": "m", "body": "b"}),
    )


def test_skipped_ensure_issue_skips_its_own_dependents() -> None:
    """An ensure_issue skipped (its epic was cancelled) makes its dependents «не создана»."""
    snapshot = ClaimSnapshot(
        queued_head=[
            QueuedCommand(
                id=2,
                batch_id=1,
                type="ensure_issue",
                params={"temp_key": "new:2", "summary": "Отчёт", "epic_key": "new:1"},
                temp_key="new:2",
            ),
            _comment(3, "new:2"),
        ],
        outcomes={1: {"new:1": TempKeyOutcome(status="cancelled"), "new:2": TempKeyOutcome(status="queued")}},
    )
    assert decide_claim(snapshot).actions == (
        SkipCommand(id=2, error="создание задачи new:1 отменено"),
        SkipCommand(id=3, error="задача new:2 не создана"),
    )


def test_create_and_link_issues_with_the_real_key() -> None:
    """Scenario «Создать и привязать»: after new:60 is done the link goes out with source = AURORA-1590."""
    link = QueuedCommand(
        id=2,
        batch_id=1,
        type="ensure_link",
        params={"source": "new:60", "target": "AURORA-1537", "link_type": "связанные"},
    )
    snapshot = ClaimSnapshot(
        queued_head=[link], outcomes={1: {"new:60": TempKeyOutcome(status="done", key="AURORA-1590")}}
    )
    assert decide_claim(snapshot).actions == (
        Issue(id=2, params={"source": "AURORA-1590", "target": "AURORA-1537", "link_type": "связанные"}),
    )


def test_tail_refresh_drops_keys_never_created() -> None:
    """The tail refresh is issued with the keys that exist; a cancelled creation's temp key is dropped."""
    tail = QueuedCommand(id=9, batch_id=1, type="refresh", params={"keys": ["new:1", "AURORA-1", "new:2"]})
    snapshot = ClaimSnapshot(
        queued_head=[tail],
        outcomes={
            1: {"new:1": TempKeyOutcome(status="done", key="AURORA-77"), "new:2": TempKeyOutcome(status="cancelled")}
        },
    )
    assert decide_claim(snapshot).actions == (Issue(id=9, params={"keys": ["AURORA-77", "AURORA-1"]}),)


def test_unfinished_creation_blocks_the_queue() -> None:
    """A head command waiting for its ensure_issue is not passed over: nothing is issued."""
    snapshot = ClaimSnapshot(
        queued_head=[_comment(5, "new:1"), _comment(6, "AURORA-1")],
        outcomes={1: {"new:1": TempKeyOutcome(status="queued")}},
    )
    assert decide_claim(snapshot) == ClaimDecision(waiting=Waiting(command_id=5, temp_key="new:1"))


def test_a_skip_before_a_wait_is_still_carried_out() -> None:
    """A command skipped (its issue was never created) and then one waiting for a creation: the skip is kept."""
    snapshot = ClaimSnapshot(
        queued_head=[_comment(5, "new:1"), _comment(6, "new:2"), _comment(7, "AURORA-1")],
        outcomes={1: {"new:1": TempKeyOutcome(status="failed"), "new:2": TempKeyOutcome(status="queued")}},
    )
    assert decide_claim(snapshot) == ClaimDecision(
        actions=(SkipCommand(id=5, error="задача new:1 не создана"),),
        waiting=Waiting(command_id=6, temp_key="new:2"),
    )


def test_all_candidates_skipped_asks_for_more() -> None:
    """When every given candidate is skipped and more may be queued, the caller carries out and asks again."""
    snapshot = ClaimSnapshot(
        queued_head=[_comment(5, "new:1")],
        queue_complete=False,
        outcomes={1: {"new:1": TempKeyOutcome(status="failed")}},
    )
    decision = decide_claim(snapshot)
    assert decision.actions == (SkipCommand(id=5, error="задача new:1 не создана"),)
    assert decision.needs_more is True
    complete = decide_claim(
        ClaimSnapshot(queued_head=snapshot.queued_head, queue_complete=True, outcomes=dict(snapshot.outcomes))
    )
    assert complete.needs_more is False
    assert decide_claim(ClaimSnapshot(queued_head=[], queue_complete=False)).needs_more is False


def test_lost_report_of_a_creation_redelivers_it() -> None:
    """Scenario «Потерянный отчёт о создании задачи»: the claimed ensure_issue is delivered again, not skipped."""
    snapshot = ClaimSnapshot(
        claimed=[ClaimedCommand(id=50, claimed_at=T0, deliveries=1, batch_id=7, temp_key="new:5")],
        queued_head=[_comment(51, "new:5", batch_id=7)],
        outcomes={7: {"new:5": TempKeyOutcome(status="claimed")}},
    )
    assert decide_claim(snapshot).actions == (Redeliver(id=50, deliveries=2),)


# --- laws ---------------------------------------------------------------------------------------------------

claimed_lists = st.lists(
    st.builds(
        ClaimedCommand,
        id=st.integers(1, 50),
        claimed_at=st.integers(0, 5).map(lambda m: T0 + timedelta(minutes=m)),
        deliveries=st.integers(1, 5),
    ),
    max_size=5,
    unique_by=lambda c: c.id,
)
statuses = st.sampled_from(["queued", "claimed", "done", "failed", "cancelled", "skipped", "confirmed_by_state"])


@st.composite
def snapshots(draw: st.DrawFn) -> ClaimSnapshot:
    claimed = draw(claimed_lists)
    outcomes = {
        f"new:{n}": TempKeyOutcome(status=s, key=f"AURORA-{100 + n}" if draw(st.booleans()) else None)
        for n, s in draw(st.dictionaries(st.integers(1, 4), statuses, max_size=4)).items()
    }
    keys = st.sampled_from(["new:1", "new:2", "new:3", "new:4", "AURORA-1", "AURORA-2"])
    queued = [
        QueuedCommand(
            id=100 + i, batch_id=1, type="ensure_comment", params={"key": draw(keys), "marker": "m", "body": "b"}
        )
        if draw(st.booleans())
        else QueuedCommand(id=100 + i, batch_id=1, type="refresh", params={"keys": draw(st.lists(keys, max_size=3))})
        for i in range(draw(st.integers(0, 6)))
    ]
    return ClaimSnapshot(
        claimed=claimed, queued_head=queued, queue_complete=draw(st.booleans()), outcomes={1: outcomes}
    )


@given(snapshots())
def test_at_most_one_delivery_and_it_comes_last(snapshot: ClaimSnapshot) -> None:
    """A decision delivers at most one command, after all fails and skips."""
    kinds = [type(a) for a in decide_claim(snapshot).actions]
    deliveries = [k for k in kinds if k in (Redeliver, Issue)]
    assert len(deliveries) <= 1
    if deliveries:
        assert kinds[-1] in (Redeliver, Issue)
    fails = [i for i, k in enumerate(kinds) if k is FailCommand]
    skips = [i for i, k in enumerate(kinds) if k is SkipCommand]
    assert not fails or not skips or max(fails) < min(skips)


@given(snapshots())
def test_issue_only_when_every_claimed_is_failed(snapshot: ClaimSnapshot) -> None:
    """A queued command is issued or skipped only when every claimed command was failed at the limit."""
    decision = decide_claim(snapshot)
    failed = {a.id for a in decision.actions if isinstance(a, FailCommand)}
    if any(isinstance(a, Issue | SkipCommand) for a in decision.actions):
        assert failed == {c.id for c in snapshot.claimed}
    if snapshot.claimed and not any(isinstance(a, Redeliver) for a in decision.actions):
        assert failed == {c.id for c in snapshot.claimed}


@given(snapshots())
def test_redelivery_is_the_oldest_under_the_limit(snapshot: ClaimSnapshot) -> None:
    """The re-delivered command is the oldest claimed under the limit; exactly the older ones are failed."""
    ordered = sorted(snapshot.claimed, key=lambda c: (c.claimed_at, c.id))
    under = [c for c in ordered if c.deliveries < 3]
    decision = decide_claim(snapshot)
    if under:
        first = under[0]
        older = [c.id for c in ordered[: ordered.index(first)]]
        assert decision.actions == (
            *(FailCommand(id=i) for i in older),
            Redeliver(id=first.id, deliveries=first.deliveries + 1),
        )


@given(snapshots())
def test_queued_are_handled_in_order(snapshot: ClaimSnapshot) -> None:
    """Skips and the issue walk a prefix of the queue in order: nothing is passed over."""
    decision = decide_claim(snapshot)
    touched = [a.id for a in decision.actions if isinstance(a, SkipCommand | Issue)]
    assert touched == [q.id for q in snapshot.queued_head[: len(touched)]]
    if decision.waiting is not None:
        assert decision.waiting.command_id == snapshot.queued_head[len(touched)].id


def test_held_batch_is_passed_over() -> None:
    """Commands of a batch waiting for approval are neither issued, skipped nor waited for: the next batch goes."""
    snapshot = ClaimSnapshot(
        queued_head=[_comment(5, "new:1", batch_id=1), _comment(6, "AURORA-1", batch_id=2)],
        outcomes={1: {"new:1": TempKeyOutcome(status="queued")}},
        held_batches=frozenset({1}),
    )
    assert decide_claim(snapshot) == ClaimDecision(
        actions=(Issue(id=6, params={"key": "AURORA-1", "marker": "m", "body": "b"}),)
    )
    only_held = ClaimSnapshot(queued_head=[_comment(5, "AURORA-1")], queue_complete=False, held_batches=frozenset({1}))
    assert decide_claim(only_held) == ClaimDecision()


@st.composite
def held_snapshots(draw: st.DrawFn) -> tuple[ClaimSnapshot, ClaimSnapshot]:
    """A snapshot with commands of a held batch 2 mixed into the queue, and the same snapshot without them."""
    base = draw(snapshots())
    queued = list(base.queued_head)
    for n in range(draw(st.integers(0, 4))):
        held = QueuedCommand(
            id=200 + n, batch_id=2, type="ensure_comment", params={"key": "new:1", "marker": "m", "body": "b"}
        )
        queued.insert(draw(st.integers(0, len(queued))), held)
    outcomes = {**base.outcomes, 2: {"new:1": TempKeyOutcome(status="failed")}}
    with_held = attrs.evolve(base, queued_head=queued, outcomes=outcomes, held_batches=frozenset({2}))
    return with_held, base


@given(held_snapshots())
def test_held_batches_are_invisible_to_the_decision(pair: tuple[ClaimSnapshot, ClaimSnapshot]) -> None:
    """A held batch's commands change nothing: the decision is the one without them, and never touches them."""
    with_held, without = pair
    decision = decide_claim(with_held)
    assert decision == decide_claim(without)
    assert all(action.id < 200 for action in decision.actions)


def test_outlook_counts_what_can_be_issued() -> None:
    """The queue's depth and ETA: the commands given, by the pacing policy's gaps, nothing added."""
    depth, eta = outlook({"ensure_fields": 2, "refresh": 1}, Settings())
    assert (depth, eta) == (3, 242)
    assert outlook({}, Settings()) == (0, 0.0)


# --- a whole queue run through the decision against an in-memory store -----------------------------------

Script = list[tuple[int, int, str, dict[str, Any], str | None]]


def _snapshot(
    commands: Script,
    status: dict[int, str],
    deliveries: dict[int, int],
    claimed_at: dict[int, datetime],
    result_key: dict[int, str],
    *,
    head: int,
    held: frozenset[int] = frozenset(),
) -> ClaimSnapshot:
    """What storage would read: claimed commands, the first ``head`` queued ones outside the ``held`` batches,
    the batch's temp keys."""
    outcomes: dict[int, dict[str, TempKeyOutcome]] = {}
    for cid, batch_id, _kind, _params, tk in commands:
        if tk is not None:
            outcomes.setdefault(batch_id, {})[tk] = TempKeyOutcome(status=status[cid], key=result_key.get(cid))
    queued = [
        QueuedCommand(id=c[0], batch_id=c[1], type=c[2], params=c[3], temp_key=c[4])
        for c in commands
        if status[c[0]] == "queued" and c[1] not in held
    ]
    claimed = [
        ClaimedCommand(id=c[0], claimed_at=claimed_at[c[0]], deliveries=deliveries[c[0]], batch_id=c[1], temp_key=c[4])
        for c in commands
        if status[c[0]] == "claimed"
    ]
    return ClaimSnapshot(
        claimed=claimed,
        queued_head=queued[:head],
        queue_complete=len(queued) <= head,
        outcomes=outcomes,
        held_batches=held,
    )


@st.composite
def scripts(draw: st.DrawFn) -> tuple[Script, list[str]]:
    """Batches of ensure_issue / dependents / tail refresh, and what the agent does with each delivery."""
    commands: Script = []
    next_id = 1
    for batch_id in range(1, draw(st.integers(1, 3)) + 1):
        temp = [f"new:{n}" for n in range(1, draw(st.integers(0, 2)) + 1)]
        for tk in temp:
            commands.append((next_id, batch_id, "ensure_issue", {"temp_key": tk, "summary": tk}, tk))
            next_id += 1
        for _ in range(draw(st.integers(0, 3))):
            key = draw(st.sampled_from([*temp, "AURORA-1"]))
            commands.append((next_id, batch_id, "ensure_comment", {"key": key, "marker": "m", "body": "b"}, None))
            next_id += 1
        commands.append((next_id, batch_id, "refresh", {"keys": [*temp, "AURORA-1"]}, None))
        next_id += 1
    moves = draw(st.lists(st.sampled_from(["done", "failed", "lost", "cancel"]), min_size=60, max_size=60))
    return commands, moves


@settings(max_examples=150)
@given(scripts())
def test_a_queue_runs_in_order_with_one_in_flight(
    script: tuple[Script, list[str]],
) -> None:
    """Claim by claim, with lost answers and cancellations: one in flight, (created_at, seq) order, real keys
    only, and once the agent answers every delivery the queue drains."""
    commands, moves = script
    moves = [*moves, *["done"] * 40]
    status = {c[0]: "queued" for c in commands}
    deliveries = {c[0]: 0 for c in commands}
    claimed_at: dict[int, datetime] = {}
    result_key: dict[int, str] = {}
    by_id = {c[0]: c for c in commands}
    first_issue_order: list[int] = []
    clock = T0
    for move in moves:
        clock += timedelta(minutes=1)
        in_flight = [i for i, s in status.items() if s == "claimed"]
        assert len(in_flight) <= 1
        if in_flight and move in ("done", "failed"):
            status[in_flight[0]] = move
            if move == "done" and by_id[in_flight[0]][2] == "ensure_issue":
                result_key[in_flight[0]] = f"AURORA-{500 + in_flight[0]}"
        if move == "cancel":
            waiting = [i for i, s in status.items() if s == "queued"]
            if waiting:
                status[waiting[-1]] = "cancelled"
        snapshot = _snapshot(commands, status, deliveries, claimed_at, result_key, head=2)
        while True:
            decision = decide_claim(snapshot)
            for action in decision.actions:
                if isinstance(action, FailCommand):
                    assert status[action.id] == "claimed"
                    status[action.id] = "failed"
                elif isinstance(action, SkipCommand):
                    assert status[action.id] == "queued"
                    status[action.id] = "skipped"
                elif isinstance(action, Redeliver):
                    assert status[action.id] == "claimed"
                    assert action.deliveries == deliveries[action.id] + 1 <= 3
                    deliveries[action.id] += 1
                    claimed_at[action.id] = clock
                else:
                    assert status[action.id] == "queued"
                    assert all(k.startswith("AURORA-") for k in action.params.get("keys", []))
                    assert not str(action.params.get("key", "")).startswith("new:")
                    status[action.id] = "claimed"
                    deliveries[action.id] = 1
                    claimed_at[action.id] = clock
                    first_issue_order.append(action.id)
            if not decision.needs_more:
                break
            snapshot = _snapshot(commands, status, deliveries, claimed_at, result_key, head=2)
        assert sum(1 for s in status.values() if s == "claimed") <= 1
    assert first_issue_order == sorted(first_issue_order)
    assert set(status.values()) <= {"done", "failed", "skipped", "cancelled"}
    for cid, batch_id, kind, params, _tk in commands:
        creators = {c[4]: c[0] for c in commands if c[1] == batch_id and c[4]}
        if kind == "ensure_comment" and params["key"] in creators and status[cid] != "cancelled":
            created = creators[params["key"]] in result_key
            assert (status[cid] != "skipped") == created


@settings(max_examples=100)
@given(scripts(), st.integers(0, 30))
def test_a_held_batch_waits_and_then_runs_in_order(script: tuple[Script, list[str]], approve_at: int) -> None:
    """Batch 1 waits for approval until move ``approve_at``: none of its commands is issued before, the other
    batches run meanwhile, and after approval its commands are issued in seq order and the queue drains."""
    commands, _ = script
    status = {c[0]: "queued" for c in commands}
    deliveries: dict[int, int] = {c[0]: 0 for c in commands}
    claimed_at: dict[int, datetime] = {}
    result_key: dict[int, str] = {}
    issued: list[tuple[int, int]] = []
    clock = T0
    for move in range(80):
        clock += timedelta(minutes=1)
        held = frozenset({1}) if move < approve_at else frozenset()
        for cid, s in list(status.items()):
            if s == "claimed":
                status[cid] = "done"
                result_key[cid] = f"AURORA-{500 + cid}"
        while True:
            decision = decide_claim(_snapshot(commands, status, deliveries, claimed_at, result_key, head=2, held=held))
            for action in decision.actions:
                if isinstance(action, SkipCommand):
                    status[action.id] = "skipped"
                elif isinstance(action, Issue):
                    batch_id = next(c[1] for c in commands if c[0] == action.id)
                    assert batch_id not in held
                    status[action.id] = "claimed"
                    deliveries[action.id] = 1
                    claimed_at[action.id] = clock
                    issued.append((move, action.id))
            if not decision.needs_more:
                break
    assert set(status.values()) == {"done"}
    batch_one = [cid for _, cid in issued if cid in {c[0] for c in commands if c[1] == 1}]
    assert batch_one == sorted(batch_one)
    assert all(move >= approve_at for move, cid in issued if cid in batch_one)
