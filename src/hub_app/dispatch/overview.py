"""The queue at a glance: the page's «Очередь» (the agent with the queue it sees, and what it holds now) and the
gauges of a ``/metrics`` scrape.

Depth and ETA are the agent's outlook (:func:`hub_app.dispatch.claims.queue_outlook`: what can be issued, batches
waiting for approval apart); in flight is every ``claimed`` command with the pause its delivery keeps before a write.
"""

from __future__ import annotations

from datetime import datetime

from adapters.storage.gauges import read_gauges
from hub_app.answers.batches import CommandView
from hub_app.answers.queue import InFlight, QueueOverview, QueueReadings
from hub_app.dispatch.claims import agent_status
from hub_app.runtime.hub import Unit
from hub_app.runtime.lookups import reported_pause
from reconcile.outlook import AgentPace, effective_gap
from reconcile.queue import pause_left
from reconcile.vocabulary import CommandStatus

__all__ = ["queue_overview", "read_queue"]


async def queue_overview(unit: Unit) -> QueueOverview:
    """The agent's status (with depth and ETA) and the commands in flight."""
    settings = await unit.db.admin.settings()
    claimed = await unit.db.queue.with_status(CommandStatus.CLAIMED)
    told = await reported_pause(unit)
    status = await unit.db.admin.agent_status()
    pace = status.policy if status is not None and status.policy is not None else AgentPace()
    in_flight: list[InFlight] = []
    for command in claimed:
        gap = effective_gap(command.type, settings, pace)  # the agent's floor counts
        ends_at = told[1] if told is not None and told[0] == command.id else None
        in_flight.append(
            InFlight(
                command=CommandView.of(command, now=unit.now),
                pause_seconds=gap,
                wait_left_seconds=pause_left(gap, command.claimed_at, unit.now, ends_at=ends_at),
                wait_reported=ends_at is not None,
            )
        )
    return QueueOverview(agent=await agent_status(unit), in_flight=in_flight)


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
        mirror_staleness=agent.mirror.staleness_seconds,
    )
