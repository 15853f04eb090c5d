"""The pacing policy (seed: «Политика темпа и пауза на команде») and the figures it gives a batch.

``estimate_seconds`` is the seed's figure (001, «Оценка длительности»): the sum of the policy's gaps for the
batch's sequence of types, its tail refresh included, nothing added. What a person watching a batch wants is
the live figure, :func:`remaining_seconds`: the gaps still to be waited out, from now. The in-flight (claimed)
command counts what is left of its gap since its delivery (the agent waits it out before its first Jira call);
once that has passed it counts nothing, its Jira calls are not a pause. Both are rounded to milliseconds.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Protocol

from reconcile.lifecycle import FINAL, CommandStatus
from reconcile.settings import Settings

__all__ = ["Paced", "elapsed_seconds", "estimate_seconds", "pause_left", "pause_seconds", "remaining_seconds"]


class Paced(Protocol):
    """What the live figures read of a command."""

    @property
    def id(self) -> int: ...
    @property
    def type(self) -> str: ...
    @property
    def status(self) -> CommandStatus: ...
    @property
    def claimed_at(self) -> datetime | None: ...
    @property
    def finished_at(self) -> datetime | None: ...


def _to_ms(seconds: float) -> float:
    return round(seconds, 3)


def pause_seconds(command_type: str, settings: Settings) -> float:
    """What a delivery tells the agent to wait since its last Jira call: the gap of the delivered type."""
    return settings.gap(command_type)


def estimate_seconds(command_types: Iterable[str], settings: Settings) -> float:
    """A batch's estimate: the sum of the gaps of its commands' types, its tail refresh included."""
    return _to_ms(sum(settings.gap(t) for t in command_types))


def remaining_seconds(
    commands: Iterable[Paced], settings: Settings, now: datetime, *, pause: tuple[int, datetime] | None = None
) -> float:
    """The gaps of the commands not yet final, from ``now``: a queued command's whole gap, the rest of a claimed
    command's pause (:func:`pause_left`: until the end the agent reported for it in ``pause`` — command id, end —
    else the rest of its gap since its delivery, between zero and the whole gap)."""
    total = 0.0
    for command in commands:
        if command.status in FINAL:
            continue
        gap = settings.gap(command.type)
        if command.status is CommandStatus.CLAIMED:
            ends_at = pause[1] if pause is not None and pause[0] == command.id else None
            gap = pause_left(gap, command.claimed_at, now, ends_at=ends_at)
        total += gap
    return _to_ms(total)


def pause_left(gap: float, claimed_at: datetime | None, now: datetime, *, ends_at: datetime | None = None) -> float:
    """What is left of a claimed command's pause at ``now``: until ``ends_at`` when the agent reported when its
    pause ends (it waits from its last Jira call, often less than the whole gap), else the gap less the time
    since the delivery; never below zero."""
    if ends_at is not None:
        return _to_ms(max((ends_at - now).total_seconds(), 0.0))
    waited = max((now - claimed_at).total_seconds(), 0.0) if claimed_at is not None else 0.0
    return _to_ms(max(gap - waited, 0.0))


def elapsed_seconds(created_at: datetime, commands: Iterable[Paced], now: datetime) -> float:
    """Seconds since the batch was created: until ``now`` while a command is not final, else until its last
    command ended."""
    ends: list[datetime] = []
    for command in commands:
        if command.status not in FINAL:
            return _to_ms(max((now - created_at).total_seconds(), 0.0))
        if command.finished_at is not None:
            ends.append(command.finished_at)
    end = max(ends, default=created_at)
    return _to_ms(max((end - created_at).total_seconds(), 0.0))
