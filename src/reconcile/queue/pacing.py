"""The pacing policy (seed: «Политика темпа и пауза на команде») and the figures it gives a batch.

``estimate_seconds`` is the seed's figure (001, «Оценка длительности»): the sum of the policy's gaps for the
batch's sequence of types, its tail refresh included, nothing added, rounded to milliseconds. What a person
watching a batch wants are the live figures at the agent's own pace: :mod:`reconcile.outlook.eta`.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Protocol

from reconcile.config.settings import Settings
from reconcile.vocabulary.lifecycle import CommandStatus

__all__ = ["Paced", "estimate_seconds", "pause_left", "pause_seconds"]


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


def pause_left(gap: float, claimed_at: datetime | None, now: datetime, *, ends_at: datetime | None = None) -> float:
    """What is left of a claimed command's pause at ``now``: until ``ends_at`` when the agent reported when its
    pause ends (it waits from its last Jira call, often less than the whole gap), else the gap less the time
    since the delivery; never below zero."""
    if ends_at is not None:
        return _to_ms(max((ends_at - now).total_seconds(), 0.0))
    waited = max((now - claimed_at).total_seconds(), 0.0) if claimed_at is not None else 0.0
    return _to_ms(max(gap - waited, 0.0))
