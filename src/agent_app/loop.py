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
- **Never silent** (DESIGN.md 5.6, :mod:`agent_app.presence`): every wait but a claim's (the pause before a
  command and inside it, a 429/503 retry, a backoff while the hub is asked for a page, a file or a report)
  tells the hub the agent is alive at least every ``claim_wait_seconds / 2``. A claim's own waits do not: a
  refused claim (another agent is active) must not keep this one looking alive.
- **Stopping** (first SIGINT/SIGTERM): a pending claim or pacing wait is abandoned at once (nothing was
  written; the hub re-delivers a command whose claim answer was lost); a command being executed is
  finished and reported (one attempt if the hub is down: the report stays in the journal for the next
  start). A second signal abandons everything at once; the journal still names the command. A page or a
  file the hub cannot take or give while stopping abandons the command too (the hub re-delivers it).

- **Before writing** (DESIGN.md 5.4, 5.6, :mod:`agent_app.fence`): the agent asks the hub whether this delivery
  still holds the command, before the command's first write and before any write that follows a pause inside
  it; the question goes out so that its answer is in by the pause's end (or alongside the reads when there was
  no pause to wait), so it costs the pacing nothing. A
  command cancelled with ``force`` meanwhile is dropped unwritten and reported ``failed`` with the writes made
  so far (none, when the cancel came during the pause). A command the hub has issued again (to another
  process of this ``agent_id``, or as a later delivery) is dropped without a report: that delivery now owns
  its outcome.
- **Only what was approved** (DESIGN.md 6.5, :mod:`agent_app.plan_guard`): a delivery of an approved batch carries
  its command's approved plan lines; a write not among them is not made, the command is dropped there and reported
  with ``outcome: stale_plan`` and the difference (the hub queues it again and asks a person).
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
from collections.abc import Callable

import attrs
import httpx

from adapters.clock import Clock
from adapters.hub_client import ClaimConflict, HubClient, HubRefused, HubUnreachable, ReportAck, report_to_wire
from adapters.jira_http import JiraError, JiraHttp, explain_jira
from adapters.targets import shown
from agent_app.drive import DriveOutcome, drive, probe
from agent_app.fence import Fence
from agent_app.hub_calls import HubCalls
from agent_app.journal import Journal, JournalEntry
from agent_app.listener import WebhookListener
from agent_app.outcomes import (
    AgentFatal,
    CommandLine,
    Ending,
    JiraUnreachable,
    agent_report,
    ended,
    token_refused,
)
from agent_app.plan_guard import plan_check
from agent_app.presence import Presence
from agent_app.retry import Backoff, Retrying, Stopped, race
from agent_app.watch import CommandWatch, WriteBudget
from reconcile.executors import Delivery, ExecContext, Executor, context_settings
from reconcile.guard import AgentPolicy, JiraField, refusal, scoped_params, unseen_ids
from reconcile.outlook import AgentPace
from reconcile.vocabulary import ValidationError

__all__ = ["Agent", "AgentFatal", "Stopped"]

log = logging.getLogger(__name__)

#: The longest wait after a 409 on claim, whatever ``Retry-After`` the hub sent.
_MAX_CONFLICT_WAIT = 300.0


