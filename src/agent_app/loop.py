"""The agent's loop (DESIGN.md 5.4): journal → claim → pause → execute → report.

Decisions where the spec is silent:

- **Jira unreachable while executing** (connection refused or dropped, timeout): the outcome in Jira is
  unknown, so the agent does NOT report ``failed``. The journal keeps the command id, the agent backs off
  and probes Jira (``GET /myself``) until it answers, then claims again: the hub re-delivers the same
  command (``deliveries + 1``) and the executor, which reads first, writes only what is still missing.
  Probing before claiming keeps a Jira outage from burning the command's deliveries (limit 3).
- **Hub unreachable** (transport error or 5xx): claims, pages and file downloads are retried with
  exponential backoff and jitter; a report is retried the same way until the hub answers, and kept in the
  journal meanwhile. A 4xx to a report is an answer: it is logged and the journal entry cleared (sending
  it again cannot change it). 401/403 anywhere stops the agent (:class:`AgentFatal`), the journal intact.
- **Stopping** (first SIGINT/SIGTERM): a pending claim or pacing wait is abandoned at once (nothing was
  written; the hub re-delivers a command whose claim answer was lost); a command being executed is
  finished and reported (one attempt if the hub is down: the report stays in the journal for the next
  start). A second signal abandons everything at once; the journal still names the command.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import traceback
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Protocol, TypeVar

import attrs
import httpx

from adapters.hub_client import (
    ClaimConflict,
    HubClient,
    HubRefused,
    HubUnreachable,
    ReportAck,
    report_to_wire,
)
from agent_app.journal import Journal, JournalEntry
from reconcile.plans.base import Delivery, ExecContext, Executor, JiraCall, Page, Report

__all__ = ["Agent", "AgentFatal", "Backoff", "ClockLike", "JiraDriver", "Stopped", "backoff_delay"]

log = logging.getLogger("agent_app")

T = TypeVar("T")


class ClockLike(Protocol):
    def monotonic(self) -> float: ...

    async def sleep(self, seconds: float) -> None: ...


class DriveOutcomeLike(Protocol):
    @property
    def report(self) -> Report: ...

    @property
    def jira_calls(self) -> int: ...


class JiraDriver(Protocol):
    """What the loop needs of :class:`adapters.jira_http.JiraHttp`."""

    async def exec_context(self) -> ExecContext: ...

    async def wait_gap(self, seconds: float) -> None: ...

    async def drive(
        self,
        executor: Executor,
        *,
        fetch_file: Callable[[str, int | None], Awaitable[bytes | None]],
        on_page: Callable[[Page], Awaitable[None]],
    ) -> DriveOutcomeLike: ...


@attrs.frozen(kw_only=True)
class _Crashed:
    report: Report
    jira_calls: int


class AgentFatal(Exception):
    """The agent cannot go on (the hub or Jira refused its credentials)."""


class Stopped(Exception):
    """Raised inside the loop when a stop request interrupted a wait or a call."""


@attrs.frozen(kw_only=True)
class Backoff:
    """Exponential backoff with jitter: attempt n waits a random share of ``min(cap, base * 2**n)``."""

    base: float = 0.5
    cap: float = 30.0


def backoff_delay(policy: Backoff, attempt: int, rng: random.Random) -> float:
    """Half fixed, half random ("equal jitter"): never zero, never above the cap, spread across agents."""
    ceiling = min(policy.cap, policy.base * float(2 ** min(attempt, 32)))
    return ceiling / 2 + rng.uniform(0, ceiling / 2)


def _probe() -> Executor:
    """A one-call executor: ``GET /myself``, uncached, to see whether Jira answers at all."""
    yield JiraCall(method="GET", path="/rest/api/2/myself")
    return Report(status="done")


async def _no_file(sha256: str, size: int | None) -> bytes | None:
    return None


async def _no_page(page: Page) -> None:
    return None


def _emit(event: str, **fields: Any) -> None:
    log.info(json.dumps({"event": event, **fields}, ensure_ascii=False, default=str))


class Agent:
    """One agent: drives the hub's commands into Jira, one at a time."""

    def __init__(
        self,
        *,
        hub: HubClient,
        jira: JiraDriver,
        journal: Journal,
        clock: ClockLike,
        agent_id: str,
        version: str,
        claim_wait: float = 25.0,
        rng: random.Random | None = None,
        backoff: Backoff = Backoff(),
        executor_for: Callable[[Delivery, ExecContext], Executor],
        jira_unreachable: tuple[type[BaseException], ...] = (httpx.TransportError,),
        jira_refused: tuple[type[BaseException], ...] = (),
    ) -> None:
        self.hub = hub
        self.jira = jira
        self.journal = journal
        self.clock = clock
        self.agent_id = agent_id
        self.version = version
        self.claim_wait = claim_wait
        self.rng = rng or random.Random()
        self.backoff = backoff
        self.executor_for = executor_for
        self.stopping = asyncio.Event()
        self.aborting = asyncio.Event()
        # What the Jira driver raises when Jira did not answer (outcome unknown) or refused our credentials.
        self._jira_errors = jira_unreachable
        self._jira_auth_errors = jira_refused

    # --- control -------------------------------------------------------------------------------------

    def request_stop(self) -> None:
        """First call: finish the command in hand, then stop. Second call: abandon it at once."""
        if self.stopping.is_set():
            self.aborting.set()
        self.stopping.set()

    async def _race(self, coro: Coroutine[Any, Any, T], interrupt: asyncio.Event) -> T:
        """Await ``coro`` unless ``interrupt`` is set first; then cancel it and raise :class:`Stopped`."""
        if interrupt.is_set():
            coro.close()
            raise Stopped
        task = asyncio.ensure_future(coro)
        waiter = asyncio.ensure_future(interrupt.wait())
        try:
            await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
        except BaseException:
            task.cancel()
            waiter.cancel()
            raise
        if task.done():
            waiter.cancel()
            return task.result()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
        raise Stopped

    async def _sleep(self, seconds: float, interrupt: asyncio.Event) -> None:
        await self._race(self.clock.sleep(seconds), interrupt)

    async def _back_off(self, attempt: int, interrupt: asyncio.Event, what: str, error: object) -> None:
        delay = backoff_delay(self.backoff, attempt, self.rng)
        _emit("retry", what=what, attempt=attempt + 1, delay=round(delay, 3), error=str(error))
        await self._sleep(delay, interrupt)

    # --- the loop ------------------------------------------------------------------------------------

    async def run(self) -> None:
        """Until stopped: flush the journal, then claim and execute."""
        _emit("start", agent_id=self.agent_id, version=self.version)
        try:
            await self.flush_journal()
            ctx = await self.context()
            while not self.stopping.is_set():
                ctx = await self.step(ctx)
        except Stopped:
            pass
        _emit("stop", agent_id=self.agent_id)

    async def flush_journal(self) -> None:
        """On start: send an unacknowledged report before any claim."""
        entry = self.journal.read()
        if entry is None:
            return
        if entry.report is None:
            _emit(
                "journal_interrupted",
                id=entry.command_id,
                type=entry.type,
                note="outcome unknown; the hub re-delivers it",
            )
            return
        ack = await self.send_report(entry, self.stopping)
        if ack is not None:
            _emit("journal_report_sent", id=entry.command_id, type=entry.type, ack=ack.status)

    async def context(self) -> ExecContext:
        """Jira's user, time zone and symmetric link types (read once by the driver, then cached)."""
        attempt = 0
        while True:
            try:
                return await self._race(self.jira.exec_context(), self.stopping)
            except self._jira_auth_errors as exc:
                raise AgentFatal(f"Jira refused the agent's credentials: {exc}") from exc
            except self._jira_errors as exc:
                await self._back_off(attempt, self.stopping, "jira", exc)
                attempt += 1

    async def claim(self, ctx: ExecContext) -> Delivery | None:
        attempt = 0
        while True:
            try:
                return await self._race(
                    self.hub.claim(
                        agent_id=self.agent_id,
                        version=self.version,
                        jira_user=ctx.jira_user,
                        jira_time_zone=ctx.jira_time_zone,
                        symmetric_link_types=ctx.symmetric_link_types,
                        wait=self.claim_wait,
                    ),
                    self.stopping,
                )
            except ClaimConflict as exc:
                _emit("claim_conflict", detail=exc.detail)
                await self._sleep(max(self.claim_wait, 1.0), self.stopping)
            except HubRefused as exc:
                raise AgentFatal(f"the hub refused the claim: {exc}") from exc
            except HubUnreachable as exc:
                await self._back_off(attempt, self.stopping, "claim", exc)
                attempt += 1

    async def step(self, ctx: ExecContext) -> ExecContext:
        """One claim and, if a command came, its execution; returns the context for the next step."""
        delivery = await self.claim(ctx)
        if delivery is None:
            return ctx
        outcome = await self.execute(delivery, ctx)
        if outcome == "jira_unreachable":
            await self.wait_for_jira()
        return ctx

    async def wait_for_jira(self) -> None:
        """Probe Jira with backoff until it answers, so a re-delivery is not spent on an outage."""
        attempt = 0
        while True:
            await self._back_off(attempt, self.stopping, "jira", "unreachable")
            attempt += 1
            try:
                await self._race(self.jira.drive(_probe(), fetch_file=_no_file, on_page=_no_page), self.stopping)
                return
            except self._jira_errors:
                continue

    async def execute(self, delivery: Delivery, ctx: ExecContext) -> str:
        """Pause, drive the executor, journal and send the report; returns the outcome logged."""
        started = self.clock.monotonic()
        entry = JournalEntry(command_id=delivery.id, type=delivery.type, deliveries=delivery.deliveries)
        self.journal.write(entry)
        fields: dict[str, Any] = {"id": delivery.id, "type": delivery.type, "deliveries": delivery.deliveries}

        def finish(outcome: str, **extra: Any) -> str:
            duration = round(self.clock.monotonic() - started, 3)
            _emit("command", **fields, outcome=outcome, duration=duration, **extra)
            return outcome

        try:
            await self._race(self.jira.wait_gap(delivery.pause_seconds), self.stopping)
        except Stopped:
            return finish("abandoned", jira_calls=0)
        try:
            executor = self.executor_for(delivery, ctx)
            drive = self.jira.drive(
                executor,
                fetch_file=lambda sha, size: self._fetch_file(sha),
                on_page=lambda page: self._post_page(delivery.id, page),
            )
            outcome = await self._race(drive, self.aborting)
        except Stopped:
            return finish("abandoned", jira_calls=None)
        except self._jira_auth_errors as exc:
            finish("jira_refused", jira_calls=None, error=str(exc))
            raise AgentFatal(f"Jira refused the agent's credentials: {exc}") from exc
        except self._jira_errors as exc:
            return finish("jira_unreachable", jira_calls=None, error=f"{type(exc).__name__}: {exc}")
        except HubRefused as exc:
            if exc.status_code in (401, 403):
                raise AgentFatal(f"the hub refused the agent's token: {exc}") from exc
            return finish("hub_refused", jira_calls=None, error=str(exc))
        except Exception as exc:
            # A bug in an executor or the driver is deterministic: re-delivery would crash the same way, so
            # the command is reported failed with the error for a person to read (and retry once fixed).
            _emit("executor_error", id=delivery.id, traceback=traceback.format_exc())
            error = f"ошибка агента: {type(exc).__name__}: {exc}"
            outcome = _Crashed(report=Report(status="failed", error=error), jira_calls=0)

        entry = self.journal.record_report(entry, report_to_wire(outcome.report, outcome.jira_calls))
        try:
            ack = await self.send_report(entry, self.aborting)
        except Stopped:
            finish("report_kept", jira_calls=outcome.jira_calls, report=outcome.report.status)
            raise
        return finish(
            outcome.report.status,
            jira_calls=outcome.jira_calls,
            ack=None if ack is None else ack.status,
            **({"error": outcome.report.error} if outcome.report.error else {}),
        )

    async def send_report(self, entry: JournalEntry, interrupt: asyncio.Event) -> ReportAck | None:
        """Send the journal's report until the hub answers; clear the entry on the answer.

        ``None`` when the report is still in the journal (stopping while the hub is down) or was refused.
        """
        assert entry.report is not None
        attempt = 0
        while True:
            try:
                ack = await self._race(self.hub.report_wire(entry.command_id, entry.report), interrupt)
            except HubUnreachable as exc:
                if self.stopping.is_set():
                    _emit("report_kept", id=entry.command_id, error=str(exc))
                    return None
                try:
                    await self._back_off(attempt, interrupt, "report", exc)
                except Stopped:
                    _emit("report_kept", id=entry.command_id, error=str(exc))
                    raise
                attempt += 1
                continue
            except HubRefused as exc:
                if exc.status_code in (401, 403):
                    raise AgentFatal(f"the hub refused the agent's token: {exc}") from exc
                _emit("report_refused", id=entry.command_id, status_code=exc.status_code, detail=exc.detail)
                self.journal.clear()
                return None
            self.journal.clear()
            return ack

    async def _fetch_file(self, sha256: str) -> bytes | None:
        attempt = 0
        while True:
            try:
                return await self.hub.fetch_file(sha256)
            except HubUnreachable as exc:
                if self.stopping.is_set():
                    # Stopping with the hub away: abandon the command (the journal keeps its id, the hub re-delivers).
                    raise Stopped from exc
                await self._back_off(attempt, self.aborting, "file", exc)
                attempt += 1

    async def _post_page(self, command_id: int, page: Page) -> None:
        attempt = 0
        while True:
            try:
                await self.hub.post_page(command_id, page)
                return
            except HubUnreachable as exc:
                if self.stopping.is_set():
                    raise Stopped from exc
                await self._back_off(attempt, self.aborting, "page", exc)
                attempt += 1
