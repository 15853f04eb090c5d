"""The hub's Prometheus metrics (DESIGN.md 6, ``GET /metrics``), in the standard ``prometheus_client`` formats.

Two kinds, both under ``sdlc_hub_``:

* **counters of this process** — batches and commands created, claims, reports, Jira calls and writes the agent
  reported, refresh issues and durations, batch validation time, webhook events by outcome, HTTP requests by
  route and status. They are counted after the transaction commits (a rolled-back batch counts nothing) and
  restart from zero with the process, as Prometheus counters do;
* **gauges read from the database at each scrape** — commands by status, queue depth, batches waiting for
  approval, the agent's online flag and last sight, mirror size, age of the last full refresh, the mirror's
  staleness (:mod:`reconcile.jira.freshness`). Several hub processes over one PostgreSQL database report the same
  gauges.

Each :class:`HubMetrics` has its own registry, so several hubs in one process (the tests) do not collide.
"""

from __future__ import annotations

import collections
import time
from collections.abc import Iterable

from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, Scope, Send
from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest
from prometheus_client.metrics_core import GaugeMetricFamily, Metric

from hub_app.answers.queue import QueueReadings
from hub_app.bodies.agent import ReportIn
from reconcile.vocabulary import CommandStatus

__all__ = ["CONTENT_TYPE_LATEST", "HubMetrics", "http_metrics_middleware"]


def _families(readings: QueueReadings) -> Iterable[Metric]:
    """The gauges of one scrape as Prometheus families."""
    by_status = GaugeMetricFamily("sdlc_hub_commands", "Commands in the database by status", labels=["status"])
    for status in CommandStatus:
        by_status.add_metric([status.value], readings.gauges.commands_by_status.get(status.value, 0))
    yield by_status
    yield GaugeMetricFamily("sdlc_hub_batches", "Batches in the database", value=readings.gauges.batches)
    yield GaugeMetricFamily(
        "sdlc_hub_queue_depth",
        "Commands the agent can be issued now (batches awaiting approval apart)",
        value=readings.depth,
    )
    yield GaugeMetricFamily(
        "sdlc_hub_batches_awaiting_approval",
        "Batches held until a person approves them",
        value=readings.awaiting_approval,
    )
    yield GaugeMetricFamily(
        "sdlc_hub_agent_online",
        "1 when the agent was seen within 2 × claim_wait_seconds",
        value=int(readings.agent_online),
    )
    if readings.agent_last_seen is not None:
        yield GaugeMetricFamily(
            "sdlc_hub_agent_last_seen_timestamp_seconds",
            "When the hub last heard from the agent (Unix time)",
            value=readings.agent_last_seen.timestamp(),
        )
    yield GaugeMetricFamily(
        "sdlc_hub_mirror_issues", "Issues in the mirror (vanished ones apart)", value=readings.gauges.mirror_issues
    )
    finished = readings.gauges.last_full_refresh_finished
    if finished is not None:
        yield GaugeMetricFamily(
            "sdlc_hub_last_full_refresh_age_seconds",
            "Seconds since the last full refresh finished",
            value=max(0.0, (readings.now - finished).total_seconds()),
        )
    if readings.mirror_staleness is not None:
        yield GaugeMetricFamily(
            "sdlc_hub_mirror_staleness_seconds",
            "Seconds since the latest finished full or change-only refresh started: how far behind Jira the mirror"
            " can be for certain (webhook events apart)",
            value=readings.mirror_staleness,
        )


class _Readings:
    """A collector over one scrape's readings (``prometheus_client`` collectors are synchronous)."""

    def __init__(self, readings: QueueReadings) -> None:
        self._readings = readings

    def collect(self) -> Iterable[Metric]:
        return _families(self._readings)


