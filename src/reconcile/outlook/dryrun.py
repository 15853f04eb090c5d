"""Dry run: a batch's predicted writes, computed by running each command's executor against the mirror.

``POST /batches?dry_run=true`` validates as usual and then drives every command's executor with a Jira that
answers from the mirror's records instead of the network. What the mirror does not hold (comments,
workflows, board sprints, attachments) is answered as absent or as freely reachable, and the prediction says
so in ``unknown``: a person reading the plan sees which writes are certain and which depend on Jira.

Each command is predicted against the mirror as it is; writes of earlier commands of the same batch are not
applied, except that a temp key stands for the issue its ``ensure_issue`` would create.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import unquote

import attrs

from reconcile.batches.validation import NewCommand, ValidBatch
from reconcile.config.settings import Settings
from reconcile.executors import (
    Delivery,
    Ended,
    ExecContext,
    FetchFile,
    JiraCall,
    JiraResponse,
    Pause,
    Report,
    Step,
    context_settings,
    drive,
)
from reconcile.types.binding import executor_for
from reconcile.types.prediction import Prediction
from reconcile.types.write_lines import Reads, WriteLine, lines_of_write
from reconcile.vocabulary.catalogue import REFRESH_TYPE
from reconcile.vocabulary.commands import is_temp_key
from reconcile.vocabulary.errors import ValidationError
from reconcile.vocabulary.records import MirrorIssue
from reconcile.vocabulary.text import utc_text

__all__ = [
    "Prediction",
    "issue_to_jira",
    "predict_batch",
    "predict_command",
    "predict_commands",
    "with_issues_to_be_created",
]

_ISSUE_PREFIX = "/rest/api/2/issue/"
_BOARD = re.compile(r"/rest/agile/1\.0/board/[0-9]+")
#: The id a sprint the mirror does not know is answered with (a path takes only positive ids); the plan shows 0.
_UNKNOWN_SPRINT = 10**18 - 1
_UNKNOWN_COMMENTS = "комментарии зеркалу не известны: предсказана запись, если комментария с маркером нет"
_UNKNOWN_TRANSITIONS = "переходы рабочего процесса зеркалу не известны: путь считается проходимым"
_UNKNOWN_SPRINTS = "спринты доски зеркалу не известны: спринт считается существующим"
_UNKNOWN_ATTACHMENTS = "вложения зеркалу не известны: предсказана загрузка"


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


def _issue_to_be_created(temp_key: str, params: Mapping[str, Any], jira_user: str | None, now: str) -> MirrorIssue:
    def text(name: str) -> str | None:
        value = params.get(name)
        return value if isinstance(value, str) else None

    return MirrorIssue(
        key=temp_key,
        summary=text("summary"),
        description=text("description"),
        priority=text("priority"),
        duedate=text("duedate"),
        planned_start=text("planned_start"),
        planned_end=text("planned_end"),
        labels=tuple(params.get("labels") or ()),
        epic_key=text("epic_key"),
        assignee=text("assignee"),
        reporter=jira_user,
        created=now,
        updated=now,
    )


def _searchable(
    issues: Mapping[str, MirrorIssue], *, jira_user: str | None, now: datetime
) -> dict[str, list[MirrorIssue]]:
    """What ``ensure_issue``'s duplicate search finds (``reporter = currentUser() AND created >= -7d``), by trimmed
    summary: found once for a whole batch, not once per command."""
    found: dict[str, list[MirrorIssue]] = {}
    if jira_user is None:
        return found
    since = now - timedelta(days=7)
    for issue in issues.values():
        if (
            not is_temp_key(issue.key)
            and issue.reporter == jira_user
            and issue.created is not None
            and datetime.fromisoformat(issue.created) >= since
        ):
            found.setdefault((issue.summary or "").strip(), []).append(issue)
    return found


@attrs.define
class _MirrorJira:
    """Answers an executor's steps from mirror records; records the writes, the pauses and what it had to assume.

    An answer holds only what the executors read: a list without paging fields is one complete page."""

    issues: Mapping[str, MirrorIssue]
    settings: Settings
    params: Mapping[str, Any]
    searchable: Mapping[str, Sequence[MirrorIssue]]
    unknown: list[str] = attrs.Factory(list)
    writes: list[dict[str, Any]] = attrs.Factory(list)
    pauses: float = 0.0
    reads: Reads = attrs.Factory(lambda self: Reads(self.settings), takes_self=True)
    lines: list[WriteLine] = attrs.Factory(list)

    def _assume(self, note: str) -> None:
        if note not in self.unknown:
            self.unknown.append(note)

    def step(self, step: Step) -> Any:
        """The answer to one step of the executor (:func:`reconcile.executors.drive.drive`)."""
        if isinstance(step, JiraCall):
            if step.is_write:
                path = unquote(step.path).replace(f"/{_UNKNOWN_SPRINT}/", "/0/")
                write: dict[str, Any] = {"method": step.method, "path": path}
                if step.json is not None:
                    write["json"] = step.json
                self.writes.append(write)
                self.lines.extend(lines_of_write(step, params=self.params, reads=self.reads))
            reply = self.answer(step)
            self.reads.seen(step, reply)
            return reply
        if isinstance(step, FetchFile):
            # A plan never reads the hub's bytes, so the executor's check of them cannot run here: the upload
            # that follows a good file is the prediction.
            upload = JiraCall(method="POST", path=f"{_ISSUE_PREFIX}{self.params.get('key')}/attachments")
            self.writes.append({"method": upload.method, "path": upload.path})
            self.lines.extend(lines_of_write(upload, params=self.params, reads=self.reads))
            raise Ended(Report(status="done", result={"attachment_id": None, "uploaded": True}))
        if isinstance(step, Pause):
            self.pauses += step.seconds
        # A Page (only a refresh reads pages, and it is predicted without its executor) needs no answer.
        return None

    def answer(self, call: JiraCall) -> JiraResponse:
        path = call.path
        if call.method == "GET" and path.startswith(_ISSUE_PREFIX):
            return self._get_issue_part(unquote(path[len(_ISSUE_PREFIX) :]), call)
        if call.method == "POST" and path == "/rest/api/2/search":
            return self._search()
        if call.method == "GET" and _BOARD.fullmatch(path):
            # The hub knows its projects' boards but not their Jira project: the agent checks that (DESIGN 5.7).
            return JiraResponse(status=200, json={"id": int(path.rpartition("/")[2]), "type": "scrum"})
        if call.method == "GET" and path.startswith("/rest/agile/1.0/board/") and path.endswith("/sprint"):
            self._assume(_UNKNOWN_SPRINTS)
            sprint = self.params.get("sprint")
            key = self.params.get("key")
            current = self.issues[key].sprint if isinstance(key, str) and key in self.issues else None
            sprint_id = current.id if current is not None and current.name == sprint else _UNKNOWN_SPRINT
            values = [{"id": sprint_id, "name": sprint}] if isinstance(sprint, str) else []
            return JiraResponse(status=200, json={"values": values})
        return self._write(call)

    def _get_issue_part(self, rest: str, call: JiraCall) -> JiraResponse:
        key, _, suffix = rest.partition("/")
        issue = self.issues.get(key)
        if issue is None:
            return JiraResponse(
                status=404,
                json={"errorMessages": [f"задачи {key} нет в зеркале — прогноз невозможен"]},
            )
        if suffix == "comment":
            self._assume(_UNKNOWN_COMMENTS)
            return JiraResponse(status=200, json={"comments": []})
        if suffix == "transitions":
            self._assume(_UNKNOWN_TRANSITIONS)
            target = self.params.get("target")
            steps = target if isinstance(target, list) else [target]
            transitions = [
                {"id": str(n), "name": step, "to": {"name": step}}
                for n, step in enumerate(steps, start=1)
                if step != issue.status  # the validation admits only status names
            ]
            return JiraResponse(status=200, json={"transitions": transitions})
        body = issue_to_jira(issue, self.settings)
        if call.params and "attachment" in str(call.params.get("fields")):
            self._assume(_UNKNOWN_ATTACHMENTS)
            body["fields"]["attachment"] = []
        return JiraResponse(status=200, json=body)

    def _search(self) -> JiraResponse:
        # The executor keeps only the hits with its summary: the others are not worth rendering.
        # Only ensure_issue searches, and its summary is required text.
        found = self.searchable.get(str(self.params["summary"]).strip(), ())
        hits = [issue_to_jira(issue, self.settings) for issue in found]
        return JiraResponse(status=200, json={"issues": hits})

    def _write(self, call: JiraCall) -> JiraResponse:
        # Only the writes a plan can reach: no comment is ever found to update (the mirror has none), and an
        # attachment's upload is predicted at its FetchFile, before the executor could post it.
        if call.path == "/rest/api/2/issue":
            return JiraResponse(status=201, json={"key": self.params.get("temp_key")})
        if call.path == "/rest/api/2/issueLink":
            return JiraResponse(status=201, headers={"Location": "/rest/api/2/issueLink/(новая)"})
        if call.path.endswith("/comment"):
            return JiraResponse(status=201, json={"id": "(новый)"})
        return JiraResponse(status=204)


def predict_command(
    *,
    seq: int,
    command_type: str,
    params: Mapping[str, Any],
    issues: Mapping[str, MirrorIssue],
    settings: Settings,
    jira_user: str | None,
    symmetric_link_types: frozenset[str],
    now: datetime,
    searchable: Mapping[str, Sequence[MirrorIssue]] | None = None,
    context: Mapping[str, Any] | None = None,
    context_read: Settings | None = None,
) -> Prediction:
    """Run one command's executor against mirror records; ``issues`` may hold temp keys to be created;
    ``searchable`` (:func:`_searchable` of them), ``context`` (``settings.agent_context()``) and ``context_read``
    (the settings the executor reads from that context) when the caller predicts many commands."""
    if command_type == REFRESH_TYPE:
        return Prediction(seq=seq, type=command_type, writes=(), status="done", result={})
    if searchable is None:
        searchable = _searchable(issues, jira_user=jira_user, now=now)
    jira = _MirrorJira(issues=issues, settings=settings, params=params, searchable=searchable)
    delivery = Delivery(
        id=0,
        type=command_type,
        params=dict(params),
        pause_seconds=settings.gap(command_type),
        context=settings.agent_context() if context is None else context,
    )
    ctx = ExecContext(jira_user=jira_user, symmetric_link_types=symmetric_link_types)
    report = drive(executor_for(delivery, ctx, context_read), jira.step)
    return Prediction(
        seq=seq,
        type=command_type,
        writes=tuple(jira.writes),
        status=report.status,
        result={k: 0 if k == "sprint_id" and v == _UNKNOWN_SPRINT else v for k, v in report.result.items()},
        error=report.error,
        pause_seconds=settings.gap(command_type) + jira.pauses,
        unknown=tuple(jira.unknown),
        lines=tuple(jira.lines),
    )


def predict_batch(
    batch: ValidBatch,
    *,
    mirror: Mapping[str, MirrorIssue],
    settings: Settings,
    jira_user: str | None,
    symmetric_link_types: frozenset[str],
    now: datetime,
) -> tuple[Prediction, ...]:
    """Every command's prediction, in order; ``mirror`` holds the records of the keys the batch names."""
    return predict_commands(
        batch.commands,
        mirror=mirror,
        settings=settings,
        jira_user=jira_user,
        symmetric_link_types=symmetric_link_types,
        now=now,
    )


