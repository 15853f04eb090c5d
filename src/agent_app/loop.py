"""The agent's loop (DESIGN.md 5.4): journal → claim → pause → execute → report.

Decisions where the spec is silent:

- **Jira unreachable while executing** (connection refused or dropped, timeout): the outcome in Jira is
  unknown, so the agent does NOT report ``failed``. The journal keeps the command id, the agent backs off
  and probes Jira (``GET /myself``) until it answers, then claims again: the hub re-delivers the same
  command (``deliveries + 1``) and the executor, which reads first, writes only what is still missing.
  Probing before claiming keeps a Jira outage from burning the command's deliveries (limit 3).
- **Hub unreachable** (transport error or 5xx): claims, pages and file downloads are retried with the one
  policy of :mod:`agent_app.retry` (exponential backoff with jitter, up to a minute); a report is retried the
  same way until the hub answers, and kept in the journal meanwhile. A 4xx to a report is an answer: it is
  logged and the journal entry cleared (sending it again cannot change it). 401/403 from the hub stops the
  agent (:class:`AgentFatal`, one line naming the hub's URL and the token to check), the journal intact:
  nothing could tell the hub why. A 404 to the claim (a wrong hub base URL) is backed off like an outage.
- **Configuration mistakes** (DESIGN.md 5.4): a TLS failure, a wrong URL or context path, a refused Jira
  credential: each is logged once, when it first appears or changes, as one ``unreachable`` line naming the
  URL and the fix (:mod:`adapters.targets`), and backed off up to a minute. What stalls the agent on Jira's
  side is sent to the hub as ``last_error`` at every backoff wait (``POST /agent/status``: the agent stays
  online meanwhile; the hub clears it on the next claim, made only once Jira answers), so ``/agent-status``
  and the page tell the planners why the queue waits. Jira refusing the agent's credentials is backed off
  too (the planners see it; a person fixes the token or unlocks the user), not fatal.
- **Stopping** (first SIGINT/SIGTERM): a pending claim or pacing wait is abandoned at once (nothing was
  written; the hub re-delivers a command whose claim answer was lost); a command being executed is
  finished and reported (one attempt if the hub is down: the report stays in the journal for the next
  start). A second signal abandons everything at once; the journal still names the command. A page or a
  file the hub cannot take or give while stopping abandons the command too (the hub re-delivers it).

- **Before writing** (DESIGN.md 5.4): after its pause, before the command's first write and before any write
  that follows a pause inside it, the agent asks the hub whether this process still holds the command. A
  command cancelled with ``force`` meanwhile is dropped unwritten and reported ``failed`` with the writes made
  so far (none, when the cancel came during the pause). A command the hub has re-issued to another process
  of this ``agent_id`` (this one was away and was taken over) is dropped without a report: the other process
  now owns its outcome.
- **One process per journal**: the journal keeps the agent's ``instance`` sent with every claim; a second
  live instance gets 409 and asks again when the hub says the first would count as away.

Events are logged with fields (``log.info("command", extra={...})``, :mod:`adapters.logs`): one ``command``
event per command with ``command_id``, ``type``, ``key``, ``deliveries``, ``outcome``, ``duration_ms``,
``jira_calls``.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar

import attrs
import httpx

from adapters.clock import Clock
from adapters.hub_client import (
    UNKNOWN_COMMAND,
    ClaimConflict,
    CommandHeld,
    HubClient,
    HubError,
    HubRefused,
    HubUnreachable,
    ReportAck,
    report_to_wire,
)
from adapters.jira_http import JiraAuthError, JiraError, explain_jira
from adapters.targets import Target, shown
from agent_app.journal import Journal, JournalEntry
from agent_app.retry import Backoff, Retrying, Stopped, race
from reconcile.plans.base import Delivery, ExecContext, Executor, JiraCall, Page, Report

__all__ = ["Agent", "AgentFatal", "JiraDriver", "Stopped"]

log = logging.getLogger(__name__)

#: The longest wait after a 409 on claim, whatever ``Retry-After`` the hub sent.
_MAX_CONFLICT_WAIT = 300.0

T = TypeVar("T")


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

    async def wait_gap(self, seconds: float) -> None: ...

    async def drive(
        self,
        executor: Executor,
        *,
        fetch_file: Callable[[str, int | None], Awaitable[bytes | None]],
        on_page: Callable[[Page], Awaitable[None]],
        confirm: Callable[[], Awaitable[str | None]] | None = None,
    ) -> DriveOutcomeLike: ...


@attrs.frozen(kw_only=True)
class _Crashed:
    report: Report
    jira_calls: int


@attrs.frozen(kw_only=True)
class _JiraUnreachable:
    """Jira did not answer while executing: the outcome is unknown, the command waits for re-delivery."""

    error: Exception


class AgentFatal(Exception):
    """The agent cannot go on (the hub or Jira refused its credentials)."""


def _probe() -> Executor:
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


async def _no_file(sha256: str, size: int | None) -> bytes | None:
    return None


async def _no_page(page: Page) -> None:
    return None


def _key(delivery: Delivery) -> dict[str, str]:
    key = delivery.params.get("key")
    return {"key": key} if isinstance(key, str) else {}


class Agent:
    """One agent: drives the hub's commands into Jira, one at a time."""

    def __init__(
        self,
        *,
        hub: HubClient,
        jira: JiraDriver,
        journal: Journal,
        clock: Clock,
        agent_id: str,
        version: str,
        claim_wait: float = 25.0,
        rng: random.Random | None = None,
        backoff: Backoff | None = None,
        executor_for: Callable[[Delivery, ExecContext], Executor],
        jira_unreachable: tuple[type[Exception], ...] = (httpx.TransportError, JiraError),
        jira_refused: tuple[type[Exception], ...] = (JiraAuthError,),
    ) -> None:
        self.hub = hub
        self.jira = jira
        self.journal = journal
        self.clock = clock
        self.agent_id = agent_id
        self.instance = journal.instance()
        self.version = version
        self.claim_wait = claim_wait
        self.retrying = Retrying(clock=clock, rng=rng or random.Random(), policy=backoff or Backoff())
        self.executor_for = executor_for
        self.stopping = asyncio.Event()
        self.aborting = asyncio.Event()
        # What the Jira driver raises when Jira did not answer (outcome unknown) or refused our credentials.
        self._jira_errors = jira_unreachable
        self._jira_auth_errors = jira_refused
        # What stalls the agent now, by target ("hub", "jira"): the one line logged when it appeared.
        self._problems: dict[str, str] = {}

    # --- control -------------------------------------------------------------------------------------

    def request_stop(self) -> None:
        """First call: finish the command in hand, then stop. Second call: abandon it at once."""
        if self.stopping.is_set():
            self.aborting.set()
        self.stopping.set()

    def _jira_down(self, error: Exception) -> bool:
        """Jira did not answer or refused the agent (a person must act): worth another try after a while."""
        return isinstance(error, self._jira_errors + self._jira_auth_errors)

    # --- what stalls the agent -----------------------------------------------------------------------

    @property
    def last_error(self) -> str | None:
        """What keeps the agent from executing on Jira's side now (the hub is told of it; a problem reaching
        the hub itself is only logged: once the hub hears from the agent, it is over)."""
        return self._problems.get("jira")

    async def _jira_trouble(self, error: Exception) -> None:
        await self._trouble("jira", explain_jira(self.jira.target, error))

    async def _hub_trouble(self, error: Exception) -> None:
        where = f"{self.hub.target.name} at {shown(self.hub.target.base_url)}"
        line = getattr(error, "explained", None) or str(error)
        await self._trouble("hub", line if where in line else f"{where}: {line}")

    async def _trouble(self, target: str, line: str) -> None:
        """Log a problem once, when it appears or changes; tell the hub at every wait (it shows the agent
        online meanwhile: :func:`reconcile.agents.is_online`), unless the hub is the problem."""
        if self._problems.get(target) != line:
            self._problems[target] = line
            log.error("unreachable", extra={"target": target, "error": line})
        await self._tell_hub()

    async def _fine(self, target: str) -> None:
        """``target`` answered: the problem logged for it is over."""
        if self._problems.pop(target, None) is not None:
            log.info("reachable", extra={"target": target})

    async def _tell_hub(self) -> None:
        """Send ``last_error``; best effort (the next claim clears it on the hub anyway)."""
        if "hub" in self._problems or self.last_error is None:
            return
        try:
            await race(
                self.hub.report_problem(
                    agent_id=self.agent_id, version=self.version, instance=self.instance, last_error=self.last_error
                ),
                self.stopping,
            )
        except HubError as exc:
            log.debug("last_error_not_sent", extra={"error": str(exc)})

    def _hub_down(self, error: Exception) -> bool:
        """The hub did not answer and the agent is not stopping (then one try is all it gets)."""
        return isinstance(error, HubUnreachable) and not self.stopping.is_set()

    # --- the loop ------------------------------------------------------------------------------------

    async def run(self) -> None:
        """Until stopped: flush the journal, then claim and execute."""
        log.info("start", extra={"agent_id": self.agent_id, "instance": self.instance, "version": self.version})
        try:
            await self.flush_journal()
            ctx = await self.context()
            while not self.stopping.is_set():
                ctx = await self.step(ctx)
        except Stopped:
            pass
        log.info("stop", extra={"agent_id": self.agent_id})

    async def flush_journal(self) -> None:
        """On start: send an unacknowledged report before any claim."""
        entry = self.journal.read()
        if entry is None:
            return
        fields = {"command_id": entry.command_id, "type": entry.type}
        if entry.report is None:
            log.info("journal_interrupted", extra={**fields, "note": "outcome unknown; the hub re-delivers it"})
            return
        ack = await self.send_report(entry, self.stopping)
        if ack is not None:
            log.info("journal_report_sent", extra={**fields, "ack": ack.status})

    async def context(self) -> ExecContext:
        """Jira's user, time zone and symmetric link types (read once by the driver, then cached)."""
        ctx = await self.retrying(
            lambda: race(self.jira.exec_context(), self.stopping),
            on=self._jira_down,
            what="jira",
            interrupt=self.stopping,
            observe=self._jira_trouble,
        )
        await self._fine("jira")
        return ctx

    async def claim(self, ctx: ExecContext) -> Delivery | None:
        def transient(error: Exception) -> bool | float:
            if isinstance(error, ClaimConflict):
                # Another agent process is active: ask again when the hub says it would count as away.
                after = error.retry_after if error.retry_after is not None else self.claim_wait
                return min(max(after, 1.0), _MAX_CONFLICT_WAIT)
            # A 404 to the claim is a wrong base URL (or a proxy not routing yet): backed off, not fatal.
            return isinstance(error, HubUnreachable) or (isinstance(error, HubRefused) and error.status_code == 404)

        async def observe(error: Exception) -> None:
            if not isinstance(error, ClaimConflict):
                await self._hub_trouble(error)

        async def claim_once() -> Delivery | None:
            delivery = self.hub.claim(
                agent_id=self.agent_id,
                instance=self.instance,
                version=self.version,
                jira_user=ctx.jira_user,
                jira_time_zone=ctx.jira_time_zone,
                symmetric_link_types=ctx.symmetric_link_types,
                wait=self.claim_wait,
            )
            return await race(delivery, self.stopping)

        try:
            delivery = await self.retrying(
                claim_once, on=transient, what="claim", interrupt=self.stopping, observe=observe
            )
        except HubRefused as exc:
            raise AgentFatal(exc.explained or f"the hub refused the claim: {exc}") from exc
        await self._fine("hub")  # the claim cleared the hub's last_error: the agent claims only once Jira answers
        return delivery

    async def step(self, ctx: ExecContext) -> ExecContext:
        """One claim and, if a command came, its execution; returns the context for the next step."""
        delivery = await self.claim(ctx)
        if delivery is None:
            return ctx
        outcome = await self.execute(delivery, ctx)
        if isinstance(outcome, _JiraUnreachable):
            await self.wait_for_jira(outcome.error)
        return ctx

    async def wait_for_jira(self, error: Exception) -> None:
        """Probe Jira with backoff until it answers, so a re-delivery is not spent on an outage."""
        await self.retrying(
            lambda: race(self.jira.drive(_probe(), fetch_file=_no_file, on_page=_no_page), self.stopping),
            on=self._jira_down,
            what="jira",
            interrupt=self.stopping,
            after=error,
            observe=self._jira_trouble,
        )
        await self._fine("jira")

    async def execute(self, delivery: Delivery, ctx: ExecContext) -> str | _JiraUnreachable:
        """Pause, drive the executor, journal and send the report; returns the outcome logged (or, when Jira
        did not answer, the error to wait out before claiming again)."""
        started = self.clock.monotonic()
        entry = JournalEntry(command_id=delivery.id, type=delivery.type, deliveries=delivery.deliveries)
        self.journal.write(entry)
        fields: dict[str, Any] = {
            "command_id": delivery.id,
            "type": delivery.type,
            **_key(delivery),
            "deliveries": delivery.deliveries,
        }

        def finish(outcome: str, **extra: Any) -> str:
            duration_ms = round((self.clock.monotonic() - started) * 1000)
            log.info("command", extra={**fields, "outcome": outcome, "duration_ms": duration_ms, **extra})
            return outcome

        try:
            await race(self.jira.wait_gap(delivery.pause_seconds), self.stopping)
        except Stopped:
            return finish("abandoned", jira_calls=0)
        checked: list[CommandHeld] = []

        async def confirm() -> str | None:
            answer = await self._from_hub(lambda: self.hub.command_held(delivery.id, self.instance), "check")
            checked.append(answer)
            if answer.held:
                return None
            if answer.status == "claimed":
                return f"команда {delivery.id} выдана другому процессу агента {self.agent_id}: запись отменена"
            if answer.status == UNKNOWN_COMMAND:
                return f"команды {delivery.id} нет на хабе: запись в Jira отменена"
            return f"команда {delivery.id} уже {answer.status}: запись в Jira отменена"

        try:
            executor = self.executor_for(delivery, ctx)
            drive = self.jira.drive(
                executor,
                fetch_file=lambda sha, size: self._fetch_file(sha),
                on_page=lambda page: self._post_page(delivery.id, page),
                confirm=confirm,
            )
            outcome = await race(drive, self.aborting)
        except Stopped:
            return finish("abandoned", jira_calls=None)
        except self._jira_auth_errors as exc:
            # Nothing was written by the refused call; the command is re-delivered once Jira takes the agent.
            finish("jira_refused", jira_calls=None, error=str(exc))
            return _JiraUnreachable(error=exc)
        except self._jira_errors as exc:
            finish("jira_unreachable", jira_calls=None, error=f"{type(exc).__name__}: {exc}")
            return _JiraUnreachable(error=exc)
        except HubRefused as exc:
            if exc.status_code in (401, 403):
                raise AgentFatal(f"the hub refused the agent's token: {exc}") from exc
            return finish("hub_refused", jira_calls=None, error=str(exc))
        except Exception as exc:
            # A bug in the agent around the executor (the executor's own bugs end in its report) is
            # deterministic: re-delivery would crash the same way, so the command is reported failed with the
            # error for a person to read (and retry once fixed).
            log.exception("executor_error", extra={"command_id": delivery.id})
            error = f"ошибка агента: {type(exc).__name__}: {exc}"
            outcome = _Crashed(report=Report(status="failed", error=error), jira_calls=0)

        dropped = bool(checked) and not checked[-1].held
        if dropped and checked[-1].status == "claimed":
            # Another process of this agent holds the command now: its report, not ours, settles it.
            self.journal.clear()
            return finish("taken_over", jira_calls=outcome.jira_calls, error=outcome.report.error)
        entry = self.journal.record_report(entry, report_to_wire(outcome.report, outcome.jira_calls))
        if "key" not in fields and isinstance(outcome.report.result.get("key"), str):
            fields["key"] = outcome.report.result["key"]
        try:
            ack = await self.send_report(entry, self.aborting)
        except Stopped:
            finish("report_kept", jira_calls=outcome.jira_calls, report=outcome.report.status)
            raise
        return finish(
            "dropped" if dropped else outcome.report.status,
            jira_calls=outcome.jira_calls,
            ack=None if ack is None else ack.status,
            **({"error": outcome.report.error} if outcome.report.error else {}),
        )

    async def send_report(self, entry: JournalEntry, interrupt: asyncio.Event) -> ReportAck | None:
        """Send the journal's report until the hub answers; clear the entry on the answer.

        ``None`` when the report is still in the journal (stopping while the hub is down) or was refused.
        """
        report = entry.report
        assert report is not None
        try:
            ack = await self.retrying(
                lambda: race(self.hub.report_wire(entry.command_id, report), interrupt),
                on=self._hub_down,
                what="report",
                interrupt=interrupt,
            )
        except HubUnreachable as exc:
            log.info("report_kept", extra={"command_id": entry.command_id, "error": str(exc)})
            return None
        except Stopped:
            log.info("report_kept", extra={"command_id": entry.command_id, "error": "stopped while the hub was away"})
            raise
        except HubRefused as exc:
            if exc.status_code in (401, 403):
                raise AgentFatal(f"the hub refused the agent's token: {exc}") from exc
            log.warning(
                "report_refused",
                extra={"command_id": entry.command_id, "status_code": exc.status_code, "detail": exc.detail},
            )
            self.journal.clear()
            return None
        self.journal.clear()
        return ack

    async def _fetch_file(self, sha256: str) -> bytes | None:
        return await self._from_hub(lambda: self.hub.fetch_file(sha256), "file")

    async def _post_page(self, command_id: int, page: Page) -> None:
        await self._from_hub(lambda: self.hub.post_page(command_id, page), "page")

    async def _from_hub(self, call: Callable[[], Awaitable[T]], what: str) -> T:
        """A call to the hub in the middle of a command; stopping with the hub away abandons the command
        (the journal keeps its id and the hub re-delivers it)."""
        try:
            return await self.retrying(call, on=self._hub_down, what=what, interrupt=self.stopping)
        except HubUnreachable as exc:
            raise Stopped from exc
