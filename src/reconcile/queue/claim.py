"""The claim decision (seed 001, «Пакет и порядок выполнения», «Повторная выдача»; DESIGN.md section 6).

One command in flight, strict order ``(batch.created_at, seq)``. On every ``claim`` the hub:

1. re-delivers the oldest ``claimed`` command (by ``claimed_at``, then ``id``): same id and params,
   ``deliveries + 1``; one that already has ``deliveries >= 3`` is failed with :data:`DELIVERY_LIMIT_ERROR`
   and the next ``claimed`` one is looked at;
2. with no ``claimed`` command left, walks the ``queued`` ones in order: a command referencing a temp key
   whose ``ensure_issue`` ended without a key is skipped with the seed's message (settled first) and the walk goes
   on; one whose ``ensure_issue`` has not finished waits and blocks the queue; the first ready one is issued
   with temp keys substituted.

How storage uses it, in one transaction::

    while True:
        snapshot = ClaimSnapshot(claimed=..., queued_head=<first N queued in order>,
                                 queue_complete=<fewer than N came back>, outcomes=...)
        decision = decide_claim(snapshot)
        carry out decision.actions in order
        if not decision.needs_more:
            break

``needs_more`` is set only when every queued candidate given was skipped and more may be queued behind them;
the skips carried out, the next snapshot starts after them. The decision takes no clock: the new
``claimed_at`` of a :class:`Redeliver` or :class:`Issue` is the storage's ``now``.

A batch waiting for a person's approval is **held** (:func:`reconcile.outlook.approval.holds`): its commands are never
issued, and the commands of later batches go past them. The decision passes over any command of
``held_batches`` it is given; storage also leaves them out of ``queued_head`` (so a long held batch costs no
extra look), and they neither wait nor block anything. :func:`outlook` is the queue as the agent will see
it: what can be issued, and how long it will take.

:func:`decide_auto_refresh` says which of the hub's refresh batches an empty claim creates: none, a full one or a
change-only one (DESIGN.md 6.2).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import attrs

from reconcile.config.settings import Settings
from reconcile.queue.pacing import estimate_seconds
from reconcile.queue.tempkeys import Ready, Skip, TempKeyOutcome, Wait, settle

__all__ = [
    "DELIVERY_LIMIT",
    "DELIVERY_LIMIT_ERROR",
    "Action",
    "ClaimDecision",
    "ClaimSnapshot",
    "ClaimedCommand",
    "FailCommand",
    "Issue",
    "QueuedCommand",
    "Redeliver",
    "SkipCommand",
    "TempKeyOutcome",
    "Waiting",
    "decide_claim",
    "outlook",
]

DELIVERY_LIMIT = 3
DELIVERY_LIMIT_ERROR = "агент не отчитался после 3 выдач"
#: An ``ensure_issue`` failed or skipped by this decision: ended without a key, so its dependents are skipped
#: «задача new:<n> не создана» whichever it was (:func:`reconcile.queue.tempkeys.skip_reason`).
_ENDED_WITHOUT_KEY = TempKeyOutcome(status="failed")


@attrs.frozen(kw_only=True)
class ClaimedCommand:
    """A command in ``claimed``.

    ``batch_id`` and ``temp_key`` matter only for an ``ensure_issue``: when it is failed at the delivery
    limit, its dependents later in the queue are skipped in the same decision.
    """

    id: int
    claimed_at: datetime
    deliveries: int
    batch_id: int | None = None
    temp_key: str | None = None


@attrs.frozen(kw_only=True)
class QueuedCommand:
    """A command in ``queued``, with ``params`` as stored (temp keys not substituted).

    ``temp_key`` is the command's own (``ensure_issue`` only), so that skipping it settles its dependents too.
    """

    id: int
    batch_id: int
    type: str
    params: Mapping[str, Any]
    temp_key: str | None = None


@attrs.frozen(kw_only=True)
class ClaimSnapshot:
    """What the decision reads.

    - ``claimed``: every command in ``claimed`` (any order).
    - ``queued_head``: the first queued commands in ``(batch.created_at, seq)`` order — all of them or a
      prefix; ``queue_complete`` says it is all of them.
    - ``held_batches``: batches waiting for approval, whose commands are never issued.
    - ``outcomes``: per ``batch_id`` of the queued commands given, every ``ensure_issue`` temp key of that
      batch → its status and ``result.key`` (``SELECT batch_id, temp_key, status, result FROM command WHERE
      temp_key IS NOT NULL AND batch_id IN (…)``).
    """

    claimed: Sequence[ClaimedCommand] = ()
    queued_head: Sequence[QueuedCommand] = ()
    queue_complete: bool = True
    outcomes: Mapping[int, Mapping[str, TempKeyOutcome]] = attrs.field(factory=dict)
    held_batches: frozenset[int] = frozenset()


@attrs.frozen(kw_only=True)
class FailCommand:
    """Set the claimed command to ``failed`` with ``error`` (``finished_at`` = now)."""

    id: int
    error: str = DELIVERY_LIMIT_ERROR


@attrs.frozen(kw_only=True)
class SkipCommand:
    """Set the queued command to ``skipped`` with ``error`` (``finished_at`` = now)."""

    id: int
    error: str


@attrs.frozen(kw_only=True)
class Redeliver:
    """Deliver the claimed command again: same id and params, ``claimed_at`` = now, these ``deliveries``."""

    id: int
    deliveries: int


@attrs.frozen(kw_only=True)
class Issue:
    """Deliver the queued command: ``claimed``, ``claimed_at`` = now, ``deliveries = 1``.

    ``params`` are the stored ones with temp keys substituted (for a tail refresh, unresolved temp keys
    dropped); the delivery-time additions of :mod:`reconcile.queue.delivery` come on top and are not stored.
    """

    id: int
    params: dict[str, Any]


Action = FailCommand | SkipCommand | Redeliver | Issue


@attrs.frozen(kw_only=True)
class Waiting:
    """The head of the queue waits for the ``ensure_issue`` of ``temp_key`` in its batch to finish."""

    command_id: int
    temp_key: str


@attrs.frozen(kw_only=True)
class ClaimDecision:
    """Actions to carry out in order, in one transaction: fails, skips, then at most one delivery."""

    actions: tuple[Action, ...] = ()
    needs_more: bool = False
    waiting: Waiting | None = None

    @property
    def delivery(self) -> Redeliver | Issue | None:
        """The command to hand to the agent, if any."""
        last = self.actions[-1] if self.actions else None
        return last if isinstance(last, Redeliver | Issue) else None


def decide_claim(snapshot: ClaimSnapshot) -> ClaimDecision:
    """The claim decision for ``snapshot`` (see the module docstring for the rules and the storage loop)."""
    actions: list[Action] = []
    outcomes: dict[int, dict[str, TempKeyOutcome]] = {
        batch_id: dict(per_batch) for batch_id, per_batch in snapshot.outcomes.items()
    }

    def settled(batch_id: int | None, temp_key: str | None) -> None:
        if batch_id is not None and temp_key is not None:
            outcomes.setdefault(batch_id, {})[temp_key] = _ENDED_WITHOUT_KEY

    for claimed in sorted(snapshot.claimed, key=lambda c: (c.claimed_at, c.id)):
        if claimed.deliveries >= DELIVERY_LIMIT:
            actions.append(FailCommand(id=claimed.id))
            settled(claimed.batch_id, claimed.temp_key)
            continue
        actions.append(Redeliver(id=claimed.id, deliveries=claimed.deliveries + 1))
        return ClaimDecision(actions=tuple(actions))

    skipped = False
    for queued in snapshot.queued_head:
        if queued.batch_id in snapshot.held_batches:
            continue
        verdict = settle(queued.type, queued.params, outcomes.get(queued.batch_id, {}))
        if isinstance(verdict, Skip):
            actions.append(SkipCommand(id=queued.id, error=verdict.error))
            settled(queued.batch_id, queued.temp_key)
            skipped = True
            continue
        if isinstance(verdict, Wait):
            return ClaimDecision(
                actions=tuple(actions), waiting=Waiting(command_id=queued.id, temp_key=verdict.temp_key)
            )
        assert isinstance(verdict, Ready)
        actions.append(Issue(id=queued.id, params=verdict.params))
        return ClaimDecision(actions=tuple(actions))

    # Asking again helps only after skips changed the queue: an empty head, or one of held batches only, would be
    # the same next time.
    return ClaimDecision(actions=tuple(actions), needs_more=skipped and not snapshot.queue_complete)


def outlook(issuable_by_type: Mapping[str, int], settings: Settings) -> tuple[int, float]:
    """(queue depth, its ETA in seconds) of the commands that can be issued (``queued`` outside held batches, and
    ``claimed``), counted by type: the ETA is :func:`estimate_seconds` of them, as a batch's is."""
    types = [command_type for command_type, count in sorted(issuable_by_type.items()) for _ in range(count)]
    return len(types), estimate_seconds(types, settings)
