"""A fresh mirror at a small Jira load, end to end (DESIGN.md 5.6, 6.2): ``jira-sim``, ``sdlc-hub serve`` and
``sdlc-agent run --webhook-listen`` as processes — a person's edit arrives by webhook within seconds, a dropped
delivery by the next change-only refresh; repeats change nothing twice; an unsigned delivery is refused; an idle
mirror costs one search a change-only refresh; a refresh under Jira's token bucket meets no 429."""

from __future__ import annotations

import base64
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from loopback.stack import Stack, checked, wait_batch

pytestmark = pytest.mark.e2e


def until(what: str, found: Callable[[], Any], *, timeout: float) -> Any:
    """Poll ``found`` until it is truthy (an end-to-end state, not a timing)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = found()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"{what}: not within {timeout} s")


def person_edits(stack: Stack, key: str, summary: str) -> None:
    """``ivanov`` (basic auth, not the agent's user) edits the issue in Jira."""
    person = base64.b64encode(b"ivanov:pw").decode()
    with httpx.Client(base_url=stack.sim_url, timeout=30) as jira:
        answer = jira.put(
            f"/rest/api/2/issue/{key}",
            json={"fields": {"summary": summary}},
            headers={"Authorization": f"Basic {person}"},
        )
    assert answer.status_code == 204, answer.text


def summary(stack: Stack, key: str) -> str | None:
    with stack.client() as hub:
        answer = hub.get(f"/issues/{key}")
    return answer.json()["summary"] if answer.status_code == 200 else None


def mirrored(stack: Stack) -> None:
    """The agent's first (full) refresh is done: the sample's issues are in the mirror."""
    until("the first refresh", lambda: summary(stack, "AURORA-1533"), timeout=60)
    with stack.client() as hub:
        first = checked(hub.get("/batches"))["items"][-1]
        wait_batch(hub, first["id"], out=_Quiet(), timeout=60)


class _Quiet:
    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        return None


def settings(stack: Stack, **values: Any) -> None:
    with stack.client("admin") as admin:
        checked(admin.patch("/settings", json=values))


def sim_calls(stack: Stack) -> list[dict[str, Any]]:
    with stack.sim() as sim:
        calls: list[dict[str, Any]] = checked(sim.get("/_sim/calls"))
    return calls


def metric(stack: Stack, line: str) -> bool:
    with httpx.Client(base_url=stack.hub_url, timeout=30) as hub:
        return line in hub.get("/metrics").text


def test_a_persons_edit_arrives_by_webhook(stack: Stack) -> None:
    """An edit by another user reaches the mirror by webhook alone: the agent read nothing from Jira for it and the
    hub counted one applied event (how fast: bench/bench_fresh.py ``edits``, p99 in bench/RESULTS.md)."""
    stack.start_agent()
    mirrored(stack)
    with stack.sim() as sim:
        checked(sim.delete("/_sim/calls"))
    person_edits(stack, "AURORA-1533", "Сверка: правка человека")
    until("the edit in the mirror", lambda: summary(stack, "AURORA-1533") == "Сверка: правка человека", timeout=30)
    assert [(c["method"], c["path"]) for c in sim_calls(stack)] == [("PUT", "/rest/api/2/issue/AURORA-1533")]
    assert metric(stack, 'sdlc_hub_webhook_events_total{outcome="applied"} 1.0')


def test_a_dropped_delivery_arrives_by_the_change_only_refresh(stack: Stack) -> None:
    """With the delivery dropped, the next change-only refresh brings the edit: one search call for it."""
    stack.start_agent()
    mirrored(stack)
    with stack.sim() as sim:
        checked(sim.post("/_sim/webhook_faults", json={"drop": 1}))
    settings(stack, auto_refresh_minutes=0.05)
    person_edits(stack, "AURORA-1533", "Сверка: доставка потеряна")
    until("the edit in the mirror", lambda: summary(stack, "AURORA-1533") == "Сверка: доставка потеряна", timeout=60)
    with stack.client() as hub:
        titles = [(b["title"], b["author"]) for b in checked(hub.get("/batches"))["items"]]
    assert ("автообновление (изменения)", "hub") in titles
    with stack.sim() as sim:
        deliveries = checked(sim.get("/_sim/webhook_deliveries"))
    assert [d["status"] for d in deliveries] == [0]


def test_repeated_deliveries_change_nothing_twice(stack: Stack) -> None:
    """Jira's repeats of one delivery are dropped by the agent: the hub applies the edit once."""
    stack.start_agent()
    mirrored(stack)
    with stack.sim() as sim:
        checked(sim.post("/_sim/webhook_faults", json={"duplicate": 1}))
    person_edits(stack, "AURORA-1533", "Сверка: дважды")
    until("the edit in the mirror", lambda: summary(stack, "AURORA-1533") == "Сверка: дважды", timeout=30)
    with stack.sim() as sim:
        until("both deliveries", lambda: len(checked(sim.get("/_sim/webhook_deliveries"))) == 2, timeout=10)
        deliveries = checked(sim.get("/_sim/webhook_deliveries"))
    assert sorted((d["duplicate"], d["status"]) for d in deliveries) == [(False, 204), (True, 204)]
    assert metric(stack, 'sdlc_hub_webhook_events_total{outcome="applied"} 1.0')
    assert not metric(stack, 'sdlc_hub_webhook_events_total{outcome="duplicate"}')


def test_an_unsigned_delivery_is_refused(stack: Stack) -> None:
    """The agent's listener answers 401 to a body without the right signature, and the hub hears nothing."""
    stack.start_agent()
    body = b'{"webhookEvent": "jira:issue_updated", "issue": {"key": "AURORA-1533"}}'
    url = stack.listeners["sdlc-agent"]
    answer = until("the listener", lambda: _post(url, body), timeout=30)
    assert answer.status_code == 401
    assert _post(url, body, {"X-Hub-Signature": "sha256=" + "0" * 64}).status_code == 401
    assert not metric(stack, "sdlc_hub_webhook_events_total{")


def _post(url: str, body: bytes, headers: dict[str, str] | None = None) -> httpx.Response | None:
    try:
        return httpx.post(url, content=body, headers=headers, timeout=10)
    except httpx.TransportError:
        return None


def test_an_idle_mirror_costs_one_search_a_change_only_refresh(stack: Stack) -> None:
    """The call log shows the polling figure: while nothing changes every automatic refresh is change-only and
    reads Jira once (one search with ``expand=changelog``)."""
    stack.start_agent()
    mirrored(stack)
    settings(stack, auto_refresh_minutes=0.02)
    with stack.sim() as sim:
        checked(sim.delete("/_sim/calls"))

    def hub_refreshes() -> list[dict[str, Any]]:
        with stack.client() as hub:
            runs = [b for b in checked(hub.get("/batches", params={"limit": 1000}))["items"] if b["author"] == "hub"]
            return [checked(hub.get(f"/batches/{b['id']}"))["commands"][0] for b in runs]

    def changes_done() -> list[dict[str, Any]]:
        return [c for c in hub_refreshes() if c["params"].get("changes") and c["status"] == "done"]

    until("three change-only refreshes", lambda: len(changes_done()) >= 3, timeout=60)
    calls = sim_calls(stack)
    refreshes = hub_refreshes()
    changes = changes_done()
    assert {c["jira_calls"] for c in changes} == {1}
    assert {(c["method"], c["path"]) for c in calls} <= {("POST", "/rest/api/2/search")}
    assert len(calls) <= len([c for c in refreshes if c["params"].get("changes")])


def test_a_refresh_under_jiras_bucket_meets_no_429(stack: Stack) -> None:
    """Under a bucket of 1 call a second (max 3), three full refreshes back to back (6 calls: more than the bucket
    holds) pace themselves by Jira's headers: no 429."""
    stack.start_agent()
    mirrored(stack)
    with stack.sim() as sim:
        checked(sim.post("/_sim/rate_limit", json={"fill_per_second": 1, "max": 3}))
        checked(sim.delete("/_sim/calls"))
    for _ in range(3):
        with stack.client() as hub:
            batch = checked(hub.post("/refresh", json={}))
            done = wait_batch(hub, batch["id"], out=_Quiet(), timeout=60)
        assert [c["status"] for c in done["commands"]] == ["done"]
    statuses = [c["status"] for c in sim_calls(stack)]
    assert statuses == [200] * 6