def with_issues_to_be_created(
    commands: Sequence[NewCommand], mirror: Mapping[str, MirrorIssue], *, jira_user: str | None, now: datetime
) -> dict[str, MirrorIssue]:
    """``mirror`` plus a record under each temp key the ``ensure_issue`` commands among ``commands`` define."""
    stamp = utc_text(now)
    issues: dict[str, MirrorIssue] = dict(mirror)
    for command in commands:
        if command.temp_key:
            issues[command.temp_key] = _issue_to_be_created(command.temp_key, command.params, jira_user, stamp)
    return issues


def predict_commands(
    commands: Sequence[NewCommand],
    *,
    mirror: Mapping[str, MirrorIssue],
    settings: Settings,
    jira_user: str | None,
    symmetric_link_types: frozenset[str],
    now: datetime,
) -> tuple[Prediction, ...]:
    """The predictions of ``commands`` (a batch's, or the unfinished ones of a stored batch with its resolved temp
    keys substituted), in order; a temp key one of them creates stands for the issue to be created."""
    issues = with_issues_to_be_created(commands, mirror, jira_user=jira_user, now=now)
    searchable = _searchable(issues, jira_user=jira_user, now=now)
    context = settings.agent_context()
    try:
        context_read: Settings | None = context_settings(context)
    except ValidationError:
        context_read = None  # then each executor fails with the message, as the agent's would
    predictions = []
    for command in commands:
        params = dict(command.params)
        predictions.append(
            predict_command(
                seq=command.seq,
                command_type=command.type,
                params=params,
                issues=issues,
                settings=settings,
                jira_user=jira_user,
                symmetric_link_types=symmetric_link_types,
                now=now,
                searchable=searchable,
                context=context,
                context_read=context_read,
            )
        )
    return tuple(predictions)
