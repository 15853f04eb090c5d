"""The ``sdlc-hub`` command line: tokens, migrate, and a smoke test of a real ``serve`` process."""

from __future__ import annotations

import gc
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from adapters.storage.engine import head_revision, revisions_after
from hub_app.cli import main
from hub_app.runtime.hub import GC_FIRST_THRESHOLD, tune_gc

SDLC_HUB = [sys.executable, "-m", "hub_app.cli"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def test_tune_gc_raises_only_the_collectors_first_threshold() -> None:
    """The served hub's collector runs every 10 000 allocations, not 700; the older generations' ratios stay."""
    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 11, 12)
        tune_gc()
        assert gc.get_threshold() == (GC_FIRST_THRESHOLD, 11, 12) == (10_000, 11, 12)
    finally:
        gc.set_threshold(*before)


def test_token_add_prints_secret_last(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """token add prints the secret alone on its last line; list shows it; revoke marks it."""
    assert main(["token", "add", "planner", "--role", "interface", "--data-dir", str(tmp_path)]) == 0
    secret = capsys.readouterr().out.splitlines()[-1]
    assert len(secret) >= 40
    assert " " not in secret
    assert main(["--data-dir", str(tmp_path), "token", "list"]) == 0
    listed = capsys.readouterr().out
    assert listed.startswith("planner\tinterface\tcreated ")
    assert main(["token", "revoke", "planner", "--data-dir", str(tmp_path)]) == 0
    assert "revoked at" in capsys.readouterr().out
    assert main(["token", "revoke", "nobody", "--data-dir", str(tmp_path)]) == 1
    assert capsys.readouterr().err == "sdlc-hub: no token named nobody\n"
    assert main(["token", "add", "planner", "--role", "admin", "--data-dir", str(tmp_path)]) == 1
    assert capsys.readouterr().err == "sdlc-hub: a token named planner already exists\n"


def test_migrate_names_what_it_applied(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """migrate on an empty database names every migration it applied; again, that there was nothing to apply."""
    assert main(["migrate", "--data-dir", str(tmp_path)]) == 0
    applied = revisions_after(None)
    assert capsys.readouterr().out == (
        f"sdlc-hub: applied {len(applied)} migrations ({', '.join(applied)}); the schema is at {head_revision()}\n"
    )
    assert main(["migrate", "--data-dir", str(tmp_path)]) == 0
    assert capsys.readouterr().out == f"sdlc-hub: the schema is already at {head_revision()}; nothing to apply\n"


WARNING = (
    "sdlc-hub: warning: no hub database in {path} (the default --data-dir); creating a new, empty one. Give"
    " --data-dir or SDLC_HUB_DATA_DIR to use an existing hub's.\n"
)


def test_a_new_database_in_the_unchosen_default_dir_is_warned_about(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A subcommand about to create an empty database in ./.sdlc-hub, which nobody chose, says so in one line on
    stderr (once: the database exists afterwards); an explicit --data-dir or SDLC_HUB_DATA_DIR is not warned."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SDLC_HUB_DATA_DIR", raising=False)
    monkeypatch.delenv("SDLC_HUB_DATABASE_URL", raising=False)
    assert main(["token", "list"]) == 0
    assert capsys.readouterr().err == WARNING.format(path=tmp_path / ".sdlc-hub")
    assert main(["token", "list"]) == 0
    assert capsys.readouterr().err == ""
    assert main(["token", "list", "--data-dir", str(tmp_path / "chosen")]) == 0
    monkeypatch.setenv("SDLC_HUB_DATA_DIR", str(tmp_path / "from-env"))
    assert main(["token", "list"]) == 0
    assert capsys.readouterr().err == ""


def test_a_token_that_needs_approval(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """token add --needs-approval says so; token list shows «approval: required» for it only; an admin token
    cannot need approval (exit 1, nothing added)."""
    data = ["--data-dir", str(tmp_path)]
    assert main(["token", "add", "claude", "--role", "interface", "--needs-approval", *data]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "token claude (interface, approval: required) created; its secret, shown only now:"
    assert main(["token", "add", "planner", "--role", "interface", *data]) == 0
    capsys.readouterr()
    assert main(["token", "add", "boss", "--role", "admin", "--needs-approval", *data]) == 1
    assert capsys.readouterr().err == "sdlc-hub: --needs-approval is for an interface token only, not for role admin\n"
    assert main(["token", "list", *data]) == 0
    listed = [line.split("\tcreated ")[0] for line in capsys.readouterr().out.splitlines()]
    assert listed == ["claude\tinterface\tapproval: required", "planner\tinterface"]


def test_mcp_config_is_for_a_token_mcp_takes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """--print-mcp-config for an agent token: exit 1, nothing added; without a public URL it warns (stderr) that
    the configuration names serve's default; a public URL that is no URL: exit 2, nothing added."""
    monkeypatch.delenv("SDLC_HUB_PUBLIC_URL", raising=False)
    data = ["--data-dir", str(tmp_path)]
    assert main(["token", "add", "bank", "--role", "agent", "--print-mcp-config", *data]) == 1
    assert capsys.readouterr().err == (
        "sdlc-hub: --print-mcp-config is for an interface or admin token; /mcp refuses role agent\n"
    )
    bad = ["--public-url", "hub.example"]
    assert main(["token", "add", "claude", "--role", "interface", "--print-mcp-config", *bad, *data]) == 2
    assert capsys.readouterr().err == "sdlc-hub: --public-url 'hub.example': expected http(s)://host[:port][/path]\n"
    assert main(["token", "add", "claude", "--role", "interface", "--print-mcp-config", "cursor", *data]) == 0
    printed = capsys.readouterr()
    assert printed.err == (
        "sdlc-hub: warning: no --public-url or SDLC_HUB_PUBLIC_URL; the configuration names http://127.0.0.1:8700"
        " (serve's default). Give the URL assistants reach the hub at.\n"
    )
    assert '"url": "http://127.0.0.1:8700/mcp"' in printed.out
    assert main(["token", "list", *data]) == 0
    assert [line.split("\t")[0] for line in capsys.readouterr().out.splitlines()] == ["claude"]


def test_a_public_url_that_is_no_url_stops_serve(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """serve --public-url (or SDLC_HUB_PUBLIC_URL) that is no http(s) URL: one line on stderr, exit 2, before
    anything is opened."""
    assert main(["serve", "--public-url", "ftp://hub.example", "--data-dir", str(tmp_path / "d")]) == 2
    assert capsys.readouterr().err == (
        "sdlc-hub: --public-url 'ftp://hub.example': expected http(s)://host[:port][/path]\n"
    )
    assert not (tmp_path / "d").exists()


def test_env_chooses_the_database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SDLC_HUB_DATABASE_URL and SDLC_HUB_DATA_DIR apply when no option is given."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'elsewhere.sqlite3'}"
    monkeypatch.setenv("SDLC_HUB_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("SDLC_HUB_DATABASE_URL", url)
    assert main(["migrate"]) == 0
    assert (tmp_path / "elsewhere.sqlite3").exists()
    assert (tmp_path / "data").is_dir()


def test_unknown_role_is_refused(tmp_path: Path) -> None:
    """token add with a role that does not exist exits with a usage error."""
    with pytest.raises(SystemExit) as exc:
        main(["token", "add", "x", "--role", "root", "--data-dir", str(tmp_path)])
    assert exc.value.code == 2


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, str, str]]:
    """A real ``sdlc-hub serve`` on a free loopback port with an interface and an agent token."""
    data = str(tmp_path / "hub")
    env = {**os.environ, "SDLC_HUB_DATA_DIR": data}
    env.pop("SDLC_HUB_DATABASE_URL", None)
    tokens = []
    for name, role in (("planner", "interface"), ("agent", "agent")):
        out = subprocess.run(
            [*SDLC_HUB, "token", "add", name, "--role", role], env=env, capture_output=True, text=True, check=True
        )
        tokens.append(out.stdout.splitlines()[-1])
    port = free_port()
    process = subprocess.Popen(
        [*SDLC_HUB, "serve", "--port", str(port)], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert process.poll() is None, process.stdout.read() if process.stdout else ""
            if time.monotonic() >= deadline:  # a hang guard, not a measure of speed
                pytest.fail("sdlc-hub serve did not answer /health in 30 s")
            time.sleep(0.1)
        yield base, tokens[0], tokens[1]
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.mark.e2e
def test_serve_smoke(served: tuple[str, str, str]) -> None:
    """A served hub takes a batch, delivers it to the agent and records the report."""
    base, interface, agent = served
    with httpx.Client(base_url=base, timeout=10) as client:
        body = {
            "author": "planner",
            "title": "smoke",
            "commands": [{"type": "ensure_fields", "params": {"key": "AURORA-1", "duedate": "2026-10-23"}}],
        }
        created = client.post("/batches", json=body, headers={"Authorization": f"Bearer {interface}"})
        assert created.status_code == 201, created.text
        auth = {"Authorization": f"Bearer {agent}"}
        delivery = client.post("/agent/claim", json={"agent_id": "a", "version": "1", "wait": 1}, headers=auth)
        assert delivery.status_code == 200
        command = delivery.json()
        assert command["params"] == {"key": "AURORA-1", "duedate": "2026-10-23"}
        report = client.post(
            f"/agent/commands/{command['id']}/report",
            json={"status": "done", "result": {"changed": []}, "jira_calls": 1, "operations": []},
            headers=auth,
        )
        assert report.json() == {"accepted": True, "status": "done"}
        assert client.get("/batches", headers=auth).status_code == 403
        assert client.get("/schema/openapi.json").status_code == 200


def test_admin_commands_load_no_server(tmp_path: Path) -> None:
    """``token add`` and ``--version`` load neither the web framework, the server, MCP nor (on a current schema)
    Alembic: an admin command starts in well under a second (bench/bench_cli.py measures it)."""
    heavy = ("litestar", "uvicorn", "mcp", "alembic", "jinja2")
    probe = (
        "import sys\n"
        "from hub_app.cli import main\n"
        "code = main(sys.argv[1:])\n"
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & {set(heavy)!r}))\n"
    )
    env = {**os.environ, "SDLC_HUB_DATA_DIR": str(tmp_path)}
    env.pop("SDLC_HUB_DATABASE_URL", None)
    subprocess.run([*SDLC_HUB, "migrate"], env=env, check=True, capture_output=True)
    done = subprocess.run(
        [sys.executable, "-c", probe, "token", "add", "planner", "--role", "interface"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.splitlines()[-1] == "[]"
    version = subprocess.run([*SDLC_HUB, "--version"], env=env, capture_output=True, text=True, check=True)
    assert version.stdout.startswith("sdlc-hub ")


ACCEPTED = "write postgresql+asyncpg://USER@HOST:5432/DATABASE or sqlite+aiosqlite:///PATH"


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("postgres://hub@db/hub", f"the database URL scheme postgres:// is not supported; {ACCEPTED}"),
        ("postgresql://hub@db/hub", f"the database URL scheme postgresql:// is not supported; {ACCEPTED}"),
        ("sqlite:///hub.sqlite3", f"the database URL scheme sqlite:// is not supported; {ACCEPTED}"),
        ("hub database", f"the database URL is not a URL; {ACCEPTED}"),
        (
            "postgresql+asyncpg://hub:pa55word@127.0.0.1:1/hub",
            "cannot open the database postgresql+asyncpg://hub:***@127.0.0.1:1/hub: "
            "[Errno 111] Connect call failed ('127.0.0.1', 1)",
        ),
    ],
)
@pytest.mark.parametrize("command", [["migrate"], ["token", "list"]])
def test_unusable_database_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], url: str, message: str, command: list[str]
) -> None:
    """A wrong database URL or an unreachable database: one line naming it (password hidden), exit 2."""
    assert main([*command, "--data-dir", str(tmp_path), "--database-url", url]) == 2
    captured = capsys.readouterr()
    assert captured.err == f"sdlc-hub: {message}\n"
    assert "pa55word" not in captured.out + captured.err


def test_missing_postgres_database_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str], pg_url: str) -> None:
    """A PostgreSQL server that answers but has no such database: the server's own words, one line, exit 2."""
    from sqlalchemy.engine import make_url

    url = make_url(pg_url).set(database="sdlc_hub_no_such_db").render_as_string(hide_password=False)
    assert main(["migrate", "--data-dir", str(tmp_path), "--database-url", url]) == 2
    err = capsys.readouterr().err
    assert err.endswith(': database "sdlc_hub_no_such_db" does not exist\n')
    assert err.count("\n") == 1


