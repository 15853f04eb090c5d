"""Each type's dry-run answers: what the mirror can say to every Jira call the type's executor may make.

The dry run (:mod:`reconcile.outlook.dryrun`) drives a type's executor with a Jira made of the mirror's records. It
answers a call only with an answer the type declares here for that endpoint (:class:`MirrorAnswers`); a call none
of them matches ends the prediction «не известно по зеркалу: <METHOD path>» rather than an invented answer. An
answer that rests on what the mirror does not hold (comments, workflows, board sprints, attachments) says what
it assumed, and the prediction lists that in ``unknown``. A type the dry run does not drive says why
(:class:`NotDriven`) and still names its endpoints: every endpoint of every type must be answered by the
simulator too (tests/jira_sim).

Pure: the records, the settings and the command's params come in as values (:class:`MirrorView`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from reconcile.config.settings import Settings
from reconcile.executors import JiraCall, JiraResponse
from reconcile.vocabulary.records import MirrorIssue

__all__ = [
    "ATTACHMENT_ANSWERS",
    "COMMENT_ANSWERS",
    "FIELDS_ANSWERS",
    "ISSUE_ANSWERS",
    "LINK_ANSWERS",
    "REFRESH_NOT_DRIVEN",
    "SPRINT_ANSWERS",
    "STATUS_ANSWERS",
    "UNKNOWN_SPRINT",
    "DryRun",
    "Endpoint",
    "MirrorAnswer",
    "MirrorAnswers",
    "MirrorView",
    "NotDriven",
    "Said",
    "answer",
    "endpoint",
    "issue_to_jira",
    "not_known",
]

#: The id a sprint the mirror does not know is answered with (a path takes only positive ids); the plan shows 0.
UNKNOWN_SPRINT = 10**18 - 1
_UNKNOWN_COMMENTS = "комментарии зеркалу не известны: предсказана запись, если комментария с маркером нет"
_UNKNOWN_TRANSITIONS = "переходы рабочего процесса зеркалу не известны: путь считается проходимым"
_UNKNOWN_SPRINTS = "спринты доски зеркалу не известны: спринт считается существующим"
_UNKNOWN_ATTACHMENTS = "вложения зеркалу не известны: предсказана загрузка"
_PART = re.compile(r"\{([a-z_]+)\}")


def not_known(method: str, path: str) -> str:
    """What a prediction says of a call no answer of its type matches."""
    return f"не известно по зеркалу: {method} {path}"


@attrs.frozen
class Endpoint:
    """A Jira endpoint: its method and path, ``{name}`` standing for one path segment (``{key}``, ``{id}``)."""

    method: str
    path: str
    _pattern: re.Pattern[str] = attrs.field(init=False, eq=False, repr=False)

    @_pattern.default
    def _compile(self) -> re.Pattern[str]:
        pieces = _PART.split(self.path)
        # split keeps the names at the odd places: a literal, a name, a literal, …
        regex = "".join(re.escape(p) if n % 2 == 0 else f"(?P<{p}>[^/]+)" for n, p in enumerate(pieces))
        return re.compile(regex)

    def parts(self, method: str, path: str) -> dict[str, str] | None:
        """The path's named segments when the call is to this endpoint, else ``None``."""
        if method != self.method:
            return None
        found = self._pattern.fullmatch(path)
        return found.groupdict() if found else None

    @property
    def is_write(self) -> bool:
        """Whether a call to it changes Jira, as :attr:`JiraCall.is_write` says (``POST /search`` reads)."""
        return JiraCall(method=self.method, path=self.path).is_write

    def __str__(self) -> str:
        return f"{self.method} {self.path}"


def endpoint(text: str) -> Endpoint:
    """``"GET /rest/api/2/issue/{key}"`` as an :class:`Endpoint`."""
    method, _, path = text.partition(" ")
    return Endpoint(method, path)


@attrs.frozen(kw_only=True)
class MirrorView:
    """What an answer reads: the mirror's records (with the issues the batch creates under their temp keys), the
    settings, the command's params, and what the duplicate search of ``ensure_issue`` finds, by trimmed summary."""

    issues: Mapping[str, MirrorIssue]
    settings: Settings
    params: Mapping[str, Any]
    searchable: Mapping[str, Sequence[MirrorIssue]]


@attrs.frozen(kw_only=True)
class Said:
    """The mirror's answer to one call, and what it had to assume to give it (``None``: nothing)."""

    response: JiraResponse
    assumed: str | None = None


#: An answer: the call, the mirror, and the path's named segments → what the mirror says.
Reply = Callable[[JiraCall, MirrorView, Mapping[str, str]], Said]


@attrs.frozen
class MirrorAnswer:
    """What the mirror says to one endpoint."""

    endpoint: Endpoint
    reply: Reply


def answer(text: str, reply: Reply) -> MirrorAnswer:
    return MirrorAnswer(endpoint(text), reply)


