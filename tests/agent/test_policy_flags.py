"""The bank's policy as the agent's settings (DESIGN.md 5.5): every spelling — flags, ``SDLC_AGENT_*``, the TOML
table ``[policy]`` — gives the same policy; ``run`` without an allowed project and a bad value are one line and
exit code 2; ``run --help`` describes ``--hub`` and ``--jira`` as they are."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_app.cli import build_command_line, main
from agent_app.policy_flags import policy_of
from reconcile.guard.policy import AgentPolicy
from tests.support import TYPE_LIST

TARGETS = ["--hub", "http://hub", "--jira", "http://jira"]

EXPECTED = AgentPolicy(
    allow_projects=("AURORA", "OPS"),
    allow_types=("refresh", "ensure_comment"),
    read_only=True,
    min_gap={"ensure_issue": 120.0, "*": 30.0},
    max_writes_per_hour=40,
)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("CONFIG", "ALLOW_PROJECTS", "ALLOW_TYPES", "READ_ONLY", "MIN_GAP", "MAX_WRITES_PER_HOUR"):
        monkeypatch.delenv(f"SDLC_AGENT_{name}", raising=False)
    monkeypatch.setenv("SDLC_AGENT_HUB_TOKEN", "t")
    monkeypatch.setenv("SDLC_AGENT_JIRA_TOKEN", "p")


def parsed(argv: list[str]) -> AgentPolicy | None:
    return policy_of(build_command_line().parse(["run", *TARGETS, *argv]))


def test_flags() -> None:
    """Repeated flags, as DESIGN.md 5.5 spells them."""
    argv = ["--allow-project", "AURORA", "--allow-project", "OPS", "--allow-type", "refresh"]
    argv += ["--allow-type", "ensure_comment", "--read-only", "--min-gap", "ensure_issue=120", "--min-gap", "*=30"]
    argv += ["--max-writes-per-hour", "40"]
    assert parsed(argv) == EXPECTED


def test_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The variables hold their items separated by commas."""
    monkeypatch.setenv("SDLC_AGENT_ALLOW_PROJECTS", "AURORA,OPS")
    monkeypatch.setenv("SDLC_AGENT_ALLOW_TYPES", "refresh, ensure_comment")
    monkeypatch.setenv("SDLC_AGENT_READ_ONLY", "1")
    monkeypatch.setenv("SDLC_AGENT_MIN_GAP", "ensure_issue=120,*=30")
    monkeypatch.setenv("SDLC_AGENT_MAX_WRITES_PER_HOUR", "40")
    assert parsed([]) == EXPECTED


def test_the_policy_table_of_the_config_file(tmp_path: Path) -> None:
    """``[policy]`` with arrays, a boolean, a table of gaps and a number."""
    config = tmp_path / "agent.toml"
    config.write_text(
        'hub = "http://hub"\n[policy]\nallow_projects = ["AURORA", "OPS"]\nallow_types = ["refresh", '
        '"ensure_comment"]\nread_only = true\nmin_gap = {ensure_issue = 120, "*" = 30}\nmax_writes_per_hour = 40\n',
        encoding="utf-8",
    )
    assert parsed(["--config", str(config)]) == EXPECTED


