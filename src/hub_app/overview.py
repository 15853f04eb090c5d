"""The queue at a glance (the page's «Очередь»): the agent, the command in flight with its pause, depth and ETA.

The ETA is the pacing policy's estimate of what is still to run: the gaps of the queued commands' types plus
the pause of the command in flight (:func:`reconcile.pacing.estimate_seconds`, the same sum a batch's
``estimate_seconds`` is).
"""

from __future__ import annotations

import itertools

import attrs

from hub_app.claims import agent_status
from hub_app.runtime import Unit
from hub_app.views import AgentStatusView, CommandView
from reconcile.lifecycle import CommandStatus
from reconcile.pacing import estimate_seconds, pause_seconds

__all__ = ["InFlight", "QueueOverview", "queue_overview"]


@attrs.frozen(kw_only=True)
class InFlight:
    """The command the agent holds and the pause it keeps before its first write."""

    command: CommandView
    pause_seconds: float


@attrs.frozen(kw_only=True)
class QueueOverview:
    agent: AgentStatusView
    in_flight: list[InFlight]
    depth: int
    eta_seconds: float


async def queue_overview(unit: Unit) -> QueueOverview:
    """The agent's status, the commands in flight, how many are queued and how long the queue will take."""
    settings = await unit.db.admin.settings()
    queued = await unit.db.queue.count_by_type(CommandStatus.QUEUED)
    claimed = await unit.db.queue.with_status(CommandStatus.CLAIMED)
    types = itertools.chain(
        itertools.chain.from_iterable(itertools.repeat(t, n) for t, n in queued.items()), (c.type for c in claimed)
    )
    return QueueOverview(
        agent=await agent_status(unit),
        in_flight=[InFlight(command=CommandView.of(c), pause_seconds=pause_seconds(c.type, settings)) for c in claimed],
        depth=sum(queued.values()),
        eta_seconds=estimate_seconds(types, settings),
    )
