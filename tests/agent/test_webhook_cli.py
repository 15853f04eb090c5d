"""``sdlc-agent webhook`` (DESIGN.md 6.2): the registration printed for the Jira admin, or made with
``--register`` against the simulator (a real server), and Jira's refusal in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_app.cli import main
from jira_sim import Simulator
from jira_sim.serving import serve_in_thread

URL = "http://10.1.2.3:8790/jira/webhook"
#: Pinned, not derived: the seven events the agent registers, each one its listener reads.
EVENTS = [
    "jira:issue_created",
    "jira:issue_updated",
    "jira:issue_deleted",
    "comment_created",
    "comment_updated",
    "issuelink_created",
    "issuelink_deleted",
]


def _argv(tmp_path: Path, *more: str) -> list[str]:
    secret = tmp_path / "secret"
    secret.write_text("s3cret\n", encoding="utf-8")
    return [
        "webhook",
        "--jira",
        "https://jira.bank.local/jira",
        "--allow-project",
        "AURORA",
        "--allow-project",
        "OPS",
        "--webhook-url",
        URL,
        "--webhook-secret-file",
        str(secret),
        *more,
    ]


def test_the_registration_for_jira_10(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--jira-major 10``: Jira 10's resource, the secret in ``configuration.SECRET``, the agent's projects as the
    filter; no Jira token needed to print it."""
    assert main(_argv(tmp_path, "--jira-major", "10")) == 0
    path, body = capsys.readouterr().out.split("\n", 1)
    assert path == "POST /rest/jira-webhook/1.0/webhooks"
    assert json.loads(body) == {
        "name": "sdlc-agent",
        "url": URL,
        "events": EVENTS,
        "active": True,
        "configuration": {"FILTERS": "project in (AURORA, OPS)", "EXCLUDE_BODY": "false", "SECRET": "s3cret"},
    }


def test_both_forms_without_a_version(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Without ``--jira-major`` both resources are printed, Jira ≤ 9's with ``filters`` and ``secret``."""
    assert main(_argv(tmp_path)) == 0
    out = capsys.readouterr().out
    legacy = out.split("# Jira 10 and later")[0].split("\n", 2)
    assert legacy[:2] == ["# Jira 9 and earlier", "POST /rest/webhooks/1.0/webhook"]
    assert json.loads(legacy[2]) == {
        "name": "sdlc-agent",
        "url": URL,
        "events": EVENTS,
        "filters": {"issue-related-events-section": "project in (AURORA, OPS)"},
        "excludeBody": False,
        "secret": "s3cret",
    }


def test_register_against_jira(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--register`` reads serverInfo (10.3) and registers on Jira 10's resource: Jira then lists the webhook."""
    sim = Simulator()
    with serve_in_thread(sim) as url:
        argv = [*_argv(tmp_path, "--register", "--jira-token", "pat")]
        argv[argv.index("--jira") + 1] = url
        argv[argv.index("OPS")] = "HR"  # a project the simulator's Jira has: it checks the filter's JQL
        assert main(argv) == 0
    assert capsys.readouterr().out.strip().startswith(f"ok: webhook 'sdlc-agent' registered at jira at {url}: ")
    assert [(c["method"], c["path"], c["status"]) for c in sim.calls] == [
        ("GET", "/rest/api/2/serverInfo", 200),
        ("POST", "/rest/jira-webhook/1.0/webhooks", 201),
    ]


def test_jira_refusing_the_registration_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Jira refusing the call (here: an unknown user, 401) is one line naming the call and the fix, exit 2; a filter
    Jira cannot run (a project it lacks) is one line with Jira's words."""
    with serve_in_thread(Simulator()) as url:
        argv = [*_argv(tmp_path, "--register", "--jira-major", "9", "--jira-user", "nobody", "--jira-password", "x")]
        argv[argv.index("--jira") + 1] = url
        assert main(argv) == 2
    line = capsys.readouterr().out.strip()
    assert line.startswith(f"jira at {url} refused the webhook registration: POST /rest/webhooks/1.0/webhook: HTTP 401")
    assert line.endswith(
        "the agent's Jira user must be a Jira administrator; give the body of `sdlc-agent webhook` to one"
    )
