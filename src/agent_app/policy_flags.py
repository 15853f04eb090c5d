"""The bank's policy as the agent's settings (DESIGN.md 5.5): flags, ``SDLC_AGENT_*`` variables, the TOML table
``[policy]`` — never the hub. Flag, variable, ``[policy]`` key:

- ``--allow-project KEY`` (repeatable; ``run`` needs one), ``SDLC_AGENT_ALLOW_PROJECTS=AURORA,OPS``,
  ``allow_projects = ["AURORA"]``;
- ``--allow-type TYPE`` (repeatable; default all eight), ``SDLC_AGENT_ALLOW_TYPES=refresh,ensure_comment``,
  ``allow_types``;
- ``--read-only`` (only ``refresh``), ``SDLC_AGENT_READ_ONLY=1``, ``read_only = true``;
- ``--min-gap TYPE=SECONDS`` or ``*=SECONDS`` (repeatable), ``SDLC_AGENT_MIN_GAP=ensure_issue=120,*=30``,
  ``min_gap = {ensure_issue = 120}``;
- ``--max-writes-per-hour N`` (0: no limit), ``SDLC_AGENT_MAX_WRITES_PER_HOUR=N``, ``max_writes_per_hour = N``;
- ``--hide-jira-url`` (the hub is not told Jira's address, so the page links to no issue in Jira),
  ``SDLC_AGENT_HIDE_JIRA_URL=1``, ``hide_jira_url = true``;
- ``--field ROLE=ID`` (repeatable; ROLE one of ``sprint``, ``planned_start``, ``planned_end``, ``epic_link``,
  ``epic_name``), ``SDLC_AGENT_FIELDS=planned_start=customfield_11200,sprint=customfield_10104``, the table
  ``[policy.fields]``: the field ids the bank pins; a hub mapping that differs is refused (DESIGN.md 5.7).

A value the agent cannot use is one line naming it and exit code 2 (:mod:`adapters.cli_config`).
"""

from __future__ import annotations

import argparse
import math
import re

from adapters.cli_config import BadValue, Option
from reconcile.guard import ANY_TYPE, ROLES, AgentPolicy, is_field_id
from reconcile.vocabulary import CATALOGUE

__all__ = ["MISSING", "POLICY_OPTIONS", "policy_of"]

#: A Jira project key as Jira makes them: a capital letter, then capitals, digits or ``_``.
_PROJECT_KEY = re.compile(r"[A-Z][A-Z0-9_]*")

#: What ``run`` says when no project is allowed.
MISSING = (
    "give --allow-project KEY (or SDLC_AGENT_ALLOW_PROJECTS, or allow_projects in the [policy] table of the "
    "config file): the Jira projects the agent may read and write"
)


def project_key(text: str) -> str:
    key = text.strip()
    if _PROJECT_KEY.fullmatch(key) is None:
        raise BadValue("a Jira project key is a capital letter, then capitals, digits or _ (AURORA)")
    return key


def command_type(text: str) -> str:
    name = text.strip()
    if name not in CATALOGUE:
        raise BadValue(f"a command type is one of {', '.join(CATALOGUE)}")
    return name


def min_gap(text: str) -> tuple[str, float]:
    name, equals, seconds = text.partition("=")
    name = name.strip()
    if not equals or (name != ANY_TYPE and name not in CATALOGUE):
        raise BadValue(f"write TYPE=SECONDS, TYPE one of {', '.join(CATALOGUE)} or {ANY_TYPE} for every type")
    try:
        value = float(seconds)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0:
        raise BadValue("the seconds are a number, 0 or more")
    return name, value


def writes_per_hour(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise BadValue("a whole number, 0 or more (0: no limit)")
    return value


def field_pin(text: str) -> tuple[str, str]:
    role, equals, field_id = text.partition("=")
    role, field_id = role.strip(), field_id.strip()
    if not equals or role not in ROLES:
        raise BadValue(f"write ROLE=FIELD_ID, ROLE one of {', '.join(ROLES)}")
    if not is_field_id(field_id):
        raise BadValue("the field id is customfield_<n> (customfield_11200)")
    return role, field_id


POLICY_OPTIONS = [
    Option(
        "allow-project",
        metavar="KEY",
        type=project_key,
        repeat=True,
        env="SDLC_AGENT_ALLOW_PROJECTS",
        key="policy.allow_projects",
        help="a Jira project the agent may read and write (repeat for more; run needs one)",
    ),
    Option(
        "allow-type",
        metavar="TYPE",
        type=command_type,
        repeat=True,
        env="SDLC_AGENT_ALLOW_TYPES",
        key="policy.allow_types",
        help="a command type the agent may run (repeat for more; default: all)",
    ),
    Option(
        "read-only",
        type=bool,
        env="SDLC_AGENT_READ_ONLY",
        key="policy.read_only",
        help="run refresh only: never write to Jira",
    ),
    Option(
        "min-gap",
        metavar="TYPE=SECONDS",
        type=min_gap,
        repeat=True,
        env="SDLC_AGENT_MIN_GAP",
        key="policy.min_gap",
        help="TYPE=SECONDS: the least wait before a command of TYPE and between its writes, whatever the hub "
        "asks (*=SECONDS: every type; repeat for more)",
    ),
    Option(
        "max-writes-per-hour",
        metavar="N",
        type=writes_per_hour,
        default=0,
        env="SDLC_AGENT_MAX_WRITES_PER_HOUR",
        key="policy.max_writes_per_hour",
        help="the most Jira writes in any hour; past it the agent waits (0: no limit)",
    ),
    Option(
        "hide-jira-url",
        type=bool,
        env="SDLC_AGENT_HIDE_JIRA_URL",
        key="policy.hide_jira_url",
        help="do not tell the hub Jira's address (serverInfo's baseUrl): the page then links to no issue in Jira",
    ),
    Option(
        "field",
        metavar="ROLE=FIELD_ID",
        type=field_pin,
        repeat=True,
        env="SDLC_AGENT_FIELDS",
        key="policy.fields",
        help=f"ROLE=FIELD_ID: the field the bank pins for a role ({', '.join(ROLES)}); a hub mapping that "
        "differs is refused (repeat for more)",
    ),
]


def policy_of(args: argparse.Namespace) -> AgentPolicy | None:
    """The policy the settings give; ``None`` without an allowed project."""
    if not args.allow_project:
        return None
    return AgentPolicy(
        allow_projects=tuple(dict.fromkeys(args.allow_project)),
        allow_types=tuple(dict.fromkeys(args.allow_type)) or tuple(CATALOGUE),
        read_only=bool(args.read_only),
        min_gap=dict(args.min_gap),
        max_writes_per_hour=int(args.max_writes_per_hour or 0),
        hide_jira_url=bool(args.hide_jira_url),
        fields=dict(args.field or ()),
    )
