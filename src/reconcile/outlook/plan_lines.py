"""A batch's plan as a person reads it at a glance (Terraform-style; DESIGN.md sections 6 and 8).

The dry run (:mod:`reconcile.outlook.dryrun`) predicts each command's Jira writes from the mirror. Here each
prediction becomes lines a person reads before saying yes: ``+`` something created, ``~`` a field ``old →
new``, ``-`` a link deleted, ``=`` «нет изменений», ``!`` the command would fail or be skipped, ``?`` it makes a
call the mirror cannot answer («не известно по зеркалу: <METHOD path>»). A line the plan
cannot vouch for yet carries ``unknown`` — the key of an issue the batch creates, a sprint id only the agent
resolves on the board, comments, transitions and attachments the mirror does not hold, an issue the mirror
has never seen — and the command's ``unknown`` says why, in words. The web page, MCP and the API render
these same values. Each type's lines are its entry's rule (:mod:`reconcile.types.binding`,
:mod:`reconcile.types.plan_rules`).

Pure: predictions, mirror records and settings come in as values.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from reconcile.batches.validation import NewCommand
from reconcile.config.settings import Settings
from reconcile.types.binding import TYPES, TypeBinding
from reconcile.types.plan_rules import CHANGE, CREATE, DELETE, FAIL, NO_CHANGES, NOT_KNOWN, SAME, PlanInput, PlanLine
from reconcile.types.prediction import Prediction
from reconcile.vocabulary.catalogue import REFRESH_TYPE, CommandSpec, CommandType, Format
from reconcile.vocabulary.commands import is_jira_key, is_temp_key
from reconcile.vocabulary.records import MirrorIssue

__all__ = [
    "CHANGE",
    "CREATE",
    "DELETE",
    "FAIL",
    "NOT_KNOWN",
    "NO_CHANGES",
    "SAME",
    "CommandPlan",
    "PlanLine",
    "plan_command",
    "plan_commands",
    "temp_key_unknown",
    "totals",
]


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
    if command_type == REFRESH_TYPE:  # the advice to refresh would point at the command itself
        return f"задачи {key} ещё нет в зеркале — этот refresh прочтёт её из Jira, если она там есть"
    return f"задачи {key} нет в зеркале — обновите зеркало (refresh), чтобы увидеть план"


def _keys_of(spec: CommandSpec, params: Mapping[str, Any]) -> list[str]:
    keys: list[str] = []
    for name in (p.name for p in spec.params if p.format in (Format.ISSUE_KEY, Format.KEY_LIST)):
        value = params.get(name)
        for key in value if isinstance(value, list) else [value]:
            if isinstance(key, str) and key not in keys:
                keys.append(key)
    return keys


def _subject(entry: TypeBinding, params: Mapping[str, Any]) -> str:
    if entry.plan_subject is not None:
        return entry.plan_subject(params)
    return str(params.get(entry.spec.subject or ""))  # a type without its own rule names its subject parameter


_SPRINT_ID = "id спринта агент найдёт по имени на доске проекта"


def plan_command(
    command: NewCommand,
    prediction: Prediction | None,
    *,
    issues: Mapping[str, MirrorIssue],
    settings: Settings,
    created: Iterable[str] = (),
    skip: str | None = None,
    types: Mapping[str, TypeBinding] = TYPES,
) -> CommandPlan:
    """One command's plan from its ``prediction`` (``None`` with ``skip``: it will be skipped with that error).

    ``issues`` are the mirror records with the issues to be created under their temp keys; ``created`` the temp
    keys still to be created by the batch (a line that names one is unknown); ``types`` the bound types.
    """
    params = command.params
    entry = types[command.type]
    subject = _subject(entry, params)
    if prediction is None:  # plan_commands predicts every command but the skipped ones
        return CommandPlan(
            seq=command.seq, type=command.type, subject=subject, lines=(PlanLine(sign=FAIL, text=f"пропуск: {skip}"),)
        )
    keys = _keys_of(entry.spec, params)
    pending = set(created)
    temp_refs = [k for k in keys if is_temp_key(k) and k in pending]
    if command.temp_key is not None and command.temp_key in pending and prediction.writes:  # the issue it creates
        temp_refs.insert(0, command.temp_key)
    missing = [k for k in keys if is_jira_key(k) and k not in issues]
    name = entry.spec.subject
    issue = issues.get(str(params.get(name))) if name is not None else None  # the subject's key is text
    view = PlanInput(params=params, prediction=prediction, issue=issue, issues=issues, settings=settings)
    lines = entry.plan_lines(view)
    if prediction.beyond is not None:  # the lines of the writes before it, then the call itself
        lines = [line for line in lines if line.sign != SAME]
        lines.append(PlanLine(sign=NOT_KNOWN, text=prediction.beyond, unknown=True))
    elif prediction.status != "done" or prediction.error:
        lines = [line for line in lines if line.sign != SAME]
        lines.append(PlanLine(sign=FAIL, text=f"ошибка: {prediction.error}", unknown=bool(missing)))
    if temp_refs:
        lines = [attrs.evolve(line, unknown=True) if line.sign != SAME else line for line in lines]
    unknown = [temp_key_unknown(k) for k in dict.fromkeys(temp_refs)]
    unknown += [_missing_unknown(command.type, k) for k in missing]
    unknown += list(prediction.unknown)
    if (
        command.type == CommandType.ENSURE_SPRINT
        and prediction.writes
        and params.get("sprint") not in ("backlog", None)
    ):
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
