"""A batch's plan as a person reads it at a glance (Terraform-style; DESIGN.md sections 6 and 8).

The dry run (:mod:`reconcile.dryrun`) predicts each command's Jira writes from the mirror. Here each
prediction becomes lines a person reads before saying yes: ``+`` something created, ``~`` a field ``old →
new``, ``-`` a link deleted, ``=`` «нет изменений», ``!`` the command would fail or be skipped. A line the plan
cannot vouch for yet carries ``unknown`` — the key of an issue the batch creates, a sprint id only the agent
resolves on the board, comments, transitions and attachments the mirror does not hold, an issue the mirror
has never seen — and the command's ``unknown`` says why, in words. The web page, MCP and the API render
these same values.

Pure: predictions, mirror records and settings come in as values.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from reconcile.batch import NewCommand
from reconcile.commands import is_jira_key, is_temp_key, key_params
from reconcile.dryrun import Prediction
from reconcile.plans.fields import FIELD_ORDER
from reconcile.records import MirrorIssue
from reconcile.settings import Settings

__all__ = [
    "CHANGE",
    "CREATE",
    "DELETE",
    "FAIL",
    "NO_CHANGES",
    "SAME",
    "CommandPlan",
    "PlanLine",
    "plan_command",
    "plan_commands",
    "temp_key_unknown",
    "totals",
]

CREATE, CHANGE, DELETE, SAME, FAIL = "+", "~", "-", "=", "!"
NO_CHANGES = "нет изменений"
_LONG = 80


@attrs.frozen(kw_only=True)
class PlanLine:
    """One line of a plan: its sign, what it says, and whether it rests on something not known yet."""

    sign: str
    text: str
    unknown: bool = False


@attrs.frozen(kw_only=True)
class CommandPlan:
    """One command's plan: what it works on, its lines, the predicted writes themselves, and what is not known."""

    seq: int
    type: str
    subject: str
    lines: tuple[PlanLine, ...]
    writes: tuple[Mapping[str, Any], ...] = ()
    unknown: tuple[str, ...] = ()


def temp_key_unknown(temp_key: str) -> str:
    return f"ключ задачи {temp_key} станет известен только после её создания"


def _missing_unknown(command_type: str, key: str) -> str:
    if command_type == "refresh":  # the advice to refresh would point at the command itself
        return f"задачи {key} ещё нет в зеркале — этот refresh прочтёт её из Jira, если она там есть"
    return f"задачи {key} нет в зеркале — обновите зеркало (refresh), чтобы увидеть план"


def _show(value: Any) -> str:
    """A value as a person reads it in a line: «пусто» for none, long texts cut, line breaks visible."""
    if value is None or value in ("", []):
        return "пусто"
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    text = str(value).replace("\r\n", "\n").replace("\n", " ⏎ ")
    if len(text) > _LONG:
        text = text[: _LONG - 1] + "…"
    return f"«{text}»"


def _keys_of(command_type: str, params: Mapping[str, Any]) -> list[str]:
    keys: list[str] = []
    for name in key_params(command_type):
        value = params.get(name)
        for key in value if isinstance(value, list) else [value]:
            if isinstance(key, str) and key not in keys:
                keys.append(key)
    return keys


def _subject(command_type: str, params: Mapping[str, Any]) -> str:
    if command_type == "ensure_issue":
        return f"{params.get('temp_key')} {_show(params.get('summary'))}"
    if command_type == "ensure_link":
        return f"{params.get('source')} → {params.get('target')}"
    if command_type == "refresh":
        keys = params.get("keys")
        return ", ".join(keys) if isinstance(keys, list) else f"JQL {_show(params.get('jql'))}"
    return str(params["key"])  # every other type requires its key


# --- lines by command type ---------------------------------------------------------------------------------


def _issue_lines(params: Mapping[str, Any], prediction: Prediction, settings: Settings) -> list[PlanLine]:
    if not prediction.writes:
        found = prediction.result.get("key")
        return [PlanLine(sign=SAME, text=f"{NO_CHANGES}: задача {_show(params.get('summary'))} уже есть — {found}")]
    issue_type = str(params.get("issue_type") or "task")
    ref = settings.issue_types.get(issue_type)
    type_name = (ref.name or ref.id) if ref is not None else None
    parts = [f"тип {_show(type_name or issue_type)}"]
    for name in ("description", "priority", "duedate", "planned_start", "planned_end", "labels", "epic_key"):
        if params.get(name) not in (None, "", []):
            parts.append(f"{name} {_show(params[name])}")
    if params.get("assignee"):
        parts.append(f"assignee {_show(params['assignee'])}")
    text = f"задача {_show(params.get('summary'))} в {settings.jira_project}: {'; '.join(parts)}"
    return [PlanLine(sign=CREATE, text=text, unknown=True)]


