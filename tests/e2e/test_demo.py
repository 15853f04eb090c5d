"""``sdlc-hub demo`` runs the whole stack with the sample batch and exits 0."""

from __future__ import annotations

import subprocess

import pytest

from loopback.processes import script

pytestmark = pytest.mark.e2e


def test_demo_runs_and_exits_zero() -> None:
    """The demo exits 0 with every command done, and prints outcomes, the ETA and the Jira state.

    Its wall time is measured in ``bench/`` (the timeout below only guards against a hang)."""
    done = subprocess.run([*script("sdlc-hub"), "demo"], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "OK: demo finished" in out
    for command_type in (
        "ensure_issue",
        "ensure_fields",
        "ensure_comment",
        "ensure_status",
        "ensure_link",
        "ensure_sprint",
        "ensure_attachment",
        "refresh",
    ):
        assert f"{command_type}: done" in out, out
    assert "ETA" in out
    assert "attachment: демо.txt" in out
    assert "note on AURORA-" in out
