"""Jira Data Center's JSON shapes for the store's objects (REST v2 and agile 1.0)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from datetime import datetime
from typing import Any
from urllib.parse import quote

from jira_sim.model import (
    Attachment,
    Board,
    Comment,
    History,
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

    # --- small pieces -------------------------------------------------------------------------------------

    def time(self, value: datetime) -> str:
        local = value.astimezone(self.store.server_zone)
        return local.strftime("%Y-%m-%dT%H:%M:%S.") + f"{local.microsecond // 1000:03d}" + local.strftime("%z")

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
        return {
            "id": h.id,
            "author": self.user(h.author),
            "created": self.time(h.created),
            "items": [
                {
                    "field": i.field,
                    "fieldtype": i.fieldtype,
                    "from": i.from_,
                    "fromString": i.from_string,
                    "to": i.to,
                    "toString": i.to_string,
                }
                for i in h.items
            ],
        }

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

    # --- issues -------------------------------------------------------------------------------------------

    def all_fields(self, issue: Issue) -> dict[str, Any]:
        store = self.store
        status = store.statuses[issue.status_id]
        fields: dict[str, Any] = {
            "summary": issue.summary,
            "description": issue.description,
            "issuetype": self.issuetype(issue.issuetype_id),
            "project": self.project(issue.project),
            "status": self.status(status),
            "priority": self.priority(issue.priority_id),
            "labels": list(issue.labels),
            "duedate": issue.duedate,
            "assignee": self.user(issue.assignee),
            "reporter": self.user(issue.reporter),
            "creator": self.user(issue.creator),
            "created": self.time(issue.created),
            "updated": self.time(issue.updated),
            "resolution": None,
            "resolutiondate": None,
            "issuelinks": [self.link_for(link, issue.key) for link in store.links_of(issue.key)],
            "attachment": [self.attachment(a) for a in issue.attachments],
            "subtasks": [],
            "comment": self.comments(issue, 0, None),
        }
        if issue.resolution_date is not None:
            fields["resolution"] = {
                "self": f"{self.api}/resolution/10000",
                "id": "10000",
                "description": "",
                "name": "Готово",
            }
            fields["resolutiondate"] = self.time(issue.resolution_date)
        for fid, spec in store.fields.items():
            kind = spec["kind"]
            if kind == "sprint":
                fields[fid] = [self.sprint_string(store.sprints[s]) for s in issue.sprint_ids] or None
            elif kind == "epic_link":
                fields[fid] = issue.epic
            else:
                fields[fid] = issue.custom.get(fid)
        return fields

    def issue(
        self,
        issue: Issue,
        wanted: Iterable[str] | None = None,
        *,
        changelog: bool = False,
        navigable_default: bool = False,
    ) -> dict[str, Any]:
        everything = self.all_fields(issue)
        names = _select(everything, wanted, navigable_default=navigable_default)
        out: dict[str, Any] = {
            "expand": ISSUE_EXPAND,
            "id": issue.id,
            "self": f"{self.api}/issue/{issue.id}",
            "key": issue.key,
            "fields": {k: everything[k] for k in names},
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


def _select(everything: dict[str, Any], wanted: Iterable[str] | None, *, navigable_default: bool) -> list[str]:
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