def _labels_after(before: Sequence[str], params: Mapping[str, Any]) -> list[str]:
    added = [str(label) for label in params.get("labels_add") or () if str(label) not in before]
    removed = {str(label) for label in params.get("labels_remove") or ()}
    return [label for label in [*before, *added] if label not in removed]


def _fields_lines(params: Mapping[str, Any], prediction: Prediction, issue: MirrorIssue | None) -> list[PlanLine]:
    changed = [str(name) for name in prediction.result.get("changed") or ()]
    if not changed:
        return [PlanLine(sign=SAME, text=NO_CHANGES)]
    lines: list[PlanLine] = []
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
            lines.append(PlanLine(sign=CHANGE, text=f"labels: {_show(before)} → {_show(after)}"))
            continue
        before_value = getattr(issue, name) if issue is not None else None
        lines.append(PlanLine(sign=CHANGE, text=f"{name}: {_show(before_value)} → {_show(params.get(name))}"))
    return lines


def _comment_lines(params: Mapping[str, Any], prediction: Prediction) -> list[PlanLine]:
    lines = []
    for write in prediction.writes:
        body = (write.get("json") or {}).get("body")
        if write["method"] == "POST":
            lines.append(PlanLine(sign=CREATE, text=f"комментарий {_show(body)}", unknown=True))
        else:
            text = f"комментарий с меткой {_show(params.get('marker'))} → {_show(body)}"
            lines.append(PlanLine(sign=CHANGE, text=text, unknown=True))
    return lines or [PlanLine(sign=SAME, text=f"{NO_CHANGES}: комментарий с меткой {_show(params.get('marker'))} есть")]


def _status_lines(prediction: Prediction, issue: MirrorIssue | None) -> list[PlanLine]:
    before = issue.status if issue is not None else None
    taken = [str(step) for step in prediction.result.get("transitions") or ()]
    if not taken:
        return [PlanLine(sign=SAME, text=f"{NO_CHANGES}: статус уже {_show(before)}")]
    path = " → ".join(_show(step) for step in [before, *taken])
    return [PlanLine(sign=CHANGE, text=f"статус: {path}", unknown=True)]


def _link_lines(
    params: Mapping[str, Any], prediction: Prediction, issues: Mapping[str, MirrorIssue], settings: Settings
) -> list[PlanLine]:
    source, target = str(params.get("source")), str(params.get("target"))
    wanted = settings.link_types.get(str(params.get("link_type")), str(params.get("link_type")))
    known = {link.id: link for link in issues[source].links} if source in issues else {}
    lines = []
    for write in prediction.writes:
        if write["method"] == "DELETE":
            link_id = str(write["path"]).rpartition("/")[2]
            link = known.get(link_id)
            what = f"«{link.type}» {link.source} → {link.target}" if link else ""
            lines.append(PlanLine(sign=DELETE, text=f"связь {what} (id {link_id})".replace("  ", " ")))
        else:
            unknown = is_temp_key(source) or is_temp_key(target)
            lines.append(PlanLine(sign=CREATE, text=f"связь «{wanted}» {source} → {target}", unknown=unknown))
    if not lines and prediction.status == "done":
        lines.append(PlanLine(sign=SAME, text=f"{NO_CHANGES}: связь «{wanted}» {source} → {target} есть"))
    return lines


def _sprint_lines(params: Mapping[str, Any], prediction: Prediction, issue: MirrorIssue | None) -> list[PlanLine]:
    before = issue.sprint.name if issue is not None and issue.sprint is not None else None
    wanted = str(params.get("sprint"))
    if not prediction.writes:
        return [PlanLine(sign=SAME, text=f"{NO_CHANGES}: спринт {_show(before)}")]
    after = "бэклог" if wanted == "backlog" else _show(wanted)
    return [PlanLine(sign=CHANGE, text=f"спринт: {_show(before)} → {after}", unknown=wanted != "backlog")]


