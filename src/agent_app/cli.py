"""``sdlc-agent``: the agent inside the bank's network (DESIGN.md 5.4, 10).

Every flag is also read from ``SDLC_AGENT_<FLAG>`` and from a TOML file (``--config``), in that order after
the command line (:mod:`adapters.cli_config`). Secrets (the hub's token, Jira's token or password) are never
needed on the command line: ``SDLC_AGENT_HUB_TOKEN`` or a file named by ``SDLC_AGENT_HUB_TOKEN_FILE`` (or
``hub_token_file`` in the config file), and so on. Each target (``hub``, ``jira``) has its own CA bundle, client
certificate and proxy (:mod:`adapters.targets`).

``run`` claims and executes within the bank's policy (:mod:`agent_app.policy_flags`: at least one
``--allow-project``), and with ``--webhook-listen`` serves Jira's webhooks beside the claim loop
(:mod:`agent_app.listener`); ``check`` tries the hub and Jira once each, reads each allowed project and verifies the
pinned fields (:mod:`agent_app.check`), prints the policy and says what is wrong, for an operator setting the agent
up (nothing is claimed or written); ``webhook`` prints (or ``--register``s) the
webhook's registration in Jira (:mod:`agent_app.webhook_cli`).

Decision where the spec is silent: the journal's default is absolute — ``$STATE_DIRECTORY`` (systemd's
``StateDirectory=``), else ``/var/lib/sdlc-agent`` for root, else the user's state directory
(``$XDG_STATE_HOME/sdlc-agent``, ``~/.local/state/sdlc-agent``); a relative ``--journal`` is made absolute
at start, so the working directory (``/`` under systemd) never decides where it lands.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import socket
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import httpx

from adapters.cli_config import CommandLine, Option, package_version
from adapters.clock import SystemClock
from adapters.hub_client import HubClient, HubError
from adapters.jira_http import JiraError, JiraHttp, explain_jira
from adapters.logs import configure_logging, redacted
from adapters.targets import BadSetting, Target, shown
from agent_app.check import jira_lines
from agent_app.journal import Journal, JournalBusy
from agent_app.listener import WebhookListener, bind
from agent_app.loop import Agent, AgentFatal
from agent_app.policy_flags import MISSING, POLICY_OPTIONS, policy_of
from agent_app.webhook_cli import LISTEN_OPTIONS, WEBHOOK_OPTIONS, read_secret, webhook
from reconcile.guard import AgentPolicy
from reconcile.types import executor_for

__all__ = ["agent_version", "build_command_line", "default_journal", "main"]

log = logging.getLogger(__name__)


def agent_version() -> str:
    return package_version()


def default_journal(environ: Mapping[str, str] | None = None, *, is_root: bool | None = None) -> Path:
    """Where the journal lives unless ``--journal`` says otherwise (always an absolute path)."""
    env = os.environ if environ is None else environ
    root = os.geteuid() == 0 if is_root is None else is_root
    state = env.get("STATE_DIRECTORY", "").split(":")[0]
    if state:
        base = Path(state)
    elif root:
        base = Path("/var/lib/sdlc-agent")
    else:
        xdg = env.get("XDG_STATE_HOME")
        base = Path(xdg) / "sdlc-agent" if xdg else Path.home() / ".local" / "state" / "sdlc-agent"
    return base.absolute() / "journal.json"


def _target_options(name: str, what: str) -> list[Option]:
    context = " and its context path (https://jira.bank/jira)" if name == "jira" else ""
    return [
        Option(name, required=True, help=f"{what}'s base URL with its scheme{context}"),
        Option(
            f"{name}-ca-bundle",
            help=f"a PEM file of the CAs that may sign {what}'s certificate (default: the OS trust store)",
        ),
        Option(f"{name}-client-cert", help=f"a PEM client certificate for mutual TLS with {what}"),
        Option(f"{name}-client-key", help=f"its unencrypted PEM key (when not in --{name}-client-cert)"),
        Option(
            f"{name}-proxy",
            help=f"the proxy to {what}, e.g. http://proxy.bank:3128 (NO_PROXY honoured; default: HTTPS_PROXY)",
        ),
    ]


JIRA_OPTIONS = [
    *_target_options("jira", "Jira"),
    Option("jira-token", secret=True, help="a Jira personal access token (Bearer)"),
    Option("jira-user", help="a Jira user for basic auth (with the password)"),
    Option("jira-password", secret=True, help="the Jira user's password"),
]

OPTIONS = [
    *_target_options("hub", "the hub"),
    Option("hub-token", secret=True, required=True, help="an agent-role token of the hub"),
    *JIRA_OPTIONS,
    *POLICY_OPTIONS,
]

RUN_OPTIONS = [
    Option("journal", type=Path, help="the local journal file (default: $STATE_DIRECTORY/journal.json, …)"),
    Option("agent-id", default=socket.gethostname(), help="this agent's id (keep it stable across restarts)"),
    Option("claim-wait", type=float, default=25.0, help="long-poll seconds asked of the hub (capped by it)"),
    *LISTEN_OPTIONS,
]


def build_command_line() -> CommandLine:
    cli = CommandLine(
        "sdlc-agent", env_prefix="SDLC_AGENT", description="The sdlc-hub agent: the hub's commands → Jira."
    )
    sub = cli.parser.add_subparsers(dest="command", required=True)
    cli.add(sub.add_parser("run", help="claim commands from the hub and execute them in Jira"), *OPTIONS, *RUN_OPTIONS)
    cli.add(sub.add_parser("check", help="try the hub and Jira once each and say what is wrong"), *OPTIONS)
    hook = sub.add_parser("webhook", help="print (or --register) the webhook's registration for the Jira admin")
    cli.add(hook, *JIRA_OPTIONS, *POLICY_OPTIONS, *WEBHOOK_OPTIONS)
    return cli


def _target(args: argparse.Namespace, name: str) -> Target:
    return Target(
        name=name,
        url=getattr(args, name),
        ca_bundle=getattr(args, f"{name}_ca_bundle"),
        client_cert=getattr(args, f"{name}_client_cert"),
        client_key=getattr(args, f"{name}_client_key"),
        proxy=getattr(args, f"{name}_proxy"),
    )


def _jira(args: argparse.Namespace) -> JiraHttp:
    clock = SystemClock()
    jira_target = _target(args, "jira")
    if args.jira_token:
        return JiraHttp.connect(jira_target, token=args.jira_token, clock=clock)
    return JiraHttp.connect(jira_target, user=args.jira_user, password=args.jira_password, clock=clock)


def _clients(args: argparse.Namespace) -> tuple[HubClient, JiraHttp]:
    return HubClient(_target(args, "hub"), args.hub_token), _jira(args)


async def _run(args: argparse.Namespace, policy: AgentPolicy) -> int:
    journal = Journal(args.journal)
    try:
        journal.path.parent.mkdir(parents=True, exist_ok=True)
        if not os.access(journal.path.parent, os.W_OK):
            raise PermissionError("not writable")
    except OSError as exc:
        error = f"cannot use the journal {journal.path} ({exc}): give --journal (SDLC_AGENT_JOURNAL) a writable path"
        log.critical("fatal", extra={"error": error})
        return 2
    try:
        with journal.lock():
            return await _run_locked(args, journal, policy)
    except JournalBusy as exc:
        log.critical("fatal", extra={"error": f"{exc}: a second agent process needs its own --journal"})
        return 2


async def _run_locked(args: argparse.Namespace, journal: Journal, policy: AgentPolicy) -> int:
    hub, jira = _clients(args)
    agent = Agent(
        hub=hub,
        jira=jira,
        journal=journal,
        clock=SystemClock(),
        agent_id=args.agent_id,
        version=agent_version(),
        claim_wait=args.claim_wait,
        policy=policy,
        executor_for=executor_for,
    )
    listening = None
    if args.webhook_listen:
        try:
            secret = read_secret(args.webhook_secret_file)
            sock = bind(args.webhook_listen)
        except (OSError, ValueError) as exc:
            error = f"cannot serve webhooks on {args.webhook_listen} with {args.webhook_secret_file}: {exc}"
            log.critical("fatal", extra={"error": error})
            await hub.aclose()
            await jira.aclose()
            return 2
        agent.listener = WebhookListener(
            hub=hub,
            secret=secret,
            policy=policy,
            clock=SystemClock(),
            stopping=agent.stopping,
            max_connections=args.webhook_max_connections,
        )
        listening = asyncio.create_task(agent.listener.serve(sock))
        log.info("webhook_listener", extra={"listen": args.webhook_listen, "path": "/jira/webhook"})
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, agent.request_stop)
    settings = {"journal": str(journal.path)}
    for target in (hub.target, jira.target):
        settings[target.name] = shown(target.base_url)
        for what in ("ca_bundle", "client_cert", "proxy"):
            if getattr(target, what):
                settings[f"{target.name}_{what}"] = shown(getattr(target, what))
    log.info("settings", extra=settings)
    log.info("policy", extra={"policy": policy.describe()})
    try:
        await agent.run()
    except AgentFatal as exc:
        log.critical("fatal", extra={"error": str(exc)})
        return 2
    finally:
        agent.stopping.set()
        if listening is not None:
            await _ended(listening)
        await hub.aclose()
        await jira.aclose()
    return 0


async def _ended(listening: asyncio.Task[None]) -> None:
    """The listener stops with the agent; its failure is logged, never the agent's."""
    try:
        await listening
    except Exception as exc:
        log.error("webhook_listener_failed", extra={"error": f"{type(exc).__name__}: {exc}"})


