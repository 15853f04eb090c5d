"""Loading a seed (the format of ``docs/jira-sim.md``) into the simulator's state, and the built-in sample."""

from __future__ import annotations

import json
from collections.abc import Mapping
from importlib import resources
from typing import Any
from zoneinfo import ZoneInfo

from jira_sim.model import (
    Attachment,
    Board,
    Comment,
    History,
    HistoryItem,
    Issue,
    Link,
    LinkType,
    Project,
    Sprint,
    Status,
    Transition,
    User,
    parse_time,
)
from jira_sim.state import StoreState

__all__ = ["fill", "load_sample"]

_ID_KINDS = {"issue": 20000, "history": 30000, "comment": 40000, "attachment": 50000, "link": 60000, "webhook": 1}


def load_sample() -> dict[str, Any]:
    """The built-in sample seed (``sample_seed.json`` shipped in the package)."""
    text = resources.files("jira_sim").joinpath("sample_seed.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def fill(state: StoreState, seed: Mapping[str, Any]) -> None:
    """Replace everything ``state`` holds with the content of ``seed``; ``ValueError`` names a bad entry."""
    state.server_zone = ZoneInfo(seed.get("server_time_zone", "Europe/Moscow"))
    state.myself = seed["myself"]
    state.users = {u["name"]: _user(u) for u in seed.get("users", [])}
    if state.myself not in state.users:
        raise ValueError(f"seed: myself {state.myself!r} is not among users")
    state.projects = {
        p["key"]: Project(
            id=str(p["id"]),
            key=p["key"],
            name=p.get("name", p["key"]),
            lead=p.get("lead"),
            next_number=int(p.get("next_number", 1)),
        )
        for p in seed.get("projects", [])
    }
    state.issue_types = {str(t["id"]): t["name"] for t in seed.get("issue_types", [])}
    state.priorities = {str(p["id"]): p["name"] for p in seed.get("priorities", [])}
    state.default_priority = state.priority_id(seed.get("default_priority")) if state.priorities else None
    state.fields = {f["id"]: dict(f) for f in seed.get("fields", [])}
    kinds = {f["kind"]: f["id"] for f in seed.get("fields", [])}
    state.sprint_field = kinds.get("sprint")
    state.epic_link_field = kinds.get("epic_link")
    state.epic_name_field = kinds.get("epic_name")
    state.statuses = {
        str(s["id"]): Status(id=str(s["id"]), name=s["name"], category=s["category"]) for s in seed.get("statuses", [])
    }
    state.transitions = [
        Transition(
            id=str(t["id"]),
            name=t["name"],
            sources=tuple(state.status_id(s) for s in t.get("from", [])),
            to=state.status_id(t["to"]),
        )
        for t in seed.get("transitions", [])
    ]
    state.link_types = {
        str(t["id"]): LinkType(id=str(t["id"]), name=t["name"], inward=t["inward"], outward=t["outward"])
        for t in seed.get("link_types", [])
    }
    _fill_boards(state, seed.get("boards", []))
    state.next_ids = {kind: int(seed.get(f"next_{kind}_id", first)) for kind, first in _ID_KINDS.items()}
    state.clear()
    state.webhooks = {}  # registered over REST, not seeded
    state.listening = False
    for raw in seed.get("issues", []):
        state.add_issue_record(_issue(state, raw))
    for raw in seed.get("links", []):
        link_type = state.link_type_named(raw["type"])
        link = Link(id=state.new_id("link"), type_id=link_type.id, inward=raw["inward"], outward=raw["outward"])
        for key in (link.inward, link.outward):
            if key not in state.issues:
                raise ValueError(f"seed: link names unknown issue {key}")
        state.add_link_record(link)
    highest: dict[str, int] = {}
    for issue in state.issues.values():
        highest[issue.project] = max(highest.get(issue.project, 0), issue.number)
    for project in state.projects.values():
        project.next_number = max(project.next_number, highest.get(project.key, 0) + 1)


def _user(u: Mapping[str, Any]) -> User:
    return User(
        name=u["name"],
        key=u.get("key", u["name"]),
        display_name=u.get("displayName", u["name"]),
        email=u.get("emailAddress", f"{u['name']}@example.com"),
        time_zone=u.get("timeZone", "Europe/Moscow"),
        active=u.get("active", True),
    )


def _fill_boards(state: StoreState, boards: list[Mapping[str, Any]]) -> None:
    state.sprints = {}
    state.boards = {}
    for b in boards:
        board = Board(id=int(b["id"]), name=b["name"], type=b["type"], project=b.get("project"), sprint_ids=[])
        state.boards[board.id] = board
        for s in b.get("sprints", []):
            sprint = Sprint(
                id=int(s["id"]),
                name=s["name"],
                state=s["state"],
                board_id=board.id,
                start=s.get("startDate"),
                end=s.get("endDate"),
                complete=s.get("completeDate"),
                activated=s.get("activatedDate", s.get("startDate")),
                goal=s.get("goal") or "",
                sequence=int(s.get("sequence", s["id"])),
            )
            state.sprints[sprint.id] = sprint
            board.sprint_ids.append(sprint.id)


def _issue(state: StoreState, raw: Mapping[str, Any]) -> Issue:
    key = raw["key"]
    project = key.rsplit("-", 1)[0]
    if project not in state.projects:
        raise ValueError(f"seed: {key} is in unknown project {project}")
    created = parse_time(raw["created"])
    issue = Issue(
        id=str(raw.get("id") or state.new_id("issue")),
        key=key,
        project=project,
        issuetype_id=state.issuetype_id(raw.get("issuetype", next(iter(state.issue_types.values())))),
        summary=raw["summary"],
        description=raw.get("description"),
        status_id=state.status_id(raw.get("status", next(iter(state.statuses.values())).name)),
        priority_id=state.priority_id(raw.get("priority")) or state.default_priority,
        labels=list(raw.get("labels", [])),
        duedate=raw.get("duedate"),
        assignee=raw.get("assignee"),
        reporter=raw.get("reporter"),
        creator=raw.get("creator", raw.get("reporter")),
        created=created,
        updated=created,
        custom=dict(raw.get("fields", {})),
        epic=raw.get("epic"),
        sprint_ids=[int(s) for s in raw.get("sprints", [])],
    )
    for c in raw.get("comments", []):
        issue.comments.append(
            Comment(
                id=state.new_id("comment"),
                author=c["author"],
                body=c["body"],
                created=parse_time(c["created"]),
                updated=parse_time(c.get("updated", c["created"])),
                update_author=c.get("updateAuthor", c["author"]),
            )
        )
    for a in raw.get("attachments", []):
        content = a["content"].encode() if "content" in a else b"\0" * int(a["size"])
        issue.attachments.append(
            Attachment(
                id=state.new_id("attachment"),
                filename=a["filename"],
                size=len(content),
                mime_type=a.get("mimeType", "application/octet-stream"),
                author=a.get("author", issue.reporter or state.myself),
                created=parse_time(a.get("created", raw["created"])),
                content=content,
            )
        )
    for h in raw.get("changelog", []):
        issue.histories.append(
            History(
                id=state.new_id("history"),
                author=h["author"],
                created=parse_time(h["created"]),
                items=[
                    HistoryItem(
                        field=i["field"],
                        fieldtype=i.get("fieldtype", "jira"),
                        from_=i.get("from"),
                        from_string=i.get("fromString"),
                        to=i.get("to"),
                        to_string=i.get("toString"),
                    )
                    for i in h["items"]
                ],
            )
        )
    stamps = [created] + [h.created for h in issue.histories] + [c.updated for c in issue.comments]
    stamps += [a.created for a in issue.attachments]
    issue.updated = parse_time(raw["updated"]) if "updated" in raw else max(stamps)
    if state.statuses[issue.status_id].category == "done":
        issue.resolution_date = issue.updated
    return issue
