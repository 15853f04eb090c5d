"""A hub, a Jira simulator and an agent as real processes on loopback, configured through the admin API.

:func:`start_stack` starts ``jira-sim`` and ``sdlc-hub serve``, creates tokens and sets pacing and projects;
:meth:`Stack.start_agent` adds ``sdlc-agent run``. :func:`wait_batch` follows a batch to its end.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

import attrs
import httpx

from loopback.processes import Proc, free_port, script, spawn, wait_for
from reconcile.vocabulary import CATALOGUE, FINAL, CommandSpec

__all__ = [
    "DEMO_PACING",
    "WEBHOOK_SECRET",
    "Stack",
    "add_token",
    "checked",
    "demo_pacing",
    "start_agent",
    "start_hub",
    "start_sim",
    "start_stack",
    "wait_batch",
]


def demo_pacing(catalogue: Mapping[str, CommandSpec]) -> dict[str, float]:
    """Scaled-down pacing: 0.2 s between writes, 0.05 s before a command that only reads (a refresh)."""
    return {name: 0.2 if spec.writes else 0.05 for name, spec in catalogue.items()}


DEMO_PACING: dict[str, float] = demo_pacing(CATALOGUE)

#: The webhook secret of the stack's agents (the file holds it with a trailing newline, as an editor leaves it).
WEBHOOK_SECRET = "loopback-webhook-secret"


#: How long a process may take to become ready: a guard against a hang, not a measure (a loaded machine with
#: parallel test workers has taken over 30 s to start a hub that migrates a fresh PostgreSQL database).
STARTUP_TIMEOUT = 120.0


def start_sim(log_dir: Path, *, detach: bool = False, seed: Path | None = None) -> tuple[Proc, str]:
    """``jira-sim --port 0``; returns the process and the URL it printed."""
    argv = [*script("jira-sim"), "--host", "127.0.0.1", "--port", "0"]
    if seed is not None:
        argv += ["--seed", str(seed)]
    proc = spawn("jira-sim", argv, log_dir, detach=detach)
    found: list[str] = []

    def listening() -> bool:
        for line in proc.log_path.read_text(encoding="utf-8", errors="replace").splitlines():
            if "listening on " in line:
                found.append(line.split("listening on ", 1)[1].strip())
                return True
        return False

    wait_for("jira-sim", listening, timeout=STARTUP_TIMEOUT, proc=proc)
    return proc, found[0].rstrip("/")


def _hub_env(data_dir: Path, database_url: str | None) -> dict[str, str]:
    """The hub's environment: its data dir, and its database (SQLite in the data dir unless a URL is given)."""
    env = dict(os.environ)
    env.pop("SDLC_HUB_DATABASE_URL", None)
    env["SDLC_HUB_DATA_DIR"] = str(data_dir)
    if database_url is not None:
        env["SDLC_HUB_DATABASE_URL"] = database_url
    return env


def add_token(data_dir: Path, name: str, role: str, *, database_url: str | None = None) -> str:
    """``sdlc-hub token add NAME --role ROLE``: the secret is the last line of its output."""
    command = ["token", "add", name, "--role", role]
    storage = ["--data-dir", str(data_dir)]
    # The option may belong to the subcommand rather than the program: both places are tried.
    for argv in ([*storage, *command], [*command, *storage]):
        done = subprocess.run(
            [*script("sdlc-hub"), *argv],
            capture_output=True,
            text=True,
            env=_hub_env(data_dir, database_url),
            check=False,
            timeout=60,
        )
        if done.returncode == 0:
            return done.stdout.strip().splitlines()[-1].strip()
    raise RuntimeError(f"sdlc-hub token add {name}: exit {done.returncode}\n{done.stderr}")


def start_hub(
    data_dir: Path,
    log_dir: Path,
    *,
    port: int | None = None,
    detach: bool = False,
    database_url: str | None = None,
    extra: Sequence[str] = (),
    name: str = "sdlc-hub",
) -> tuple[Proc, str]:
    """``sdlc-hub serve`` on a free loopback port (on ``database_url`` when given, with ``extra`` options); returns
    when ``/health`` answers 200."""
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
        *extra,
    ]
    proc = spawn(name, argv, log_dir, detach=detach, env=_hub_env(data_dir, database_url))
    url = f"http://127.0.0.1:{port}"
    wait_for(
        "sdlc-hub",
        lambda: httpx.get(f"{url}/health", timeout=2).status_code == 200,
        timeout=STARTUP_TIMEOUT,
        proc=proc,
    )
    return proc, url


