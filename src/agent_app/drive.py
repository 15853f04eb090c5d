"""The agent drives an executor (DESIGN.md 5.1, 5.4–5.6): the client drives, the transport sends.

:func:`drive` takes each step the executor yields and carries it out until the executor returns its report:

- a :class:`JiraCall` is sent by the Jira adapter (:meth:`adapters.jira_http.JiraHttp.send`: a 429/503 tried
  again after ``Retry-After``, every try counted in ``jira_calls``); a 401 raises :class:`JiraAuthError`, since
  refused credentials are the agent's problem, not the command's (it is re-delivered, never failed for it);
- before every write the :class:`Watch` has its word (the bank's write budget, the delivery check): a message
  drops the command there (:class:`Dropped` is thrown into the executor, which reports the writes made so far);
- a :class:`Pause` is what is left of its seconds since the last Jira call, waited by the watch; before every call,
  and at the end of every pause, the watch also waits out what Jira's token bucket asks for
  (:meth:`JiraHttp.gap_left`: the later of the two deadlines, never their sum);
- a :class:`FetchFile` and a :class:`Page` go to the hub through the watch.

The agent's watch (:class:`agent_app.watch.CommandWatch`) heartbeats through every wait, shows a retry as
``last_error``, fences the writes and reaches the hub; :class:`Alone` is the watch of a drive with no agent
around it (tests, benchmarks, the probe): its waits are sleeps on the Jira client's clock. Connection errors
propagate as ``httpx.TransportError`` for the agent to handle.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import attrs

from adapters.jira_http import JiraAuthError, JiraError, JiraHttp, Retry
from reconcile.executors import Dropped, Executor, FetchFile, JiraCall, Page, Pause, Report

__all__ = ["Alone", "DriveOutcome", "Watch", "drive", "probe"]


@attrs.frozen(kw_only=True)
class DriveOutcome:
    """The executor's report and the Jira calls it took (every try of every call); ``difference``: the writes the
    approved plan does not hold, when the agent dropped the command before them (DESIGN.md 6.5)."""

    report: Report
    jira_calls: int
    difference: tuple[dict[str, Any], ...] = ()


class Watch(Protocol):
    """What the agent does for one command's steps besides sending its calls (DESIGN.md 5.5, 5.6)."""

    async def pause(self, seconds: float) -> None:
        """Wait out an executor's :class:`Pause`: ``seconds`` are what is left of it (``0``: already over)."""

    async def retry(self, retry: Retry) -> None:
        """Wait before trying ``retry.call`` again."""

    async def before_write(self, call: JiraCall) -> str | None:
        """Asked before every write: ``None`` lets it go, a message drops the command there."""

    async def fetch_file(self, file: FetchFile) -> bytes | None:
        """The hub's bytes of ``file`` (``None``: the hub no longer has it)."""

    async def post_page(self, page: Page) -> None:
        """Hand a page of a refresh to the hub."""


async def _no_file(file: FetchFile) -> bytes | None:
    return None


async def _no_page(page: Page) -> None:
    return None


@attrs.frozen(kw_only=True)
class Alone:
    """The watch of a drive with no agent around it: waits are sleeps on ``jira``'s clock, no write is refused,
    files come from ``on_file`` and pages go to ``on_page`` (by default: no file, pages dropped)."""

    jira: JiraHttp
    on_file: Callable[[FetchFile], Awaitable[bytes | None]] = _no_file
    on_page: Callable[[Page], Awaitable[None]] = _no_page

    async def pause(self, seconds: float) -> None:
        if seconds > 0:
            await self.jira.clock.sleep(seconds)

    async def retry(self, retry: Retry) -> None:
        await self.jira.clock.sleep(retry.seconds)

    async def before_write(self, call: JiraCall) -> str | None:
        return None

    async def fetch_file(self, file: FetchFile) -> bytes | None:
        return await self.on_file(file)

    async def post_page(self, page: Page) -> None:
        await self.on_page(page)


async def drive(executor: Executor, jira: JiraHttp, watch: Watch | None = None) -> DriveOutcome:
    """Carry out the executor's steps until it returns its report (which lists the writes it made)."""
    watching = watch or Alone(jira=jira)
    calls = 0
    try:
        step = executor.send(None)
        while True:
            reply: Any = None
            if isinstance(step, JiraCall):
                bucket = jira.gap_left(0.0)  # Jira's token bucket may ask for a wait before any call
                if bucket > 0:
                    await watching.pause(bucket)
                reason = await watching.before_write(step) if step.is_write else None
                if reason is not None:
                    step = executor.throw(Dropped(reason))
                    continue
                sent = await jira.send(step, wait=watching.retry)
                calls += sent.tries
                if sent.answer.status == 401:
                    raise JiraAuthError.answered(step, sent.answer)
                reply = sent.answer
            elif isinstance(step, Pause):
                await watching.pause(jira.gap_left(step.seconds))
            elif isinstance(step, FetchFile):
                reply = await watching.fetch_file(step)
            else:
                await watching.post_page(step)
            step = executor.send(reply)
    except StopIteration as stop:
        report: Report = stop.value
        return DriveOutcome(report=report, jira_calls=calls)
    finally:
        executor.close()


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
