"""``sdlc-agent run``: the agent inside the bank's network (DESIGN.md 5.4, 10)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import socket
import sys
from importlib import metadata
from pathlib import Path

import httpx

from adapters.clock import SystemClock
from adapters.hub_client import HubClient
from adapters.jira_http import JiraAuthError, JiraError, JiraHttp
from adapters.logs import configure_logging
from agent_app.journal import Journal, JournalBusy
from agent_app.loop import Agent, AgentFatal
from reconcile.plans import executor_for

__all__ = ["agent_version", "build_parser", "main"]

log = logging.getLogger(__name__)

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")


def agent_version() -> str:
    try:
        return metadata.version("sdlc-hub")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a bare checkout
        return "0+unknown"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sdlc-agent", description="The sdlc-hub agent: hub commands → Jira.")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="claim commands from the hub and execute them in Jira")
    run.add_argument("--hub", required=True, help="the hub's base URL")
    run.add_argument(
        "--hub-token",
        default=os.environ.get("SDLC_AGENT_HUB_TOKEN"),
        help="an agent-role token of the hub (or SDLC_AGENT_HUB_TOKEN, kept out of the process list)",
    )
    run.add_argument("--jira", required=True, help="Jira's base URL")
    run.add_argument(
        "--jira-token",
        default=os.environ.get("SDLC_AGENT_JIRA_TOKEN"),
        help="a Jira personal access token, Bearer (or SDLC_AGENT_JIRA_TOKEN)",
    )
    run.add_argument("--jira-user", help="a Jira user for basic auth (with --jira-password)")
    run.add_argument(
        "--jira-password",
        default=os.environ.get("SDLC_AGENT_JIRA_PASSWORD"),
        help="the Jira user's password (or SDLC_AGENT_JIRA_PASSWORD)",
    )
    run.add_argument(
        "--journal",
        default=".sdlc-agent/journal.json",
        help="the local journal file (default: .sdlc-agent/journal.json)",
    )
    run.add_argument(
        "--agent-id",
        default=socket.gethostname(),
        help="this agent's id (default: the host name; keep it stable across restarts)",
    )
    run.add_argument(
        "--claim-wait",
        type=float,
        default=25.0,
        help="long-poll seconds asked of the hub (it caps them at claim_wait_seconds)",
    )
    run.add_argument(
        "--log-level",
        type=str.upper,
        choices=LOG_LEVELS,
        default=os.environ.get("SDLC_AGENT_LOG_LEVEL", "INFO").upper(),
        help="the lowest level logged (or SDLC_AGENT_LOG_LEVEL; default INFO)",
    )
    run.add_argument(
        "--log-format",
        choices=("auto", "json", "text"),
        default=os.environ.get("SDLC_AGENT_LOG_FORMAT", "auto"),
        help="JSON lines, readable text, or auto: text on a terminal, JSON otherwise (or SDLC_AGENT_LOG_FORMAT)",
    )
    return parser


async def _run(args: argparse.Namespace) -> int:
    journal = Journal(Path(args.journal))
    try:
        with journal.lock():
            return await _run_locked(args, journal)
    except JournalBusy as exc:
        log.critical("fatal", extra={"error": f"{exc}: a second agent process needs its own --journal"})
        return 2


async def _run_locked(args: argparse.Namespace, journal: Journal) -> int:
    clock = SystemClock()
    if args.jira_token:
        jira = JiraHttp.connect(args.jira, token=args.jira_token, clock=clock)
    else:
        jira = JiraHttp.connect(args.jira, user=args.jira_user, password=args.jira_password, clock=clock)
    hub = HubClient(args.hub, args.hub_token)
    agent = Agent(
        hub=hub,
        jira=jira,
        journal=journal,
        clock=clock,
        agent_id=args.agent_id,
        version=agent_version(),
        claim_wait=args.claim_wait,
        executor_for=executor_for,
        jira_unreachable=(httpx.TransportError, JiraError),
        jira_refused=(JiraAuthError,),
    )
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, agent.request_stop)
    try:
        await agent.run()
    except AgentFatal as exc:
        log.critical("fatal", extra={"error": str(exc)})
        return 2
    finally:
        await hub.aclose()
        await jira.aclose()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.hub_token:
        parser.error("give --hub-token (or SDLC_AGENT_HUB_TOKEN)")
    if not args.jira_token and not (args.jira_user and args.jira_password):
        parser.error("give --jira-token, or --jira-user with --jira-password")
    configure_logging(
        args.log_level,
        fmt=args.log_format,
        secrets=(args.hub_token, args.jira_token or "", args.jira_password or ""),
    )
    return asyncio.run(_run(args))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