@attrs.frozen
class MirrorAnswers:
    """The dry run drives the type's executor against the mirror: one answer for each endpoint it may call."""

    answers: tuple[MirrorAnswer, ...]

    @property
    def endpoints(self) -> tuple[Endpoint, ...]:
        return tuple(a.endpoint for a in self.answers)

    def find(self, method: str, path: str) -> tuple[MirrorAnswer, Mapping[str, str]] | None:
        """The answer for a call and the path's named segments; ``None`` when the type declared none."""
        for declared in self.answers:
            parts = declared.endpoint.parts(method, path)
            if parts is not None:
                return declared, parts
        return None


@attrs.frozen
class NotDriven:
    """The dry run does not drive the type's executor (``why``); the endpoints it calls are named all the same."""

    why: str
    endpoints: tuple[Endpoint, ...]


DryRun = MirrorAnswers | NotDriven


def issue_to_jira(issue: MirrorIssue, settings: Settings) -> dict[str, Any]:
    """A mirror record rendered as Jira's issue JSON (the inverse of ``issue_from_jira`` on mirror fields)."""
    fields: dict[str, Any] = {
        "summary": issue.summary,
        "description": issue.description,
        "status": {"name": issue.status, "statusCategory": {"key": issue.status_category}} if issue.status else None,
        "priority": {"name": issue.priority} if issue.priority else None,
        "duedate": issue.duedate,
        "labels": list(issue.labels),
        "assignee": {"name": issue.assignee} if issue.assignee else None,
        "reporter": {"name": issue.reporter} if issue.reporter else None,
        "created": issue.created,
        "updated": issue.updated,
        "issuelinks": [_link_json(issue.key, link.id, link.type, link.source, link.target) for link in issue.links],
    }
    for logical in ("planned_start", "planned_end"):
        field_id = settings.fields.get(logical)
        if field_id:
            fields[field_id] = getattr(issue, logical)
    sprint_field = settings.fields.get("sprint")
    if sprint_field:
        sprint = issue.sprint
        fields[sprint_field] = [{"id": sprint.id, "name": sprint.name, "state": sprint.state}] if sprint else None
    if settings.epic_link.mode == "parent":
        fields["parent"] = {"key": issue.epic_key} if issue.epic_key else None
    elif settings.epic_link.field_id:
        fields[settings.epic_link.field_id] = issue.epic_key
    return {"key": issue.key, "fields": fields}


def _link_json(key: str, link_id: str, type_name: str, source: str, target: str) -> dict[str, Any]:
    entry: dict[str, Any] = {"id": link_id, "type": {"name": type_name}}
    if source == key:
        entry["outwardIssue"] = {"key": target}
    else:
        entry["inwardIssue"] = {"key": source}
    return entry


# The answers. Each one that reads an issue says first whether the mirror holds it.


def _absent(key: str) -> Said:
    message = f"задачи {key} нет в зеркале — прогноз невозможен"
    return Said(response=JiraResponse(status=404, json={"errorMessages": [message]}))


def _ok(json: Any, assumed: str | None = None) -> Said:
    return Said(response=JiraResponse(status=200, json=json), assumed=assumed)


def _record(call: JiraCall, mirror: MirrorView, parts: Mapping[str, str]) -> Said:
    issue = mirror.issues.get(parts["key"])
    return _absent(parts["key"]) if issue is None else _ok(issue_to_jira(issue, mirror.settings))


def _record_without_attachments(call: JiraCall, mirror: MirrorView, parts: Mapping[str, str]) -> Said:
    issue = mirror.issues.get(parts["key"])
    if issue is None:
        return _absent(parts["key"])
    body = issue_to_jira(issue, mirror.settings)
    body["fields"]["attachment"] = []
    return _ok(body, _UNKNOWN_ATTACHMENTS)


def _no_comments(call: JiraCall, mirror: MirrorView, parts: Mapping[str, str]) -> Said:
    if parts["key"] not in mirror.issues:
        return _absent(parts["key"])
    return _ok({"comments": []}, _UNKNOWN_COMMENTS)


def _transitions_as_wanted(call: JiraCall, mirror: MirrorView, parts: Mapping[str, str]) -> Said:
    issue = mirror.issues.get(parts["key"])
    if issue is None:
        return _absent(parts["key"])
    target = mirror.params.get("target")
    steps = target if isinstance(target, list) else [target]
    # Only the target's name: every reader (the executor's pick, its result, the plan's Reads) takes it first.
    transitions = [
        {"id": str(n), "to": {"name": step}}
        for n, step in enumerate(steps, start=1)
        if step != issue.status  # the validation admits only status names
    ]
    return _ok({"transitions": transitions}, _UNKNOWN_TRANSITIONS)


