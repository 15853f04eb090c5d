"""The queue at a glance (the page's «Очередь»): the agent with the queue it sees, and what it holds now.

Depth and ETA are the agent's outlook (:func:`hub_app.claims.queue_outlook`: what can be issued, batches waiting
for approval apart); in flight is every ``claimed`` command with the pause its delivery keeps before a write.
"""

from __future__ import annotations

import attrs

from hub_app.claims import agent_status
from hub_app.runtime import Unit
from hub_app.views import AgentStatusView, CommandView
from reconcile.lifecycle import CommandStatus
from reconcile.pacing import pause_seconds

__all__ = ["InFlight", "QueueOverview", "queue_overview"]


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
