"""The state every part of the simulated Jira shares: the vocabulary, the issues and links with their indexes,
id counters, the clock, and the changelog every change writes.

The operations live in mixins named for what they change (:mod:`jira_sim.edits`, :mod:`jira_sim.links`, …);
:class:`jira_sim.store.Store` combines them and :mod:`jira_sim.seed` fills the state from a seed.

Every change of an issue goes through :meth:`StoreState.touch` (directly or through :meth:`StoreState.record`),
which bumps :attr:`StoreState.version`: search results are kept per version. While a webhook is registered
(:attr:`StoreState.listening`), every operation also notes what it did as a :class:`jira_sim.model.Change` in
:attr:`StoreState.changes`, which the ASGI app hands to the webhook dispatcher after the request.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from jira_sim.model import (
    Attachment,
    Board,
    Change,
    Comment,
    History,
    HistoryItem,
    Issue,
    JiraError,
    Link,
    LinkType,
    Project,
    Sprint,
    Status,
    Transition,
    User,
    Webhook,
)

__all__ = ["Clock", "StoreState"]

Clock = Callable[[], datetime]

_NO_ISSUE = "Issue Does Not Exist"
_EPIC_TYPE_NAMES = ("Эпик", "Epic")


class StoreState:
    """The whole simulated instance's data. Mutating operations take ``user`` (the authenticated name)."""

    seed: dict[str, Any]
    clock: Clock
    server_zone: ZoneInfo
    myself: str
    users: dict[str, User]
    projects: dict[str, Project]
    issue_types: dict[str, str]  # id → name
    priorities: dict[str, str]  # id → name, in rank order
    default_priority: str | None
    fields: dict[str, dict[str, Any]]  # custom field id → its seed entry
    sprint_field: str | None
    epic_link_field: str | None
    epic_name_field: str | None
    statuses: dict[str, Status]
    transitions: list[Transition]
    link_types: dict[str, LinkType]
    sprints: dict[int, Sprint]
    boards: dict[int, Board]
    issues: dict[str, Issue]  # by key
    links: dict[str, Link]  # by id
    next_ids: dict[str, int]  # kind → the next id of that kind
    version: int = 0
    webhooks: dict[int, Webhook]  # by id
    listening: bool = False  # an active webhook is registered: operations note their changes
    changes: list[Change]

    _issues_by_id: dict[str, Issue]
    _links_by_key: dict[str, dict[str, Link]]
    _attachments: dict[str, Attachment]

    def clear(self) -> None:
        """Forget every issue, link and attachment (the vocabulary stays); a new version."""
        self.issues = {}
        self.links = {}
        self._issues_by_id = {}
        self._links_by_key = {}
        self._attachments = {}
        self.changes = []
        self.version += 1

    def new_id(self, kind: str) -> str:
        value = self.next_ids[kind]
        self.next_ids[kind] = value + 1
        return str(value)

    def now(self) -> datetime:
        value = self.clock()
        if value.tzinfo is None:
            raise ValueError("the simulator clock must return aware datetimes")
        return value.astimezone(UTC)

    def status_id(self, name_or_id: str) -> str:
        for s in self.statuses.values():
            if name_or_id in (s.id, s.name):
                return s.id
        raise ValueError(f"unknown status {name_or_id!r}")

    def issuetype_id(self, name_or_id: str) -> str:
        for tid, name in self.issue_types.items():
            if name_or_id in (tid, name):
                return tid
        raise ValueError(f"unknown issue type {name_or_id!r}")

    def priority_id(self, name_or_id: str | None) -> str | None:
        if name_or_id is None:
            return None
        for pid, name in self.priorities.items():
            if name_or_id in (pid, name):
                return pid
        raise ValueError(f"unknown priority {name_or_id!r}")

    def link_type_named(self, name: str) -> LinkType:
        for t in self.link_types.values():
            if t.name == name:
                return t
        raise ValueError(f"unknown link type {name!r}")

    def epic_type_name(self) -> str | None:
        return next((name for name in _EPIC_TYPE_NAMES if name in self.issue_types.values()), None)

    def initial_status(self) -> str:
        return next(iter(self.statuses))

    def project(self, id_or_key: str) -> Project:
        found = self.projects.get(id_or_key.upper()) or next(
            (p for p in self.projects.values() if p.id == id_or_key), None
        )
        if found is None:
            raise JiraError(404, [f"No project could be found with key '{id_or_key}'."])
        return found

    def user(self, name: str | None) -> User | None:
        return None if name is None else self.users.get(name)

    def find_user(self, name: str) -> User | None:
        low = name.lower()
        return next((u for u in self.users.values() if u.name.lower() == low), None)

    def issue(self, key_or_id: str) -> Issue:
        found = self.issues.get(key_or_id.upper()) or self._issues_by_id.get(key_or_id)
        if found is None:
            raise JiraError(404, [_NO_ISSUE])
        return found

    def links_of(self, key: str) -> list[Link]:
        return list(self._links_by_key.get(key, {}).values())

    def attachment(self, attachment_id: str) -> Attachment:
        found = self._attachments.get(attachment_id)
        if found is None:
            raise JiraError(404, [f"The attachment with id '{attachment_id}' does not exist"])
        return found

    def add_issue_record(self, issue: Issue) -> None:
        self.issues[issue.key] = issue
        self._issues_by_id[issue.id] = issue
        for attachment in issue.attachments:
            self._attachments[attachment.id] = attachment
        self.version += 1

    def add_link_record(self, link: Link) -> None:
        self.links[link.id] = link
        for key in (link.inward, link.outward):
            self._links_by_key.setdefault(key, {})[link.id] = link
        self.version += 1

    def remove_link_record(self, link: Link) -> None:
        del self.links[link.id]
        for key in (link.inward, link.outward):
            self._links_by_key.get(key, {}).pop(link.id, None)
        self.version += 1

    def remove_issue_record(self, issue: Issue) -> None:
        """Forget the issue with its links and attachments (no changelog: the issue is gone)."""
        for link in self.links_of(issue.key):
            self.remove_link_record(link)
        for attachment in issue.attachments:
            self._attachments.pop(attachment.id, None)
        del self.issues[issue.key]
        del self._issues_by_id[issue.id]
        self._links_by_key.pop(issue.key, None)
        self.version += 1

    def add_attachment_record(self, issue: Issue, attachment: Attachment) -> None:
        issue.attachments.append(attachment)
        self._attachments[attachment.id] = attachment
        self.version += 1

    def remove_attachment_record(self, issue: Issue, attachment: Attachment) -> None:
        issue.attachments.remove(attachment)
        del self._attachments[attachment.id]
        self.version += 1

    def touch(self, issue: Issue, at: datetime) -> None:
        """The issue changed at ``at``: its ``updated`` moves, the store has a new version and the issue notes it.

        Versions only grow, across resets too, so a revision names one state of one issue for good.
        """
        issue.updated = at
        self.version += 1
        issue.revision = self.version

    def record(self, issue: Issue, user: str, items: list[HistoryItem], at: datetime | None = None) -> None:
        """One history of ``items`` by ``user`` (none when ``items`` is empty), and the issue is touched."""
        at = at or self.now()
        if items:
            issue.histories.append(History(id=self.new_id("history"), author=user, created=at, items=items))
        self.touch(issue, at)

    def sprint_item(self, before: list[int], after: list[int]) -> HistoryItem:
        def names(ids: list[int]) -> str | None:
            return ", ".join(self.sprints[i].name for i in ids) or None

        def id_text(ids: list[int]) -> str | None:
            return ", ".join(str(i) for i in ids) or None

        return HistoryItem(
            field="Sprint",
            fieldtype="custom",
            from_=id_text(before),
            from_string=names(before),
            to=id_text(after),
            to_string=names(after),
        )

    def sprints_after_move(self, issue: Issue, target: int | list[int]) -> list[int]:
        """Sprint ids after moving the issue to ``target`` (``[]`` = backlog): closed sprints stay."""
        kept = [s for s in issue.sprint_ids if self.sprints[s].state == "closed"]
        if isinstance(target, list):
            return kept
        return [*kept, target] if target not in kept else kept

    def emit(self, change: Change) -> None:
        if self.listening:
            self.changes.append(change)

    def emit_update(
        self,
        issue: Issue,
        user: str,
        type_name: str,
        since: int,
        comments: list[Comment] | None = None,
        *,
        edited: bool = False,
    ) -> None:
        """``jira:issue_updated`` for the histories the issue gained after the first ``since`` and its comments.

        Jira announces one event per operation: the changelog of all its histories (the first one's id), the
        comment it added (``issue_commented`` when nothing else changed, ``issue_comment_edited`` for an
        ``edited`` one), and then ``comment_created``/``comment_updated`` for each comment. Nothing changed,
        nothing announced.
        """
        if not self.listening:
            return
        histories = issue.histories[since:]
        comments = comments or []
        if not histories and not comments:
            return
        items = tuple(item for h in histories for item in h.items)
        if not histories:
            type_name = "issue_comment_edited" if edited else "issue_commented"
        elif type_name == "issue_updated" and all(item.field == "assignee" for item in items):
            type_name = "issue_assigned"
        self.emit(
            Change(
                event="jira:issue_updated",
                issue=issue,
                user=user,
                at=issue.updated,
                type_name=type_name,
                history_id=histories[0].id if histories else None,
                items=items,
                comment=comments[-1] if comments else None,
            )
        )
        event = "comment_updated" if edited else "comment_created"
        for comment in comments:
            self.emit(Change(event=event, issue=issue, user=user, at=comment.updated, comment=comment))