def test_a_flag_beats_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first source that has the setting gives all of it: the flags' projects, not the variable's too."""
    monkeypatch.setenv("SDLC_AGENT_ALLOW_PROJECTS", "OPS")
    policy = parsed(["--allow-project", "AURORA"])
    assert policy is not None
    assert policy.allow_projects == ("AURORA",)


def test_the_defaults_are_every_type_no_floor_no_budget() -> None:
    """Only the projects are needed: all eight types, writes allowed, no floor, no budget."""
    assert parsed(["--allow-project", "AURORA"]) == AgentPolicy(allow_projects=("AURORA",))


def test_run_without_an_allowed_project_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    """``sdlc-agent run`` without ``--allow-project`` exits 2 with one line saying what to give."""
    with pytest.raises(SystemExit) as caught:
        main(["run", *TARGETS])
    assert caught.value.code == 2
    assert capsys.readouterr().err == (
        "sdlc-agent: give --allow-project KEY (or SDLC_AGENT_ALLOW_PROJECTS, or allow_projects in the [policy] "
        "table of the config file): the Jira projects the agent may read and write\n"
    )


@pytest.mark.parametrize(
    ("argv", "env", "line"),
    [
        (
            ["--allow-project", "aurora"],
            {},
            "--allow-project: invalid value 'aurora' for --allow-project: a Jira project key is a capital letter, "
            "then capitals, digits or _ (AURORA)",
        ),
        (
            ["--allow-project", "AURORA", "--allow-type", "ensure_everything"],
            {},
            f"--allow-type: invalid value 'ensure_everything' for --allow-type: a command type is one of {TYPE_LIST}",
        ),
        (
            ["--allow-project", "AURORA", "--min-gap", "120"],
            {},
            f"--min-gap: invalid value '120' for --min-gap: write TYPE=SECONDS, TYPE one of {TYPE_LIST} "
            "or * for every type",
        ),
        (
            [],
            {"SDLC_AGENT_ALLOW_PROJECTS": "AURORA", "SDLC_AGENT_MIN_GAP": "refresh=-1"},
            "SDLC_AGENT_MIN_GAP: invalid value 'refresh=-1' for --min-gap: the seconds are a number, 0 or more",
        ),
        (
            [],
            {"SDLC_AGENT_ALLOW_PROJECTS": "AURORA", "SDLC_AGENT_MAX_WRITES_PER_HOUR": "many"},
            "SDLC_AGENT_MAX_WRITES_PER_HOUR: invalid value 'many' for --max-writes-per-hour: a whole number, 0 or "
            "more (0: no limit)",
        ),
        (
            [],
            {"SDLC_AGENT_ALLOW_PROJECTS": "AURORA", "SDLC_AGENT_READ_ONLY": "perhaps"},
            "SDLC_AGENT_READ_ONLY: expected true or false, got 'perhaps'",
        ),
    ],
)
def test_a_bad_value_is_one_line(
    argv: list[str],
    env: dict[str, str],
    line: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A value the policy cannot use, from a flag or a variable, stops the agent with one line naming it."""
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(SystemExit) as caught:
        main(["run", *TARGETS, *argv])
    assert caught.value.code == 2
    assert capsys.readouterr().err == f"sdlc-agent: {line}\n"


def test_a_bad_policy_table_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An unknown key of ``[policy]`` is named like any unknown key of the file."""
    config = tmp_path / "agent.toml"
    config.write_text('[policy]\nallow_projects = ["AURORA"]\nallow_everything = true\n', encoding="utf-8")
    with pytest.raises(SystemExit) as caught:
        main(["run", *TARGETS, "--config", str(config)])
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"sdlc-agent: unknown key policy.allow_everything in the config file {config} (known: ")
    assert err.count("\n") == 1


def test_run_help_describes_the_targets(capsys: pytest.CaptureFixture[str]) -> None:
    """``--hub`` is the hub's base URL; only ``--jira`` has a context path."""
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--hub HUB the hub's base URL with its scheme (env SDLC_AGENT_HUB)" in text
    assert "--jira JIRA Jira's base URL with its scheme and its context path (https://jira.bank/jira)" in text
    assert "context path" not in text.split("--hub HUB", 1)[1].split("--hub-ca-bundle", 1)[0]


@pytest.mark.usefixtures("logging_restored")
@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (
            ["--allow-project", "AURORA", "--min-gap", "*=30", "--min-gap", "ensure_issue=120"],
            "ok: policy: projects AURORA; types all; read-only no; min gap *=30 s, ensure_issue=120 s; writes per "
            "hour unlimited",
        ),
        (
            [],
            "policy: give --allow-project KEY (or SDLC_AGENT_ALLOW_PROJECTS, or allow_projects in the [policy] "
            "table of the config file): the Jira projects the agent may read and write",
        ),
    ],
)
def test_check_prints_the_policy(argv: list[str], line: str, capsys: pytest.CaptureFixture[str]) -> None:
    """``sdlc-agent check`` ends with the policy it would run with, or says that ``run`` needs one."""
    targets = ["--hub", "http://127.0.0.1:9", "--jira", "http://127.0.0.1:9", "--log-format", "json"]
    assert main(["check", *targets, *argv]) == 2  # nothing listens on port 9
    assert capsys.readouterr().out.splitlines()[-1] == line