async def _check(args: argparse.Namespace, policy: AgentPolicy | None) -> int:
    """One line per target and one for the policy, ``ok`` or what is wrong; exit 0 when all are as ``run`` needs."""
    hub, jira = _clients(args)
    lines: list[str] = []
    try:
        try:
            await hub.check()
            lines.append(f"ok: hub at {shown(hub.target.base_url)} takes the agent's token")
        except HubError as exc:
            lines.append(getattr(exc, "explained", None) or str(exc))
        try:
            ctx = await jira.exec_context()
            lines.append(f"ok: jira at {shown(jira.target.base_url)} answers as {ctx.jira_user or 'an unnamed user'}")
            if policy is not None:
                lines += await jira_lines(jira, policy)
        except (JiraError, httpx.TransportError) as exc:
            lines.append(explain_jira(jira.target, exc))
    finally:
        await hub.aclose()
        await jira.aclose()
    lines.append(f"ok: policy: {policy.describe()}" if policy is not None else f"policy: {MISSING}")
    for line in lines:
        print(redacted(line))
    return 0 if all(line.startswith("ok: ") for line in lines) else 2


def _checked(cli: CommandLine, args: argparse.Namespace, policy: AgentPolicy | None) -> None:
    """What ``main`` refuses before starting anything (exit 2 with one line)."""
    if args.command in ("run", "webhook") and policy is None:
        cli.fail(MISSING)
    managing = args.command == "webhook" and [args.register, args.list, args.unregister].count(True)
    if managing and managing > 1:
        cli.fail("give one of --register, --list and --unregister")
    needs_jira = args.command != "webhook" or bool(managing)
    if needs_jira and not args.jira_token and not (args.jira_user and args.jira_password):
        cli.fail("give the Jira token (SDLC_AGENT_JIRA_TOKEN), or --jira-user with the password")
    if args.command == "run" and args.webhook_listen and not args.webhook_max_connections > 0:
        cli.fail(f"--webhook-max-connections {args.webhook_max_connections} must be a positive number")
    if args.command == "run" and args.webhook_listen and not args.webhook_secret_file:
        cli.fail(
            "--webhook-listen needs --webhook-secret-file (SDLC_AGENT_WEBHOOK_SECRET_FILE): unsigned events are refused"
        )
    try:
        for name in ("hub", "jira") if args.command != "webhook" else ("jira",):
            _target(args, name).check()
    except BadSetting as exc:
        cli.fail(str(exc))


async def _webhook(args: argparse.Namespace, policy: AgentPolicy) -> int:
    jira = _jira(args)
    try:
        return await webhook(args, policy, jira)
    finally:
        await jira.aclose()


def main(argv: Sequence[str] | None = None) -> int:
    cli = build_command_line()
    args = cli.parse(argv)
    policy = policy_of(args)
    _checked(cli, args, policy)
    configure_logging(args.log_level, fmt=args.log_format, secrets=args.secrets)
    given = sys.argv[1:] if argv is None else list(argv)
    for option in (o for o in OPTIONS if o.secret):
        if any(word == option.flag or word.startswith(f"{option.flag}=") for word in given):
            fix = f"every user of the machine can read it (ps): use {cli.env_name(option)}_FILE or the environment"
            log.warning("secret_on_command_line", extra={"flag": option.flag, "fix": fix})
    if args.command == "check":
        return asyncio.run(_check(args, policy))
    assert policy is not None
    if args.command == "webhook":
        return asyncio.run(_webhook(args, policy))
    args.journal = (args.journal or default_journal()).absolute()
    return asyncio.run(_run(args, policy))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