def _duplicates(call: JiraCall, mirror: MirrorView, parts: Mapping[str, str]) -> Said:
    # The executor keeps only the hits with its summary (required text): the others are not worth rendering.
    found = mirror.searchable.get(str(mirror.params["summary"]).strip(), ())
    return _ok({"issues": [issue_to_jira(issue, mirror.settings) for issue in found]})


def _scrum_board(call: JiraCall, mirror: MirrorView, parts: Mapping[str, str]) -> Said:
    # The hub knows its projects' boards but not their Jira project: the agent checks that (DESIGN 5.7).
    return _ok({"id": int(parts["id"]), "type": "scrum"})


def _sprint_assumed(call: JiraCall, mirror: MirrorView, parts: Mapping[str, str]) -> Said:
    sprint, key = mirror.params.get("sprint"), mirror.params.get("key")
    current = mirror.issues[key].sprint if isinstance(key, str) and key in mirror.issues else None
    sprint_id = current.id if current is not None and current.name == sprint else UNKNOWN_SPRINT
    return _ok({"values": [{"id": sprint_id, "name": sprint}] if isinstance(sprint, str) else []}, _UNKNOWN_SPRINTS)


def _written(call: JiraCall, mirror: MirrorView, parts: Mapping[str, str]) -> Said:
    return Said(response=JiraResponse(status=204))


def _issue_created(call: JiraCall, mirror: MirrorView, parts: Mapping[str, str]) -> Said:
    return Said(response=JiraResponse(status=201, json={"key": mirror.params.get("temp_key")}))


def _link_created(call: JiraCall, mirror: MirrorView, parts: Mapping[str, str]) -> Said:
    return Said(response=JiraResponse(status=201, headers={"Location": "/rest/api/2/issueLink/(новая)"}))


def _comment_created(call: JiraCall, mirror: MirrorView, parts: Mapping[str, str]) -> Said:
    return Said(response=JiraResponse(status=201, json={"id": "(новый)"}))


def _link_types_of_settings(call: JiraCall, mirror: MirrorView, parts: Mapping[str, str]) -> Said:
    # Read only when the agent has not yet seen the wanted type; the hub's settings name the types it may ask for.
    names = sorted(set(mirror.settings.link_types.values()))
    return _ok({"issueLinkTypes": [{"name": name} for name in names]})


ISSUE_ANSWERS = MirrorAnswers(
    (answer("POST /rest/api/2/search", _duplicates), answer("POST /rest/api/2/issue", _issue_created)),
)
FIELDS_ANSWERS = MirrorAnswers(
    (answer("GET /rest/api/2/issue/{key}", _record), answer("PUT /rest/api/2/issue/{key}", _written)),
)
# No comment is ever found to update or delete (the mirror holds none), but the executor may reach both.
COMMENT_ANSWERS = MirrorAnswers(
    (
        answer("GET /rest/api/2/issue/{key}/comment", _no_comments),
        answer("POST /rest/api/2/issue/{key}/comment", _comment_created),
        answer("PUT /rest/api/2/issue/{key}/comment/{id}", _written),
        answer("DELETE /rest/api/2/issue/{key}/comment/{id}", _written),
    ),
)
STATUS_ANSWERS = MirrorAnswers(
    (
        answer("GET /rest/api/2/issue/{key}", _record),
        answer("GET /rest/api/2/issue/{key}/transitions", _transitions_as_wanted),
        answer("POST /rest/api/2/issue/{key}/transitions", _written),
    ),
)
LINK_ANSWERS = MirrorAnswers(
    (
        answer("GET /rest/api/2/issueLinkType", _link_types_of_settings),
        answer("GET /rest/api/2/issue/{key}", _record),
        answer("DELETE /rest/api/2/issueLink/{id}", _written),
        answer("POST /rest/api/2/issueLink", _link_created),
    ),
)
SPRINT_ANSWERS = MirrorAnswers(
    (
        answer("GET /rest/api/2/issue/{key}", _record),
        answer("GET /rest/agile/1.0/board/{id}", _scrum_board),
        answer("GET /rest/agile/1.0/board/{id}/sprint", _sprint_assumed),
        answer("POST /rest/agile/1.0/sprint/{id}/issue", _written),
        answer("POST /rest/agile/1.0/backlog/issue", _written),
    ),
)
# The upload is predicted when the executor asks the hub for the file (a plan never reads the hub's bytes), so
# its answer is never given; an attachment the agent added is never found to delete (the mirror holds none).
ATTACHMENT_ANSWERS = MirrorAnswers(
    (
        answer("GET /rest/api/2/issue/{key}", _record_without_attachments),
        answer("POST /rest/api/2/issue/{key}/attachments", _written),
        answer("DELETE /rest/api/2/attachment/{id}", _written),
    ),
)
REFRESH_NOT_DRIVEN = NotDriven(
    why="it writes nothing to Jira: its plan is what it reads",
    endpoints=(endpoint("POST /rest/api/2/search"), endpoint("GET /rest/agile/1.0/board/{id}")),
)
