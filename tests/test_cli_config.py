"""Settings of a command-line program (DESIGN.md 10): flag > environment > TOML file > default, ``--version``,
secrets from the environment or a file and never in a log."""

from __future__ import annotations

import io
import json
import logging
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from adapters.cli_config import CommandLine, Option, package_version
from adapters.logs import configure_logging
from hub_app.cli import main as hub_main
from jira_sim.cli import main as sim_main


def program() -> CommandLine:
    cli = CommandLine("prog", env_prefix="PROG")
    sub = cli.parser.add_subparsers(dest="command", required=True)
    cli.add(
        sub.add_parser("run"),
        Option("port", type=int, default=8700),
        Option("host", default="127.0.0.1"),
        Option("token", secret=True),
        Option("hub", required=True),
        Option("insecure", type=bool),
    )
    return cli


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("flag", "env", "file", "expected"),
    [
        (["--port", "1"], {"PROG_PORT": "2"}, "port = 3", 1),
        ([], {"PROG_PORT": "2"}, "port = 3", 2),
        ([], {}, "port = 3", 3),
        ([], {}, "", 8700),
        ([], {"PROG_PORT": ""}, "port = 3", 3),
    ],
)
def test_precedence(tmp_path: Path, flag: list[str], env: dict[str, str], file: str, expected: int) -> None:
    """A flag beats the environment, the environment beats the config file, the file beats the default."""
    config = write(tmp_path / "prog.toml", f'hub = "h"\n{file}\n')
    args = program().parser.parse_args(["run", "--config", str(config), *flag])
    assert program().resolve(args, env).port == expected


def test_config_file_from_the_environment(tmp_path: Path) -> None:
    """``<PREFIX>_CONFIG`` names the file when ``--config`` is not given; every type comes through."""
    config = write(tmp_path / "prog.toml", 'hub = "https://hub"\ninsecure = true\nlog_level = "debug"\n')
    cli = program()
    args = cli.resolve(cli.parser.parse_args(["run"]), {"PROG_CONFIG": str(config), "PROG_HOST": "0.0.0.0"})
    assert (args.hub, args.insecure, args.log_level, args.host, args.config) == (
        "https://hub",
        True,
        "DEBUG",
        "0.0.0.0",
        config,
    )


def test_secret_from_env_file_and_masked(tmp_path: Path) -> None:
    """A secret comes from ``<ENV>_FILE`` (systemd credentials), is listed in ``secrets`` and masked in logs."""
    write(tmp_path / "token", "s3cr3t-token-value\n")
    cli = program()
    args = cli.resolve(cli.parser.parse_args(["run"]), {"PROG_TOKEN_FILE": str(tmp_path / "token"), "PROG_HUB": "h"})
    assert args.token == "s3cr3t-token-value"
    assert args.secrets == ("s3cr3t-token-value",)
    stream = io.StringIO()
    configure_logging("INFO", fmt="json", stream=stream, secrets=args.secrets)
    logging.getLogger("prog").info("started", extra={"token": args.token})
    assert json.loads(stream.getvalue())["token"] == "***"


def test_secret_file_key_in_config(tmp_path: Path) -> None:
    """``<key>_file`` in the TOML file reads a secret from its own file, so the config file holds none."""
    write(tmp_path / "token", "from-a-file")
    config = write(tmp_path / "prog.toml", f'hub = "h"\ntoken_file = "{tmp_path / "token"}"\n')
    cli = program()
    assert cli.resolve(cli.parser.parse_args(["run", "--config", str(config)]), {}).token == "from-a-file"


KNOWN = "host, hub, insecure, log_format, log_level, port, token, token_file"


