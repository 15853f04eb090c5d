"""An approval that means the plan, end to end (DESIGN.md 6.5): real hub, simulator and agent processes. A person
changes Jira after the batch was approved: the agent writes nothing, the batch waits again with the difference,
the hub reads the change, and once a person approves the new plan the batch is done. On each database of
``SDLC_HUB_E2E_DATABASES``; the audit of the whole story verifies."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from hub_app.client_cli.audit_file import verify_file
from loopback.stack import Stack, checked

from .e2e_support import finish, full_refresh, hub_get, is_write, sim_calls, sim_issue, submit, wait_until

pytestmark = pytest.mark.e2e

WANTED = "Сверка остатков, версия банка"


def approve_shown(stack: Stack, batch_id: int) -> dict[str, Any]:
    """A person (the admin) approves the plan they read."""
    with stack.client("admin") as admin:
        digest = checked(admin.get(f"/batches/{batch_id}/plan"))["digest"]
        approved: dict[str, Any] = checked(admin.post(f"/batches/{batch_id}/approve", json={"plan": digest}))
    return approved


def plan_lines(stack: Stack, batch_id: int) -> list[str]:
    return [line["text"] for c in hub_get(stack, f"/batches/{batch_id}/plan")["commands"] for line in c["lines"]]


def test_a_write_nobody_approved_is_never_made(stack: Stack, tmp_path: Path) -> None:
    """Approved, then renamed in Jira by a person: zero Jira writes, the batch waits with «AURORA-1533: summary
    изменилась в Jira после одобрения»; approved again from the new plan: done, one write."""
    agent = stack.start_agent()
    full_refresh(stack)
    agent.stop()
    with stack.client("admin") as admin:
        checked(admin.patch("/settings", json={"approval": {"http": True}}))
    command = {"type": "ensure_fields", "params": {"key": "AURORA-1533", "summary": WANTED}}
    batch = submit(stack, {"author": "e2e", "title": "план", "commands": [command]})
    assert approve_shown(stack, batch["id"])["approval"]["state"] == "approved"
    with stack.sim() as sim:
        checked(sim.put("/rest/api/2/issue/AURORA-1533", json={"fields": {"summary": "Переименовал человек"}}))
        checked(sim.delete("/_sim/calls"))

    stack.start_agent()

    def waits_again() -> bool:
        return bool(hub_get(stack, f"/batches/{batch['id']}")["approval"]["state"] == "pending")

    wait_until("the batch waits again", waits_again)
    stale = hub_get(stack, f"/batches/{batch['id']}")["approval"]["stale"]
    assert [d["text"] for d in stale["difference"]] == ["AURORA-1533: summary изменилась в Jira после одобрения"]
    assert [c for c in sim_calls(stack) if is_write(c)] == []
    assert sim_issue(stack, "AURORA-1533")["summary"] == "Переименовал человек"

    changed = f"тема: «Переименовал человек» → «{WANTED}»"
    wait_until("the hub read the change", lambda: "Переименовал человек" in str(plan_lines(stack, batch["id"])))
    assert plan_lines(stack, batch["id"]) == [changed, "нет изменений: только чтение Jira в зеркало"]
    approve_shown(stack, batch["id"])
    final = finish(stack, batch["id"])
    assert [c["status"] for c in final["commands"]] == ["done", "done"]
    assert sim_issue(stack, "AURORA-1533")["summary"] == WANTED
    assert [(c["method"], c["path"]) for c in sim_calls(stack) if is_write(c)] == [
        ("PUT", "/rest/api/2/issue/AURORA-1533")
    ]

    with stack.client("admin") as admin:
        export = tmp_path / "audit.jsonl"
        export.write_text(admin.get("/audit").text, encoding="utf-8")
        story = admin.get("/audit", params={"batch": batch["id"]}).text.splitlines()
    kinds = [json.loads(line)["kind"] for line in story]
    out = io.StringIO()
    assert verify_file(export, out=out) == 0, out.getvalue()
    assert kinds.count("plan_approved") == 2 and kinds.count("stale_plan") == 1 and kinds.count("jira_write") == 1
