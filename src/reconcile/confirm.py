"""Confirmation by state (seed 001 «Подтверждение по состоянию», change 000).

After any refresh, a command in ``claimed`` whose desired result is visible in the mirror becomes
``confirmed_by_state``. :func:`mirror_needs` says which mirror records the check reads; :func:`confirm`
decides. ``params`` are the command's params as delivered (temp keys substituted); a command that still
references a temp key is never confirmed.

- ``ensure_fields``: every given field equals the mirror's (strings by :func:`reconcile.text.same_text`:
  CRLF == LF, ``null`` == ""; the summary after trimming spaces at both ends, as Jira stores it and the agent
  compares it); ``labels_add`` all present, ``labels_remove`` all absent;
- ``ensure_status``: the status equals the last step of the path;
- ``ensure_sprint``: the sprint's name equals ``sprint``; ``backlog`` means no sprint;
- ``ensure_link``: the wanted link is there — ``source → target`` of the Jira type
  ``link_types[link_type]``, or ``target → source`` when that type is symmetric — and there is no conflict:
  no link of another type from ``link_types`` between the two issues in either direction, and no
  ``target → source`` link of the wanted type when it is not symmetric. Links are read from the source
  issue's mirror record, as the agent reads the source's ``issuelinks``;
- ``ensure_issue``: a mirror issue with the same ``summary`` after trimming spaces at both ends (Jira trims
  the summary it stores; the agent's duplicate search compares the same way), ``reporter`` = the agent's
  ``jira_user``, ``created`` not earlier than 7 days before ``now``; never while ``jira_user`` is unknown.
  When several match, the oldest (``created``, then key) wins, as in the agent. The confirmation carries
  its key;
- ``ensure_comment``, ``ensure_attachment``, ``refresh``: never (no comments or attachments in the mirror).

A command's desired state is a conjunction of **aspects** (:func:`aspects`): each field of an ``ensure_fields``
(each label of ``labels_add``/``labels_remove`` on its own), the status, the sprint, the link. Each aspect is
the command narrowed to it, checked by the same :func:`confirm`; the command holds exactly when all its aspects
do. Drift (:mod:`reconcile.drift`) checks them one by one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

import attrs

from reconcile.catalogue import CATALOGUE
from reconcile.records import MirrorIssue, MirrorLink
from reconcile.tempkeys import temp_refs
from reconcile.text import same_text

__all__ = [
    "ISSUE_LOOKBACK",
    "AgentFacts",
    "Aspect",
    "Confirmation",
    "MirrorNeeds",
    "aspect_names",
    "aspects",
    "confirm",
    "holds",
    "mirror_needs",
    "narrow",
    "subject",
]

#: How far back ``ensure_issue`` looks for an issue it created (the agent's ``created >= -7d``).
ISSUE_LOOKBACK = timedelta(days=7)

_FIELD_ORDER = tuple(param.name for param in CATALOGUE["ensure_fields"].params)

_TEXT_FIELDS = (
    "summary",
    "description",
    "priority",
    "duedate",
    "planned_start",
    "planned_end",
    "epic_key",
    "assignee",
)


@attrs.frozen(kw_only=True)
class AgentFacts:
    """What the agent told the hub on ``claim`` (``agent_status``)."""

    jira_user: str | None = None
    symmetric_link_types: frozenset[str] = frozenset()


@attrs.frozen(kw_only=True)
class Confirmation:
    """The command is ``confirmed_by_state``; ``key`` is the found issue's key for ``ensure_issue``."""

    key: str | None = None


@attrs.frozen(kw_only=True)
class MirrorNeeds:
    """Mirror records the confirmation of one command reads.

    ``keys``: the issues by key. ``summary``: for ``ensure_issue``, the issues with this summary, already
    trimmed (the mirror keeps Jira's trimmed summary; the storage may narrow them further by ``reporter``
    and ``created``).
    """

    keys: tuple[str, ...] = ()
    summary: str | None = None


@attrs.frozen(kw_only=True)
class Aspect:
    """One part of a command's desired state: ``name`` on the issue ``key`` (a link's source), and the command
    narrowed to it (``params``: :func:`holds`, or :func:`confirm`, of these checks this aspect alone).

    Names: the field (``duedate``, ``epic_key``, …), ``label:<label>``, ``status``, ``sprint``, ``link``.
    """

    key: str
    name: str
    params: Mapping[str, Any]


