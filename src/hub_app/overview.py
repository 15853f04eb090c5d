"""The queue at a glance: the page's «Очередь» (the agent with the queue it sees, and what it holds now) and the
gauges of a ``/metrics`` scrape.

Depth and ETA are the agent's outlook (:func:`hub_app.claims.queue_outlook`: what can be issued, batches waiting
for approval apart); in flight is every ``claimed`` command with the pause its delivery keeps before a write.
"""

from __future__ import annotations

from datetime import datetime

import attrs

from adapters.storage.gauges import read_gauges
from hub_app.claims import agent_status
from hub_app.metrics import QueueReadings
from hub_app.runtime import Unit
from hub_app.views import AgentStatusView, CommandView
from reconcile.lifecycle import CommandStatus
from reconcile.pacing import pause_seconds

__all__ = ["InFlight", "QueueOverview", "queue_overview", "read_queue"]


@attrs.frozen(kw_only=True)
class InFlight:
    """A command the agent holds and the pause its delivery keeps before the first write."""

    command: CommandView
    pause_seconds: float


@attrs.frozen(kw_only=True)
class QueueOverview:
    agent: AgentStatusView
    in_flight: list[InFlight]


async def queue_overview(unit: Unit) -> QueueOverview:
    """The agent's status (with depth and ETA) and the commands in flight."""
    settings = await unit.db.admin.settings()
    claimed = await unit.db.queue.with_status(CommandStatus.CLAIMED)
    return QueueOverview(
        agent=await agent_status(unit),
        in_flight=[InFlight(command=CommandView.of(c), pause_seconds=pause_seconds(c.type, settings)) for c in claimed],
    )


async def read_queue(unit: Unit) -> QueueReadings:
    """This scrape's gauges, in one transaction."""
    agent = await agent_status(unit)
    return QueueReadings(
        gauges=await read_gauges(unit.db.session),
        depth=agent.queue.depth,
        awaiting_approval=agent.queue.awaiting_approval,
        agent_online=agent.online,
        agent_last_seen=datetime.fromisoformat(agent.last_seen_at) if agent.last_seen_at else None,
        now=unit.now,
    )
