"""The simulated Jira's records (users, projects, workflow, boards, issues and what hangs on them) and its error.

Mutable attrs classes: the store changes them in place and records every change in the issue's changelog.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

import attrs

__all__ = [
    "Attachment",
    "Board",
    "Change",
    "Comment",
    "History",
    "HistoryItem",
    "Issue",
    "JiraError",
    "Link",
    "LinkType",
    "Project",
    "Sprint",
    "Status",
    "Transition",
    "User",
    "Webhook",
    "parse_time",
]


class JiraError(Exception):
    """An answer Jira gives instead of doing the work: ``status`` with ``{"errorMessages", "errors"}``."""

    def __init__(self, status: int, messages: Iterable[str] = (), errors: Mapping[str, str] | None = None) -> None:
        self.status = status
        self.messages = list(messages)
        self.errors = dict(errors or {})
        super().__init__(f"{status}: {self.messages} {self.errors}")

    def body(self) -> dict[str, Any]:
        return {"errorMessages": self.messages, "errors": self.errors}


def parse_time(text: str) -> datetime:
    """An aware UTC datetime from ISO text (``Z``, ``+03:00`` and Jira's ``+0300`` accepted)."""
    value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if value.tzinfo is None:
        raise ValueError(f"time without zone: {text!r}")
    return value.astimezone(UTC)


@attrs.define(kw_only=True)
class User:
    name: str
    key: str
    display_name: str
    email: str
    time_zone: str
    active: bool = True


@attrs.define(kw_only=True)
class Project:
    id: str
    key: str
    name: str
    lead: str | None
    next_number: int


@attrs.define(kw_only=True)
class Status:
    id: str
    name: str
    category: str


@attrs.define(kw_only=True)
class Transition:
    id: str
    name: str
    sources: tuple[str, ...]  # status ids; empty = from any status
    to: str  # status id


@attrs.define(kw_only=True)
class LinkType:
    id: str
    name: str
    inward: str
    outward: str


@attrs.define(kw_only=True)
class Sprint:
    id: int
    name: str
    state: str
    board_id: int
    start: str | None = None
    end: str | None = None
    complete: str | None = None
    activated: str | None = None
    goal: str = ""
    sequence: int = 0


@attrs.define(kw_only=True)
class Board:
    id: int
    name: str
    type: str
    project: str | None
    sprint_ids: list[int]


@attrs.define(kw_only=True)
class HistoryItem:
    field: str
    fieldtype: str
    from_: str | None
    from_string: str | None
    to: str | None
    to_string: str | None


@attrs.define(kw_only=True)
class History:
    id: str
    author: str
    created: datetime
    items: list[HistoryItem]


@attrs.define(kw_only=True)
class Comment:
    id: str
    author: str
    body: str
    created: datetime
    updated: datetime
    update_author: str


@attrs.define(kw_only=True)
class Attachment:
    id: str
    filename: str
    size: int
    mime_type: str
    author: str
    created: datetime
    content: bytes


@attrs.define(kw_only=True)
class Link:
    id: str
    type_id: str
    inward: str  # issue key
    outward: str  # issue key


@attrs.define(kw_only=True)
class Issue:
    id: str
    key: str
    project: str
    issuetype_id: str
    summary: str
    description: str | None
    status_id: str
    priority_id: str | None
    labels: list[str]
    duedate: str | None
    assignee: str | None
    reporter: str | None
    creator: str | None
    created: datetime
    updated: datetime
    custom: dict[str, Any]  # plain custom fields (epic name, dates, …) by field id
    epic: str | None
    sprint_ids: list[int]
    comments: list[Comment] = attrs.Factory(list)
    attachments: list[Attachment] = attrs.Factory(list)
    histories: list[History] = attrs.Factory(list)
    resolution_date: datetime | None = None
    revision: int = 0  # the store version of its last change (0: as the seed has it), to keep what derives from it

    @property
    def number(self) -> int:
        return int(self.key.rsplit("-", 1)[1])


@attrs.frozen(kw_only=True)
class Change:
    """One change as Jira announces it to webhooks: ``event`` is the ``webhookEvent``.

    ``issue`` is the changed issue (still readable after its deletion), ``type_name`` the
    ``issue_event_type_name`` of the ``jira:issue_*`` events, ``items`` and ``history_id`` the changelog the
    change wrote, ``comment`` the comment it added or edited, ``link`` the link it created or deleted.
    """

    event: str
    issue: Issue
    user: str
    at: datetime
    type_name: str | None = None
    history_id: str | None = None
    items: tuple[HistoryItem, ...] = ()
    comment: Comment | None = None
    link: Link | None = None


@attrs.define(kw_only=True)
class Webhook:
    """A registered webhook: Jira posts the ``events`` of the issues matching ``jql`` (empty: all) to ``url``."""

    id: int
    name: str
    url: str
    events: tuple[str, ...]
    jql: str
    exclude_body: bool
    secret: str | None
    active: bool
    owner: str  # who registered it: the user its JQL runs as
    created: datetime