def subject(command_type: str, params: Mapping[str, Any]) -> str | None:
    """The issue whose mirror record shows the command's state: its ``key``, a link's ``source``."""
    key: str | None = params.get("source" if command_type == "ensure_link" else "key")  # validated: text
    return key


def aspect_names(command_type: str, params: Mapping[str, Any]) -> tuple[str, ...]:
    """The names of the command's aspects whose state the mirror shows, in the catalogue's parameter order.

    None for ``ensure_issue`` (its confirmation looks for the issue, not at it), for the types never confirmed,
    and for a command that still references a temp key. A label both added and removed counts once.
    """
    if command_type not in _MATCHES or subject(command_type, params) is None or temp_refs(command_type, params):
        return ()
    if command_type != "ensure_fields":
        return (command_type.removeprefix("ensure_"),)
    names: list[str] = []
    # The catalogue's order, not the stored params' (PostgreSQL's JSONB does not keep the order of keys); the
    # validation admits no other parameter, and the labels only as lists.
    for name in _FIELD_ORDER:
        if name not in params or name == "key":
            continue
        if name in ("labels_add", "labels_remove"):
            names.extend(f"label:{label}" for label in params[name])
        else:
            names.append(name)
    return tuple(dict.fromkeys(names))


def narrow(command_type: str, params: Mapping[str, Any], name: str) -> Aspect:
    """The command narrowed to its aspect ``name``; a label both added and removed is removed (the agent
    removes last)."""
    key = subject(command_type, params) or ""
    if command_type != "ensure_fields":
        return Aspect(key=key, name=name, params=params)
    if name.startswith("label:"):
        label = name.removeprefix("label:")
        verb = "labels_remove" if label in (params.get("labels_remove") or ()) else "labels_add"
        return Aspect(key=key, name=name, params={"key": key, verb: [label]})
    return Aspect(key=key, name=name, params={"key": key, name: params.get(name)})


def aspects(command_type: str, params: Mapping[str, Any]) -> tuple[Aspect, ...]:
    """The command as its aspects (:func:`aspect_names`), each narrowed to itself."""
    return tuple(narrow(command_type, params, name) for name in aspect_names(command_type, params))


def mirror_needs(command_type: str, params: Mapping[str, Any]) -> MirrorNeeds:
    """Which mirror records :func:`confirm` needs for this command (nothing for types never confirmed)."""
    if temp_refs(command_type, params):
        return MirrorNeeds()
    if command_type in ("ensure_fields", "ensure_status", "ensure_sprint"):
        return MirrorNeeds(keys=(params["key"],))  # required, and validated as text
    if command_type == "ensure_link":
        return MirrorNeeds(keys=(params["source"],))
    if command_type == "ensure_issue":
        return MirrorNeeds(summary=params["summary"].strip())
    return MirrorNeeds()


def confirm(
    command_type: str,
    params: Mapping[str, Any],
    *,
    mirror: Mapping[str, MirrorIssue],
    facts: AgentFacts,
    link_types: Mapping[str, str],
    now: datetime,
) -> Confirmation | None:
    """A :class:`Confirmation` when the command's desired result is visible in ``mirror``, else ``None``.

    ``mirror`` maps keys to mirror records and holds at least what :func:`mirror_needs` names (for
    ``ensure_issue``, the records are scanned by value).
    """
    if temp_refs(command_type, params):
        return None
    if command_type == "ensure_issue":
        key = _created_issue(params, mirror.values(), facts, now)
        return Confirmation(key=key) if key is not None else None
    match = _MATCHES.get(command_type)
    ok = match is not None and match(params, mirror, facts, link_types)
    return Confirmation() if ok else None


def holds(
    command_type: str,
    params: Mapping[str, Any],
    *,
    mirror: Mapping[str, MirrorIssue],
    facts: AgentFacts,
    link_types: Mapping[str, str],
) -> bool:
    """:func:`confirm` of a command that has aspects (:func:`aspect_names`), or of one of them (``params`` of
    :func:`narrow`), without looking for temp keys again: whether ``mirror`` shows its state."""
    return _MATCHES[command_type](params, mirror, facts, link_types)


