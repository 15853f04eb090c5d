"""Each command type's desired state, checked against the mirror (seed 001 «Подтверждение по состоянию», change
000); :mod:`reconcile.outlook.confirm` applies them, :mod:`reconcile.types.binding` names each type's.

A type's check is one of three kinds:

- :class:`LooksAt`: the record of the command's subject issue shows the state (``ensure_fields``,
  ``ensure_status``, ``ensure_sprint``, ``ensure_link``);
- :class:`LooksFor`: an issue found by value shows it (``ensure_issue``: its own issue, created lately);
- :class:`NotConfirmed`: the mirror cannot show it, and the type says why.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

import attrs

from reconcile.vocabulary.records import MirrorIssue, MirrorLink
from reconcile.vocabulary.text import same_text

__all__ = [
    "ISSUE_LOOKBACK",
    "AgentFacts",
    "LooksAt",
    "LooksFor",
    "Match",
    "NotConfirmed",
    "created_issue",
    "fields_match",
    "link_match",
    "sprint_match",
    "status_match",
]

#: How far back ``ensure_issue`` looks for an issue it created (the agent's ``created >= -7d``).
ISSUE_LOOKBACK = timedelta(days=7)

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


#: ``(params, mirror, facts, link_types) -> bool``: whether the mirror shows the command's desired state.
Match = Callable[[Mapping[str, Any], Mapping[str, MirrorIssue], AgentFacts, Mapping[str, str]], bool]


@attrs.frozen(kw_only=True)
class LooksAt:
    """Confirmed when ``match`` holds on the mirror record of the command's subject (its catalogue ``subject``)."""

    match: Match


@attrs.frozen(kw_only=True)
class LooksFor:
    """Confirmed when ``find`` finds, among mirror records with the command's ``summary``, the issue it made:
    ``(params, candidates, facts, now) -> key or None``."""

    find: Callable[[Mapping[str, Any], Iterable[MirrorIssue], AgentFacts, datetime], str | None]


@attrs.frozen(kw_only=True)
class NotConfirmed:
    """Never confirmed by state; ``why`` says what the mirror lacks."""

    why: str


def _issue(params: Mapping[str, Any], mirror: Mapping[str, MirrorIssue], name: str = "key") -> MirrorIssue | None:
    key = params.get(name)
    return mirror.get(key) if isinstance(key, str) else None


def fields_match(params: Mapping[str, Any], mirror: Mapping[str, MirrorIssue], *_: Any) -> bool:
    """Every given field equals the mirror's (strings by :func:`reconcile.vocabulary.text.same_text`, the summary
    trimmed); ``labels_add`` all present, ``labels_remove`` all absent."""
    issue = _issue(params, mirror)
    if issue is None:
        return False
    for name, wanted in params.items():
        if name in ("key", "if_unchanged"):  # only-if-unchanged names a condition, not a state
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


def status_match(params: Mapping[str, Any], mirror: Mapping[str, MirrorIssue], *_: Any) -> bool:
    """The status equals the last step of the path."""
    issue = _issue(params, mirror)
    target = params.get("target")
    path = [target] if isinstance(target, str) else list(target) if isinstance(target, list | tuple) else []
    return issue is not None and bool(path) and issue.status is not None and issue.status == path[-1]


def sprint_match(params: Mapping[str, Any], mirror: Mapping[str, MirrorIssue], *_: Any) -> bool:
    """The sprint's name equals ``sprint``; ``backlog`` (or ``null``) means no sprint."""
    issue = _issue(params, mirror)
    sprint = params.get("sprint", "")
    if issue is None or not isinstance(sprint, str | None):
        return False
    if sprint in ("backlog", None):
        return issue.sprint is None
    return issue.sprint is not None and issue.sprint.name == sprint


def link_match(
    params: Mapping[str, Any],
    mirror: Mapping[str, MirrorIssue],
    facts: AgentFacts,
    link_types: Mapping[str, str],
) -> bool:
    """The wanted link is on the source's record and no link conflicts with it (see
    :mod:`reconcile.outlook.confirm`)."""
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
    if params.get("present") is False:  # a removal: the link is gone (a conflicting one is not its business)
        return not wanted
    conflict = any(
        (link.type in known_types and link.type != wanted_type)
        or (link.type == wanted_type and not forward(link) and not symmetric)
        for link in between
    )
    return wanted and not conflict


def _parse_time(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def created_issue(
    params: Mapping[str, Any], candidates: Iterable[MirrorIssue], facts: AgentFacts, now: datetime
) -> str | None:
    """The key of the oldest candidate with the trimmed ``summary``, reported by the agent's ``jira_user``, created
    within :data:`ISSUE_LOOKBACK` of ``now``; ``None`` while ``jira_user`` is unknown."""
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
