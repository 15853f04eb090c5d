"""What the agent does for one command's steps besides sending its calls (:class:`agent_app.drive.Watch`;
DESIGN.md 5.5, 5.6).

- A pause inside the command is waited with heartbeats, and the delivery check for the next write is asked so
  that its answer is in by the pause's end (:mod:`agent_app.fence`).
- A 429/503 that the Jira client tries again is logged (one English line a try: what Jira answered, which try, when
  the next) and shown as ``last_error`` («Jira ответила 503, повтор 2 из 5 через 30 с») until the call is
  answered otherwise or the command ends; the wait heartbeats too.
- Before every write: the bank's write budget (DESIGN.md 5.5: past ``max_writes_per_hour`` the agent waits,
  heartbeating, and shows «лимит записей агента: N в час» until the next write fits), then the delivery
  check's answer.
- A file the executor asks for and each page of a refresh go through the hub (:mod:`agent_app.hub_calls`).

The budget counts the writes of this process on its clock: a restart starts an empty hour (the bank's floor
between writes still holds).
"""

from __future__ import annotations

import logging
from collections import deque

from adapters.clock import Clock
from adapters.jira_http import Retry
from agent_app.fence import Fence
from agent_app.hub_calls import HubCalls
from agent_app.presence import Presence
from reconcile.executors import FetchFile, JiraCall, Page
from reconcile.guard import BUDGET_WINDOW_SECONDS, budget_wait
from reconcile.vocabulary import budget_notice, retry_notice

__all__ = ["CommandWatch", "WriteBudget"]

log = logging.getLogger(__name__)


class WriteBudget:
    """The writes of the last hour, against the bank's ``max_writes_per_hour`` (0: no budget)."""

    def __init__(self, clock: Clock, max_writes_per_hour: int) -> None:
        self.clock = clock
        self.max_writes_per_hour = max_writes_per_hour
        self._writes: deque[float] = deque()

    def wait(self) -> float:
        """Seconds until the next write fits."""
        now = self.clock.monotonic()
        while self._writes and self._writes[0] <= now - BUDGET_WINDOW_SECONDS:
            self._writes.popleft()
        return budget_wait(self._writes, now=now, max_writes_per_hour=self.max_writes_per_hour)

    def spend(self) -> None:
        """A write goes out now."""
        if self.max_writes_per_hour > 0:
            self._writes.append(self.clock.monotonic())


class CommandWatch:
    """The watch of one command."""

    def __init__(
        self, *, presence: Presence, fence: Fence, budget: WriteBudget, hub: HubCalls, command_id: int
    ) -> None:
        self.presence = presence
        self.fence = fence
        self.budget = budget
        self.hub = hub
        self.command_id = command_id

    async def pause(self, seconds: float) -> None:
        self.presence.clear("retry")
        self.fence.stale()
        await self.presence.sleep(seconds, ahead=self.fence.ahead())

    async def retry(self, retry: Retry) -> None:
        log.warning(
            "jira_retry",
            extra={
                "command_id": self.command_id,
                "method": retry.call.method,
                "path": retry.call.path,
                "status": retry.status,
                "attempt": retry.attempt,
                "of": retry.of,
                "retry_in_seconds": retry.seconds,
            },
        )
        await self.presence.notice("retry", retry_notice(retry.status, retry.attempt, retry.of, retry.seconds))
        await self.presence.sleep(retry.seconds)

    async def before_write(self, call: JiraCall) -> str | None:
        self.presence.clear("retry")
        while (wait := self.budget.wait()) > 0:
            limit = self.budget.max_writes_per_hour
            log.info(
                "write_budget",
                extra={"command_id": self.command_id, "max_writes_per_hour": limit, "wait_seconds": round(wait, 3)},
            )
            await self.presence.notice("budget", budget_notice(limit))
            self.fence.stale()  # a long wait is a pause: the hub is asked again, by its end
            await self.presence.sleep(wait, ahead=self.fence.ahead())
        self.presence.clear("budget")
        verdict = await self.fence.confirm()
        if verdict is None:
            self.budget.spend()
        return verdict

    async def fetch_file(self, file: FetchFile) -> bytes | None:
        return await self.hub.fetch_file(file.sha256)

    async def post_page(self, page: Page) -> None:
        await self.hub.post_page(self.command_id, page)
