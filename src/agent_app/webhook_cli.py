"""``sdlc-agent webhook`` and the listener's flags of ``sdlc-agent run`` (DESIGN.md 6.2).

``webhook`` prints the registration of the agent's webhook (:mod:`reconcile.webhook_registration`) for the Jira
admin: both forms (Jira ≤ 9 and Jira 10) unless ``--jira-major`` names one, with the secret of
``--webhook-secret-file`` in it (the admin enters it in Jira; the operator already holds the file). With
``--register`` it asks Jira's ``serverInfo`` for the version (unless ``--jira-major``) and makes the call as the
agent's Jira user: that needs Jira's administrator permission, and Jira's refusal is one line naming the fix.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping

import httpx

from adapters.cli_config import Option
from adapters.jira_http import JiraError, JiraHttp, explain_jira
from adapters.targets import shown
from agent_app.webhook_server import MAX_CONNECTIONS
from reconcile.executors.base import JiraCall
from reconcile.policy import AgentPolicy
from reconcile.webhook_events import webhook_secret
from reconcile.webhook_registration import Registration, registration

__all__ = ["LISTEN_OPTIONS", "WEBHOOK_OPTIONS", "read_secret", "webhook"]

_SECRET_FILE = Option(
    "webhook-secret-file",
    help="a file holding the webhook's secret (its trailing newline is not part of it)",
)

LISTEN_OPTIONS = [
    Option(
        "webhook-listen",
        metavar="HOST:PORT",
        help="serve POST /jira/webhook here for Jira's webhooks (needs --webhook-secret-file)",
    ),
    _SECRET_FILE,
    Option(
        "webhook-max-connections",
        type=int,
        default=MAX_CONNECTIONS,
        help="the most connections the listener holds at once (more wait, unaccepted, in the kernel's backlog)",
    ),
]

WEBHOOK_OPTIONS = [
    Option("webhook-url", required=True, help="the URL Jira posts to: the listener's, ending in /jira/webhook"),
    _SECRET_FILE,
    Option("webhook-name", default="sdlc-agent", help="the webhook's name in Jira"),
    Option("jira-major", type=int, help="Jira's major version (default: read from serverInfo with --register)"),
    Option("register", type=bool, help="make the registration call as the agent's Jira user (a Jira admin)"),
]


def read_secret(path: str) -> bytes:
    """The secret of ``--webhook-secret-file`` (``OSError`` when the file cannot be read)."""
    with open(path, encoding="utf-8") as file:  # noqa: PTH123 — a path given by the operator
        return webhook_secret(file.read())


def _registration(args: argparse.Namespace, policy: AgentPolicy, major: int) -> Registration:
    secret = read_secret(args.webhook_secret_file).decode() if args.webhook_secret_file else None
    return registration(
        name=args.webhook_name,
        url=args.webhook_url,
        projects=sorted(policy.allow_projects),
        secret=secret,
        jira_major=major,
    )


def _shown(found: Registration) -> str:
    return f"POST {found.path}\n{json.dumps(found.body, ensure_ascii=False, indent=2)}"


def _major(info: object) -> int | None:
    numbers = info.get("versionNumbers") if isinstance(info, Mapping) else None
    first = numbers[0] if isinstance(numbers, list) and numbers else None
    return first if isinstance(first, int) and not isinstance(first, bool) else None


async def webhook(args: argparse.Namespace, policy: AgentPolicy, jira: JiraHttp) -> int:
    """Print the registration, or with ``--register`` make it; 0 when done, 2 with one line when not."""
    if not args.register:
        majors = [args.jira_major] if args.jira_major is not None else [9, 10]
        for major in majors:
            if len(majors) > 1:
                print(f"# Jira {'10 and later' if major >= 10 else '9 and earlier'}")
            print(_shown(_registration(args, policy, major)))
        return 0
    where = f"jira at {shown(jira.target.base_url)}"
    try:
        major = args.jira_major
        if major is None:
            info = (await jira.send(JiraCall(method="GET", path="/rest/api/2/serverInfo"))).answer
            major = _major(info.json) if info.ok else None
            if major is None:
                print(f"{where}: serverInfo has no version (HTTP {info.status}): give --jira-major")
                return 2
        found = _registration(args, policy, major)
        answer = (await jira.send(JiraCall(method="POST", path=found.path, json=found.body))).answer
    except (httpx.TransportError, JiraError) as exc:
        print(explain_jira(jira.target, exc))
        return 2
    if not answer.ok:
        error = JiraError.answered(JiraCall(method="POST", path=found.path), answer)
        if answer.status in (401, 403):
            fix = "the agent's Jira user must be a Jira administrator; give the body of `sdlc-agent webhook` to one"
        else:
            fix = "Jira's words say what to change in --allow-project (the filter) or --webhook-url"
        print(f"{where} refused the webhook registration: POST {found.path}: {error}: {fix}")
        return 2
    made = answer.json if isinstance(answer.json, Mapping) else {}
    print(f"ok: webhook {args.webhook_name!r} registered at {where}: {made.get('self') or made.get('id')}")
    return 0
