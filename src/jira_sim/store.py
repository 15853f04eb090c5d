"""The simulator's in-memory Jira: the seed, the issues and every change to them.

Plain Python, no HTTP: the ASGI layer (:mod:`jira_sim.app`) parses requests, calls these methods with the
authenticated user's name, and renders the result with :mod:`jira_sim.render`. A refused operation raises
:class:`JiraError` carrying Jira's status code and error body.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, date, datetime
from importlib import resources
from typing import Any
from zoneinfo import ZoneInfo

import attrs

from jira_sim import jql

__all__ = ["JiraError", "Store", "load_sample", "parse_time"]

Clock = Callable[[], datetime]


class JiraError(Exception):
    """An answer Jira gives instead of doing the work: ``status`` with ``{"errorMessages", "errors"}``."""

    def __init__(self, status: int, messages: Iterable[str] = (), errors: Mapping[str, str] | None = None) -> None:
        self.status = status
        self.messages = list(messages)
        self.errors = dict(errors or {})
        super().__init__(f"{status}: {self.messages} {self.errors}")

    def body(self) -> dict[str, Any]:
        return {"errorMessages": self.messages, "errors": self.errors}


def load_sample() -> dict[str, Any]:
    """The built-in sample seed (``sample_seed.json`` shipped in the package)."""
    text = resources.files("jira_sim").joinpath("sample_seed.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


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

    @property
    def number(self) -> int:
        return int(self.key.rsplit("-", 1)[1])


_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_NOT_SETTABLE = "Field '{0}' cannot be set. It is not on the appropriate screen, or unknown."
_NO_ISSUE = "Issue Does Not Exist"


class Store:
    """The whole simulated instance. Mutating methods take ``user`` (the authenticated name)."""

    def __init__(self, seed: Mapping[str, Any], clock: Clock) -> None:
        self.seed = copy.deepcopy(dict(seed))
        self.clock = clock
        self.server_zone = ZoneInfo(self.seed.get("server_time_zone", "Europe/Moscow"))
        self._load()

    # --- loading ------------------------------------------------------------------------------------------

    def _load(self) -> None:
        seed = self.seed
        self.myself: str = seed["myself"]
        self.users = {
            u["name"]: User(
                name=u["name"],
                key=u.get("key", u["name"]),
                display_name=u.get("displayName", u["name"]),
                email=u.get("emailAddress", f"{u['name']}@example.com"),
                time_zone=u.get("timeZone", "Europe/Moscow"),
                active=u.get("active", True),
            )
            for u in seed.get("users", [])
        }
        if self.myself not in self.users:
            raise ValueError(f"seed: myself {self.myself!r} is not among users")
        self.projects = {
            p["key"]: Project(
                id=str(p["id"]),
                key=p["key"],
                name=p.get("name", p["key"]),
                lead=p.get("lead"),
                next_number=int(p.get("next_number", 1)),
            )
            for p in seed.get("projects", [])
        }
        self.issue_types = {str(t["id"]): t["name"] for t in seed.get("issue_types", [])}
        self.priorities = {str(p["id"]): p["name"] for p in seed.get("priorities", [])}
        self.default_priority = self._priority_id(seed.get("default_priority")) if self.priorities else None
        self.fields = {f["id"]: dict(f) for f in seed.get("fields", [])}
        kinds = {f["kind"]: f["id"] for f in seed.get("fields", [])}
        self.sprint_field: str | None = kinds.get("sprint")
        self.epic_link_field: str | None = kinds.get("epic_link")
        self.epic_name_field: str | None = kinds.get("epic_name")
        self.statuses = {
            str(s["id"]): Status(id=str(s["id"]), name=s["name"], category=s["category"])
            for s in seed.get("statuses", [])
        }
        self.transitions = [
            Transition(
                id=str(t["id"]),
                name=t["name"],
                sources=tuple(self._status_id(s) for s in t.get("from", [])),
                to=self._status_id(t["to"]),
            )
            for t in seed.get("transitions", [])
        ]
        self.link_types = {
            str(t["id"]): LinkType(id=str(t["id"]), name=t["name"], inward=t["inward"], outward=t["outward"])
            for t in seed.get("link_types", [])
        }
        self.sprints: dict[int, Sprint] = {}
        self.boards: dict[int, Board] = {}
        for b in seed.get("boards", []):
            board = Board(id=int(b["id"]), name=b["name"], type=b["type"], project=b.get("project"), sprint_ids=[])
            self.boards[board.id] = board
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
                self.sprints[sprint.id] = sprint
                board.sprint_ids.append(sprint.id)
        self.issues: dict[str, Issue] = {}
        self.links: dict[str, Link] = {}
        self._next_issue_id = int(seed.get("next_issue_id", 20000))
        self._next_history_id = int(seed.get("next_history_id", 30000))
        self._next_comment_id = int(seed.get("next_comment_id", 40000))
        self._next_attachment_id = int(seed.get("next_attachment_id", 50000))
        self._next_link_id = int(seed.get("next_link_id", 60000))
        for raw in seed.get("issues", []):
            self._load_issue(raw)
        for raw in seed.get("links", []):
            link_type = self._link_type(raw["type"])
            link = Link(id=self._new_id("link"), type_id=link_type.id, inward=raw["inward"], outward=raw["outward"])
            for key in (link.inward, link.outward):
                if key not in self.issues:
                    raise ValueError(f"seed: link names unknown issue {key}")
            self.links[link.id] = link
        for project in self.projects.values():
            numbers = [i.number for i in self.issues.values() if i.project == project.key]
            project.next_number = max([project.next_number, *(n + 1 for n in numbers)])

    def _load_issue(self, raw: Mapping[str, Any]) -> None:
        key = raw["key"]
        project = key.rsplit("-", 1)[0]
        if project not in self.projects:
            raise ValueError(f"seed: {key} is in unknown project {project}")
        created = parse_time(raw["created"])
        issue = Issue(
            id=str(raw.get("id") or self._new_id("issue")),
            key=key,
            project=project,
            issuetype_id=self._issuetype_id(raw.get("issuetype", next(iter(self.issue_types.values())))),
            summary=raw["summary"],
            description=raw.get("description"),
            status_id=self._status_id(raw.get("status", next(iter(self.statuses.values())).name)),
            priority_id=self._priority_id(raw.get("priority")) or self.default_priority,
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
            at = parse_time(c["created"])
            issue.comments.append(
                Comment(
                    id=self._new_id("comment"),
                    author=c["author"],
                    body=c["body"],
                    created=at,
                    updated=parse_time(c.get("updated", c["created"])),
                    update_author=c.get("updateAuthor", c["author"]),
                )
            )
        for a in raw.get("attachments", []):
            content = a["content"].encode() if "content" in a else b"\0" * int(a["size"])
            issue.attachments.append(
                Attachment(
                    id=self._new_id("attachment"),
                    filename=a["filename"],
                    size=len(content),
                    mime_type=a.get("mimeType", "application/octet-stream"),
                    author=a.get("author", issue.reporter or self.myself),
                    created=parse_time(a.get("created", raw["created"])),
                    content=content,
                )
            )
        for h in raw.get("changelog", []):
            issue.histories.append(
                History(
                    id=self._new_id("history"),
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
        if self.statuses[issue.status_id].category == "done":
            issue.resolution_date = issue.updated
        self.issues[key] = issue

    def _new_id(self, kind: str) -> str:
        attr = f"_next_{kind}_id"
        value: int = getattr(self, attr)
        setattr(self, attr, value + 1)
        return str(value)

    # --- vocabulary lookups -------------------------------------------------------------------------------

    def _status_id(self, name_or_id: str) -> str:
        for s in self.statuses.values():
            if name_or_id in (s.id, s.name):
                return s.id
        raise ValueError(f"unknown status {name_or_id!r}")

    def _issuetype_id(self, name_or_id: str) -> str:
        for tid, name in self.issue_types.items():
            if name_or_id in (tid, name):
                return tid
        raise ValueError(f"unknown issue type {name_or_id!r}")

    def _priority_id(self, name_or_id: str | None) -> str | None:
        if name_or_id is None:
            return None
        for pid, name in self.priorities.items():
            if name_or_id in (pid, name):
                return pid
        raise ValueError(f"unknown priority {name_or_id!r}")

    def _link_type(self, name: str) -> LinkType:
        for t in self.link_types.values():
            if t.name == name:
                return t
        raise ValueError(f"unknown link type {name!r}")

    def user(self, name: str | None) -> User | None:
        return None if name is None else self.users.get(name)

    def find_user(self, name: str) -> User | None:
        low = name.lower()
        return next((u for u in self.users.values() if u.name.lower() == low), None)

    def issue(self, key_or_id: str) -> Issue:
        found = self.issues.get(key_or_id.upper())
        if found is None:
            found = next((i for i in self.issues.values() if i.id == key_or_id), None)
        if found is None:
            raise JiraError(404, [_NO_ISSUE])
        return found

    def now(self) -> datetime:
        value = self.clock()
        if value.tzinfo is None:
            raise ValueError("the simulator clock must return aware datetimes")
        return value.astimezone(UTC)

    # --- changelog ----------------------------------------------------------------------------------------

    def _record(self, issue: Issue, user: str, items: list[HistoryItem], at: datetime | None = None) -> None:
        at = at or self.now()
        if items:
            issue.histories.append(History(id=self._new_id("history"), author=user, created=at, items=items))
        issue.updated = at

    def _sprint_item(self, before: list[int], after: list[int]) -> HistoryItem:
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

    # --- issue create and edit ----------------------------------------------------------------------------

    def create_issue(self, body: Mapping[str, Any], user: str) -> Issue:
        fields = body.get("fields")
        if not isinstance(fields, Mapping):
            raise JiraError(400, ["Issue must contain fields"] if "fields" not in body else [], {})
        errors: dict[str, str] = {}
        project = self._project_ref(fields.get("project"), errors)
        issuetype_id = self._issuetype_ref(fields.get("issuetype"), errors)
        summary = fields.get("summary")
        if not isinstance(summary, str) or not summary.strip():
            errors["summary"] = "You must specify a summary of the issue."
        if (
            issuetype_id is not None
            and self.issue_types[issuetype_id] == self._epic_type_name()
            and self.epic_name_field
            and not fields.get(self.epic_name_field)
        ):
            errors[self.epic_name_field] = f"{self.fields[self.epic_name_field]['name']} is required."
        if errors:
            raise JiraError(400, [], errors)
        assert project is not None and issuetype_id is not None
        now = self.now()
        number = project.next_number
        issue = Issue(
            id=self._new_id("issue"),
            key=f"{project.key}-{number}",
            project=project.key,
            issuetype_id=issuetype_id,
            summary="",
            description=None,
            status_id=self._initial_status(),
            priority_id=self.default_priority,
            labels=[],
            duedate=None,
            assignee=None,
            reporter=user,
            creator=user,
            created=now,
            updated=now,
            custom={},
            epic=None,
            sprint_ids=[],
        )
        rest = {k: v for k, v in fields.items() if k not in ("project", "issuetype")}
        changes = self._plan_edit(issue, rest, body.get("update") or {}, creating=True)
        project.next_number = number + 1
        self.issues[issue.key] = issue
        self._apply(issue, changes, user, record=False)
        issue.updated = now
        return issue

    def _epic_type_name(self) -> str | None:
        return (
            "Эпик" if "Эпик" in self.issue_types.values() else ("Epic" if "Epic" in self.issue_types.values() else None)
        )

    def _initial_status(self) -> str:
        return next(iter(self.statuses))

    def _project_ref(self, ref: Any, errors: dict[str, str]) -> Project | None:
        if not isinstance(ref, Mapping) or not (ref.get("key") or ref.get("id")):
            errors["project"] = "project is required"
            return None
        for p in self.projects.values():
            if ref.get("key") == p.key or str(ref.get("id")) == p.id:
                return p
        errors["project"] = "valid project is required"
        return None

    def _issuetype_ref(self, ref: Any, errors: dict[str, str]) -> str | None:
        if not isinstance(ref, Mapping) or not (ref.get("id") or ref.get("name")):
            errors["issuetype"] = "issue type is required"
            return None
        if "id" in ref and str(ref["id"]) in self.issue_types:
            return str(ref["id"])
        if "id" not in ref:
            for tid, name in self.issue_types.items():
                if ref.get("name") == name:
                    return tid
        errors["issuetype"] = "The issue type selected is invalid."
        return None

    def edit_issue(self, key: str, body: Mapping[str, Any], user: str) -> None:
        issue = self.issue(key)
        fields = body.get("fields") or {}
        update = body.get("update") or {}
        if not isinstance(fields, Mapping) or not isinstance(update, Mapping):
            raise JiraError(400, ["Can not deserialize the request: fields and update must be objects"])
        both = sorted(set(fields) & set(update))
        if both:
            raise JiraError(400, [], {f: f"Field '{f}' cannot be set in both fields and update." for f in both})
        changes = self._plan_edit(issue, fields, update, creating=False)
        self._apply(issue, changes, user, record=True)

    def _plan_edit(
        self, issue: Issue, fields: Mapping[str, Any], update: Mapping[str, Any], *, creating: bool
    ) -> dict[str, Any]:
        """Validate the request and return ``{field id: new value}``; nothing is changed on error."""
        errors: dict[str, str] = {}
        wanted: dict[str, Any] = dict(fields)
        for field, ops in update.items():
            if not isinstance(ops, list) or not all(isinstance(op, Mapping) for op in ops):
                errors[field] = f"Field '{field}': update operations must be a list."
                continue
            if field == "labels":
                labels = list(wanted.get("labels", issue.labels))
                for op in ops:
                    for verb, value in op.items():
                        if verb == "add" and value not in labels:
                            labels.append(value)
                        elif verb == "remove" and value in labels:
                            labels.remove(value)
                        elif verb == "set":
                            labels = list(value or [])
                        elif verb not in ("add", "remove", "set"):
                            errors[field] = f"Operation '{verb}' is not supported for field '{field}'."
                wanted["labels"] = labels
                continue
            for op in ops:
                for verb, value in op.items():
                    if verb == "set":
                        wanted[field] = value
                    else:
                        errors[field] = f"Operation '{verb}' is not supported for field '{field}'."
        changes: dict[str, Any] = {}
        for field, value in wanted.items():
            try:
                changes[field] = self._check_field(issue, field, value, creating=creating)
            except _FieldError as exc:
                errors[field] = str(exc)
        if errors:
            raise JiraError(400, [], errors)
        return changes

    def _check_field(self, issue: Issue, field: str, value: Any, *, creating: bool) -> Any:
        if field in self.fields and not self.fields[field].get("editable", True):
            raise _FieldError(_NOT_SETTABLE.format(field))
        if field == "summary":
            if not isinstance(value, str) or not value.strip():
                raise _FieldError("You must specify a summary of the issue.")
            if len(value) > 255:
                raise _FieldError("Summary must be less than 255 characters.")
            return value
        if field == "description" or (field in self.fields and self.fields[field]["kind"] in ("string", "epic_name")):
            if value is not None and not isinstance(value, str):
                raise _FieldError(f"Field '{field}' expects a string.")
            return value
        if field == "labels":
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise _FieldError("Field 'labels' expects a list of strings.")
            for label in value:
                if not label or " " in label:
                    raise _FieldError(f"The label '{label}' contains spaces which is invalid.")
                if len(label) > 255:
                    raise _FieldError("The label must not exceed 255 characters.")
            return list(dict.fromkeys(value))
        if field == "duedate" or (field in self.fields and self.fields[field]["kind"] == "date"):
            if value is not None and (not isinstance(value, str) or not _DATE.match(value) or not _valid_date(value)):
                raise _FieldError(f"Error parsing date string: {value}")
            return value
        if field == "priority":
            if value is None:
                return None
            pid = None
            if isinstance(value, Mapping):
                pid = next(
                    (p for p, n in self.priorities.items() if str(value.get("id")) == p or value.get("name") == n),
                    None,
                )
            if pid is None:
                raise _FieldError("The priority selected is invalid.")
            return pid
        if field in ("assignee", "reporter"):
            if value is None or (isinstance(value, Mapping) and value.get("name") in (None, "")):
                if field == "reporter":
                    raise _FieldError("Reporter is required.")
                return None
            name = value.get("name") if isinstance(value, Mapping) else None
            found = self.find_user(str(name)) if name else None
            if found is None:
                raise _FieldError(f"User '{name}' does not exist.")
            return found.name
        if field == self.epic_link_field:
            if value is None:
                return None
            target = self.issues.get(str(value).upper()) if isinstance(value, str) else None
            if target is None:
                raise _FieldError(f"Issue '{value}' does not exist.")
            if self.issue_types[target.issuetype_id] != self._epic_type_name():
                raise _FieldError(f"Issue '{value}' is not an epic.")
            if target.key == issue.key:
                raise _FieldError("An epic cannot be linked to itself.")
            return target.key
        if field == self.sprint_field:
            if value is None:
                return []
            sprint = self.sprints.get(int(value)) if isinstance(value, int | str) and str(value).isdigit() else None
            if sprint is None:
                raise _FieldError(f"Sprint with id '{value}' does not exist.")
            if sprint.state == "closed":
                raise _FieldError("Issues can only be moved to an active or a future sprint.")
            return sprint.id
        if field in self.fields and self.fields[field]["kind"] == "number":
            if value is not None and not isinstance(value, int | float):
                raise _FieldError(f"Field '{field}' expects a number.")
            return value
        raise _FieldError(_NOT_SETTABLE.format(field))

    def _apply(self, issue: Issue, changes: Mapping[str, Any], user: str, *, record: bool) -> None:
        items: list[HistoryItem] = []
        epic_events: list[tuple[str, HistoryItem]] = []
        for field, value in changes.items():
            if field in ("summary", "description") and value != getattr(issue, field):
                items.append(
                    HistoryItem(
                        field=field,
                        fieldtype="jira",
                        from_=None,
                        from_string=getattr(issue, field),
                        to=None,
                        to_string=value,
                    )
                )
                setattr(issue, field, value)
            elif field == "labels" and value != issue.labels:
                items.append(
                    HistoryItem(
                        field="labels",
                        fieldtype="jira",
                        from_=None,
                        from_string=" ".join(issue.labels) or None,
                        to=None,
                        to_string=" ".join(value) or None,
                    )
                )
                issue.labels = list(value)
            elif field == "duedate" and value != issue.duedate:
                items.append(
                    HistoryItem(
                        field="duedate",
                        fieldtype="jira",
                        from_=issue.duedate,
                        from_string=_date_string(issue.duedate),
                        to=value,
                        to_string=_date_string(value),
                    )
                )
                issue.duedate = value
            elif field == "priority" and value != issue.priority_id:
                items.append(
                    HistoryItem(
                        field="priority",
                        fieldtype="jira",
                        from_=issue.priority_id,
                        from_string=self.priorities.get(issue.priority_id or ""),
                        to=value,
                        to_string=self.priorities.get(value or ""),
                    )
                )
                issue.priority_id = value
            elif field in ("assignee", "reporter") and value != getattr(issue, field):
                old = getattr(issue, field)
                items.append(
                    HistoryItem(
                        field=field,
                        fieldtype="jira",
                        from_=old,
                        from_string=_display(self.user(old)),
                        to=value,
                        to_string=_display(self.user(value)),
                    )
                )
                setattr(issue, field, value)
            elif field == self.epic_link_field and value != issue.epic:
                old = issue.epic
                items.append(
                    HistoryItem(
                        field="Epic Link",
                        fieldtype="custom",
                        from_=self.issues[old].id if old in self.issues else None,
                        from_string=old,
                        to=self.issues[value].id if value else None,
                        to_string=value,
                    )
                )
                if old in self.issues:
                    epic_events.append(
                        (
                            old,
                            HistoryItem(
                                field="Epic Child",
                                fieldtype="custom",
                                from_=issue.id,
                                from_string=issue.key,
                                to=None,
                                to_string=None,
                            ),
                        )
                    )
                if value:
                    epic_events.append(
                        (
                            value,
                            HistoryItem(
                                field="Epic Child",
                                fieldtype="custom",
                                from_=None,
                                from_string=None,
                                to=issue.id,
                                to_string=issue.key,
                            ),
                        )
                    )
                issue.epic = value
            elif field == self.sprint_field:
                after = self._sprints_after_move(issue, value)
                if after != issue.sprint_ids:
                    items.append(self._sprint_item(issue.sprint_ids, after))
                    issue.sprint_ids = after
            elif field in self.fields and value != issue.custom.get(field):
                old = issue.custom.get(field)
                name = self.fields[field]["name"]
                items.append(
                    HistoryItem(
                        field=name,
                        fieldtype="custom",
                        from_=_str_or_none(old),
                        from_string=_str_or_none(old),
                        to=_str_or_none(value),
                        to_string=_str_or_none(value),
                    )
                )
                issue.custom[field] = value
        if record and items:
            now = self.now()
            self._record(issue, user, items, now)
            for epic_key, item in epic_events:
                self._record(self.issues[epic_key], user, [item], now)

    def _sprints_after_move(self, issue: Issue, target: int | list[int]) -> list[int]:
        """Sprint ids after moving the issue to ``target`` (``[]`` = backlog): closed sprints stay."""
        kept = [s for s in issue.sprint_ids if self.sprints[s].state == "closed"]
        if isinstance(target, list):
            return kept
        return [*kept, target] if target not in kept else kept

    # --- transitions --------------------------------------------------------------------------------------

    def available_transitions(self, key: str) -> list[Transition]:
        issue = self.issue(key)
        return [t for t in self.transitions if not t.sources or issue.status_id in t.sources]

    def transition(self, key: str, body: Mapping[str, Any], user: str) -> None:
        issue = self.issue(key)
        ref = body.get("transition")
        tid = str(ref.get("id")) if isinstance(ref, Mapping) and ref.get("id") is not None else None
        if tid is None:
            raise JiraError(400, ["Missing 'transition' identifier"])
        chosen = next((t for t in self.available_transitions(key) if t.id == tid), None)
        if chosen is None:
            raise JiraError(400, [f"Transition id '{tid}' is not valid for this issue."])
        changes = self._plan_edit(issue, body.get("fields") or {}, body.get("update") or {}, creating=False)
        now = self.now()
        old = self.statuses[issue.status_id]
        new = self.statuses[chosen.to]
        items = [
            HistoryItem(
                field="status", fieldtype="jira", from_=old.id, from_string=old.name, to=new.id, to_string=new.name
            )
        ]
        if (old.category == "done") != (new.category == "done"):
            done = new.category == "done"
            items.append(
                HistoryItem(
                    field="resolution",
                    fieldtype="jira",
                    from_=None if done else "10000",
                    from_string=None if done else "Готово",
                    to="10000" if done else None,
                    to_string="Готово" if done else None,
                )
            )
            issue.resolution_date = now if done else None
        issue.status_id = new.id
        self._record(issue, user, items, now)
        self._apply(issue, changes, user, record=True)

    # --- comments -----------------------------------------------------------------------------------------

    def add_comment(self, key: str, body: Mapping[str, Any], user: str) -> Comment:
        issue = self.issue(key)
        text = body.get("body")
        if not isinstance(text, str) or not text.strip():
            raise JiraError(400, [], {"comment": "Comment body can not be empty!"})
        now = self.now()
        comment = Comment(
            id=self._new_id("comment"), author=user, body=text, created=now, updated=now, update_author=user
        )
        issue.comments.append(comment)
        issue.updated = now
        return comment

    def update_comment(self, key: str, comment_id: str, body: Mapping[str, Any], user: str) -> Comment:
        issue = self.issue(key)
        comment = next((c for c in issue.comments if c.id == comment_id), None)
        if comment is None:
            raise JiraError(404, [f"Can not find a comment for the id: {comment_id}."])
        text = body.get("body")
        if not isinstance(text, str) or not text.strip():
            raise JiraError(400, [], {"comment": "Comment body can not be empty!"})
        now = self.now()
        if text != comment.body:
            comment.body = text
            comment.updated = now
            comment.update_author = user
            issue.updated = now
        return comment

    # --- links --------------------------------------------------------------------------------------------

    def add_link(self, body: Mapping[str, Any], user: str) -> Link:
        ref = body.get("type") or {}
        link_type = next(
            (t for t in self.link_types.values() if ref.get("name") == t.name or str(ref.get("id")) == t.id), None
        )
        if link_type is None:
            shown = ref.get("name", ref.get("id"))
            raise JiraError(404, [f"No issue link type with name '{shown}' found."])
        keys = []
        for side in ("inwardIssue", "outwardIssue"):
            issue_ref = body.get(side) or {}
            try:
                keys.append(self.issue(str(issue_ref.get("key") or issue_ref.get("id") or "")).key)
            except JiraError:
                raise JiraError(404, [f"Issue Does Not Exist: {issue_ref.get('key', issue_ref.get('id'))}"]) from None
        inward, outward = keys
        existing = next(
            (
                link
                for link in self.links.values()
                if (link.type_id, link.inward, link.outward) == (link_type.id, inward, outward)
            ),
            None,
        )
        if existing is not None:
            return existing
        link = Link(id=self._new_id("link"), type_id=link_type.id, inward=inward, outward=outward)
        self.links[link.id] = link
        self._record_link(link_type, inward, outward, user, added=True)
        comment = body.get("comment")
        if isinstance(comment, Mapping) and comment.get("body"):
            self.add_comment(inward, comment, user)
        return link

    def get_link(self, link_id: str) -> Link:
        link = self.links.get(link_id)
        if link is None:
            raise JiraError(404, [f"No issue link with id '{link_id}' exists."])
        return link

    def delete_link(self, link_id: str, user: str) -> None:
        link = self.get_link(link_id)
        link_type = self.link_types[link.type_id]
        del self.links[link_id]
        self._record_link(link_type, link.inward, link.outward, user, added=False)

    def _record_link(self, link_type: LinkType, inward: str, outward: str, user: str, *, added: bool) -> None:
        """The changelog of both issues of a link, as Jira writes it: «This issue <verb> <other key>»."""
        now = self.now()
        for key, other, verb in ((inward, outward, link_type.outward), (outward, inward, link_type.inward)):
            text = f"This issue {verb} {other}"
            item = HistoryItem(
                field="Link",
                fieldtype="jira",
                from_=None if added else other,
                from_string=None if added else text,
                to=other if added else None,
                to_string=text if added else None,
            )
            self._record(self.issues[key], user, [item], now)

    def links_of(self, key: str) -> list[Link]:
        return [link for link in self.links.values() if key in (link.inward, link.outward)]

    # --- attachments --------------------------------------------------------------------------------------

    def add_attachments(self, key: str, files: list[tuple[str, str, bytes]], user: str) -> list[Attachment]:
        issue = self.issue(key)
        if not files:
            raise JiraError(400, ["No attachments were found in the request."])
        now = self.now()
        added = []
        for filename, mime_type, content in files:
            attachment = Attachment(
                id=self._new_id("attachment"),
                filename=filename,
                size=len(content),
                mime_type=mime_type or "application/octet-stream",
                author=user,
                created=now,
                content=content,
            )
            issue.attachments.append(attachment)
            added.append(attachment)
        self._record(
            issue,
            user,
            [
                HistoryItem(
                    field="Attachment", fieldtype="jira", from_=None, from_string=None, to=a.id, to_string=a.filename
                )
                for a in added
            ],
            now,
        )
        return added

    def attachment(self, attachment_id: str) -> Attachment:
        for issue in self.issues.values():
            for a in issue.attachments:
                if a.id == attachment_id:
                    return a
        raise JiraError(404, [f"The attachment with id '{attachment_id}' does not exist"])

    # --- agile --------------------------------------------------------------------------------------------

    def board(self, board_id: str) -> Board:
        board = self.boards.get(int(board_id)) if board_id.isdigit() else None
        if board is None:
            raise JiraError(404, ["Board does not exist or you do not have permission to see it."])
        return board

    def board_sprints(self, board_id: str, states: list[str]) -> list[Sprint]:
        board = self.board(board_id)
        if board.type != "scrum":
            raise JiraError(400, ["The board does not support sprints"])
        allowed = {"future", "active", "closed"}
        unknown = [s for s in states if s not in allowed]
        if unknown:
            raise JiraError(400, [f"The state '{unknown[0]}' is not valid. Valid states are: future, active, closed"])
        sprints = [self.sprints[s] for s in board.sprint_ids]
        sprints = [s for s in sprints if not states or s.state in states]
        return sorted(sprints, key=lambda s: (s.sequence, s.id))

    def move_to_sprint(self, sprint_id: str, body: Mapping[str, Any], user: str) -> None:
        sprint = self.sprints.get(int(sprint_id)) if sprint_id.isdigit() else None
        if sprint is None:
            raise JiraError(
                404, [f"Sprint with id {sprint_id} does not exist or you do not have permission to see it."]
            )
        if sprint.state == "closed":
            raise JiraError(400, ["Issues can only be moved to an active or a future sprint."])
        issues = self._agile_issues(body)
        now = self.now()
        for issue in issues:
            after = self._sprints_after_move(issue, sprint.id)
            if after != issue.sprint_ids:
                item = self._sprint_item(issue.sprint_ids, after)
                issue.sprint_ids = after
                self._record(issue, user, [item], now)

    def move_to_backlog(self, body: Mapping[str, Any], user: str) -> None:
        issues = self._agile_issues(body)
        now = self.now()
        for issue in issues:
            after = self._sprints_after_move(issue, [])
            if after != issue.sprint_ids:
                item = self._sprint_item(issue.sprint_ids, after)
                issue.sprint_ids = after
                self._record(issue, user, [item], now)

    def _agile_issues(self, body: Mapping[str, Any]) -> list[Issue]:
        keys = body.get("issues")
        if not isinstance(keys, list) or not keys:
            raise JiraError(400, ["No issues to move"], {"issues": "At least one issue must be specified"})
        if len(keys) > 50:
            raise JiraError(400, ["Cannot move more than 50 issues at once"])
        out = []
        for key in keys:
            try:
                out.append(self.issue(str(key)))
            except JiraError:
                raise JiraError(
                    400, [f"Issue '{key}' does not exist or you do not have permission to see it."]
                ) from None
        return out

    # --- search -------------------------------------------------------------------------------------------

    def facts(self, issue: Issue) -> jql.IssueFacts:
        project = self.projects[issue.project]
        status = self.statuses[issue.status_id]
        return jql.IssueFacts(
            key=issue.key,
            project_key=project.key,
            project_name=project.name,
            project_id=project.id,
            issuetype=self.issue_types[issue.issuetype_id],
            issuetype_id=issue.issuetype_id,
            status=status.name,
            status_id=status.id,
            status_category=status.category,
            priority=self.priorities.get(issue.priority_id or ""),
            priority_id=issue.priority_id,
            labels=tuple(issue.labels),
            reporter=issue.reporter,
            assignee=issue.assignee,
            creator=issue.creator,
            created=issue.created,
            updated=issue.updated,
            duedate=date.fromisoformat(issue.duedate) if issue.duedate else None,
            sprints=tuple(self._sprint_facts(s) for s in issue.sprint_ids),
            summary=issue.summary,
            description=issue.description,
            epic_link=issue.epic,
        )

    def _sprint_facts(self, sprint_id: int) -> jql.SprintFacts:
        s = self.sprints[sprint_id]
        return jql.SprintFacts(id=s.id, name=s.name, state=s.state)

    def search(self, query: str, user: str, *, strict: bool = True) -> tuple[list[Issue], list[str]]:
        """All issues matching ``query`` in order, and the warnings (when not ``strict``)."""
        account = self.users[user]
        ctx = jql.JqlContext(
            now=self.now(),
            user=user,
            zone=ZoneInfo(account.time_zone),
            projects=tuple((p.key, p.name, p.id) for p in self.projects.values()),
            users=tuple(self.users),
            statuses=tuple((s.id, s.name) for s in self.statuses.values()),
            issue_types=tuple(self.issue_types.items()),
            priorities=tuple(self.priorities.items()),
            sprints=tuple(self._sprint_facts(s) for s in self.sprints),
            issue_keys=frozenset(self.issues),
            epic_link_field=self.epic_link_field or "customfield_10100",
            strict=strict,
        )
        try:
            compiled = jql.compile_query(query, ctx)
        except jql.JqlError as exc:
            raise JiraError(400, exc.messages) from None
        facts = [self.facts(i) for i in self.issues.values()]
        ordered = compiled.sort([f for f in facts if compiled.matches(f)])
        return [self.issues[f.key] for f in ordered], list(compiled.warnings)


class _FieldError(Exception):
    pass


def _valid_date(text: str) -> bool:
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _date_string(value: str | None) -> str | None:
    return None if value is None else f"{value} 00:00:00.0"


def _display(user: User | None) -> str | None:
    return None if user is None else user.display_name


def _str_or_none(value: Any) -> str | None:
    return None if value is None else str(value)
