"""A batch's run at the agent's pace (DESIGN.md 6, round 4): the figures a person watching it reads.

``estimate_seconds`` (:mod:`reconcile.queue.pacing`) stays the seed's figure over the hub's ``pacing``. But the bank
puts its own pace in the agent (DESIGN.md 5.5: ``--min-gap``, ``--max-writes-per-hour``), and the agent reports it with
every claim and heartbeat (:class:`AgentPace`). The live figures follow the agent:

- :func:`remaining_seconds`: the run still ahead from ``now``, in order of the commands not final: each one's
  pause ``max(hub gap, agent floor)`` (:func:`effective_gap`) — the claimed one only what is left of it (until the
  end the agent reported, else its gap since the agent's last command), the first queued one less the time the
  agent has been idle since its last command (it waits from its last Jira call, not from the claim) — and before each
  write the wait the write budget makes (the agent's writes of the last hour, the model's own writes added as it
  goes). Commands' Jira calls count nothing: on the model's clock a command's writes go at its pause's end.
  It counts down second for second while the run follows it, and never jumps up then: a claim replaces a
  queued command's whole gap by what is left of it since the agent's last call, a report replaces the model's
  write time by the real one, no later (the property test of tests/reconcile/test_eta.py runs that on a fake
  clock). It goes up only when the run leaves the model (a 429, a slow Jira, a stricter policy reported).
- :func:`elapsed_seconds`: the run so far — from the first delivery of the batch's commands until now, or until
  its last command ended («Прошло»); waiting for approval or behind other batches is not the run.
- :func:`eta_seconds`: the whole run as it now looks, ``elapsed + remaining``: the figure to set beside
  ``estimate_seconds`` and, once the batch is done, beside its real duration.
- :func:`approval_wait_seconds`: how long the batch waited for a person's approval («ждал одобрения 36 с»).

All are rounded to milliseconds. Times are datetimes given in (no clock here).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

import attrs

from reconcile.config.settings import Settings
from reconcile.guard.policy import ANY_TYPE, AgentPolicy, budget_wait
from reconcile.outlook.approval import Approval, ApprovalState
from reconcile.queue.pacing import Paced
from reconcile.vocabulary.catalogue import CATALOGUE
from reconcile.vocabulary.errors import ValidationError
from reconcile.vocabulary.lifecycle import FINAL, CommandStatus

__all__ = [
    "AgentPace",
    "RunFacts",
    "approval_wait_seconds",
    "effective_gap",
    "elapsed_seconds",
    "eta_seconds",
    "pace_from_wire",
    "paced_settings",
    "remaining_seconds",
]

#: The most seconds a floor may say (a day): more is no pace a bank sets, and keeps the sums finite.
_LONGEST_FLOOR = 86400.0


@attrs.frozen(kw_only=True)
class AgentPace:
    """The part of the bank's policy that paces the run, as the agent reported it (``policy`` of its claim and
    status calls): its floors per type (``*`` for every type without its own) and its write budget (0: none)."""

    min_gap: Mapping[str, float] = attrs.field(factory=dict)
    max_writes_per_hour: int = 0

    @classmethod
    def of(cls, policy: AgentPolicy) -> AgentPace:
        """What the agent reports of its policy: its floors and its budget, nothing of its projects or types."""
        return cls(min_gap=dict(policy.min_gap), max_writes_per_hour=policy.max_writes_per_hour)

    def floor(self, command_type: str) -> float:
        return float(self.min_gap.get(command_type, self.min_gap.get(ANY_TYPE, 0.0)))

    def to_wire(self) -> dict[str, Any]:
        return {"min_gap": dict(sorted(self.min_gap.items())), "max_writes_per_hour": self.max_writes_per_hour}


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def pace_from_wire(value: object, what: str = "policy") -> AgentPace:
    """The pace of a ``policy`` object (``{min_gap: {type: seconds}, max_writes_per_hour}``); 422 naming what is
    wrong: an unknown type, a floor that is no number of seconds in [0, 86400], a budget that is no whole number."""
    if not isinstance(value, dict) or not set(value) <= {"min_gap", "max_writes_per_hour"}:
        raise ValidationError(f"{what} — ожидается объект {{min_gap, max_writes_per_hour}}")
    gaps = value.get("min_gap") or {}
    if not isinstance(gaps, dict):
        raise ValidationError(f"{what}.min_gap — ожидается объект {{тип: секунды}}")
    for command_type, seconds in gaps.items():
        if command_type != ANY_TYPE and command_type not in CATALOGUE:
            raise ValidationError(f"{what}.min_gap — неизвестный тип команды {command_type}")
        if not _number(seconds) or not 0 <= seconds <= _LONGEST_FLOOR:
            raise ValidationError(f"{what}.min_gap.{command_type} — ожидается число секунд от 0 до 86400")
    budget = value.get("max_writes_per_hour", 0)
    if isinstance(budget, bool) or not isinstance(budget, int) or not 0 <= budget <= 10**9:
        raise ValidationError(f"{what}.max_writes_per_hour — ожидается целое число не меньше 0")
    return AgentPace(min_gap={t: float(s) for t, s in gaps.items()}, max_writes_per_hour=budget)


@attrs.frozen(kw_only=True)
class RunFacts:
    """What the hub knows of the agent at ``now`` besides the batch itself.

    ``pace``: the agent's reported pace (none reported: the hub's gaps alone, no budget). ``pause``: the command
    whose pause the agent is waiting out and when it ends, as its heartbeat said. ``last_call_at``: when the
    agent's last command ended (its last Jira call was no later; ``None``: none yet). ``holding``: whether it holds
    a command now (of any batch). ``writes``: the times of its writes in the last hour, as its reports said (a
    report's writes counted at the report).
    """

    pace: AgentPace = AgentPace()
    pause: tuple[int, datetime] | None = None
    last_call_at: datetime | None = None
    holding: bool = False
    writes: tuple[datetime, ...] = ()


def _to_ms(seconds: float) -> float:
    return round(seconds, 3)


def effective_gap(command_type: str, settings: Settings, pace: AgentPace) -> float:
    """The pause the agent keeps before a command of this type: the hub's gap, never below the bank's floor."""
    return max(settings.gap(command_type), pace.floor(command_type))


def paced_settings(settings: Settings, pace: AgentPace) -> Settings:
    """The settings with every type's gap at the agent's pace (:func:`effective_gap`): the queue's ETA."""
    return attrs.evolve(settings, pacing={t: effective_gap(t, settings, pace) for t in CATALOGUE})


def _seconds(moment: datetime, now: datetime) -> float:
    return (moment - now).total_seconds()


def _pause_end(command: Paced, gap: float, now: datetime, facts: RunFacts) -> float:
    """When the claimed command's pause ends, in seconds from ``now``: the agent's word when it gave it, else its
    gap from the agent's last call before the delivery (from the delivery when that is unknown), not before the
    delivery."""
    if facts.pause is not None and facts.pause[0] == command.id:
        return _seconds(facts.pause[1], now)
    claimed = _seconds(command.claimed_at, now) if command.claimed_at is not None else 0.0
    last = facts.last_call_at
    since = _seconds(last, now) if last is not None and _seconds(last, now) <= claimed else claimed
    return max(since + gap, claimed)


def remaining_seconds(commands: Iterable[Paced], settings: Settings, now: datetime, facts: RunFacts) -> float:
    """The run still ahead from ``now`` (see the module docstring); ``commands`` in the batch's order."""
    # No write older than the hour is left out here: budget_wait counts a write only within the hour before a
    # command's start, and a start is never before now.
    writes = [_seconds(w, now) for w in facts.writes]
    budget = facts.pace.max_writes_per_hour
    cursor = 0.0  # seconds from now: when the last command of the model made its calls
    first = True
    for command in commands:
        if command.status in FINAL:
            continue
        gap = effective_gap(command.type, settings, facts.pace)
        if command.status is CommandStatus.CLAIMED:
            start = max(cursor, _pause_end(command, gap, now, facts))
        elif first and not facts.holding and facts.last_call_at is not None:
            start = max(cursor, _seconds(facts.last_call_at, now) + gap)
        else:
            start = cursor + gap
        if budget and CATALOGUE[command.type].writes:
            start += budget_wait(writes, now=start, max_writes_per_hour=budget)
            writes.append(start)
        cursor, first = start, False
    return _to_ms(max(cursor, 0.0))


def elapsed_seconds(commands: Sequence[Paced], now: datetime) -> float:
    """The run so far: from the first delivery of the batch's commands until ``now`` while one is not final, else
    until the last one ended; ``0`` before any delivery."""
    delivered = [c.claimed_at for c in commands if c.claimed_at is not None]
    if not delivered:
        return 0.0
    began = min(delivered)
    if any(c.status not in FINAL for c in commands):
        end = now
    else:
        end = max((c.finished_at for c in commands if c.finished_at is not None), default=began)
    return _to_ms(max((end - began).total_seconds(), 0.0))


def eta_seconds(commands: Sequence[Paced], settings: Settings, now: datetime, facts: RunFacts) -> float:
    """The whole run as it now looks: the run so far and the run still ahead."""
    return _to_ms(elapsed_seconds(commands, now) + remaining_seconds(commands, settings, now, facts))


def approval_wait_seconds(created_at: datetime, approval: Approval | None, now: datetime) -> float | None:
    """How long the batch waited for a person's approval: until ``now`` while it waits, until the decision after
    it; ``None`` for a batch that needed none."""
    if approval is None:
        return None
    decided = approval.at if approval.state is not ApprovalState.PENDING and approval.at is not None else now
    return _to_ms(max((decided - created_at).total_seconds(), 0.0))
