"""``sdlc-hub demo [--keep]``: hub + Jira simulator + agent on loopback, a sample batch, progress shown.

Real processes, as in production: ``sdlc-hub serve`` on a temporary SQLite data dir, ``jira-sim`` with its
built-in sample, ``sdlc-agent run``. The demo configures projects and a scaled-down pacing through the admin
API, reads the mirror once (a full refresh, which also discovers the STOCKS_DRRK board's type), uploads a
file, submits one batch with all eight command types and temp keys, prints one line per status change with
an ETA, then each command's outcome and the resulting Jira state read back from the simulator.

The process helpers (:class:`Stack`, :func:`start_stack`) are reused by the end-to-end tests.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

import attrs
import httpx

__all__ = [
    "DEMO_PACING",
    "Stack",
    "free_port",
    "run",
    "script",
    "start_agent",
    "start_hub",
    "start_sim",
    "start_stack",
]

#: Scaled-down pacing: 0.2 s between writes, 0.05 s before a refresh.
DEMO_PACING: dict[str, float] = {
    "ensure_issue": 0.2,
    "ensure_fields": 0.2,
    "ensure_comment": 0.2,
    "ensure_status": 0.2,
    "ensure_link": 0.2,
    "ensure_sprint": 0.2,
    "ensure_attachment": 0.2,
    "refresh": 0.05,
}

FINISHED = ("done", "failed", "skipped", "cancelled", "confirmed_by_state")
SUCCEEDED = ("done", "confirmed_by_state")


def script(name: str) -> list[str]:
    """The command line of one of our console scripts, preferring the one installed next to Python."""
    override = os.environ.get("SDLC_HUB_BIN_DIR")  # e.g. the scripts of another installation
    installed = Path(override) / name if override else Path(sys.executable).with_name(name)
    if installed.exists():
        return [str(installed)]
    module = {"sdlc-hub": "hub_app.cli", "sdlc-agent": "agent_app.cli", "jira-sim": "jira_sim.cli"}[name]
    return [sys.executable, "-c", f"import sys; from {module} import main; sys.exit(main())"]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@attrs.define(kw_only=True)
class Proc:
    """A child process and the file its output goes to."""

    name: str
    popen: subprocess.Popen[bytes]
    log_path: Path

    def log_tail(self, lines: int = 30) -> str:
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def stop(self, timeout: float = 5.0) -> None:
        if self.popen.poll() is not None:
            return
        self.popen.send_signal(signal.SIGTERM)
        try:
            self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            self.popen.wait(timeout)

    def kill(self) -> None:
        if self.popen.poll() is None:
            self.popen.kill()
            self.popen.wait(5)


def _spawn(
    name: str, argv: Sequence[str], log_dir: Path, *, detach: bool = False, env: dict[str, str] | None = None
) -> Proc:
    log_path = log_dir / f"{name}.log"
    with log_path.open("ab") as log_file:
        popen = subprocess.Popen(
            list(argv),
            stdout=log_file,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=detach,
            env=env,
        )
    return Proc(name=name, popen=popen, log_path=log_path)


def _wait_for(
    what: str, probe: Callable[[], bool], *, timeout: float, proc: Proc | None = None, every: float = 0.05
) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.popen.poll() is not None:
            raise RuntimeError(f"{what}: {proc.name} exited ({proc.popen.returncode}):\n{proc.log_tail()}")
        with contextlib.suppress(httpx.HTTPError, OSError, ValueError):
            if probe():
                return
        time.sleep(every)
    tail = f":\n{proc.log_tail()}" if proc is not None else ""
    raise RuntimeError(f"{what}: not ready after {timeout:.0f} s{tail}")


def start_sim(log_dir: Path, *, detach: bool = False, seed: Path | None = None) -> tuple[Proc, str]:
    """``jira-sim --port 0``; returns the process and the URL it printed."""
    argv = [*script("jira-sim"), "--host", "127.0.0.1", "--port", "0"]
    if seed is not None:
        argv += ["--seed", str(seed)]
    proc = _spawn("jira-sim", argv, log_dir, detach=detach)
    found: list[str] = []

    def listening() -> bool:
        for line in proc.log_path.read_text(encoding="utf-8", errors="replace").splitlines():
            if "listening on " in line:
                found.append(line.split("listening on ", 1)[1].strip())
                return True
        return False

    _wait_for("jira-sim", listening, timeout=20, proc=proc)
    return proc, found[0].rstrip("/")


def _hub_env(data_dir: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("SDLC_HUB_DATABASE_URL", None)
    env["SDLC_HUB_DATA_DIR"] = str(data_dir)
    return env


def add_token(data_dir: Path, name: str, role: str) -> str:
    """``sdlc-hub token add NAME --role ROLE``: the secret is the last line of its output."""
    done = subprocess.run(
        [*script("sdlc-hub"), "--data-dir", str(data_dir), "token", "add", name, "--role", role],
        capture_output=True,
        text=True,
        env=_hub_env(data_dir),
        check=False,
        timeout=60,
    )
    if done.returncode != 0:
        # The option may belong to the subcommand rather than the program.
        done = subprocess.run(
            [*script("sdlc-hub"), "token", "add", name, "--role", role, "--data-dir", str(data_dir)],
            capture_output=True,
            text=True,
            env=_hub_env(data_dir),
            check=False,
            timeout=60,
        )
    if done.returncode != 0:
        raise RuntimeError(f"sdlc-hub token add {name}: exit {done.returncode}\n{done.stderr}")
    return done.stdout.strip().splitlines()[-1].strip()


def start_hub(data_dir: Path, log_dir: Path, *, port: int | None = None, detach: bool = False) -> tuple[Proc, str]:
    """``sdlc-hub serve`` on a free loopback port; returns when ``/health`` answers 200."""
    port = port or free_port()
    argv = [
        *script("sdlc-hub"),
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--data-dir",
        str(data_dir),
    ]
    proc = _spawn("sdlc-hub", argv, log_dir, detach=detach)
    url = f"http://127.0.0.1:{port}"
    _wait_for("sdlc-hub", lambda: httpx.get(f"{url}/health", timeout=2).status_code == 200, timeout=30, proc=proc)
    return proc, url


def start_agent(
    *,
    hub_url: str,
    hub_token: str,
    jira_url: str,
    journal: Path,
    log_dir: Path,
    agent_id: str = "demo-agent",
    name: str = "sdlc-agent",
    claim_wait: float = 2.0,
    detach: bool = False,
) -> Proc:
    argv = [
        *script("sdlc-agent"),
        "run",
        "--hub",
        hub_url,
        "--jira",
        jira_url,
        "--journal",
        str(journal),
        "--agent-id",
        agent_id,
        "--claim-wait",
        str(claim_wait),
    ]
    # Secrets go through the environment, not the command line (visible to every user in ``ps``).
    env = {**os.environ, "SDLC_AGENT_HUB_TOKEN": hub_token, "SDLC_AGENT_JIRA_TOKEN": "demo-jira-token"}
    return _spawn(name, argv, log_dir, detach=detach, env=env)


@attrs.define(kw_only=True)
class Stack:
    """A running hub, simulator and (optionally) agent on loopback."""

    work_dir: Path
    hub_url: str
    sim_url: str
    tokens: dict[str, str]
    procs: dict[str, Proc] = attrs.field(factory=dict)

    def client(self, role: str = "interface") -> httpx.Client:
        return httpx.Client(base_url=self.hub_url, headers={"Authorization": f"Bearer {self.tokens[role]}"}, timeout=30)

    def sim(self) -> httpx.Client:
        return httpx.Client(base_url=self.sim_url, headers={"Authorization": "Bearer demo-jira-token"}, timeout=30)

    def start_agent(self, *, hub_url: str | None = None, name: str = "sdlc-agent", **kwargs: Any) -> Proc:
        proc = start_agent(
            hub_url=hub_url or self.hub_url,
            hub_token=self.tokens["agent"],
            jira_url=self.sim_url,
            journal=kwargs.pop("journal", self.work_dir / "agent" / "journal.json"),
            log_dir=self.work_dir,
            name=name,
            **kwargs,
        )
        self.procs[name] = proc
        return proc

    def stop(self) -> None:
        for name in [n for n in self.procs if n.startswith("sdlc-agent")] + ["sdlc-hub", "jira-sim"]:
            proc = self.procs.get(name)
            if proc is not None:
                proc.stop()


def start_stack(
    work_dir: Path,
    *,
    pacing: dict[str, float] | None = None,
    claim_wait_seconds: float = 2.0,
    projects: Sequence[dict[str, Any]] = (
        {"name": "AWPCA", "board_id": 4216, "board_type": "scrum"},
        {"name": "STOCKS_DRRK", "board_id": 5120, "board_type": None},
    ),
    detach: bool = False,
) -> Stack:
    """Start the simulator and the hub, create tokens, configure pacing and projects (no agent yet)."""
    data_dir = work_dir / "hub-data"
    data_dir.mkdir(parents=True, exist_ok=True)
    procs: dict[str, Proc] = {}
    try:
        procs["jira-sim"], sim_url = start_sim(work_dir, detach=detach)
        tokens = {role: add_token(data_dir, f"demo-{role}", role) for role in ("admin", "interface", "agent")}
        procs["sdlc-hub"], hub_url = start_hub(data_dir, work_dir, detach=detach)
        stack = Stack(work_dir=work_dir, hub_url=hub_url, sim_url=sim_url, tokens=tokens, procs=procs)
        with stack.client("admin") as admin:
            _check(
                admin.patch(
                    "/settings",
                    json={"pacing": pacing or DEMO_PACING, "claim_wait_seconds": claim_wait_seconds},
                )
            )
            for project in projects:
                _check(admin.post("/projects", json=dict(project)))
    except BaseException:
        for proc in procs.values():
            proc.stop()
        raise
    return stack


def _check(response: httpx.Response) -> Any:
    if response.status_code >= 400:
        raise RuntimeError(
            f"{response.request.method} {response.request.url.path}: HTTP {response.status_code}: {response.text}"
        )
    if response.status_code == 204 or not response.content:
        return None
    return response.json()


def wait_batch(
    client: httpx.Client,
    batch_id: int,
    *,
    out: TextIO,
    timeout: float = 60.0,
    label: str = "",
) -> dict[str, Any]:
    """Poll the batch, print one line per command status change with an ETA; return the finished batch."""
    started = time.monotonic()
    seen: dict[int, str] = {}
    batch: dict[str, Any] = {}
    while time.monotonic() - started < timeout:
        batch = _check(client.get(f"/batches/{batch_id}"))
        commands = batch.get("commands") or []
        finished = sum(1 for c in commands if c.get("status") in FINISHED)
        for command in commands:
            status = command.get("status")
            previous = seen.get(command["id"])
            seen[command["id"]] = status
            if previous == status or (previous is None and status == "queued"):
                continue
            elapsed = time.monotonic() - started
            eta = _eta(batch, commands, finished, elapsed)
            out.write(
                f"{label}[{finished}/{len(commands)}] #{command['id']} {command['type']}: {status}"
                f"  ({elapsed:.1f} s, ETA {eta:.1f} s)\n"
            )
            out.flush()
        if commands and finished == len(commands):
            return batch
        time.sleep(0.05)
    raise RuntimeError(f"batch {batch_id} not finished after {timeout:.0f} s")


def _eta(batch: dict[str, Any], commands: list[dict[str, Any]], finished: int, elapsed: float) -> float:
    remaining = len(commands) - finished
    if remaining == 0:
        return 0.0
    if finished:
        return elapsed / finished * remaining
    estimate = float(batch.get("estimate_seconds") or 0)
    return max(estimate - elapsed, 0.0)


def sample_batch(sha256: str, issue_key: str, neighbour_key: str) -> dict[str, Any]:
    """One batch with all eight command types; ``new:1`` is created, then linked, commented, moved, attached."""
    return {
        "author": "demo",
        "title": "Демо sdlc-hub",
        "project": "AWPCA",
        "commands": [
            {
                "type": "ensure_issue",
                "params": {
                    "temp_key": "new:1",
                    "issue_type": "task",
                    "summary": "Демо: сверка остатков",
                    "description": "Создано демо sdlc-hub.\nВторая строка.",
                    "labels": ["demo"],
                },
            },
            {"type": "ensure_fields", "params": {"key": issue_key, "duedate": "2026-12-24"}},
            {
                "type": "ensure_comment",
                "params": {"key": "new:1", "marker": "[демо]", "body": "План согласован."},
            },
            {"type": "ensure_status", "params": {"key": "new:1", "target": ["Разработка"]}},
            {
                "type": "ensure_link",
                "params": {"source": "new:1", "target": issue_key, "link_type": "блокирует начало"},
            },
            {"type": "ensure_sprint", "params": {"key": "new:1", "sprint": "Спринт 2"}},
            {
                "type": "ensure_attachment",
                "params": {"key": "new:1", "file": sha256, "filename": "демо.txt"},
            },
            {"type": "refresh", "params": {"keys": [neighbour_key]}},
        ],
        "notes": [{"key": "new:1", "text": "Заметка демо: переедет на настоящий ключ."}],
    }


def jira_state(sim: httpx.Client, key: str) -> list[str]:
    """Lines describing one issue as the simulator holds it (read through its Jira REST API)."""
    issue = sim.get(f"/rest/api/2/issue/{key}").json()
    fields = issue.get("fields") or {}
    lines = [f"{key}: {fields.get('summary')!r}"]
    status = (fields.get("status") or {}).get("name")
    lines.append(f"  status: {status}; labels: {', '.join(fields.get('labels') or [])}")
    if fields.get("duedate"):
        lines.append(f"  duedate: {fields['duedate']}")
    sprints = fields.get("customfield_10104") or []
    names = [_sprint_name(s) for s in sprints] if isinstance(sprints, list) else [str(sprints)]
    if names:
        lines.append(f"  sprints: {', '.join(n for n in names if n)}")
    for link in fields.get("issuelinks") or []:
        kind = (link.get("type") or {}).get("name")
        if "outwardIssue" in link:
            lines.append(f"  link: {key} → {link['outwardIssue'].get('key')} ({kind})")
        elif "inwardIssue" in link:
            lines.append(f"  link: {link['inwardIssue'].get('key')} → {key} ({kind})")
    comments = sim.get(f"/rest/api/2/issue/{key}/comment").json().get("comments") or []
    for comment in comments:
        lines.append(f"  comment: {comment.get('body')!r}")
    attachments = sim.get(f"/rest/api/2/issue/{key}", params={"fields": "attachment"}).json()
    for attachment in (attachments.get("fields") or {}).get("attachment") or []:
        lines.append(f"  attachment: {attachment.get('filename')} ({attachment.get('size')} bytes)")
    return lines


def _sprint_name(value: Any) -> str | None:
    if isinstance(value, dict):
        return str(value.get("name"))
    text = str(value)
    if "name=" in text:
        return text.split("name=", 1)[1].split(",", 1)[0]
    return text


def _pick_issue(client: httpx.Client) -> tuple[str, str]:
    """An AWPCA issue of the mirror to change and link to, and another to refresh."""
    items = _check(client.get("/issues", params={"project": "AWPCA", "limit": 100})).get("items") or []
    keys = sorted((item["key"] for item in items), key=lambda k: int(k.rsplit("-", 1)[1]))
    if not keys:
        raise RuntimeError("the mirror has no AWPCA issues after the first refresh")
    waiting = [i["key"] for i in items if i.get("status") == "Ожидание разработки"]
    issue_key = (waiting or keys)[0]
    neighbour = next((k for k in keys if k != issue_key), issue_key)
    return issue_key, neighbour


def demo(out: TextIO, *, keep: bool, work_dir: Path) -> int:
    began = time.monotonic()
    out.write(f"sdlc-hub demo: working in {work_dir}\n")
    out.flush()
    stack = start_stack(work_dir, detach=keep)
    ok = False
    try:
        out.write(f"hub {stack.hub_url}, jira-sim {stack.sim_url}\n")
        stack.start_agent(claim_wait=2.0, detach=keep)
        with stack.client("interface") as client, stack.sim() as sim:
            out.write("reading Jira into the mirror (full refresh) …\n")
            out.flush()
            first = _check(client.post("/refresh", json={}))
            wait_batch(client, first["id"], out=out, label="refresh ")
            projects = _check(client.get("/projects"))
            project_items = projects.get("items", projects) if isinstance(projects, dict) else projects
            for project in project_items:
                out.write(f"project {project['name']}: board {project.get('board_id')} ({project.get('board_type')})\n")

            content = "Файл демо sdlc-hub.\n".encode()
            uploaded = _check(client.post("/files", params={"filename": "демо.txt"}, content=content))
            out.write(f"uploaded демо.txt: sha256 {uploaded['sha256']}, {uploaded['size']} bytes\n")
            issue_key, neighbour = _pick_issue(client)
            batch = _check(client.post("/batches", json=sample_batch(uploaded["sha256"], issue_key, neighbour)))
            out.write(
                f"batch {batch['id']}: {len(batch['commands'])} commands, "
                f"estimate {float(batch.get('estimate_seconds') or 0):.1f} s\n"
            )
            out.flush()
            final = wait_batch(client, batch["id"], out=out)

            out.write("\noutcomes:\n")
            new_key = None
            for command in final["commands"]:
                result = command.get("result")
                error = command.get("error")
                out.write(
                    f"  #{command['id']} {command['type']}: {command['status']}"
                    f"{'  result ' + _compact(result) if result else ''}{'  error ' + error if error else ''}\n"
                )
                if command["type"] == "ensure_issue" and isinstance(result, dict):
                    new_key = result.get("key")
            ok = all(c["status"] in SUCCEEDED for c in final["commands"])

            out.write("\nJira (read back from the simulator):\n")
            for key in [k for k in (new_key, issue_key) if k]:
                for line in jira_state(sim, key):
                    out.write(f"  {line}\n")
            if new_key:
                notes = _check(client.get("/notes", params={"key": new_key}))
                for note in notes.get("items", []) if isinstance(notes, dict) else notes:
                    out.write(f"  note on {new_key}: {note.get('text')!r}\n")
        out.write(f"\n{'OK' if ok else 'FAILED'}: demo finished in {time.monotonic() - began:.1f} s\n")
        if keep:
            _print_keep(out, stack)
        out.flush()
    except BaseException:
        for proc in stack.procs.values():
            if proc.popen.poll() is not None or not ok:
                out.write(f"--- {proc.name} log (tail) ---\n{proc.log_tail()}\n")
        if keep:
            stack.stop()
        raise
    finally:
        if not keep:
            stack.stop()
    return 0 if ok else 1


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _print_keep(out: TextIO, stack: Stack) -> None:
    out.write("\nstill running (--keep):\n")
    out.write(f"  hub       {stack.hub_url}   (web page {stack.hub_url}/, MCP {stack.hub_url}/mcp)\n")
    out.write(f"  jira-sim  {stack.sim_url}\n")
    for role, token in stack.tokens.items():
        out.write(f"  {role} token: {token}\n")
    pids = " ".join(str(p.popen.pid) for p in stack.procs.values())
    out.write(f"  data and logs: {stack.work_dir}\n  stop with: kill {pids}\n")


def run(argv: list[str]) -> int:
    """``sdlc-hub demo [--keep]`` (``argv`` without the subcommand's name)."""
    parser = argparse.ArgumentParser(prog="sdlc-hub demo", description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help="leave hub, simulator and agent running")
    args = parser.parse_args(argv)
    work_dir = Path(tempfile.mkdtemp(prefix="sdlc-hub-demo-"))
    try:
        return demo(sys.stdout, keep=args.keep, work_dir=work_dir)
    except RuntimeError as exc:
        print(f"sdlc-hub demo: {exc}", file=sys.stderr)
        return 1
    finally:
        if not args.keep:
            shutil.rmtree(work_dir, ignore_errors=True)