def _attachment_lines(params: Mapping[str, Any], prediction: Prediction) -> list[PlanLine]:
    if not prediction.writes:
        return [PlanLine(sign=SAME, text=f"{NO_CHANGES}: вложение {_show(params.get('filename'))} есть")]
    return [PlanLine(sign=CREATE, text=f"вложение {_show(params.get('filename'))}", unknown=True)]


_SPRINT_ID = "id спринта агент найдёт по имени на доске проекта"


def plan_command(
    command: NewCommand,
    prediction: Prediction | None,
    *,
    issues: Mapping[str, MirrorIssue],
    settings: Settings,
    created: Iterable[str] = (),
    skip: str | None = None,
) -> CommandPlan:
    """One command's plan from its ``prediction`` (``None`` with ``skip``: it will be skipped with that error).

    ``issues`` are the mirror records with the issues to be created under their temp keys; ``created`` the temp
    keys still to be created by the batch (a line that names one is unknown).
    """
    params = command.params
    subject = _subject(command.type, params)
    if prediction is None:  # plan_commands predicts every command but the skipped ones
        return CommandPlan(
            seq=command.seq, type=command.type, subject=subject, lines=(PlanLine(sign=FAIL, text=f"пропуск: {skip}"),)
        )
    keys = _keys_of(command.type, params)
    pending = set(created)
    temp_refs = [k for k in keys if is_temp_key(k) and k in pending]
    if command.type == "ensure_issue" and command.temp_key in pending and prediction.writes:
        temp_refs.insert(0, command.temp_key)
    missing = [k for k in keys if is_jira_key(k) and k not in issues]
    issue = issues.get(str(params.get("key")))  # a key is text, or absent (refresh, ensure_issue, ensure_link)
    lines: list[PlanLine]
    if command.type == "ensure_issue":
        lines = _issue_lines(params, prediction, settings)
    elif command.type == "ensure_fields":
        lines = _fields_lines(params, prediction, issue)
    elif command.type == "ensure_comment":
        lines = _comment_lines(params, prediction)
    elif command.type == "ensure_status":
        lines = _status_lines(prediction, issue)
    elif command.type == "ensure_link":
        lines = _link_lines(params, prediction, issues, settings)
    elif command.type == "ensure_sprint":
        lines = _sprint_lines(params, prediction, issue)
    elif command.type == "ensure_attachment":
        lines = _attachment_lines(params, prediction)
    else:
        lines = [PlanLine(sign=SAME, text=f"{NO_CHANGES}: только чтение Jira в зеркало")]
    if prediction.status != "done" or prediction.error:
        lines = [line for line in lines if line.sign != SAME]
        lines.append(PlanLine(sign=FAIL, text=f"ошибка: {prediction.error}", unknown=bool(missing)))
    if temp_refs:
        lines = [attrs.evolve(line, unknown=True) if line.sign != SAME else line for line in lines]
    unknown = [temp_key_unknown(k) for k in dict.fromkeys(temp_refs)]
    unknown += [_missing_unknown(command.type, k) for k in missing]
    unknown += list(prediction.unknown)
    if command.type == "ensure_sprint" and prediction.writes and params.get("sprint") != "backlog":
        unknown.append(_SPRINT_ID)
    return CommandPlan(
        seq=command.seq,
        type=command.type,
        subject=subject,
        lines=tuple(lines),
        writes=tuple(prediction.writes),
        unknown=tuple(unknown),
    )


def plan_commands(
    commands: Sequence[NewCommand],
    predictions: Sequence[Prediction | None],
    *,
    issues: Mapping[str, MirrorIssue],
    settings: Settings,
    skips: Mapping[int, str] | None = None,
) -> tuple[CommandPlan, ...]:
    """The plans of ``commands`` with their ``predictions`` (by position); ``skips`` by ``seq``: the commands
    that will be skipped and why. The temp keys the batch has still to create are those of its ``ensure_issue``
    commands here."""
    created = [c.temp_key for c in commands if c.temp_key]
    skips = skips or {}
    return tuple(
        plan_command(c, p, issues=issues, settings=settings, created=created, skip=skips.get(c.seq))
        for c, p in zip(commands, predictions, strict=True)
    )


def totals(plans: Iterable[CommandPlan]) -> dict[str, int]:
    """How many lines create, change and delete (Terraform's «N to add, M to change, K to destroy»)."""
    counts = {CREATE: 0, CHANGE: 0, DELETE: 0}
    for plan in plans:
        for line in plan.lines:
            if line.sign in counts:
                counts[line.sign] += 1
    return counts