def start_agent(
    *,
    hub_url: str,
    hub_token: str,
    jira_url: str,
    journal: Path,
    log_dir: Path,
    allow_projects: Sequence[str],
    policy: Sequence[str] = (),
    agent_id: str = "demo-agent",
    name: str = "sdlc-agent",
    claim_wait: float = 2.0,
    detach: bool = False,
    prefix: Sequence[str] = (),
) -> Proc:
    """``sdlc-agent run`` with the bank's policy as an operator gives it (DESIGN.md 5.5): ``--allow-project`` for
    each of ``allow_projects``, and ``policy``'s further flags (``["--min-gap", "*=1"]``…); ``prefix``: a command
    that runs it (one that lowers its limits, say)."""
    argv = [
        *prefix,
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
        *(word for project in allow_projects for word in ("--allow-project", project)),
        *policy,
    ]
    # Secrets go through the environment, not the command line (visible to every user in ``ps``).
    env = {**os.environ, "SDLC_AGENT_HUB_TOKEN": hub_token, "SDLC_AGENT_JIRA_TOKEN": "demo-jira-token"}
    return spawn(name, argv, log_dir, detach=detach, env=env)


@attrs.define(kw_only=True)
class Stack:
    """A running hub, simulator and (optionally) agent on loopback."""

    work_dir: Path
    hub_url: str
    sim_url: str
    tokens: dict[str, str]
    procs: dict[str, Proc] = attrs.field(factory=dict)
    #: The hub's database: ``None`` for SQLite in ``work_dir/hub-data``.
    database_url: str | None = None
    #: The hub's ``jira_project``: the project its agents are allowed by default.
    jira_project: str = "AURORA"
    #: Whether every agent started serves Jira's webhooks (``--webhook-listen`` on a free port, secret
    #: :data:`WEBHOOK_SECRET`); the first one's listener is registered in the simulator (Jira 10's resource).
    webhooks: bool = False
    #: The listener URL of each agent started with webhooks, by its name.
    listeners: dict[str, str] = attrs.field(factory=dict)

    def client(self, role: str = "interface") -> httpx.Client:
        return httpx.Client(base_url=self.hub_url, headers={"Authorization": f"Bearer {self.tokens[role]}"}, timeout=30)

    def sim(self) -> httpx.Client:
        return httpx.Client(base_url=self.sim_url, headers={"Authorization": "Bearer demo-jira-token"}, timeout=30)

    def start_agent(
        self,
        *,
        hub_url: str | None = None,
        name: str = "sdlc-agent",
        allow_projects: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> Proc:
        """``sdlc-agent run`` against this stack, allowed the hub's Jira project unless told otherwise (with the
        webhook listener when :attr:`webhooks`; ``webhooks=`` overrides it for this agent)."""
        listen = kwargs.pop("webhooks", self.webhooks)
        if listen:
            secret = self.work_dir / "webhook-secret"
            secret.write_text(WEBHOOK_SECRET + "\n", encoding="utf-8")
            port = free_port()
            listen_flags = ["--webhook-listen", f"127.0.0.1:{port}", "--webhook-secret-file", str(secret)]
            kwargs["policy"] = [*kwargs.get("policy", ()), *listen_flags]
            self.listeners[name] = f"http://127.0.0.1:{port}/jira/webhook"
            if len(self.listeners) == 1:
                # Jira posts to the first agent's listener, registered before that agent makes any call (and
                # the call log cleared of the registration, so a test's count of Jira calls is the agent's).
                self.register_webhook(self.listeners[name], allow_projects=allow_projects)
                with self.sim() as sim:
                    checked(sim.delete("/_sim/calls"))
        proc = start_agent(
            hub_url=hub_url or self.hub_url,
            hub_token=self.tokens["agent"],
            jira_url=self.sim_url,
            journal=kwargs.pop("journal", self.work_dir / "agent" / "journal.json"),
            log_dir=self.work_dir,
            name=name,
            allow_projects=(self.jira_project,) if allow_projects is None else allow_projects,
            **kwargs,
        )
        self.procs[name] = proc
        return proc

    def register_webhook(self, url: str, *, allow_projects: Sequence[str] | None = None) -> str:
        """``sdlc-agent webhook --register`` for the listener at ``url``: the simulator posts its changes there."""
        secret = self.work_dir / "webhook-secret"
        projects = (self.jira_project,) if allow_projects is None else allow_projects
        argv = [
            *script("sdlc-agent"),
            "webhook",
            "--jira",
            self.sim_url,
            *(word for project in projects for word in ("--allow-project", project)),
            "--webhook-url",
            url,
            "--webhook-secret-file",
            str(secret),
            "--register",
        ]
        env = {**os.environ, "SDLC_AGENT_JIRA_TOKEN": "demo-jira-token"}
        done = subprocess.run(argv, capture_output=True, text=True, env=env, check=False, timeout=60)
        if done.returncode != 0:
            raise RuntimeError(f"sdlc-agent webhook --register: exit {done.returncode}\n{done.stdout}{done.stderr}")
        return done.stdout.strip()

    def restart_hub(self) -> None:
        """``sdlc-hub serve`` again on the same port, data dir and database (after the old one stopped)."""
        port = int(self.hub_url.rsplit(":", 1)[1])
        self.procs["sdlc-hub"], url = start_hub(
            self.work_dir / "hub-data", self.work_dir, port=port, database_url=self.database_url
        )
        assert url == self.hub_url

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
    database_url: str | None = None,
) -> Stack:
    """Start the simulator and the hub, create tokens, configure pacing and projects (no agent yet).

    ``database_url``: the hub's database (an empty PostgreSQL database, say); SQLite in the data dir without.
    """
    data_dir = work_dir / "hub-data"
    data_dir.mkdir(parents=True, exist_ok=True)
    procs: dict[str, Proc] = {}
    try:
        procs["jira-sim"], sim_url = start_sim(work_dir, detach=detach)
        tokens = {
            role: add_token(data_dir, f"demo-{role}", role, database_url=database_url)
            for role in ("admin", "interface", "agent")
        }
        procs["sdlc-hub"], hub_url = start_hub(data_dir, work_dir, detach=detach, database_url=database_url)
        stack = Stack(
            work_dir=work_dir,
            hub_url=hub_url,
            sim_url=sim_url,
            tokens=tokens,
            procs=procs,
            database_url=database_url,
        )
        with stack.client("admin") as admin:
            checked(
                admin.patch(
                    "/settings",
                    json={"pacing": pacing or DEMO_PACING, "claim_wait_seconds": claim_wait_seconds},
                )
            )
            for project in projects:
                checked(admin.post("/projects", json=dict(project)))
    except BaseException:
        for proc in procs.values():
            proc.stop()
        raise
    return stack


