"""``sdlc-agent webhook`` and the listener's flags of ``sdlc-agent run`` (DESIGN.md 6.2).

``webhook`` prints the registration of the agent's webhook (:mod:`reconcile.jira.webhook_registration`) for the Jira
admin: both forms (Jira ≤ 9 and Jira 10) unless ``--jira-major`` names one, with the secret of
``--webhook-secret-file`` in it (the admin enters it in Jira; the operator already holds the file). The other
modes ask Jira's ``serverInfo`` for the version (unless ``--jira-major``) and act as the agent's Jira user, which
needs Jira's administrator permission (a refusal is one line naming the fix):

- ``--register`` reads Jira's webhooks and updates the one of ``--webhook-url`` (secret, events, filter) instead
  of adding a second, deletes any further one of that URL, and creates one only when there is none;
- ``--list`` prints one line per webhook, its id first, marking the agent's;
- ``--unregister`` deletes every webhook of ``--webhook-url``.

Every line names the webhook's id.
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
from reconcile.executors import JiraCall
from reconcile.guard import AgentPolicy
from reconcile.jira import (
    Listed,
    Registration,
    Step,
    listed,
    registration,
    registration_steps,
    unregistration_steps,
    webhook_secret,
    webhooks_path,
)

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
    Option("register", type=bool, help="register (or update) the webhook as the agent's Jira user (a Jira admin)"),
    Option("list", type=bool, help="list Jira's webhooks, the agent's marked"),
    Option("unregister", type=bool, help="delete every webhook of --webhook-url"),
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


class _Refused(Exception):
    """Jira refused (or could not take) a call: the one line to print."""


async def _call(jira: JiraHttp, method: str, path: str, body: object = None) -> object:
    """One call of the webhook management; anything but a success is :class:`_Refused` with the fix."""
    where = f"jira at {shown(jira.target.base_url)}"
    call = JiraCall(method=method, path=path, json=body)
    try:
        answer = (await jira.send(call)).answer
    except (httpx.TransportError, JiraError) as exc:
        raise _Refused(explain_jira(jira.target, exc)) from exc
    if answer.ok:
        return answer.json
    error = JiraError.answered(call, answer)
    if answer.status in (401, 403):
        fix = "the agent's Jira user must be a Jira administrator; give the body of `sdlc-agent webhook` to one"
    else:
        fix = "Jira's words say what to change in --allow-project (the filter) or --webhook-url"
    raise _Refused(f"{where} refused the webhook registration: {method} {path}: {error}: {fix}")


async def _jira_major(args: argparse.Namespace, jira: JiraHttp) -> int:
    if args.jira_major is not None:
        return int(args.jira_major)
    where = f"jira at {shown(jira.target.base_url)}"
    try:
        info = (await jira.send(JiraCall(method="GET", path="/rest/api/2/serverInfo"))).answer
    except (httpx.TransportError, JiraError) as exc:
        raise _Refused(explain_jira(jira.target, exc)) from exc
    major = _major(info.json) if info.ok else None
    if major is None:
        raise _Refused(f"{where}: serverInfo has no version (HTTP {info.status}): give --jira-major")
    return major


def _line(webhook: Listed, url: str) -> str:
    mine = "  ← this agent" if webhook.url == url else ""
    return f"webhook {webhook.id}: {webhook.name!r} → {webhook.url}{mine}"


def _made_id(answer: object) -> str:
    """The id of a webhook Jira created: Jira 10's ``id``, or the end of Jira ≤ 9's ``self``."""
    made = listed([answer]) if isinstance(answer, Mapping) else []
    return str(made[0].id) if made else "?"


async def _manage(args: argparse.Namespace, policy: AgentPolicy, jira: JiraHttp) -> list[str]:
    """The lines of ``--list``, ``--unregister`` or ``--register`` (:class:`_Refused` on Jira's refusal)."""
    where = f"jira at {shown(jira.target.base_url)}"
    major = await _jira_major(args, jira)
    path = webhooks_path(major)
    present = listed(await _call(jira, "GET", path))
    if args.list:
        return [_line(w, args.webhook_url) for w in present] or [f"no webhook at {where}"]
    if args.unregister:
        steps = unregistration_steps(path, args.webhook_url, present)
        if not steps:
            return [f"ok: no webhook of {args.webhook_url} at {where}: nothing to remove"]
    else:
        steps = registration_steps(_registration(args, policy, major), present)
    return [await _carry_out(jira, step, args.webhook_name, where) for step in steps]


async def _carry_out(jira: JiraHttp, step: Step, name: str, where: str) -> str:
    answer = await _call(jira, step.method, step.path, step.body)
    if step.action == "create":
        return f"ok: webhook {_made_id(answer)} {name!r} registered at {where}"
    if step.action == "update":
        return f"ok: webhook {step.webhook_id} {name!r} updated at {where} (secret, events and filter as now given)"
    return f"ok: webhook {step.webhook_id} removed at {where}"


async def webhook(args: argparse.Namespace, policy: AgentPolicy, jira: JiraHttp) -> int:
    """Print the registration, or with ``--register``/``--list``/``--unregister`` act on Jira's webhooks; 0 when
    done, 2 with one line when not."""
    if not (args.register or args.list or args.unregister):
        majors = [args.jira_major] if args.jira_major is not None else [9, 10]
        for major in majors:
            if len(majors) > 1:
                print(f"# Jira {'10 and later' if major >= 10 else '9 and earlier'}")
            print(_shown(_registration(args, policy, major)))
        return 0
    try:
        lines = await _manage(args, policy, jira)
    except _Refused as refused:
        print(refused)
        return 2
    for line in lines:
        print(line)
    return 0
