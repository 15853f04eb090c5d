"""An agent that never goes silent (DESIGN.md 5.6), end to end: real ``jira-sim``, ``sdlc-hub serve`` and
``sdlc-agent run`` processes on loopback, the agent's state read as a planner reads it (``GET /agent-status``)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from loopback.stack import Stack, start_stack

from .e2e_support import E2E_PACING, agent_events, finish, full_refresh, hub_get, sim_fault, submit, wait_until

pytestmark = pytest.mark.e2e


def one_write(key: str = "AURORA-1533", duedate: str = "2026-12-01") -> dict[str, object]:
    return {
        "author": "e2e",
        "title": "срок",
        "commands": [{"type": "ensure_fields", "params": {"key": key, "duedate": duedate}}],
    }


def test_an_agent_in_a_long_pause_stays_online_and_a_second_agent_is_refused(
    tmp_path: Path, hub_database: str | None
) -> None:
    """A 20 s pause with claim_wait_seconds 4 (the hub's online window is 8 s): at every 1 s sample of the pause
    ``GET /agent-status`` says online, a claim by another agent id is refused 409, and the first agent then
    writes the command."""
    pacing = {**E2E_PACING, "ensure_fields": 20.0}
    stack = start_stack(tmp_path, pacing=pacing, claim_wait_seconds=4.0, database_url=hub_database)
    try:
        stack.start_agent()
        full_refresh(stack)
        batch = submit(stack, one_write())
        command_id = batch["commands"][0]["id"]
        wait_until("the agent claims the command", lambda: hub_get(stack, f"/commands/{command_id}")["deliveries"])
        online: list[bool] = []
        refused: list[int] = []
        while len(online) < 12 and hub_get(stack, f"/commands/{command_id}")["status"] == "claimed":
            online.append(hub_get(stack, "/agent-status")["online"])
            if len(online) == 10:
                with stack.client("agent") as other:
                    answer = other.post("/agent/claim", json={"agent_id": "agent-b", "version": "0", "wait": 0})
                refused.append(answer.status_code)
            time.sleep(1.0)
        assert (len(online), all(online)) == (12, True), online
        assert refused == [409]
        final = finish(stack, batch["id"])
        assert [c["status"] for c in final["commands"]] == ["done", "done"]
        assert hub_get(stack, f"/commands/{command_id}")["deliveries"] == 1
        assert hub_get(stack, "/agent-status")["agent_id"] == "demo-agent"
    finally:
        stack.stop()


def test_a_jira_503_on_a_write_shows_in_last_error_while_it_is_retried(stack: Stack) -> None:
    """Jira answers a write 503 three times (Retry-After 1): while the agent retries, ``last_error`` says so in
    the spec's words, one log line a try says what Jira answered; the command ends done and nothing is shown."""
    agent = stack.start_agent()
    full_refresh(stack)
    sim_fault(stack, method="PUT", path_regex="/issue/AURORA-1533$", status=503, retry_after=1, times=3)
    batch = submit(stack, one_write(duedate="2026-12-02"))
    seen: set[str] = set()
    deadline = time.monotonic() + 40
    while time.monotonic() < deadline:
        error = hub_get(stack, "/agent-status")["last_error"]
        if error:
            seen.add(error)
        if all(
            c["status"] != "claimed" and c["status"] != "queued"
            for c in hub_get(stack, f"/batches/{batch['id']}")["commands"]
        ):
            break
        time.sleep(0.1)
    retries = {f"Jira ответила 503, повтор {n} из 5 через 1 с" for n in (1, 2, 3)}
    assert seen and seen <= retries, seen
    final = finish(stack, batch["id"])
    assert [c["status"] for c in final["commands"]] == ["done", "done"]
    wait_until("last_error is cleared", lambda: hub_get(stack, "/agent-status")["last_error"] is None)
    tries = [
        (e["status"], e["attempt"], e["of"], e["retry_in_seconds"])
        for e in agent_events(agent)
        if e["event"] == "jira_retry"
    ]
    assert tries == [(503, n, 5, 1.0) for n in (1, 2, 3)]
