"""Answers about the queue at a glance: the page's «Очередь» and the gauges of a ``/metrics`` scrape
(:mod:`hub_app.dispatch.overview`; :mod:`hub_app.runtime.metrics` renders them for Prometheus)."""

from __future__ import annotations

from datetime import datetime

import attrs

from adapters.storage.gauges import Gauges
from hub_app.answers.agent import AgentStatusView
from hub_app.answers.batches import CommandView

__all__ = ["InFlight", "QueueOverview", "QueueReadings"]


@attrs.frozen(kw_only=True)
class InFlight:
    """A command the agent holds, the pause its delivery keeps before the first write, and what is left of it
    (:func:`reconcile.queue.pacing.pause_left`): as the agent's heartbeat said when ``wait_reported`` (it waits from
    its last Jira call, so often less than the whole pause), else at most the pause less the time since the
    delivery."""

    command: CommandView
    pause_seconds: float
    wait_left_seconds: float
    wait_reported: bool


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
    #: :func:`reconcile.jira.freshness.staleness_seconds` (``None`` before the first refresh finished).
    mirror_staleness: float | None = None
