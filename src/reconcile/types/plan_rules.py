"""Each command type's plan lines and subject: how its prediction reads at a glance (:mod:`reconcile.outlook.plan_lines`
assembles them; :mod:`reconcile.types.binding` names each type's).

A rule takes a :class:`PlanInput` and gives the lines: ``+`` something created, ``~`` a field ``old → new``,
``-`` a link deleted, ``=`` «нет изменений» (``!`` a failure and ``?`` a call the mirror cannot answer are the
plan's own); a line that rests on what the mirror does not hold carries
``unknown``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from reconcile.config.settings import Settings
from reconcile.executors.fields import FIELD_ORDER
from reconcile.jira.replaced import conflicts_of_result
from reconcile.types.prediction import Prediction
from reconcile.vocabulary.commands import is_temp_key
from reconcile.vocabulary.records import MirrorIssue
from reconcile.vocabulary.wording import conflict_text, field_change, field_name, field_value
from reconcile.vocabulary.wording import show as _show

__all__ = [
    "CHANGE",
    "CREATE",
    "DELETE",
    "FAIL",
    "NOT_KNOWN",
    "NO_CHANGES",
    "SAME",
    "LineRule",
    "PlanInput",
    "PlanLine",
    "SubjectRule",
    "attachment_lines",
    "comment_lines",
    "fields_lines",
    "issue_lines",
    "issue_subject",
    "link_lines",
    "link_subject",
    "read_lines",
    "refresh_subject",
    "sprint_lines",
    "status_lines",
]

CREATE, CHANGE, DELETE, SAME, FAIL = "+", "~", "-", "=", "!"
#: A call the mirror cannot answer: what the command does from there on is not known before it runs.
NOT_KNOWN = "?"
NO_CHANGES = "нет изменений"


@attrs.frozen(kw_only=True)
class PlanLine:
    """One line of a plan: its sign, what it says, and whether it rests on something not known yet."""

    sign: str
    text: str
    unknown: bool = False


@attrs.frozen(kw_only=True)
class PlanInput:
    """What a type's lines read: the command's params and prediction, the mirror record of its subject (``None``
    when it has none or the mirror lacks it), all the records, and the settings."""

    params: Mapping[str, Any]
    prediction: Prediction
    issue: MirrorIssue | None
    issues: Mapping[str, MirrorIssue]
    settings: Settings


LineRule = Callable[[PlanInput], list[PlanLine]]
#: The subject of a command as its plan names it, from its params.
SubjectRule = Callable[[Mapping[str, Any]], str]


def issue_subject(params: Mapping[str, Any]) -> str:
    return f"{params.get('temp_key')} {_show(params.get('summary'))}"


def link_subject(params: Mapping[str, Any]) -> str:
    return f"{params.get('source')} → {params.get('target')}"


def refresh_subject(params: Mapping[str, Any]) -> str:
    keys = params.get("keys")
    return ", ".join(keys) if isinstance(keys, list) else f"JQL {_show(params.get('jql'))}"


def issue_lines(plan: PlanInput) -> list[PlanLine]:
    params, prediction, settings = plan.params, plan.prediction, plan.settings
    if not prediction.writes:
        found = prediction.result.get("key")
        return [PlanLine(sign=SAME, text=f"{NO_CHANGES}: задача {_show(params.get('summary'))} уже есть — {found}")]
    issue_type = str(params.get("issue_type") or "task")
    ref = settings.issue_types.get(issue_type)
    type_name = (ref.name or ref.id) if ref is not None else None
    parts = [f"тип {_show(type_name or issue_type)}"]
    for name in ("description", "priority", "duedate", "planned_start", "planned_end", "labels", "epic_key"):
        if params.get(name) not in (None, "", []):
            parts.append(f"{field_name(name)} {field_value(name, params[name])}")
    if params.get("assignee"):
        parts.append(f"{field_name('assignee')} {_show(params['assignee'])}")
    text = f"задача {_show(params.get('summary'))} в {settings.jira_project}: {'; '.join(parts)}"
    return [PlanLine(sign=CREATE, text=text, unknown=True)]


def _labels_after(before: Sequence[str], params: Mapping[str, Any]) -> list[str]:
    added = [str(label) for label in params.get("labels_add") or () if str(label) not in before]
    removed = {str(label) for label in params.get("labels_remove") or ()}
    return [label for label in [*before, *added] if label not in removed]


def _conflict_lines(plan: PlanInput) -> list[PlanLine]:
    """The aspects an only-if-unchanged command would leave: Jira no longer holds the value it expects."""
    return [
        PlanLine(sign=SAME, text=conflict_text(c.field, c.expected, c.found))
        for c in conflicts_of_result(plan.prediction.result)
    ]


def fields_lines(plan: PlanInput) -> list[PlanLine]:
    params, issue = plan.params, plan.issue
    changed = [str(name) for name in plan.prediction.result.get("changed") or ()]
    if not changed:
        return _conflict_lines(plan) or [PlanLine(sign=SAME, text=NO_CHANGES)]
    lines: list[PlanLine] = _conflict_lines(plan)
    labels_done = False
    for name in FIELD_ORDER:
        if name not in changed:
            continue
        if name in ("labels_add", "labels_remove"):
            if labels_done:
                continue
            labels_done = True
            before = list(issue.labels) if issue is not None else []
            after = _labels_after(before, params)
            lines.append(PlanLine(sign=CHANGE, text=f"{field_name('labels')}: {_show(before)} → {_show(after)}"))
            continue
        before_value = getattr(issue, name) if issue is not None else None
        lines.append(PlanLine(sign=CHANGE, text=field_change(name, before_value, params.get(name))))
    return lines


def comment_lines(plan: PlanInput) -> list[PlanLine]:
    params = plan.params
    if params.get("absent") is True:  # the mirror holds no comments: whether there is one to delete is not known
        text = f"комментарий с меткой {_show(params.get('marker'))}, если он есть и написан агентом"
        return [PlanLine(sign=DELETE, text=text, unknown=True)]
    lines = []
    for write in plan.prediction.writes:
        body = (write.get("json") or {}).get("body")
        if write["method"] == "POST":
            lines.append(PlanLine(sign=CREATE, text=f"комментарий {_show(body)}", unknown=True))
        else:
            text = f"комментарий с меткой {_show(params.get('marker'))} → {_show(body)}"
            lines.append(PlanLine(sign=CHANGE, text=text, unknown=True))
    return lines or [PlanLine(sign=SAME, text=f"{NO_CHANGES}: комментарий с меткой {_show(params.get('marker'))} есть")]


def status_lines(plan: PlanInput) -> list[PlanLine]:
    before = plan.issue.status if plan.issue is not None else None
    taken = [str(step) for step in plan.prediction.result.get("transitions") or ()]
    if not taken:
        return _conflict_lines(plan) or [PlanLine(sign=SAME, text=f"{NO_CHANGES}: статус уже {_show(before)}")]
    path = " → ".join(_show(step) for step in [before, *taken])
    return [PlanLine(sign=CHANGE, text=f"статус: {path}", unknown=True)]


def link_lines(plan: PlanInput) -> list[PlanLine]:
    params, issues = plan.params, plan.issues
    source, target = str(params.get("source")), str(params.get("target"))
    wanted = plan.settings.link_types.get(str(params.get("link_type")), str(params.get("link_type")))
    known = {link.id: link for link in issues[source].links} if source in issues else {}
    lines = []
    for write in plan.prediction.writes:
        if write["method"] == "DELETE":
            link_id = str(write["path"]).rpartition("/")[2]
            link = known.get(link_id)
            what = f"«{link.type}» {link.source} → {link.target}" if link else ""
            lines.append(PlanLine(sign=DELETE, text=f"связь {what} (id {link_id})".replace("  ", " ")))
        else:
            unknown = is_temp_key(source) or is_temp_key(target)
            lines.append(PlanLine(sign=CREATE, text=f"связь «{wanted}» {source} → {target}", unknown=unknown))
    if not lines and plan.prediction.status == "done":
        there = "связи {} нет" if params.get("present") is False else "связь {} есть"
        shown = f"«{wanted}» {source} → {target}"
        lines.append(PlanLine(sign=SAME, text=f"{NO_CHANGES}: {there.format(shown)}"))
    return lines


def sprint_lines(plan: PlanInput) -> list[PlanLine]:
    issue = plan.issue
    before = issue.sprint.name if issue is not None and issue.sprint is not None else None
    wanted = str(plan.params.get("sprint") or "backlog")
    shown = "бэклог" if before is None else _show(before)
    if not plan.prediction.writes:
        place = shown if before is None else f"спринт {shown}"
        return _conflict_lines(plan) or [PlanLine(sign=SAME, text=f"{NO_CHANGES}: {place}")]
    after = "бэклог" if wanted == "backlog" else _show(wanted)
    return [PlanLine(sign=CHANGE, text=f"спринт: {shown} → {after}", unknown=wanted != "backlog")]


def attachment_lines(plan: PlanInput) -> list[PlanLine]:
    filename = plan.params.get("filename")
    if plan.params.get("absent") is True:  # the mirror holds no attachments
        shown = _show(filename) if filename else f"файл {str(plan.params.get('file'))[:12]}…"
        return [PlanLine(sign=DELETE, text=f"вложение {shown}, если его добавил агент", unknown=True)]
    if not plan.prediction.writes:
        return [PlanLine(sign=SAME, text=f"{NO_CHANGES}: вложение {_show(filename)} есть")]
    return [PlanLine(sign=CREATE, text=f"вложение {_show(filename)}", unknown=True)]


def read_lines(plan: PlanInput) -> list[PlanLine]:
    """A command that only reads Jira writes nothing."""
    return [PlanLine(sign=SAME, text=f"{NO_CHANGES}: только чтение Jira в зеркало")]
