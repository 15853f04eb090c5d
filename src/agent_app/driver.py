"""What the agent's loop needs of its Jira driver (:class:`adapters.jira_http.JiraHttp`), and the probe it sends
while Jira is away."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol

from adapters.jira_http import JiraAuthError, JiraError, Watch
from adapters.targets import Target
from reconcile.plans.base import ExecContext, Executor, JiraCall, Page, Report

__all__ = ["DriveOutcomeLike", "JiraDriver", "no_file", "no_page", "probe"]


class DriveOutcomeLike(Protocol):
    @property
    def report(self) -> Report: ...

    @property
    def jira_calls(self) -> int: ...


class JiraDriver(Protocol):
    """What the loop needs of :class:`adapters.jira_http.JiraHttp`."""

    @property
    def target(self) -> Target: ...

    async def exec_context(self) -> ExecContext: ...

    async def wait_gap(self, seconds: float, *, sleep: Callable[[float], Awaitable[None]] | None = None) -> None: ...

    async def drive(
        self,
        executor: Executor,
        *,
        fetch_file: Callable[[str, int | None], Awaitable[bytes | None]],
        on_page: Callable[[Page], Awaitable[None]],
        watch: Watch | None = None,
    ) -> DriveOutcomeLike: ...


def probe() -> Executor:
    """A one-call executor: ``GET /myself``, uncached, to see whether Jira takes the agent again. Anything but
    a success is raised (a 403 of a locked-out user, a 404 of a moved context path, a 502 of a proxy in front
    of Jira under maintenance), so the agent keeps backing off instead of claiming a command to fail."""
    path = "/rest/api/2/myself"
    answer = yield JiraCall(method="GET", path=path)
    if answer.status in (401, 403):
        raise JiraAuthError(answer.status, "", path=path)
    if not answer.ok:
        raise JiraError(answer.status, "", path=path)
    return Report(status="done")


async def no_file(sha256: str, size: int | None) -> bytes | None:
    return None


async def no_page(page: Page) -> None:
    return None