class Agent:
    """One agent: drives the hub's commands into Jira, one at a time."""

    def __init__(
        self,
        *,
        hub: HubClient,
        jira: JiraHttp,
        journal: Journal,
        clock: Clock,
        agent_id: str,
        version: str,
        claim_wait: float = 25.0,
        policy: AgentPolicy,
        rng: random.Random | None = None,
        backoff: Backoff | None = None,
        executor_for: Callable[[Delivery, ExecContext], Executor],
    ) -> None:
        self.jira = jira
        self.journal = journal
        self.clock = clock
        self.agent_id = agent_id
        self.instance = journal.instance()
        self.version = version
        self.claim_wait = claim_wait
        self.policy = policy
        self.budget = WriteBudget(clock, policy.max_writes_per_hour)
        self.executor_for = executor_for
        self.stopping = asyncio.Event()
        self.aborting = asyncio.Event()
        self.presence = Presence(
            hub=hub, clock=clock, agent_id=agent_id, version=version, instance=self.instance, stopping=self.stopping
        )
        #: What the hub is told of the bank's pace with every claim and heartbeat: its estimates follow it.
        self.pace = AgentPace.of(policy).to_wire()
        self.presence.pace = self.pace
        random_source = rng or random.Random()
        # Every wait but a claim's tells the hub the agent is alive (the presence is the clock of those waits).
        self.retrying = Retrying(clock=self.presence, rng=random_source, policy=backoff or Backoff())
        self.claiming = Retrying(clock=clock, rng=random_source, policy=backoff or Backoff())
        self.hub_calls = HubCalls(
            hub=hub, presence=self.presence, retrying=self.retrying, stopping=self.stopping, instance=self.instance
        )
        self.hub = hub
        self.fence = Fence(self.hub_calls.held, clock=clock, agent_id=agent_id)
        #: The webhook listener beside the claim loop (``--webhook-listen``): it reads events with the custom
        #: fields of the latest delivery's context.
        self.listener: WebhookListener | None = None

    @property
    def hub(self) -> HubClient:
        return self._hub

    @hub.setter
    def hub(self, hub: HubClient) -> None:
        self._hub = hub
        self.presence.hub = hub
        self.hub_calls.hub = hub

    def request_stop(self) -> None:
        """First call: finish the command in hand, then stop. Second call: abandon it at once."""
        if self.stopping.is_set():
            self.aborting.set()
        self.stopping.set()

    def _jira_down(self, error: Exception) -> bool:
        """Jira did not answer or refused the agent (a person must act): worth another try after a while."""
        return isinstance(error, httpx.TransportError | JiraError)

    @property
    def last_error(self) -> str | None:
        """What the hub is told keeps the agent waiting now (:class:`agent_app.presence.Presence`)."""
        return self.presence.last_error

    async def _jira_trouble(self, error: Exception) -> None:
        await self.presence.trouble("jira", explain_jira(self.jira.target, error))

    async def _hub_trouble(self, error: Exception) -> None:
        where = f"{self.hub.target.name} at {shown(self.hub.target.base_url)}"
        line = getattr(error, "explained", None) or str(error)
        await self.presence.trouble("hub", line if where in line else f"{where}: {line}")

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
        """Jira's user, time zone, address and symmetric link types (read once by the Jira client, then cached);
        the address neither asked nor told when the bank's policy hides it."""
        ctx = await self.retrying(
            lambda: race(self._start_context(), self.stopping),
            on=self._jira_down,
            what="jira",
            interrupt=self.stopping,
            observe=self._jira_trouble,
        )
        self.presence.fine("jira")
        return ctx

    async def _start_context(self) -> ExecContext:
        ctx = await self.jira.exec_context(base_url=not self.policy.hide_jira_url)
        return attrs.evolve(ctx, jira_fields=await self.jira.jira_fields(), field_pins=self.policy.fields)

    async def _fields_for(self, delivery: Delivery) -> dict[str, JiraField]:
        """Jira's field list, read again when the delivery's context maps a field id the last one did not hold."""
        fields = await self.jira.jira_fields()
        try:
            settings = context_settings(delivery.context)
        except ValidationError:
            return fields  # the executor fails the command with the message
        return await self.jira.jira_fields(fresh=True) if unseen_ids(settings, fields) else fields

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
                jira_base_url=ctx.jira_base_url,
                symmetric_link_types=ctx.symmetric_link_types,
                wait=self.claim_wait,
                policy=self.pace,
            )
            return await race(delivery, self.stopping)

        try:
            delivery = await self.claiming(
                claim_once, on=transient, what="claim", interrupt=self.stopping, observe=observe
            )
        except HubRefused as exc:
            raise AgentFatal(exc.explained or f"the hub refused the claim: {exc}") from exc
        self.presence.contact()
        self.presence.fine("hub")  # the claim cleared the hub's last_error: the agent claims only once Jira answers
        return delivery

    async def step(self, ctx: ExecContext) -> ExecContext:
        """One claim and, if a command came, its execution; returns the context for the next step."""
        delivery = await self.claim(ctx)
        if delivery is None:
            return ctx
        outcome = await self.execute(delivery, ctx)
        if isinstance(outcome, JiraUnreachable):
            await self.wait_for_jira(outcome.error)
        return ctx

    async def wait_for_jira(self, error: Exception) -> None:
        """Probe Jira with backoff until it answers, so a re-delivery is not spent on an outage."""
        await self.retrying(
            lambda: race(drive(probe(), self.jira), self.stopping),
            on=self._jira_down,
            what="jira",
            interrupt=self.stopping,
            after=error,
            observe=self._jira_trouble,
        )
        self.presence.fine("jira")

    async def execute(self, delivery: Delivery, ctx: ExecContext) -> str | JiraUnreachable:
        """Pause, drive the executor, journal and send the report; returns the outcome logged (or, when Jira
        did not answer, the error to wait out before claiming again). A delivery outside the bank's policy is
        reported failed with the policy's words, without a pause or a Jira call."""
        line = CommandLine.of(delivery, self.clock, log)
        entry = JournalEntry(command_id=delivery.id, type=delivery.type, deliveries=delivery.deliveries)
        self.journal.write(entry)
        self.fence.begin(delivery)
        refused = refusal(self.policy, delivery.type, delivery.params, delivery.context)
        outcome = agent_report(refused) if refused is not None else await self._paced(delivery, ctx, line)
        if isinstance(outcome, DriveOutcome):
            return await self._settle(entry, outcome, line)
        return outcome

    async def _paced(self, delivery: Delivery, ctx: ExecContext, line: CommandLine) -> Ending:
        """The delivery under the bank's policy (its keys scoped, its gaps floored): the pause before it, then the
        executor driven to its report."""
        delivery = attrs.evolve(
            delivery,
            params=scoped_params(self.policy, delivery.type, delivery.params),
            pause_seconds=self.policy.gap(delivery.type, delivery.pause_seconds),
        )
        ctx = attrs.evolve(ctx, allowed_projects=self.policy.allow_projects)
        self.presence.follow(delivery.context)
        if self.listener is not None:
            self.listener.follow(delivery.context)
        try:
            try:
                left = self.jira.gap_left(delivery.pause_seconds)
                # The hub knows the bank's floor: it assumes the floored gap since the delivery.
                await race(self.presence.pausing(delivery.id, left, hub_assumes=delivery.pause_seconds), self.stopping)
                await race(self.jira.wait_gap(delivery.pause_seconds, sleep=self._pause), self.stopping)
            except Stopped:
                return line.finish("abandoned", jira_calls=0)
            self.fence.start()  # unless the pause asked already, the delivery check goes out alongside the reads
            return await self._drive(delivery, ctx, line)
        finally:
            await self.fence.end()
            self.presence.clear("retry", "budget")
            self.presence.released()

    async def _pause(self, seconds: float) -> None:
        """The pause before a command: heartbeats, and the delivery check asked so that it is in by its end."""
        await self.presence.sleep(seconds, ahead=self.fence.ahead())

    async def _drive(self, delivery: Delivery, ctx: ExecContext, line: CommandLine) -> Ending:
        """The executor driven to its report, or what ended it without one (:func:`agent_app.outcomes.ended`)."""
        watch = CommandWatch(
            presence=self.presence, fence=self.fence, budget=self.budget, hub=self.hub_calls, command_id=delivery.id
        )
        check = plan_check(delivery.params, delivery.context)
        try:
            ctx = attrs.evolve(ctx, jira_fields=await self._fields_for(delivery), field_pins=self.policy.fields)
            executor = self.executor_for(delivery, ctx)
            outcome = await race(drive(check.watch(executor) if check else executor, self.jira, watch), self.aborting)
        except Exception as error:
            return ended(error, line)
        if check is not None and check.differences:
            return attrs.evolve(outcome, difference=tuple(d.to_json() for d in check.differences))
        return outcome

    async def _settle(self, entry: JournalEntry, outcome: DriveOutcome, line: CommandLine) -> str:
        """Journal the report and send it (unless another delivery owns the command now)."""
        if self.fence.superseded:
            # Another delivery of the command (another process, or a later one) settles it, not this one.
            self.journal.clear()
            return line.finish("taken_over", jira_calls=outcome.jira_calls, error=outcome.report.error)
        wire = report_to_wire(outcome.report, outcome.jira_calls, difference=outcome.difference)
        entry = self.journal.record_report(entry, wire)
        if "key" not in line.fields and isinstance(outcome.report.result.get("key"), str):
            line.fields["key"] = outcome.report.result["key"]
        try:
            ack = await self.send_report(entry, self.aborting)
        except Stopped:
            line.finish("report_kept", jira_calls=outcome.jira_calls, report=outcome.report.status)
            raise
        return line.finish(
            "stale_plan" if outcome.difference else "dropped" if self.fence.dropped else outcome.report.status,
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
                on=self.hub_calls.hub_down,
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
            if (fatal := token_refused(exc)) is not None:
                raise fatal from exc
            log.warning(
                "report_refused",
                extra={"command_id": entry.command_id, "status_code": exc.status_code, "detail": exc.detail},
            )
            self.journal.clear()
            return None
        self.presence.contact()
        self.journal.clear()
        return ack
