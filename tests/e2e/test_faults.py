"""Faults end to end: a killed agent, a lost claim answer, Jira's 429, and the pacing policy, measured on the
simulator's call log with real processes on loopback."""

from __future__ import annotations

import json
import os
import signal
from typing import Any

import pytest

from loopback.stack import Stack

from .e2e_support import (
    Drop,
    LoopbackProxy,
    at,
    finish,
    hub_get,
    sim_calls,
    sim_issue,
    submit,
    wait_in_claim,
    wait_until,
)

pytestmark = pytest.mark.e2e

CREATE = {
    "author": "e2e",
    "title": "создание",
    "commands": [
        {
            "type": "ensure_issue",
            "params": {"temp_key": "new:5", "issue_type": "task", "summary": "Отчёт", "labels": ["AWPCA"]},
        },
        {"type": "ensure_comment", "params": {"key": "new:5", "marker": "[e2e]", "body": "после создания"}},
    ],
    "notes": [{"key": "new:5", "text": "заметка"}],
}


def creates(stack: Stack) -> list[dict[str, Any]]:
    return [c for c in sim_calls(stack) if c["method"] == "POST" and c["path"] == "/rest/api/2/issue"]


@pytest.mark.parametrize("journal_survives", [True, False], ids=["journal-kept", "journal-lost"])
def test_agent_killed_after_create_before_report(stack: Stack, journal_survives: bool) -> None:
    """SIGKILL after Jira created the issue and before the hub heard: after a restart exactly one issue exists,
    the command is done with its key and the note moved (from the journal, or by the duplicate search)."""
    batch = submit(stack, CREATE)
    journal = stack.work_dir / "agent" / "journal.json"

    def kill_agent() -> None:
        os.kill(stack.procs["sdlc-agent"].popen.pid, signal.SIGKILL)

    drop = Drop("POST", r"/report$", after=False, times=1000, on_drop=kill_agent)
    with LoopbackProxy(stack.hub_url, [drop]) as proxy:
        agent = stack.start_agent(hub_url=proxy.url)
        wait_until("the agent is killed", lambda: agent.popen.poll() is not None)
    assert agent.popen.returncode == -signal.SIGKILL
    assert len(creates(stack)) == 1
    command_id = batch["commands"][0]["id"]
    assert hub_get(stack, f"/commands/{command_id}")["status"] == "claimed"
    if not journal_survives:
        journal.unlink()

    stack.start_agent(name="sdlc-agent-2")
    final = finish(stack, batch["id"])
    assert [c["status"] for c in sorted(final["commands"], key=lambda c: c["seq"])] == ["done", "done", "done"]
    command = hub_get(stack, f"/commands/{command_id}")
    key = command["result"]["key"]
    assert command["result"]["created"] is (journal_survives is True)
    assert command["deliveries"] == (1 if journal_survives else 2)
    assert len(creates(stack)) == 1
    assert sim_issue(stack, key)["summary"] == "Отчёт"
    assert [n["text"] for n in hub_get(stack, "/notes", key=key)["items"]] == ["заметка"]


def test_lost_claim_answer_redelivered(stack: Stack) -> None:
    """The hub issued the command but its answer was dropped: the next claim re-delivers it, deliveries = 2."""
    batch = submit(
        stack,
        {
            "author": "e2e",
            "title": "срок",
            "commands": [{"type": "ensure_fields", "params": {"key": "AURORA-1538", "duedate": "2026-12-01"}}],
        },
    )
    with LoopbackProxy(stack.hub_url, [Drop("POST", r"^/agent/claim$", after=True)]) as proxy:
        agent = stack.start_agent(hub_url=proxy.url)
        final = finish(stack, batch["id"])
        agent.stop()  # while its way to the hub is still open
        assert proxy.dropped == ["POST /agent/claim"]
    command = hub_get(stack, f"/commands/{final['commands'][0]['id']}")
    assert (command["status"], command["deliveries"]) == ("done", 2)
    puts = [c for c in sim_calls(stack) if c["method"] == "PUT"]
    assert [c["path"] for c in puts] == ["/rest/api/2/issue/AURORA-1538"]


def test_jira_429_retry_after_is_respected(stack: Stack) -> None:
    """Jira answers 429 with Retry-After: 1; the agent's retry comes no earlier than a second later."""
    with stack.sim() as sim:
        fault = {"method": "PUT", "path_regex": "/issue/AURORA-1538$", "status": 429, "retry_after": 1, "times": 1}
        assert sim.post("/_sim/faults", json=fault).status_code in (200, 201, 204)
    batch = submit(
        stack,
        {
            "author": "e2e",
            "title": "429",
            "commands": [{"type": "ensure_fields", "params": {"key": "AURORA-1538", "priority": "High"}}],
        },
    )
    stack.start_agent()
    final = finish(stack, batch["id"])
    command = hub_get(stack, f"/commands/{final['commands'][0]['id']}")
    assert (command["status"], command["jira_calls"]) == ("done", 3)
    puts = [c for c in sim_calls(stack) if c["method"] == "PUT"]
    assert [c["status"] for c in puts] == [429, 204]
    assert at(puts[1]) - at(puts[0]) >= 1.0


def test_sigterm_stops_the_agent_cleanly(stack: Stack) -> None:
    """SIGTERM while the agent waits in a long poll: it exits 0 at once, journal empty, one JSON line per command."""
    with stack.client("admin") as admin:
        assert admin.patch("/settings", json={"claim_wait_seconds": 30}).status_code == 200
    batch = submit(
        stack,
        {
            "author": "e2e",
            "title": "остановка",
            "commands": [{"type": "ensure_fields", "params": {"key": "AURORA-1538", "priority": "High"}}],
        },
    )
    agent = stack.start_agent(claim_wait=30)
    finish(stack, batch["id"])
    # the hub's first automatic refresh follows the batch; then the agent enters its next (30 s) long poll
    wait_until("the automatic refresh", lambda: hub_get(stack, "/batches")["total"] == 2)
    auto = finish(stack, hub_get(stack, "/batches")["items"][0]["id"])
    wait_in_claim(stack, after=auto["commands"][0]["finished_at"])
    agent.popen.send_signal(signal.SIGTERM)
    assert agent.popen.wait(10) == 0
    journal = json.loads((stack.work_dir / "agent" / "journal.json").read_text(encoding="utf-8"))
    assert journal["entry"] is None
    lines = [json.loads(line) for line in agent.log_path.read_text(encoding="utf-8").splitlines() if line]
    commands = [line for line in lines if line["event"] == "command"]
    # the batch's command, its tail refresh, then the hub's first automatic refresh
    assert [(c["type"], c["outcome"], c["ack"]) for c in commands] == [
        ("ensure_fields", "done", "done"),
        ("refresh", "done", "done"),
        ("refresh", "done", "done"),
    ]
    assert {"command_id", "type", "key", "deliveries", "jira_calls", "outcome", "duration_ms"} <= set(commands[0])
    assert lines[-1]["event"] == "stop"
