"""Answers about the queue at a glance: the page's «Очередь» and the gauges of a ``/metrics`` scrape
(:mod:`hub_app.overview`; :mod:`hub_app.metrics` renders them for Prometheus)."""

from __future__ import annotations

from datetime import datetime

import attrs

from adapters.storage.gauges import Gauges
from hub_app.answers.agent import AgentStatusView
from hub_app.answers.batches import CommandView

__all__ = ["InFlight", "QueueOverview", "QueueReadings"]


@attrs.frozen(kw_only=True)
class InFlight:
    """A command the agent holds and the pause its delivery keeps before the first write."""

    command: CommandView
    pause_seconds: float


@attrs.frozen(kw_only=True)
class QueueOverview:
    agent: AgentStatusView
    in_flight: list[InFlight]


@attrs.frozen(kw_only=True)
class QueueReadings:
    """The gauges of one scrape: the database's counts plus the agent's outlook, read in one transaction."""

    gauges: Gauges
    depth: int
    awaiting_approval: int
    agent_online: bool
    agent_last_seen: datetime | None
    now: datetime
    #: :func:`reconcile.freshness.staleness_seconds` (``None`` before the first refresh finished).
    mirror_staleness: float | None = None
