"""What the agent does around one command's Jira calls (:class:`adapters.jira_http.Watch`; DESIGN.md 5.6).

- A pause inside the command is waited with heartbeats, and the delivery check for the next write is asked so
  that its answer is in by the pause's end (:mod:`agent_app.fence`).
- A 429/503 that the driver tries again is logged (one English line a try: what Jira answered, which try, when
  the next) and shown as ``last_error`` («Jira ответила 503, повтор 2 из 5 через 30 с») until the call is
  answered otherwise or the command ends; the wait heartbeats too.
- Before every write: the delivery check's answer.
"""

from __future__ import annotations

import logging

from adapters.jira_http import Retry
from agent_app.fence import Fence
from agent_app.presence import Presence
from reconcile.notices import retry_notice
from reconcile.plans.base import JiraCall

__all__ = ["CommandWatch"]

log = logging.getLogger(__name__)


class CommandWatch:
    """The watch of one command."""

    def __init__(self, *, presence: Presence, fence: Fence, command_id: int) -> None:
        self.presence = presence
        self.fence = fence
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
        return await self.fence.confirm()