@pytest.mark.e2e
def test_serve_logs_one_json_line_per_event(tmp_path: Path) -> None:
    """A served hub (not on a terminal) writes only JSON lines: its own events, uvicorn's, the batch it took."""
    env = {**os.environ, "SDLC_HUB_DATA_DIR": str(tmp_path), "SDLC_HUB_LOG_FORMAT": "auto"}
    env.pop("SDLC_HUB_DATABASE_URL", None)
    added = subprocess.run(
        [*SDLC_HUB, "token", "add", "planner", "--role", "interface"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    secret = added.stdout.splitlines()[-1]
    port = free_port()
    process = subprocess.Popen(
        [*SDLC_HUB, "serve", "--port", str(port)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{base}/readyz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert process.poll() is None
            if time.monotonic() >= deadline:  # a hang guard, not a measure of speed
                pytest.fail("sdlc-hub serve was not ready in 30 s")
            time.sleep(0.1)
        body = {
            "author": "planner",
            "title": "t",
            "commands": [{"type": "ensure_fields", "params": {"key": "AURORA-1", "duedate": "2026-10-23"}}],
        }
        created = httpx.post(f"{base}/batches", json=body, headers={"Authorization": f"Bearer {secret}"}, timeout=10)
        assert created.status_code == 201
    finally:
        process.terminate()
        out, err = process.communicate(timeout=10)
    lines = [json.loads(line) for line in err.splitlines()]
    assert out == ""
    assert all({"ts", "level", "logger", "event"} <= set(line) for line in lines)
    events = {line["event"]: line for line in lines}
    assert events["serving"]["url"] == events["serving"]["public_url"] == base
    assert any(line["logger"] == "uvicorn.error" for line in lines)
    batch = events["batch_created"]
    assert (batch["batch_id"], batch["author"]) == (created.json()["id"], "planner")
    requests = [line for line in lines if line["event"] == "http_request"]
    assert {(r["method"], r["path"], r["status"]) for r in requests} >= {("POST", "/batches", 201)}
    assert secret not in err
