"""``sdlc-agent`` settings (DESIGN.md 10): flag > SDLC_AGENT_* > TOML file > default, secrets from the
environment or a file, one line and exit 2 for a wrong setting, an absolute journal by default."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_app.cli import build_command_line, default_journal, main
from agent_app.journal import Journal

BASE = ["--hub", "http://hub", "--jira", "http://jira", "--allow-project", "AURORA"]


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "SDLC_AGENT_HUB_TOKEN",
        "SDLC_AGENT_JIRA_TOKEN",
        "SDLC_AGENT_JIRA_PASSWORD",
        "SDLC_AGENT_CONFIG",
        "SDLC_AGENT_LOG_LEVEL",
        "SDLC_AGENT_LOG_FORMAT",
        "SDLC_AGENT_CLAIM_WAIT",
        "SDLC_AGENT_JIRA_PROXY",
        "SDLC_AGENT_JOURNAL",
        "SDLC_AGENT_ALLOW_PROJECTS",
        "SDLC_AGENT_ALLOW_TYPES",
        "SDLC_AGENT_READ_ONLY",
        "SDLC_AGENT_MIN_GAP",
        "SDLC_AGENT_MAX_WRITES_PER_HOUR",
    ):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(f"{name}_FILE", raising=False)


def last_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    return capsys.readouterr().err.splitlines()[-1]


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["--version"])
    assert caught.value.code == 0
    assert capsys.readouterr().out.startswith("sdlc-agent ")


def test_missing_hub_token_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["run", *BASE, "--jira-token", "pat"])
    assert caught.value.code == 2
    assert last_error_line(capsys) == (
        "sdlc-agent: give --hub-token (or SDLC_AGENT_HUB_TOKEN, or hub_token in the config file)"
    )


def test_basic_auth_needs_a_password(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("SDLC_AGENT_HUB_TOKEN", "t")
    with pytest.raises(SystemExit) as caught:
        main(["run", *BASE, "--jira-user", "u"])
    assert caught.value.code == 2
    assert last_error_line(capsys) == (
        "sdlc-agent: give the Jira token (SDLC_AGENT_JIRA_TOKEN), or --jira-user with the password"
    )


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (
            ["--hub", "hub.bank:8000", "--jira", "https://jira.bank"],
            "sdlc-agent: --hub 'hub.bank:8000' is not an http(s) URL: write it with its scheme, "
            "e.g. https://hub.bank:8000",
        ),
        (
            [
                *["--hub", "https://hub.bank", "--jira", "https://jira.bank", "--webhook-listen", "127.0.0.1:0"],
                *["--webhook-secret-file", "/s", "--webhook-max-connections", "0"],
            ],
            "sdlc-agent: --webhook-max-connections 0 must be a positive number",
        ),
        (
            ["--hub", "https://hub.bank", "--jira", "https://jira.bank", "--jira-ca-bundle", "/nowhere.pem"],
            "sdlc-agent: --jira-ca-bundle /nowhere.pem: cannot read a PEM CA bundle "
            "([Errno 2] No such file or directory)",
        ),
    ],
)
def test_a_wrong_setting_stops_at_start_in_one_line(
    argv: list[str], line: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SDLC_AGENT_HUB_TOKEN", "t")
    monkeypatch.setenv("SDLC_AGENT_JIRA_TOKEN", "p")
    monkeypatch.setenv("SDLC_AGENT_ALLOW_PROJECTS", "AURORA")
    with pytest.raises(SystemExit) as caught:
        main(["run", *argv])
    assert caught.value.code == 2
    assert capsys.readouterr().err == line + "\n"


def test_precedence_flag_env_file_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """claim-wait: flag over env over file; jira-proxy: env over file; agent-id from the file; log level by
    default INFO; the journal unset (its default is decided at start); the listener's cap 64 unless set."""
    config = tmp_path / "agent.toml"
    config.write_text(
        'claim_wait = 5\njira_proxy = "http://file-proxy:3128"\nagent_id = "bank-agent"\n'
        'hub = "https://hub.bank"\njira = "https://jira.bank/jira"\n',
        encoding="utf-8",
    )
    monkeypatch.setenv("SDLC_AGENT_CONFIG", str(config))
    monkeypatch.setenv("SDLC_AGENT_HUB_TOKEN", "t")
    monkeypatch.setenv("SDLC_AGENT_CLAIM_WAIT", "7")
    monkeypatch.setenv("SDLC_AGENT_JIRA_PROXY", "http://env-proxy:3128")
    cli = build_command_line()
    from_env = cli.parse(["run"])
    from_flag = cli.parse(["run", "--claim-wait", "9"])
    monkeypatch.delenv("SDLC_AGENT_CLAIM_WAIT")
    monkeypatch.delenv("SDLC_AGENT_JIRA_PROXY")
    from_file = cli.parse(["run"])
    assert [a.claim_wait for a in (from_flag, from_env, from_file)] == [9.0, 7.0, 5.0]
    assert [a.jira_proxy for a in (from_env, from_file)] == ["http://env-proxy:3128", "http://file-proxy:3128"]
    assert from_file.webhook_max_connections == 64
    monkeypatch.setenv("SDLC_AGENT_WEBHOOK_MAX_CONNECTIONS", "16")
    assert cli.parse(["run"]).webhook_max_connections == 16
    assert (from_file.agent_id, from_file.hub, from_file.jira, from_file.log_level, from_file.journal) == (
        "bank-agent",
        "https://hub.bank",
        "https://jira.bank/jira",
        "INFO",
        None,
    )