def checked(response: httpx.Response) -> Any:
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
    """Poll the batch, print one line per command status change with the hub's live figures (the run so far, the
    run still ahead and the whole run at the agent's pace, ``progress`` of ``GET /batches/{id}``); return the
    finished batch."""
    started = time.monotonic()
    seen: dict[int, str] = {}
    batch: dict[str, Any] = {}
    while time.monotonic() - started < timeout:
        batch = checked(client.get(f"/batches/{batch_id}"))
        commands = batch.get("commands") or []
        progress = batch.get("progress") or {}
        finished = sum(1 for c in commands if c.get("status") in FINAL)
        for command in commands:
            status = command.get("status")
            previous = seen.get(command["id"])
            seen[command["id"]] = status
            if previous == status or (previous is None and status == "queued"):
                continue
            out.write(
                f"{label}[{finished}/{len(commands)}] command {command['id']} {command['type']}: {status}"
                f"  (elapsed {float(progress.get('elapsed_seconds') or 0):.1f} s,"
                f" left {float(progress.get('remaining_seconds') or 0):.1f} s"
                f" of {float(progress.get('eta_seconds') or 0):.1f} s at the agent's pace)\n"
            )
            out.flush()
        if commands and finished == len(commands):
            return batch
        time.sleep(0.05)
    raise RuntimeError(f"batch {batch_id} not finished after {timeout:.0f} s")