@pytest.mark.parametrize(
    "case",
    [
        ({}, None, "prog: give --hub (or PROG_HUB, or hub in the config file)\n"),
        ({"PROG_HUB": "h", "PROG_PORT": "x"}, None, "prog: PROG_PORT: invalid value 'x' for --port\n"),
        (
            {"PROG_HUB": "h", "PROG_INSECURE": "maybe"},
            None,
            "prog: PROG_INSECURE: expected true or false, got 'maybe'\n",
        ),
        (
            {"PROG_HUB": "h", "PROG_LOG_LEVEL": "loud"},
            None,
            "prog: PROG_LOG_LEVEL: 'loud' is not one of DEBUG, INFO, WARNING, ERROR\n",
        ),
        ({}, 'hub = "h"\nprot = 1\n', "prog: unknown key prot in the config file {path} (known: " + KNOWN + ")\n"),
        ({}, "hub = [", "prog: the config file {path} is not TOML: "),
        ({}, 'hub = "h"\nport = "x"\n', "prog: port in {path}: invalid value 'x' for --port\n"),
        ({}, 'hub = "h"\ninsecure = "yes"\n', "prog: insecure in {path}: expected true or false, got 'yes'\n"),
    ],
)
def test_mistakes_are_one_line_and_exit_2(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    case: tuple[dict[str, str], str | None, str],
) -> None:
    """A missing or wrong setting, from any source, ends the program with one line naming it and exit 2."""
    env, file, message = case
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    path = tmp_path / "prog.toml"
    if file is not None:
        write(path, file)
        monkeypatch.setenv("PROG_CONFIG", str(path))
    with pytest.raises(SystemExit) as exc:
        program().parse(["run"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    expected = message.format(path=path)
    assert err == expected if expected.endswith("\n") else err.startswith(expected)
    assert err.count("\n") == 1


def test_missing_config_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A config file that is not there is named in one line."""
    with pytest.raises(SystemExit):
        program().parse(["run", "--config", str(tmp_path / "absent.toml")])
    assert (
        capsys.readouterr().err
        == f"prog: cannot read the config file {tmp_path / 'absent.toml'}: No such file or directory\n"
    )


@pytest.mark.parametrize(("main", "prog"), [(hub_main, "sdlc-hub"), (sim_main, "jira-sim")])
def test_every_program_has_version(
    capsys: pytest.CaptureFixture[str], main: Callable[[list[str]], int], prog: str
) -> None:
    """``--version`` prints the program's name and the installed version, and exits 0."""
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out == f"{prog} {package_version()}\n"


def test_hub_reads_database_url_from_config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``sdlc-hub --config`` with ``database_url``: no secret on the command line, the database is the file's."""
    monkeypatch.delenv("SDLC_HUB_DATABASE_URL", raising=False)
    monkeypatch.delenv("SDLC_HUB_DATA_DIR", raising=False)
    url = f"sqlite+aiosqlite:///{tmp_path / 'configured.sqlite3'}"
    config = write(tmp_path / "hub.toml", f'data_dir = "{tmp_path / "data"}"\ndatabase_url = "{url}"\n')
    assert hub_main(["--config", str(config), "migrate"]) == 0
    assert (tmp_path / "configured.sqlite3").exists()


def test_hub_database_password_stays_out_of_logs_and_argv(tmp_path: Path) -> None:
    """The database URL comes from ``SDLC_HUB_DATABASE_URL_FILE``; its password shows in no log line."""
    (tmp_path / "url").write_text("postgresql+asyncpg://hub:pa55-w0rd-xyz@127.0.0.1:1/hub\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SDLC_HUB_")}
    env.update(SDLC_HUB_DATABASE_URL_FILE=str(tmp_path / "url"), SDLC_HUB_DATA_DIR=str(tmp_path))
    done = subprocess.run(
        [sys.executable, "-m", "hub_app.cli", "--log-level", "debug", "token", "list"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode != 0
    assert "pa55-w0rd-xyz" not in done.stdout + done.stderr


def test_a_bad_flag_value_is_one_line_too(capsys: pytest.CaptureFixture[str]) -> None:
    """A flag's value is converted like the other sources': one line naming the flag, exit 2 (no usage dump)."""
    with pytest.raises(SystemExit) as exc:
        program().parse(["run", "--hub", "h", "--port", "x"])
    assert exc.value.code == 2
    assert capsys.readouterr().err == "prog: --port: invalid value 'x' for --port\n"


def test_a_repeated_option_from_each_source(tmp_path: Path) -> None:
    """A ``repeat`` option: the flag given twice, the variable's comma-separated items, the file's array or table;
    its own spelling of the variable and of its place in a table of the file."""
    cli = CommandLine("prog", env_prefix="PROG")
    sub = cli.parser.add_subparsers(dest="command", required=True)
    tag = Option("tag", repeat=True, env="PROG_TAGS", key="labels.tags")
    cli.add(sub.add_parser("run"), tag)
    assert cli.resolve(cli.parser.parse_args(["run", "--tag", "a", "--tag", "b"]), {}).tag == ("a", "b")
    assert cli.resolve(cli.parser.parse_args(["run"]), {"PROG_TAGS": "a, b,"}).tag == ("a", "b")
    as_array = write(tmp_path / "array.toml", '[labels]\ntags = ["a", "b"]\n')
    assert cli.resolve(cli.parser.parse_args(["run", "--config", str(as_array)]), {}).tag == ("a", "b")
    as_table = write(tmp_path / "table.toml", "[labels]\ntags = {a = 1, b = 2}\n")
    assert cli.resolve(cli.parser.parse_args(["run", "--config", str(as_table)]), {}).tag == ("a=1", "b=2")
    assert cli.resolve(cli.parser.parse_args(["run"]), {}).tag == ()
