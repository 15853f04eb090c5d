"""Recovery end to end: claim answers lost up to the delivery limit, the hub restarted under a waiting claim,
Jira down for a while; real ``jira-sim``, ``sdlc-hub serve`` and ``sdlc-agent run`` processes on loopback, Jira's
final state read from the simulator's control API. (The wall time of a paced batch is a measurement:
bench/bench_pacing.py, P2 in bench/RESULTS.md; the gaps it keeps are checked on a fake clock in
tests/agent/test_with_hub.py.)"""

from __future__ import annotations

import signal
import subprocess

import pytest

from loopback.stack import Stack, start_agent

from .e2e_support import (
    Drop,
    LoopbackProxy,
    agent_events,
    by_seq,
    finish,
    full_refresh,
    hub_get,
    is_write,
    logs,
    sim_calls,
    sim_clear_faults,
    sim_fault,
    sim_issue,
    submit,
    wait_in_claim,
    wait_until,
)

pytestmark = pytest.mark.e2e

LIMIT_ERROR = "агент не отчитался после 3 выдач"

TWO_WRITES = {
    "author": "e2e",
    "title": "срок и комментарий",
    "commands": [
        {"type": "ensure_fields", "params": {"key": "AURORA-1538", "duedate": "2026-12-01"}},
        {"type": "ensure_comment", "params": {"key": "AURORA-1542", "marker": "[e2e]", "body": "[e2e] после сбоя"}},
    ],
}

#: The simulator's answers to the two writes of ``TWO_WRITES``, each once.
TWO_WRITES_LOG = [
    ("PUT", "/rest/api/2/issue/AURORA-1538", 204),
    ("POST", "/rest/api/2/issue/AURORA-1542/comment", 201),
]


def writes_since(stack: Stack, mark: int) -> list[tuple[str, str, int]]:
    return [(c["method"], c["path"], c["status"]) for c in sim_calls(stack)[mark:] if is_write(c)]


def assert_two_writes_applied(stack: Stack) -> None:
    assert sim_issue(stack, "AURORA-1538")["duedate"] == "2026-12-01"
    bodies = [c["body"] for c in sim_issue(stack, "AURORA-1542")["comments"]]
    assert bodies == ["[e2e] после сбоя"]


def test_three_lost_claim_answers_fail_the_command(stack: Stack) -> None:
    """The claim answer for a command is lost three times: the 4th claim fails it with «агент не отчитался после
    3 выдач», nothing of it reaches Jira, and the next command is issued and done."""
    batch = submit(
        stack,
        {
            "author": "e2e",
            "title": "предел выдач",
            "commands": [
                {"type": "ensure_fields", "params": {"key": "AURORA-1542", "priority": "High"}},
                {"type": "ensure_fields", "params": {"key": "AURORA-1538", "duedate": "2026-12-01"}},
            ],
        },
    )
    with LoopbackProxy(stack.hub_url, [Drop("POST", r"^/agent/claim$", after=True, times=3)]) as proxy:
        agent = stack.start_agent(hub_url=proxy.url)
        final = by_seq(finish(stack, batch["id"]))
        agent.stop()  # while its way to the hub is still open
        assert proxy.dropped == ["POST /agent/claim"] * 3
    lost, following, tail = (hub_get(stack, f"/commands/{c['id']}") for c in final)
    assert (lost["status"], lost["error"], lost["deliveries"], lost["jira_calls"]) == ("failed", LIMIT_ERROR, 3, None)
    assert (following["status"], following["deliveries"]) == ("done", 1)
    assert (tail["type"], tail["status"], tail["deliveries"]) == ("refresh", "done", 1)
    assert writes_since(stack, 0) == [("PUT", "/rest/api/2/issue/AURORA-1538", 204)]
    assert sim_issue(stack, "AURORA-1542")["priority"] == "Medium"
    assert sim_issue(stack, "AURORA-1538")["duedate"] == "2026-12-01"


