"""``/metrics`` and ``/readyz`` (DESIGN.md 6): Prometheus text that counts what a batch did, readiness that knows
the database and its schema."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from adapters.files import FileStore
from adapters.storage.database import Database
from adapters.storage.engine import head_revision, make_engine
from hub_app.app import create_app
from hub_app.runtime.hub import Hub
from tests.support import cmd

from .conftest import Api, Clock
from .support import claim_none, claim_ok, create, create_ok, done, issue, run_refresh

pytestmark = pytest.mark.anyio


async def scrape(api: Api) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of ``/metrics`` (fetched without a token) by name and labels."""
    response = await api.client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }


def value(samples: dict[tuple[str, tuple[tuple[str, str], ...]], float], name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


async def test_metrics_count_a_batch(api: Api, clock: Clock) -> None:
    """After a batch is created, delivered and reported, the counters and gauges say exactly that."""
    created = await create_ok(
        api,
        [
            cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23"),
            cmd("ensure_fields", key="AURORA-2", labels_add=["X"]),
        ],
    )
    types = Counter(c["type"] for c in created["commands"])
    refused = await create(api, [cmd("ensure_fields", key="not a key")])
    assert refused.status_code == 422
    jira_calls = 0
    for _ in created["commands"]:
        delivery = await claim_ok(api)
        clock.advance(seconds=30)
        if delivery["type"] == "refresh":
            await run_refresh(api, delivery, [issue("AURORA-1"), issue("AURORA-2")])
            jira_calls += 1
        else:
            operations = [{"method": "PUT", "path": f"/rest/api/2/issue/{delivery['params']['key']}", "status": 204}]
            await done(api, delivery["id"], jira_calls=3, operations=operations)
            jira_calls += 3
    await claim_none(api)

    samples = await scrape(api)
    n = len(created["commands"])
    assert value(samples, "sdlc_hub_batches_created_total") == 1
    for command_type, count in types.items():
        assert value(samples, "sdlc_hub_commands_created_total", type=command_type) == count
    assert value(samples, "sdlc_hub_claims_total", outcome="issued") == n
    assert value(samples, "sdlc_hub_claims_total", outcome="empty") == 1
    assert value(samples, "sdlc_hub_reports_total", status="done", accepted="true") == n
    assert value(samples, "sdlc_hub_jira_calls_total") == jira_calls
    assert value(samples, "sdlc_hub_jira_writes_total", method="PUT", status="204") == types["ensure_fields"]
    assert value(samples, "sdlc_hub_refresh_issues_total") == 2
    assert value(samples, "sdlc_hub_refresh_duration_seconds_count") == types["refresh"]
    assert value(samples, "sdlc_hub_refresh_duration_seconds_sum") == 30 * types["refresh"]
    assert value(samples, "sdlc_hub_batch_validation_seconds_count") == 2  # the refused batch was validated too
    assert value(samples, "sdlc_hub_commands", status="done") == n
    assert value(samples, "sdlc_hub_commands", status="queued") == 0
    assert value(samples, "sdlc_hub_batches") == 1
    assert value(samples, "sdlc_hub_queue_depth") == 0
    assert value(samples, "sdlc_hub_agent_online") == 1
    assert value(samples, "sdlc_hub_agent_last_seen_timestamp_seconds") == clock.current.timestamp()
    assert value(samples, "sdlc_hub_mirror_issues") == 2
    assert value(samples, "sdlc_hub_http_requests_total", route="/batches", method="POST", status="201") == 1
    assert value(samples, "sdlc_hub_http_requests_total", route="/batches", method="POST", status="422") == 1
    assert value(samples, "sdlc_hub_http_requests_total", route="/agent/claim", method="POST", status="204") == 1


async def test_metrics_of_a_queue_waiting(api: Api) -> None:
    """A batch nobody claimed yet: its commands are queued and the depth counts them; no refresh has run."""
    created = await create_ok(api, [cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23")])
    samples = await scrape(api)
    assert value(samples, "sdlc_hub_commands", status="queued") == len(created["commands"])
    assert value(samples, "sdlc_hub_queue_depth") == len(created["commands"])
    assert value(samples, "sdlc_hub_agent_online") == 0
    assert ("sdlc_hub_last_full_refresh_age_seconds", ()) not in samples


async def test_health_and_readiness(api: Api) -> None:
    """``/health`` and ``/readyz`` need no token; a migrated database is ready."""
    health = await api.client.get("/health")
    ready = await api.client.get("/readyz")
    assert (health.status_code, health.json()) == (200, {"status": "ok"})
    assert (ready.status_code, ready.json()) == (200, {"status": "ready"})


async def test_not_ready_before_migrations(tmp_path: Path) -> None:
    """A database whose schema is behind the code: ``/readyz`` answers 503 and says what to run."""
    hub = Hub(
        database=Database(make_engine(f"sqlite+aiosqlite:///{tmp_path / 'empty.sqlite3'}")),
        files=FileStore(tmp_path / "files"),
    )
    try:
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=create_app(hub, mcp=False)), base_url="http://hub.test"
        ) as client:
            ready = await client.get("/readyz")
            health = await client.get("/health")
    finally:
        await hub.close()
    body: dict[str, Any] = ready.json()
    assert (ready.status_code, body["detail"]) == (
        503,
        f"схема базы данных пуста, нужна {head_revision()}: выполните sdlc-hub migrate",
    )
    assert health.status_code == 200