class HubMetrics:
    """The process's counters, and the rendering of a scrape."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.batches_created = Counter("sdlc_hub_batches_created", "Batches created", registry=r)
        self.commands_created = Counter("sdlc_hub_commands_created", "Commands created, by type", ["type"], registry=r)
        self.claims = Counter(
            "sdlc_hub_claims",
            "Claims answered: issued (first delivery), redelivered, or empty (nothing to issue)",
            ["outcome"],
            registry=r,
        )
        self.reports = Counter(
            "sdlc_hub_reports",
            "Reports received: the reported status and whether it was recorded as the command's outcome",
            ["status", "accepted"],
            registry=r,
        )
        self.jira_calls = Counter("sdlc_hub_jira_calls", "Jira calls the agent reported making", registry=r)
        self.jira_writes = Counter(
            "sdlc_hub_jira_writes",
            "Jira writes the agent reported, by HTTP method and status",
            ["method", "status"],
            registry=r,
        )
        self.refresh_issues = Counter(
            "sdlc_hub_refresh_issues", "Issues read by finished refreshes (neighbours apart)", registry=r
        )
        self.refresh_seconds = Histogram(
            "sdlc_hub_refresh_duration_seconds",
            "From a refresh's claim to its report",
            buckets=(1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600),
            registry=r,
        )
        self.validation_seconds = Histogram(
            "sdlc_hub_batch_validation_seconds",
            "Validating a batch (the core's rules against the mirror), accepted or refused",
            buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5),
            registry=r,
        )
        self.webhook_events = Counter(
            "sdlc_hub_webhook_events",
            "Jira webhook events the agent relayed, by what they did to the mirror (reconcile.jira.freshness)",
            ["outcome"],
            registry=r,
        )
        self.http_requests = Counter(
            "sdlc_hub_http_requests",
            "HTTP requests by route template, method and status",
            ["route", "method", "status"],
            registry=r,
        )

    def batch_created(self, command_types: Iterable[str]) -> None:
        self.batches_created.inc()
        for command_type in command_types:
            self.commands_created.labels(type=command_type).inc()

    def report_received(self, status: str, accepted: bool, recorded: ReportIn | None) -> None:
        """A report; ``recorded`` when it became the command's outcome (its Jira calls and writes count)."""
        self.reports.labels(status=status, accepted=str(accepted).lower()).inc()
        if recorded is None:
            return
        self.jira_calls.inc(recorded.jira_calls or 0)
        for operation in recorded.operations or ():
            self.jira_writes.labels(method=operation.method.upper(), status=str(operation.status)).inc()

    def events_received(self, outcomes: Iterable[str]) -> None:
        for outcome, count in collections.Counter(outcomes).items():
            self.webhook_events.labels(outcome=outcome).inc(count)

    def refresh_finished(self, seconds: float, issues: int) -> None:
        self.refresh_seconds.observe(max(0.0, seconds))
        self.refresh_issues.inc(issues)

    def render(self, readings: QueueReadings) -> bytes:
        """The Prometheus text of the counters and of this scrape's gauges."""
        scrape = CollectorRegistry(auto_describe=False)
        scrape.register(_Readings(readings))
        return generate_latest(self.registry) + generate_latest(scrape)

    def timed_validation(self) -> _Timer:
        return _Timer(self.validation_seconds)


class _Timer:
    def __init__(self, histogram: Histogram) -> None:
        self._histogram = histogram
        self._start = 0.0

    def __enter__(self) -> None:
        self._start = time.perf_counter()

    def __exit__(self, *_: object) -> None:
        self._histogram.observe(time.perf_counter() - self._start)


def http_metrics_middleware(app: ASGIApp) -> ASGIApp:
    """Count every routed HTTP request by its route template (``/batches/{batch_id:int}``), method and status.

    Litestar turns a handler's exception into its response inside this middleware, so the status counted is the
    one sent.
    """

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await app(scope, receive, send)
            return
        status = 500

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await app(scope, receive, sending)
        finally:
            metrics: HubMetrics = scope["app"].state.hub.metrics
            route = str(scope.get("path_template") or "unrouted")
            method = str(scope.get("method", ""))
            metrics.http_requests.labels(route=route, method=method, status=str(status)).inc()

    return middleware
