"""``sdlc-agent run`` arguments: credentials from flags or the environment, refused when missing."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_app.cli import build_parser, main
from agent_app.journal import Journal


def test_missing_hub_token_is_refused(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Without --hub-token or SDLC_AGENT_HUB_TOKEN the agent does not start."""
    monkeypatch.delenv("SDLC_AGENT_HUB_TOKEN", raising=False)
    with pytest.raises(SystemExit) as caught:
        main(["run", "--hub", "http://hub", "--jira", "http://jira", "--jira-token", "pat"])
    assert caught.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == "sdlc-agent: error: give --hub-token (or SDLC_AGENT_HUB_TOKEN)"


def test_basic_auth_needs_a_password(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """--jira-user without a password (flag or SDLC_AGENT_JIRA_PASSWORD) is refused."""
    monkeypatch.delenv("SDLC_AGENT_JIRA_PASSWORD", raising=False)
    monkeypatch.delenv("SDLC_AGENT_JIRA_TOKEN", raising=False)
    with pytest.raises(SystemExit):
        main(["run", "--hub", "http://hub", "--hub-token", "t", "--jira", "http://jira", "--jira-user", "u"])
    assert capsys.readouterr().err.splitlines()[-1] == (
        "sdlc-agent: error: give --jira-token, or --jira-user with --jira-password"
    )


def test_secrets_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tokens and the password may come from the environment, keeping them out of the process list."""
    monkeypatch.setenv("SDLC_AGENT_HUB_TOKEN", "hub-secret")
    monkeypatch.setenv("SDLC_AGENT_JIRA_PASSWORD", "jira-secret")
    args = build_parser().parse_args(["run", "--hub", "http://hub", "--jira", "http://jira", "--jira-user", "u"])
    assert (args.hub_token, args.jira_password, args.journal) == (
        "hub-secret",
        "jira-secret",
        ".sdlc-agent/journal.json",
    )


def test_log_flags(monkeypatch: pytest.MonkeyPatch) -> None:
    """--log-level takes any case and --log-format auto|json|text; both default from the environment."""
    monkeypatch.setenv("SDLC_AGENT_LOG_FORMAT", "text")
    monkeypatch.setenv("SDLC_AGENT_LOG_LEVEL", "warning")
    base = ["run", "--hub", "http://hub", "--jira", "http://jira"]
    from_env = build_parser().parse_args(base)
    from_flags = build_parser().parse_args([*base, "--log-level", "debug", "--log-format", "json"])
    assert [(a.log_level, a.log_format) for a in (from_env, from_flags)] == [("WARNING", "text"), ("DEBUG", "json")]


def test_unknown_log_format_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    """A log format other than auto, json or text stops the agent before it starts."""
    with pytest.raises(SystemExit) as caught:
        build_parser().parse_args(["run", "--hub", "h", "--jira", "j", "--log-format", "xml"])
    assert caught.value.code == 2
    assert "argument --log-format: invalid choice: 'xml'" in capsys.readouterr().err


@pytest.mark.usefixtures("logging_restored")
def test_a_second_process_on_one_journal_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """While another process holds the journal, ``run`` exits 2 at once naming the journal (before any request)."""
    journal = tmp_path / "journal.json"
    argv = ["run", "--hub", "http://127.0.0.1:9", "--hub-token", "hub-secret", "--jira", "http://127.0.0.1:9"]
    argv += ["--jira-token", "jira-secret", "--journal", str(journal), "--log-format", "text"]
    with Journal(journal).lock():
        assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"журнал {journal} занят другим процессом агента: a second agent process needs its own --journal" in err
