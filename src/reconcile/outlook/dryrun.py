"""Dry run: a batch's predicted writes, computed by running each command's executor against the mirror.

``POST /batches?dry_run=true`` validates as usual and then drives every command's executor with a Jira that
answers from the mirror's records instead of the network, each call only as the command's type declares
(:mod:`reconcile.types.dryrun_answers`). What the mirror does not hold (comments, workflows, board sprints,
attachments) is answered as absent or as freely reachable, and the prediction says so in ``unknown``: a person
reading the plan sees which writes are certain and which depend on Jira. A call the type declared no answer for
is not answered at all: the prediction stops there, «не известно по зеркалу: <METHOD path>».

Each command is predicted against the mirror as it is; writes of earlier commands of the same batch are not
applied, except that a temp key stands for the issue its ``ensure_issue`` would create.
"""

from __future__ import annotations

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
    Pause,
    Report,
    Step,
    context_settings,
    drive,
)
from reconcile.types.binding import TYPES, TypeBinding, executor_for
from reconcile.types.dryrun_answers import (
    UNKNOWN_SPRINT,
    MirrorAnswer,
    MirrorAnswers,
    MirrorView,
    NotDriven,
    issue_to_jira,
    not_known,
)
from reconcile.types.prediction import Prediction
from reconcile.types.write_lines import Reads, WriteLine, lines_of_write
from reconcile.vocabulary.commands import is_temp_key
from reconcile.vocabulary.errors import ValidationError
from reconcile.vocabulary.records import MirrorIssue
from reconcile.vocabulary.text import utc_text

__all__ = [
    "BEYOND_MIRROR",
    "Prediction",
    "issue_to_jira",
    "predict_batch",
    "predict_command",
    "predict_commands",
    "with_issues_to_be_created",
]

_ISSUE_PREFIX = "/rest/api/2/issue/"
#: A prediction's status when the executor made a call its type's answers do not cover (:attr:`Prediction.beyond`).
BEYOND_MIRROR = "unknown"


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
    """Answers an executor's calls with the answers its type declares (:mod:`reconcile.types.dryrun_answers`);
    records the writes, the pauses and what the answers assumed. A call no answer matches is not answered: the
    drive ends there and :attr:`beyond` names it.

    An answer holds only what the executors read: a list without paging fields is one complete page."""

    mirror: MirrorView
    answers: MirrorAnswers
    unknown: list[str] = attrs.Factory(list)
    writes: list[dict[str, Any]] = attrs.Factory(list)
    pauses: float = 0.0
    reads: Reads = attrs.Factory(lambda self: Reads(self.mirror.settings), takes_self=True)
    lines: list[WriteLine] = attrs.Factory(list)
    beyond: str | None = None

    def _assume(self, note: str) -> None:
        if note not in self.unknown:
            self.unknown.append(note)

    def step(self, step: Step) -> Any:
        """The answer to one step of the executor (:func:`reconcile.executors.drive.drive`)."""
        if isinstance(step, JiraCall):
            declared, parts = self._declared(step)
            if step.is_write:
                self._write(step)
            said = declared.reply(step, self.mirror, parts)
            if said.assumed is not None:
                self._assume(said.assumed)
            self.reads.seen(step, said.response)
            return said.response
        if isinstance(step, FetchFile):
            # A plan never reads the hub's bytes, so the executor's check of them cannot run here: the upload
            # that follows a good file is the prediction.
            upload = JiraCall(method="POST", path=f"{_ISSUE_PREFIX}{self.mirror.params.get('key')}/attachments")
            self._declared(upload)
            self._write(upload)
            raise Ended(Report(status="done", result={"attachment_id": None, "uploaded": True}))
        if isinstance(step, Pause):
            self.pauses += step.seconds
        # A Page (only a refresh reads pages, and the dry run does not drive it) needs no answer.
        return None

    def _declared(self, call: JiraCall) -> tuple[MirrorAnswer, Mapping[str, str]]:
        """The type's answer to ``call``; a call it did not declare ends the drive, named in ``unknown``."""
        path = unquote(call.path)
        found = self.answers.find(call.method, path)
        if found is None:
            self.beyond = not_known(call.method, path)
            self._assume(self.beyond)
            raise Ended(Report(status="done"))
        return found

    def _write(self, call: JiraCall) -> None:
        write: dict[str, Any] = {
            "method": call.method,
            "path": unquote(call.path).replace(f"/{UNKNOWN_SPRINT}/", "/0/"),
        }
        if call.json is not None:
            write["json"] = call.json
        self.writes.append(write)
        self.lines.extend(lines_of_write(call, params=self.mirror.params, reads=self.reads))


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
    types: Mapping[str, TypeBinding] = TYPES,
) -> Prediction:
    """Run one command's executor against mirror records; ``issues`` may hold temp keys to be created;
    ``searchable`` (:func:`_searchable` of them), ``context`` (``settings.agent_context()``) and ``context_read``
    (the settings the executor reads from that context) when the caller predicts many commands; ``types``: the
    bound types (another tool's, or a test's copy).

    The executor is answered only as its type's dry-run answers say; at a call they do not cover the prediction
    ends with status «unknown», that call named in ``unknown`` and in :attr:`Prediction.beyond`."""
    entry = types.get(command_type)
    dry_run = entry.dry_run if entry is not None else MirrorAnswers(())
    if isinstance(dry_run, NotDriven):
        return Prediction(seq=seq, type=command_type, writes=(), status="done", result={})
    if searchable is None:
        searchable = _searchable(issues, jira_user=jira_user, now=now)
    mirror = MirrorView(issues=issues, settings=settings, params=params, searchable=searchable)
    jira = _MirrorJira(mirror=mirror, answers=dry_run)
    delivery = Delivery(
        id=0,
        type=command_type,
        params=dict(params),
        pause_seconds=settings.gap(command_type),
        context=settings.agent_context() if context is None else context,
    )
    ctx = ExecContext(jira_user=jira_user, symmetric_link_types=symmetric_link_types)
    report = drive(executor_for(delivery, ctx, context_read, types=types), jira.step)
    return Prediction(
        seq=seq,
        type=command_type,
        writes=tuple(jira.writes),
        status=report.status if jira.beyond is None else BEYOND_MIRROR,
        result={k: 0 if k == "sprint_id" and v == UNKNOWN_SPRINT else v for k, v in report.result.items()},
        error=report.error,
        pause_seconds=settings.gap(command_type) + jira.pauses,
        unknown=tuple(jira.unknown),
        lines=tuple(jira.lines),
        beyond=jira.beyond,
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