def _issue(params: Mapping[str, Any], mirror: Mapping[str, MirrorIssue], name: str = "key") -> MirrorIssue | None:
    key = params.get(name)
    return mirror.get(key) if isinstance(key, str) else None


def _fields_match(params: Mapping[str, Any], mirror: Mapping[str, MirrorIssue], *_: Any) -> bool:
    issue = _issue(params, mirror)
    if issue is None:
        return False
    for name, wanted in params.items():
        if name == "key":
            continue
        if name in _TEXT_FIELDS:
            if wanted is not None and not isinstance(wanted, str):
                return False
            now: str | None = getattr(issue, name)
            text: str | None = wanted
            if name == "summary":  # Jira trims the summary it stores, and the agent compares it trimmed
                now, text = (now or "").strip(), (text or "").strip()
            if not same_text(now, text):
                return False
        elif name == "labels_add":
            if not all(label in issue.labels for label in wanted or ()):
                return False
        elif name == "labels_remove":
            if any(label in issue.labels for label in wanted or ()):
                return False
        else:
            return False  # a parameter we cannot see in the mirror: never confirm blindly
    return True


def _status_match(params: Mapping[str, Any], mirror: Mapping[str, MirrorIssue], *_: Any) -> bool:
    issue = _issue(params, mirror)
    target = params.get("target")
    path = [target] if isinstance(target, str) else list(target) if isinstance(target, list | tuple) else []
    return issue is not None and bool(path) and issue.status is not None and issue.status == path[-1]


def _sprint_match(params: Mapping[str, Any], mirror: Mapping[str, MirrorIssue], *_: Any) -> bool:
    issue = _issue(params, mirror)
    sprint = params.get("sprint")
    if issue is None or not isinstance(sprint, str):
        return False
    if sprint == "backlog":
        return issue.sprint is None
    return issue.sprint is not None and issue.sprint.name == sprint


def _link_match(
    params: Mapping[str, Any],
    mirror: Mapping[str, MirrorIssue],
    facts: AgentFacts,
    link_types: Mapping[str, str],
) -> bool:
    source, target = params.get("source"), params.get("target")
    logical = params.get("link_type")
    issue = _issue(params, mirror, "source")
    if issue is None or not isinstance(target, str) or not isinstance(logical, str):
        return False
    wanted_type = link_types.get(logical)
    if wanted_type is None:
        return False
    symmetric = wanted_type in facts.symmetric_link_types
    known_types = set(link_types.values())
    between = [link for link in issue.links if {link.source, link.target} == {source, target}]

    def forward(link: MirrorLink) -> bool:
        return link.source == source and link.target == target

    wanted = any(link.type == wanted_type and (forward(link) or symmetric) for link in between)
    conflict = any(
        (link.type in known_types and link.type != wanted_type)
        or (link.type == wanted_type and not forward(link) and not symmetric)
        for link in between
    )
    return wanted and not conflict


# What each type's desired state must look like in the mirror: ``(params, mirror, facts, link_types) -> bool``.
_MATCHES: dict[str, Callable[[Mapping[str, Any], Mapping[str, MirrorIssue], AgentFacts, Mapping[str, str]], bool]] = {
    "ensure_fields": _fields_match,
    "ensure_status": _status_match,
    "ensure_sprint": _sprint_match,
    "ensure_link": _link_match,
}


def _parse_time(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def _created_issue(
    params: Mapping[str, Any], candidates: Iterable[MirrorIssue], facts: AgentFacts, now: datetime
) -> str | None:
    summary = params.get("summary")
    if not facts.jira_user or not isinstance(summary, str):
        return None
    since = (now if now.tzinfo is not None else now.replace(tzinfo=UTC)) - ISSUE_LOOKBACK
    found: list[tuple[datetime, str]] = []
    for issue in candidates:
        created = _parse_time(issue.created)
        if (
            (issue.summary or "").strip() == summary.strip()
            and issue.reporter == facts.jira_user
            and created is not None
            and created >= since
        ):
            found.append((created, issue.key))
    return min(found)[1] if found else None
