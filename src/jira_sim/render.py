"""Jira Data Center's JSON shapes for the store's objects (REST v2 and agile 1.0)."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any
from urllib.parse import quote

from jira_sim.model import (
    Attachment,
    Board,
    Comment,
    History,
    HistoryItem,
    Issue,
    Link,
    LinkType,
    Sprint,
    Status,
    Transition,
    User,
)
from jira_sim.state import StoreState

__all__ = ["Renderer"]

_CATEGORY = {
    "undefined": ("1", "No Category", "medium-gray"),
    "new": ("2", "To Do", "blue-gray"),
    "done": ("3", "Done", "green"),
    "indeterminate": ("4", "In Progress", "yellow"),
}
ISSUE_EXPAND = "renderedFields,names,schema,operations,editmeta,changelog,versionedRepresentations"
NAVIGABLE_EXCLUDED = frozenset({"comment"})


class Renderer:
    """Renders store objects with ``self`` URLs under ``base`` (``http://host:port``)."""

    def __init__(self, store: StoreState, base: str) -> None:
        self.store = store
        self.base = base.rstrip("/")
        self.api = f"{self.base}/rest/api/2"
        self._selections: dict[tuple[tuple[str, ...], bool], list[str]] = {}

    def time(self, value: datetime) -> str:
        """Jira's form in the server's zone: ``2026-10-22T12:00:00.000+0300`` (no colon in the offset)."""
        text = value.astimezone(self.store.server_zone).isoformat(timespec="milliseconds")
        return text[:-3] + text[-2:]

    def user(self, name: str | None) -> dict[str, Any] | None:
        if name is None:
            return None
        found = self.store.user(name)
        user = found or User(name=name, key=name, display_name=name, email="", time_zone="Europe/Moscow", active=False)
        return {
            "self": f"{self.api}/user?username={quote(user.name)}",
            "name": user.name,
            "key": user.key,
            "emailAddress": user.email,
            "avatarUrls": {
                size: f"{self.base}/secure/useravatar?size={label}&avatarId=10122"
                for size, label in (("48x48", "large"), ("24x24", "small"), ("16x16", "xsmall"), ("32x32", "medium"))
            },
            "displayName": user.display_name,
            "active": user.active,
            "timeZone": user.time_zone,
        }

    def myself(self, name: str) -> dict[str, Any]:
        body = self.user(name) or {}
        body.update(
            {
                "self": f"{self.api}/user?username={quote(name)}",
                "deleted": False,
                "lastLoginTime": self.time(self.store.now()),
                "locale": "ru_RU",
                "groups": {"size": 1, "items": []},
                "applicationRoles": {"size": 1, "items": []},
                "expand": "groups,applicationRoles",
            }
        )
        return body

    def status_category(self, category: str) -> dict[str, Any]:
        cid, name, colour = _CATEGORY[category]
        return {
            "self": f"{self.api}/statuscategory/{cid}",
            "id": int(cid),
            "key": category,
            "colorName": colour,
            "name": name,
        }

    def status(self, status: Status) -> dict[str, Any]:
        return {
            "self": f"{self.api}/status/{status.id}",
            "description": "",
            "iconUrl": f"{self.base}/images/icons/statuses/generic.png",
            "name": status.name,
            "id": status.id,
            "statusCategory": self.status_category(status.category),
        }

    def priority(self, pid: str | None) -> dict[str, Any] | None:
        if pid is None:
            return None
        return {
            "self": f"{self.api}/priority/{pid}",
            "iconUrl": f"{self.base}/images/icons/priorities/medium.svg",
            "name": self.store.priorities[pid],
            "id": pid,
        }

    def issuetype(self, tid: str) -> dict[str, Any]:
        return {
            "self": f"{self.api}/issuetype/{tid}",
            "id": tid,
            "description": "",
            "iconUrl": f"{self.base}/secure/viewavatar?size=xsmall&avatarId=10318&avatarType=issuetype",
            "name": self.store.issue_types[tid],
            "subtask": False,
            "avatarId": 10318,
        }

    def project(self, key: str) -> dict[str, Any]:
        p = self.store.projects[key]
        return {
            "self": f"{self.api}/project/{p.id}",
            "id": p.id,
            "key": p.key,
            "name": p.name,
            "projectTypeKey": "software",
            "avatarUrls": {"48x48": f"{self.base}/secure/projectavatar?avatarId=10324"},
        }

    def link_type(self, t: LinkType) -> dict[str, Any]:
        return {
            "id": t.id,
            "name": t.name,
            "inward": t.inward,
            "outward": t.outward,
            "self": f"{self.api}/issueLinkType/{t.id}",
        }

    def sprint_string(self, sprint: Sprint) -> str:
        """The old ``Sprint@hash[...]`` form Jira DC puts in the sprint custom field of REST v2."""
        digest = hashlib.sha1(f"sprint-{sprint.id}".encode()).hexdigest()[:8]

        def v(value: object) -> str:
            return "<null>" if value is None else str(value)

        parts = [
            f"id={sprint.id}",
            f"rapidViewId={sprint.board_id}",
            f"state={sprint.state.upper()}",
            f"name={sprint.name}",
            f"startDate={v(sprint.start)}",
            f"endDate={v(sprint.end)}",
            f"completeDate={v(sprint.complete)}",
            f"activatedDate={v(sprint.activated)}",
            f"sequence={sprint.sequence}",
            f"goal={v(sprint.goal)}",
            "autoStartStop=false",
            "synced=false",
            "incompleteIssuesDestinationId=<null>",
        ]
        return f"com.atlassian.greenhopper.service.sprint.Sprint@{digest}[{','.join(parts)}]"

    def sprint(self, sprint: Sprint) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": sprint.id,
            "self": f"{self.base}/rest/agile/1.0/sprint/{sprint.id}",
            "state": sprint.state,
            "name": sprint.name,
        }
        for key, value in (
            ("startDate", sprint.start),
            ("endDate", sprint.end),
            ("completeDate", sprint.complete),
            ("activatedDate", sprint.activated),
        ):
            if value is not None:
                out[key] = value
        out["originBoardId"] = sprint.board_id
        out["goal"] = sprint.goal or ""
        out["autoStartStop"] = False
        out["synced"] = False
        return out

    def board(self, board: Board) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": board.id,
            "self": f"{self.base}/rest/agile/1.0/board/{board.id}",
            "name": board.name,
            "type": board.type,
        }
        if board.project in self.store.projects:
            p = self.store.projects[board.project]
            out["location"] = {
                "projectId": int(p.id),
                "displayName": f"{p.name} ({p.key})",
                "projectName": p.name,
                "projectKey": p.key,
                "projectTypeKey": "software",
                "avatarURI": "/secure/projectavatar?size=small&avatarId=10324",
                "name": f"{p.name} ({p.key})",
            }
        return out

    def transition(self, t: Transition) -> dict[str, Any]:
        return {
            "id": t.id,
            "name": t.name,
            "to": self.status(self.store.statuses[t.to]),
            "hasScreen": False,
            "isGlobal": not t.sources,
            "isInitial": False,
            "isAvailable": True,
            "isConditional": False,
            "isLooped": False,
        }

    def comment(self, issue: Issue, c: Comment) -> dict[str, Any]:
        return {
            "self": f"{self.api}/issue/{issue.id}/comment/{c.id}",
            "id": c.id,
            "author": self.user(c.author),
            "body": c.body,
            "updateAuthor": self.user(c.update_author),
            "created": self.time(c.created),
            "updated": self.time(c.updated),
        }

    def comments(self, issue: Issue, start: int, limit: int | None) -> dict[str, Any]:
        chosen = issue.comments[start:] if limit is None else issue.comments[start : start + limit]
        return {
            "comments": [self.comment(issue, c) for c in chosen],
            "maxResults": len(chosen) if limit is None else limit,
            "total": len(issue.comments),
            "startAt": start,
        }

    def attachment(self, a: Attachment) -> dict[str, Any]:
        return {
            "self": f"{self.api}/attachment/{a.id}",
            "id": a.id,
            "filename": a.filename,
            "author": self.user(a.author),
            "created": self.time(a.created),
            "size": a.size,
            "mimeType": a.mime_type,
            "content": f"{self.base}/secure/attachment/{a.id}/{quote(a.filename)}",
        }

    def history(self, h: History) -> dict[str, Any]:
        author, created = self.user(h.author), self.time(h.created)
        return {"id": h.id, "author": author, "created": created, "items": self.items(h.items)}

    @staticmethod
    def items(items: Iterable[HistoryItem]) -> list[dict[str, Any]]:
        """Changelog items: ``{field, fieldtype, from, fromString, to, toString}``."""
        return [
            {
                "field": i.field,
                "fieldtype": i.fieldtype,
                "from": i.from_,
                "fromString": i.from_string,
                "to": i.to,
                "toString": i.to_string,
            }
            for i in items
        ]

    def link_for(self, link: Link, seen_from: str) -> dict[str, Any]:
        t = self.store.link_types[link.type_id]
        out: dict[str, Any] = {"id": link.id, "self": f"{self.api}/issueLink/{link.id}", "type": self.link_type(t)}
        if link.inward == seen_from:
            out["outwardIssue"] = self.linked_issue(self.store.issues[link.outward])
        else:
            out["inwardIssue"] = self.linked_issue(self.store.issues[link.inward])
        return out

    def link(self, link: Link) -> dict[str, Any]:
        t = self.store.link_types[link.type_id]
        return {
            "id": link.id,
            "self": f"{self.api}/issueLink/{link.id}",
            "type": self.link_type(t),
            "inwardIssue": self.linked_issue(self.store.issues[link.inward]),
            "outwardIssue": self.linked_issue(self.store.issues[link.outward]),
        }

    def linked_issue(self, issue: Issue) -> dict[str, Any]:
        return {
            "id": issue.id,
            "key": issue.key,
            "self": f"{self.api}/issue/{issue.id}",
            "fields": {
                "summary": issue.summary,
                "status": self.status(self.store.statuses[issue.status_id]),
                "priority": self.priority(issue.priority_id),
                "issuetype": self.issuetype(issue.issuetype_id),
            },
        }

    @functools.cached_property
    def _fields(self) -> dict[str, Callable[[Issue], Any]]:
        """How each field of an issue renders, in Jira's order; only the fields an answer asks for are rendered."""
        store = self.store
        fields: dict[str, Callable[[Issue], Any]] = {
            "summary": lambda i: i.summary,
            "description": lambda i: i.description,
            "issuetype": lambda i: self.issuetype(i.issuetype_id),
            "project": lambda i: self.project(i.project),
            "status": lambda i: self.status(store.statuses[i.status_id]),
            "priority": lambda i: self.priority(i.priority_id),
            "labels": lambda i: list(i.labels),
            "duedate": lambda i: i.duedate,
            "assignee": lambda i: self.user(i.assignee),
            "reporter": lambda i: self.user(i.reporter),
            "creator": lambda i: self.user(i.creator),
            "created": lambda i: self.time(i.created),
            "updated": lambda i: self.time(i.updated),
            "resolution": self._resolution,
            "resolutiondate": lambda i: None if i.resolution_date is None else self.time(i.resolution_date),
            "issuelinks": lambda i: [self.link_for(link, i.key) for link in store.links_of(i.key)],
            "attachment": lambda i: [self.attachment(a) for a in i.attachments],
            "subtasks": lambda i: [],
            "comment": lambda i: self.comments(i, 0, None),
        }
        for fid, spec in store.fields.items():
            fields[fid] = self._custom_field(fid, spec["kind"])
        return fields

    def _custom_field(self, fid: str, kind: str) -> Callable[[Issue], Any]:
        if kind == "sprint":
            return lambda i: [self.sprint_string(self.store.sprints[s]) for s in i.sprint_ids] or None
        if kind == "epic_link":
            return lambda i: i.epic
        return lambda i: i.custom.get(fid)

    def _resolution(self, issue: Issue) -> dict[str, Any] | None:
        if issue.resolution_date is None:
            return None
        return {"self": f"{self.api}/resolution/10000", "id": "10000", "description": "", "name": "Готово"}

    def all_fields(self, issue: Issue) -> dict[str, Any]:
        return {name: render(issue) for name, render in self._fields.items()}

    def issue(
        self,
        issue: Issue,
        wanted: Iterable[str] | None = None,
        *,
        changelog: bool = False,
        navigable_default: bool = False,
    ) -> dict[str, Any]:
        fields = self._fields
        asked = (tuple(wanted or ()), navigable_default)
        names = self._selections.get(asked)
        if names is None:  # the same for every issue of a search page: chosen once
            names = self._selections[asked] = _select(list(fields), asked[0], navigable_default=navigable_default)
        out: dict[str, Any] = {
            "expand": ISSUE_EXPAND,
            "id": issue.id,
            "self": f"{self.api}/issue/{issue.id}",
            "key": issue.key,
            "fields": {name: fields[name](issue) for name in names},
        }
        if changelog:
            histories = [self.history(h) for h in issue.histories]
            out["changelog"] = {
                "startAt": 0,
                "maxResults": len(histories),
                "total": len(histories),
                "histories": histories,
            }
        return out


def _select(everything: list[str], wanted: Iterable[str] | None, *, navigable_default: bool) -> list[str]:
    """Field names chosen by Jira's ``fields`` parameter (``*all``, ``*navigable``, names, ``-name``)."""
    requested = [w.strip() for w in (wanted or []) if w.strip()]
    if not requested:
        requested = ["*navigable"] if navigable_default else ["*all"]
    chosen: list[str] = []
    excluded = {w[1:] for w in requested if w.startswith("-")}
    for w in requested:
        if w == "*all":
            chosen.extend(everything)
        elif w == "*navigable":
            chosen.extend(k for k in everything if k not in NAVIGABLE_EXCLUDED)
        elif not w.startswith("-") and w in everything:
            chosen.append(w)
    return [k for k in dict.fromkeys(chosen) if k not in excluded]
