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


def _against(tmp_path: Path, url: str, *more: str) -> list[str]:
    argv = [*_argv(tmp_path, *more, "--jira-token", "pat")]
    argv[argv.index("--jira") + 1] = url
    argv[argv.index("OPS")] = "HR"  # a project the simulator's Jira has: it checks the filter's JQL
    return argv


def test_register_against_jira(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--register`` reads serverInfo (10.3) and Jira 10's list, and creates the webhook: the line names its id."""
    sim = Simulator()
    with serve_in_thread(sim) as url:
        assert main(_against(tmp_path, url, "--register")) == 0
    assert capsys.readouterr().out == f"ok: webhook 1 'sdlc-agent' registered at jira at {url}\n"
    assert [(c["method"], c["path"], c["status"]) for c in sim.calls] == [
        ("GET", "/rest/api/2/serverInfo", 200),
        ("GET", "/rest/jira-webhook/1.0/webhooks", 200),
        ("POST", "/rest/jira-webhook/1.0/webhooks", 201),
    ]


@pytest.mark.parametrize(
    ("major", "path"), [("10", "/rest/jira-webhook/1.0/webhooks"), ("9", "/rest/webhooks/1.0/webhook")]
)
def test_register_twice_leaves_one_webhook_with_the_new_secret(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], major: str, path: str
) -> None:
    """Issue 32: a second ``--register`` (a new secret, other projects) updates the agent's webhook in place on either
    resource: Jira lists one webhook of the URL, with the new secret and filter, and the line names its id."""
    sim = Simulator()
    with serve_in_thread(sim) as url:
        assert main(_against(tmp_path, url, "--register", "--jira-major", major)) == 0
        argv = _against(tmp_path, url, "--register", "--jira-major", major)
        argv[argv.index("HR")] = "AURORA"
        (tmp_path / "secret").write_text("n3w\n", encoding="utf-8")
        assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        f"ok: webhook 1 'sdlc-agent' registered at jira at {url}",
        f"ok: webhook 1 'sdlc-agent' updated at jira at {url} (secret, events and filter as now given)",
    ]
    hooks = list(sim.store.webhooks.values())
    assert [(w.id, w.url, w.secret, w.jql, len(w.events)) for w in hooks] == [
        (1, URL, "n3w", "project in (AURORA)", len(EVENTS))
    ]
    assert [(c["method"], c["path"]) for c in sim.calls if c["method"] != "GET"] == [
        ("POST", path),
        ("PUT", f"{path}/1"),
    ]


def test_register_removes_the_duplicates_an_older_agent_left(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two webhooks of the agent's URL (two registrations by an agent before issue 32) and another one: the first
    is updated, the second deleted, the other kept."""
    sim = Simulator()
    body = {"name": "x", "url": URL, "events": ["jira:issue_created"]}
    for hook in (body, {**body, "url": "http://other/hook"}, body):
        sim.store.register_webhook(hook, "bridge-user", "v10")
    with serve_in_thread(sim) as url:
        assert main(_against(tmp_path, url, "--register")) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"ok: webhook 1 'sdlc-agent' updated at jira at {url} (secret, events and filter as now given)",
        f"ok: webhook 3 removed at jira at {url}",
    ]
    assert sorted((w.id, w.url) for w in sim.store.webhooks.values()) == [(1, URL), (2, "http://other/hook")]


def test_list_and_unregister(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--list`` prints each webhook with its id, the agent's marked; ``--unregister`` deletes the agent's (each
    line naming its id) and a second one finds nothing to remove."""
    sim = Simulator()
    sim.store.register_webhook({"name": "CI", "url": "http://ci/hook", "events": []}, "bridge-user", "v10")
    with serve_in_thread(sim) as url:
        assert main(_against(tmp_path, url, "--register")) == 0
        assert main(_against(tmp_path, url, "--list")) == 0
        assert main(_against(tmp_path, url, "--unregister")) == 0
        assert main(_against(tmp_path, url, "--unregister")) == 0
        assert main(_against(tmp_path, url, "--list")) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"ok: webhook 2 'sdlc-agent' registered at jira at {url}",
        "webhook 1: 'CI' → http://ci/hook",
        f"webhook 2: 'sdlc-agent' → {URL}  ← this agent",
        f"ok: webhook 2 removed at jira at {url}",
        f"ok: no webhook of {URL} at jira at {url}: nothing to remove",
        "webhook 1: 'CI' → http://ci/hook",
    ]


def test_one_mode_at_a_time(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--register`` with ``--list`` is one line and exit 2, before any call."""
    with pytest.raises(SystemExit) as ended:
        main(_against(tmp_path, "http://127.0.0.1:9", "--register", "--list"))
    assert ended.value.code == 2
    assert "give one of --register, --list and --unregister" in capsys.readouterr().err


def test_jira_refusing_the_registration_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Jira refusing the call (here: an unknown user, 401) is one line naming the call and the fix, exit 2; a filter
    Jira cannot run (a project it lacks) is one line with Jira's words."""
    with serve_in_thread(Simulator()) as url:
        argv = [*_argv(tmp_path, "--register", "--jira-major", "9", "--jira-user", "nobody", "--jira-password", "x")]
        argv[argv.index("--jira") + 1] = url
        assert main(argv) == 2
    line = capsys.readouterr().out.strip()
    assert line.startswith(f"jira at {url} refused the webhook registration: GET /rest/webhooks/1.0/webhook: HTTP 401")
    assert line.endswith(
        "the agent's Jira user must be a Jira administrator; give the body of `sdlc-agent webhook` to one"
    )
