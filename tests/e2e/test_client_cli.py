"""``sdlc-hub batch submit … --wait`` as a person runs it: a real hub, simulator and agent on loopback, the CLI as
its own process; it exits 0 with a final line naming every command, and Jira holds what the plan said."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from loopback.processes import script
from loopback.stack import Stack

from .e2e_support import hub_get, sim_issue

pytestmark = pytest.mark.e2e


def _cli(stack: Stack, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SDLC_HUB_URL": stack.hub_url, "SDLC_HUB_TOKEN": stack.tokens["interface"]}
    argv_ = [*script("sdlc-hub"), *argv]
    return subprocess.run(argv_, check=False, capture_output=True, text=True, env=env, timeout=120)


def test_submit_and_wait_until_jira_holds_the_plan(stack: Stack, tmp_path: Path) -> None:
    """A plan of two commands submitted with --wait: queued, a line per change, the final line naming each
    command done, exit 0; the simulator has the due date and the comment; the same file again queues nothing."""
    stack.start_agent()
    plan = tmp_path / "plan.json"
    body = {
        "author": "e2e",
        "title": "срок и комментарий",
        "commands": [
            {"type": "ensure_fields", "params": {"key": "AURORA-1533", "duedate": "2026-12-15"}},
            {"type": "ensure_comment", "params": {"key": "AURORA-1533", "marker": "[cli]", "body": "[cli] срок"}},
        ],
    }
    plan.write_text(json.dumps(body, ensure_ascii=False), encoding="utf-8")
    ran = _cli(stack, "batch", "submit", str(plan), "--wait")
    assert ran.returncode == 0, ran.stderr
    lines = ran.stdout.splitlines()
    batch_id = int(lines[0].split()[1])
    assert lines[0] == f"batch {batch_id} queued: 3 commands, estimate 0.45 s"
    assert lines[-1] == (
        f"batch {batch_id} done: #1 ensure_fields AURORA-1533 done, #2 ensure_comment AURORA-1533 done,"
        " #3 refresh AURORA-1533 done"
    )
    issue = sim_issue(stack, "AURORA-1533")
    assert issue["duedate"] == "2026-12-15"
    again = _cli(stack, "batch", "submit", str(plan))
    assert again.stdout.startswith(f"batch {batch_id} was submitted before with this key")
    assert hub_get(stack, "/batches", author="demo-interface")["total"] == 1
    waited = _cli(stack, "batch", "wait", str(batch_id))
    assert (waited.returncode, waited.stdout.splitlines()[-1]) == (0, lines[-1])
