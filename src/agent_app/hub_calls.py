"""What the agent asks of the hub in the middle of a command: its file, its pages, the delivery check.

Each is tried again while the hub does not answer, with the agent's one retry policy (:mod:`agent_app.retry`) on
the presence's clock, so that those waits tell the hub the agent is alive. Stopping while the hub is away abandons
the command (:class:`Stopped`: the journal keeps its id and the hub re-delivers it).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from adapters.hub_client import CommandHeld, HubClient, HubUnreachable
from agent_app.presence import Presence
from agent_app.retry import Retrying, Stopped
from reconcile.executors import Page

__all__ = ["HubCalls"]

T = TypeVar("T")


class HubCalls:
    """The hub's side of the command in hand; one per agent process."""

    def __init__(
        self, *, hub: HubClient, presence: Presence, retrying: Retrying, stopping: asyncio.Event, instance: str
    ) -> None:
        self.hub = hub
        self.presence = presence
        self.retrying = retrying
        self.stopping = stopping
        self.instance = instance

    def hub_down(self, error: Exception) -> bool:
        """The hub did not answer and the agent is not stopping (then one try is all it gets)."""
        return isinstance(error, HubUnreachable) and not self.stopping.is_set()

    async def fetch_file(self, sha256: str) -> bytes | None:
        return await self._call(lambda: self.hub.fetch_file(sha256), "file")

    async def post_page(self, command_id: int, page: Page) -> None:
        await self._call(lambda: self.hub.post_page(command_id, page), "page")
        self.presence.contact()

    async def held(self, command_id: int) -> CommandHeld:
        """The delivery check (:mod:`agent_app.fence`): who holds the command now."""
        answer = await self._call(lambda: self.hub.command_held(command_id, self.instance), "check")
        if answer.held:
            self.presence.contact()  # the hub saw its active agent
        return answer

    async def _call(self, call: Callable[[], Awaitable[T]], what: str) -> T:
        try:
            return await self.retrying(call, on=self.hub_down, what=what, interrupt=self.stopping)
        except HubUnreachable as exc:
            raise Stopped from exc