def test_hub_restarted_while_the_agent_waits_in_a_claim(stack: Stack) -> None:
    """SIGTERM to the hub while the agent waits in a 20 s claim: the hub exits within 5 s; started again on the
    same port and data dir, the agent backs off, reconnects and completes a new batch; every command once,
    every write once."""
    with stack.client("admin") as admin:
        assert admin.patch("/settings", json={"claim_wait_seconds": 20}).status_code == 200
    agent = stack.start_agent(claim_wait=20)
    refresh = full_refresh(stack)
    wait_in_claim(stack, after=refresh["commands"][0]["finished_at"])

    hub = stack.procs["sdlc-hub"]
    hub.popen.send_signal(signal.SIGTERM)
    try:
        hub.popen.wait(5)
    except subprocess.TimeoutExpired:
        pytest.fail("the hub waited out the agent's long poll instead of stopping")
    stack.restart_hub()
    assert agent.popen.poll() is None

    mark = len(sim_calls(stack))
    batch = submit(stack, TWO_WRITES)
    final = by_seq(finish(stack, batch["id"]))
    assert [(c["type"], c["status"], c["deliveries"]) for c in final] == [
        ("ensure_fields", "done", 1),
        ("ensure_comment", "done", 1),
        ("refresh", "done", 1),
    ], logs(stack)
    assert writes_since(stack, mark) == TWO_WRITES_LOG
    assert_two_writes_applied(stack)
    assert hub_get(stack, f"/batches/{refresh['id']}")["commands"][0]["status"] == "done"
    retries = [e for e in agent_events(agent) if e["event"] == "retry"]
    assert retries, "the agent never saw the hub go away"
    assert {e["what"] for e in retries} == {"claim"}


def test_jira_503_for_a_while(stack: Stack) -> None:
    """Jira answers 503 (Retry-After 0.5) to every call during a command, then recovers: the agent retries the
    call in place, the batch completes with one delivery each and every write once."""
    stack.start_agent()
    full_refresh(stack)  # the agent's start-up reads and the first refresh are behind it: it waits in a claim
    mark = len(sim_calls(stack))
    sim_fault(stack, path_regex="^/rest/", status=503, retry_after=0.5, times=1000)
    batch = submit(stack, TWO_WRITES)
    wait_until("Jira answered 503 twice", lambda: sum(c["status"] == 503 for c in sim_calls(stack)[mark:]) >= 2)
    sim_clear_faults(stack)

    final = by_seq(finish(stack, batch["id"]))
    assert [(c["status"], c["deliveries"]) for c in final] == [("done", 1)] * 3
    refused = [c for c in sim_calls(stack)[mark:] if c["status"] == 503]
    assert {(c["method"], c["path"]) for c in refused} == {("GET", "/rest/api/2/issue/AURORA-1538")}
    assert hub_get(stack, f"/commands/{final[0]['id']}")["jira_calls"] == 2 + len(refused)
    assert writes_since(stack, mark) == TWO_WRITES_LOG
    assert_two_writes_applied(stack)


def test_jira_unreachable_after_a_write(stack: Stack) -> None:
    """Jira applies a write but its answer is lost, then drops every connection for a while: the agent probes
    until Jira answers, the command is re-delivered and finds the write done; no write is repeated."""

    def jira_goes_down() -> None:
        sim_fault(stack, path_regex="^/rest/", status="drop", times=1000)

    lost_answer = Drop("PUT", r"^/rest/api/2/issue/AURORA-1538$", after=True, on_drop=jira_goes_down)
    with LoopbackProxy(stack.sim_url, [lost_answer]) as jira:
        stack.procs["sdlc-agent"] = agent = start_agent(
            hub_url=stack.hub_url,
            hub_token=stack.tokens["agent"],
            jira_url=jira.url,
            journal=stack.work_dir / "agent" / "journal.json",
            log_dir=stack.work_dir,
            allow_projects=(stack.jira_project,),
        )
        full_refresh(stack)
        mark = len(sim_calls(stack))
        batch = submit(stack, TWO_WRITES)
        wait_until("Jira dropped two calls", lambda: sum(c["status"] == 0 for c in sim_calls(stack)[mark:]) >= 2)
        sim_clear_faults(stack)
        final = by_seq(finish(stack, batch["id"]))
        agent.stop()  # while its way to Jira is still open
        assert jira.dropped == ["PUT /rest/api/2/issue/AURORA-1538"]

    assert [(c["status"], c["deliveries"]) for c in final] == [("done", 2), ("done", 1), ("done", 1)]
    redelivered = hub_get(stack, f"/commands/{final[0]['id']}")
    assert (redelivered["result"], redelivered["jira_calls"]) == ({"changed": []}, 1)
    dropped = {(c["method"], c["path"]) for c in sim_calls(stack)[mark:] if c["status"] == 0}
    assert dropped == {("GET", "/rest/api/2/myself")}
    assert writes_since(stack, mark) == TWO_WRITES_LOG
    assert_two_writes_applied(stack)
    outcomes = [(e["command_id"], e["outcome"]) for e in agent_events(agent) if e["event"] == "command"]
    assert (final[0]["id"], "jira_unreachable") in outcomes