def test_secrets_from_files_never_on_the_command_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The hub's token from SDLC_AGENT_HUB_TOKEN_FILE, Jira's from jira_token_file in the TOML file; both are
    collected to be masked in the logs."""
    (tmp_path / "hub-token").write_text("hub-secret-1\n", encoding="utf-8")
    (tmp_path / "jira-token").write_text("jira-secret-2", encoding="utf-8")
    config = tmp_path / "agent.toml"
    config.write_text(f'jira_token_file = "{tmp_path / "jira-token"}"\n', encoding="utf-8")
    monkeypatch.setenv("SDLC_AGENT_HUB_TOKEN_FILE", str(tmp_path / "hub-token"))
    args = build_command_line().parse(["run", *BASE, "--config", str(config)])
    assert (args.hub_token, args.jira_token) == ("hub-secret-1", "jira-secret-2")
    assert sorted(args.secrets) == ["hub-secret-1", "jira-secret-2"]


def test_the_journal_defaults_to_an_absolute_state_directory(tmp_path: Path) -> None:
    """systemd's $STATE_DIRECTORY first, else /var/lib/sdlc-agent for root, else the user's state directory."""
    assert default_journal({"STATE_DIRECTORY": "/var/lib/sdlc-agent-2:/x"}, is_root=False) == Path(
        "/var/lib/sdlc-agent-2/journal.json"
    )
    assert default_journal({}, is_root=True) == Path("/var/lib/sdlc-agent/journal.json")
    assert default_journal({"XDG_STATE_HOME": str(tmp_path)}, is_root=False) == tmp_path / "sdlc-agent/journal.json"
    home = default_journal({}, is_root=False)
    assert (home.is_absolute(), home.parts[-3:]) == (True, ("state", "sdlc-agent", "journal.json"))


@pytest.mark.usefixtures("logging_restored")
def test_a_journal_that_cannot_be_written_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    argv = ["run", "--hub", "http://127.0.0.1:9", "--hub-token", "hub-secret", "--jira", "http://127.0.0.1:9"]
    argv += ["--jira-token", "jira-secret", "--journal", str(blocker / "journal.json"), "--log-format", "text"]
    argv += ["--allow-project", "AURORA"]
    assert main(argv) == 2
    assert f"cannot use the journal {blocker / 'journal.json'} (" in capsys.readouterr().err


@pytest.mark.usefixtures("logging_restored")
def test_a_second_process_on_one_journal_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """While another process holds the journal, ``run`` exits 2 at once naming the journal (before any request)."""
    journal = tmp_path / "journal.json"
    argv = ["run", "--hub", "http://127.0.0.1:9", "--hub-token", "hub-secret", "--jira", "http://127.0.0.1:9"]
    argv += ["--jira-token", "jira-secret", "--journal", str(journal), "--log-format", "text"]
    argv += ["--allow-project", "AURORA"]
    with Journal(journal).lock():
        assert main(argv) == 2
    err = capsys.readouterr().err
    assert (
        f"the journal {journal} is held by another agent process: a second agent process needs its own --journal" in err
    )
    # The secrets given as flags are warned about (they are readable in the process list), never shown.
    warned = [line for line in err.splitlines() if "secret_on_command_line" in line]
    assert [line.split("flag=")[1].split()[0] for line in warned] == ["--hub-token", "--jira-token"]
    assert "hub-secret" not in err and "jira-secret" not in err
