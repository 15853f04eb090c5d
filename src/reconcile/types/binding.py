"""Every command type whole: its catalogue entry bound to the code that runs, plans and confirms it.

:mod:`reconcile.vocabulary.catalogue` says what is declaratively true of a type (parameters, labels, editors, example,
gap, writes, the aspect it sets). Here one :class:`TypeBinding` per type names its executor
(:mod:`reconcile.executors`), its plan lines and subject (:mod:`reconcile.types.plan_rules`), its state check
(:mod:`reconcile.types.state_checks`, or that it is not confirmed by state) and its dry-run answers
(:mod:`reconcile.types.dryrun_answers`: what the mirror says to each call of its executor). The two layers are
split so that the low modules (settings, validation, pacing) read the catalogue without importing the executors,
which themselves read the settings.

:func:`missing_parts` names whatever a type lacks, and :data:`TYPES` is built only when nothing is missing: a
hub or an agent with a half-made type does not start. Adding a type is one catalogue entry, one entry in
:data:`ENTRIES`, its executor, its dry-run answers, a simulator route for each endpoint it calls, and their tests.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping

import attrs

from reconcile.config.settings import Settings
from reconcile.executors import Body, Delivery, ExecContext, Executor, Report, Run, run_body
from reconcile.executors.attachment import ensure_attachment
from reconcile.executors.comment import ensure_comment
from reconcile.executors.fields import ensure_fields
from reconcile.executors.issue import ensure_issue
from reconcile.executors.link import ensure_link
from reconcile.executors.refresh import refresh
from reconcile.executors.sprint import ensure_sprint
from reconcile.executors.status import ensure_status
from reconcile.types.dryrun_answers import (
    ATTACHMENT_ANSWERS,
    COMMENT_ANSWERS,
    FIELDS_ANSWERS,
    ISSUE_ANSWERS,
    LINK_ANSWERS,
    REFRESH_NOT_DRIVEN,
    SPRINT_ANSWERS,
    STATUS_ANSWERS,
    DryRun,
    Endpoint,
    MirrorAnswers,
    NotDriven,
)
from reconcile.types.plan_rules import (
    LineRule,
    SubjectRule,
    attachment_lines,
    comment_lines,
    fields_lines,
    issue_lines,
    issue_subject,
    link_lines,
    link_subject,
    read_lines,
    refresh_subject,
    sprint_lines,
    status_lines,
)
from reconcile.types.result_words import (
    ResultRule,
    attachment_words,
    comment_words,
    fields_words,
    issue_words,
    link_words,
    refresh_words,
    sprint_words,
    status_words,
)
from reconcile.types.state_checks import (
    LooksAt,
    LooksFor,
    NotConfirmed,
    created_issue,
    fields_match,
    link_match,
    sprint_match,
    status_match,
)
from reconcile.vocabulary.catalogue import CATALOGUE, AspectKind, CommandSpec, CommandType
from reconcile.vocabulary.commands import check_params
from reconcile.vocabulary.errors import ValidationError

__all__ = [
    "ENTRIES",
    "TYPES",
    "IncompleteCatalogueError",
    "StateCheck",
    "TypeBinding",
    "bind",
    "executor_for",
    "missing_parts",
]

StateCheck = LooksAt | LooksFor | NotConfirmed


@attrs.frozen(kw_only=True)
class TypeBinding:
    """One command type: its catalogue entry, its executor, its plan lines, its state check, its result in words,
    its dry-run answers.

    ``plan_subject`` renders what the plan names the command by; ``None`` renders the value of the catalogue's
    ``subject`` parameter.
    """

    spec: CommandSpec
    executor: Callable[[Run], Body]
    plan_lines: LineRule
    confirmation: StateCheck
    result_words: ResultRule
    dry_run: DryRun
    plan_subject: SubjectRule | None = None


ENTRIES: tuple[TypeBinding, ...] = (
    TypeBinding(
        spec=CATALOGUE[CommandType.ENSURE_ISSUE],
        dry_run=ISSUE_ANSWERS,
        executor=ensure_issue,
        plan_lines=issue_lines,
        result_words=issue_words,
        plan_subject=issue_subject,
        confirmation=LooksFor(find=created_issue),
    ),
    TypeBinding(
        spec=CATALOGUE[CommandType.ENSURE_FIELDS],
        dry_run=FIELDS_ANSWERS,
        executor=ensure_fields,
        plan_lines=fields_lines,
        result_words=fields_words,
        confirmation=LooksAt(match=fields_match),
    ),
    TypeBinding(
        spec=CATALOGUE[CommandType.ENSURE_COMMENT],
        dry_run=COMMENT_ANSWERS,
        executor=ensure_comment,
        plan_lines=comment_lines,
        result_words=comment_words,
        confirmation=NotConfirmed(why="the mirror holds no comments (seed 001)"),
    ),
    TypeBinding(
        spec=CATALOGUE[CommandType.ENSURE_STATUS],
        dry_run=STATUS_ANSWERS,
        executor=ensure_status,
        plan_lines=status_lines,
        result_words=status_words,
        confirmation=LooksAt(match=status_match),
    ),
    TypeBinding(
        spec=CATALOGUE[CommandType.ENSURE_LINK],
        dry_run=LINK_ANSWERS,
        executor=ensure_link,
        plan_lines=link_lines,
        result_words=link_words,
        plan_subject=link_subject,
        confirmation=LooksAt(match=link_match),
    ),
    TypeBinding(
        spec=CATALOGUE[CommandType.ENSURE_SPRINT],
        dry_run=SPRINT_ANSWERS,
        executor=ensure_sprint,
        plan_lines=sprint_lines,
        result_words=sprint_words,
        confirmation=LooksAt(match=sprint_match),
    ),
    TypeBinding(
        spec=CATALOGUE[CommandType.ENSURE_ATTACHMENT],
        dry_run=ATTACHMENT_ANSWERS,
        executor=ensure_attachment,
        plan_lines=attachment_lines,
        result_words=attachment_words,
        confirmation=NotConfirmed(why="the mirror holds no attachments (seed 001)"),
    ),
    TypeBinding(
        spec=CATALOGUE[CommandType.REFRESH],
        dry_run=REFRESH_NOT_DRIVEN,
        executor=refresh,
        plan_lines=read_lines,
        result_words=refresh_words,
        plan_subject=refresh_subject,
        confirmation=NotConfirmed(why="it sets nothing: it reads Jira into the mirror"),
    ),
)


class IncompleteCatalogueError(Exception):
    """A command type lacks part of its entry; the message names every part missing."""


def _spec_missing(name: str, spec: CommandSpec) -> list[str]:
    missing = [] if spec.type == name else [f"{name}: its catalogue entry says type {spec.type}"]
    if not spec.label.strip():
        missing.append(f"{name}: no label")
    if not spec.doc.strip():
        missing.append(f"{name}: no help (doc)")
    gap = spec.gap
    if isinstance(gap, bool) or not isinstance(gap, int | float) or not 0 < gap < math.inf:
        missing.append(f"{name}: no default gap (a positive number of seconds)")
    for param in spec.params:
        if not param.label.strip():
            missing.append(f"{name}.{param.name}: no label")
        if not param.doc.strip():
            missing.append(f"{name}.{param.name}: no help (doc)")
    if spec.subject is not None and spec.subject not in {p.name for p in spec.params}:
        missing.append(f"{name}: its subject {spec.subject} is none of its parameters")
    try:
        check_params(1, spec, dict(spec.example))
    except ValidationError as error:
        missing.append(f"{name}: its example is no valid command: {error.message}")
    return missing


def _binding_missing(entry: TypeBinding, spec: CommandSpec) -> list[str]:
    name, check = spec.type, entry.confirmation
    missing = [] if callable(entry.executor) else [f"{name}: no executor"]
    if not callable(entry.plan_lines):
        missing.append(f"{name}: no plan lines")
    if not callable(entry.result_words):
        missing.append(f"{name}: no result in words")
    if entry.plan_subject is None and spec.subject is None:
        missing.append(f"{name}: no plan subject (and no subject parameter to show)")
    if spec.sets is None and not isinstance(check, NotConfirmed):
        missing.append(f"{name}: sets no aspect, so it must say it is not confirmed by state (NotConfirmed)")
    elif isinstance(check, NotConfirmed) and not check.why.strip():
        missing.append(f"{name}: not confirmed by state, without saying why")
    elif spec.sets is AspectKind.EXISTENCE and not isinstance(check, LooksFor):
        missing.append(f"{name}: makes an issue exist, so its state check must look for it (LooksFor)")
    elif spec.sets not in (None, AspectKind.EXISTENCE) and not isinstance(check, LooksAt):
        missing.append(f"{name}: sets an aspect, so its state check must look at its subject (LooksAt)")
    elif isinstance(check, LooksAt) and spec.subject is None:
        missing.append(f"{name}: looks at its subject, but names no subject parameter")
    return missing


def _dry_run_missing(dry_run: object, spec: CommandSpec) -> list[str]:
    """What a type's dry-run answers lack: a writing type is driven against the mirror with an answer for each
    endpoint (one each), and declares its writes; one not driven says why."""
    name = spec.type
    if isinstance(dry_run, NotDriven):
        missing = [] if dry_run.why.strip() else [f"{name}: not driven by the dry run, without saying why"]
        if spec.writes:
            missing.append(f"{name}: writes to Jira, so the dry run must drive it against the mirror (MirrorAnswers)")
        endpoints = dry_run.endpoints
    elif isinstance(dry_run, MirrorAnswers) and dry_run.answers:
        missing = [f"{name}: no dry-run answer for {a.endpoint}" for a in dry_run.answers if not callable(a.reply)]
        endpoints = dry_run.endpoints
        writes = any(e.is_write for e in endpoints)
        if spec.writes and not writes:
            missing.append(f"{name}: writes to Jira, but its dry-run answers declare no write")
        elif writes and not spec.writes:
            missing.append(f"{name}: writes nothing, but its dry-run answers declare a write")
    else:
        return [f"{name}: no dry-run answers (what the mirror says to each call of its executor)"]
    seen: set[Endpoint] = set()
    for declared in endpoints:
        if declared in seen:
            missing.append(f"{name}: {declared} declared twice")
        seen.add(declared)
    return missing


def missing_parts(catalogue: Mapping[str, CommandSpec], entries: Iterable[TypeBinding]) -> list[str]:
    """What the types of ``catalogue`` bound by ``entries`` lack, one line each (empty: every type is whole)."""
    bound: dict[str, TypeBinding] = {}
    missing: list[str] = []
    for entry in entries:
        name = entry.spec.type
        if name in bound:
            missing.append(f"{name}: bound twice")
        elif name not in catalogue:
            missing.append(f"{name}: bound, but not in the catalogue")
        bound.setdefault(name, entry)
    for name, spec in catalogue.items():
        missing.extend(_spec_missing(name, spec))
        found = bound.get(name)
        if found is None:
            missing.append(
                f"{name}: no executor, plan lines, state check or dry-run answers (no entry in reconcile.types.binding)"
            )
        else:
            missing.extend(_binding_missing(found, spec))
            missing.extend(_dry_run_missing(found.dry_run, spec))
    return missing


def bind(catalogue: Mapping[str, CommandSpec], entries: Iterable[TypeBinding]) -> Mapping[str, TypeBinding]:
    """Each type of ``catalogue`` with its entry, in the catalogue's order; :class:`IncompleteCatalogueError`
    naming everything missing when any type is not whole."""
    entries = tuple(entries)
    missing = missing_parts(catalogue, entries)
    if missing:
        raise IncompleteCatalogueError("; ".join(missing))
    by_name = {entry.spec.type: entry for entry in entries}
    return {name: attrs.evolve(by_name[name], spec=spec) for name, spec in catalogue.items()}


TYPES: Mapping[str, TypeBinding] = bind(CATALOGUE, ENTRIES)


def _unknown(delivery: Delivery) -> Executor:
    return Report(status="failed", error=f"неизвестный тип команды {delivery.type}")
    yield  # pragma: no cover - makes this a generator


def executor_for(
    delivery: Delivery, ctx: ExecContext, settings: Settings | None = None, *, types: Mapping[str, TypeBinding] = TYPES
) -> Executor:
    """The executor of the delivered command; drive it with ``send`` until it returns its :class:`Report`.
    ``settings``: those of the delivery's context, when already read (a dry run reads them once a batch);
    ``types``: the bound types to take it from."""
    entry = types.get(delivery.type)
    if entry is None:
        return _unknown(delivery)
    return run_body(entry.executor, delivery, ctx, settings)
