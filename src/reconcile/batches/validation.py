"""Batch validation and normalisation (seed: «Пакет и порядок выполнения», «Пакет проекта», …).

A batch is valid as a whole or refused with every violation found (:mod:`reconcile.batches.all_errors`), the first in
command order being the seed's message every door answers: :func:`validate_batch` returns the normalised batch
to store, or raises :class:`~reconcile.batches.all_errors.InvalidBatch`. The caller passes in everything a rule needs
(settings, projects, the mirror labels of the keys the batch names, the stored files); nothing here reads a
database. What to look up for a body is the core's answer too: :func:`batch_needs` says it (or refuses a body too
large to look at), the caller fetches it once into a :class:`BatchContext`, and :func:`validate_batch` decides.
The rules past one command live in :mod:`reconcile.batches.rules`, the bodies the hub writes itself in
:mod:`reconcile.batches.bodies`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import attrs

from reconcile.batches.all_errors import BatchError, Errors, InvalidBatch
from reconcile.batches.bodies import (
    AUTO_REFRESH_AUTHOR,
    AUTO_REFRESH_CHANGES_TITLE,
    AUTO_REFRESH_TITLE,
    NO_PROJECTS_FOR_FULL_REFRESH,
    auto_refresh_body,
    refresh_body,
    retry_body,
)
from reconcile.batches.rules import BatchContext, BatchWalk, ProjectInfo, check_command_rules, key_values, raw_type
from reconcile.config.settings import Settings
from reconcile.guard import scope
from reconcile.queue import history
from reconcile.queue.pacing import estimate_seconds
from reconcile.vocabulary.catalogue import CATALOGUE, REFRESH_TYPE, creating_types
from reconcile.vocabulary.commands import check_command, is_jira_key, is_temp_key
from reconcile.vocabulary.errors import ValidationError

__all__ = [
    "AUTO_REFRESH_AUTHOR",
    "AUTO_REFRESH_CHANGES_TITLE",
    "AUTO_REFRESH_TITLE",
    "NO_PROJECTS_FOR_FULL_REFRESH",
    "BatchContext",
    "BatchError",
    "BatchNeeds",
    "InvalidBatch",
    "NewCommand",
    "NewNote",
    "ProjectInfo",
    "ValidBatch",
    "auto_refresh_body",
    "batch_keys",
    "batch_needs",
    "check_batch_size",
    "refresh_body",
    "retry_body",
    "validate_batch",
]

_TOP_REQUIRED = ("author", "title", "commands")
#: The types whose commands define a temp key (they create the issue it stands for).
_CREATING = creating_types(CATALOGUE)
_TOP_OPTIONAL = ("project", "notes")


@attrs.frozen(kw_only=True)
class BatchNeeds:
    """What to look up for a batch body: the mirror labels of the Jira ``keys``, which ``files`` (sha256) are stored."""

    keys: frozenset[str] = frozenset()
    files: frozenset[str] = frozenset()


@attrs.frozen(kw_only=True)
class NewCommand:
    seq: int
    type: str
    params: Mapping[str, Any]
    temp_key: str | None = None


@attrs.frozen(kw_only=True)
class NewNote:
    key: str
    text: str


@attrs.frozen(kw_only=True)
class ValidBatch:
    author: str
    title: str
    project: str | None
    commands: tuple[NewCommand, ...]
    notes: tuple[NewNote, ...]
    estimate_seconds: float


def _raw_commands(body: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    if not isinstance(body, dict) or not isinstance(body.get("commands"), list):
        return
    for command in body["commands"]:
        command_type = raw_type(command)
        if command_type is None or command_type not in CATALOGUE:
            continue
        params = command.get("params")
        if isinstance(params, dict):
            yield command_type, params


def check_batch_size(body: Any, settings: Settings) -> None:
    """At most ``max_batch_commands`` commands (DESIGN.md 3): checked first, before anything is looked up."""
    commands = body.get("commands") if isinstance(body, dict) else None
    if isinstance(commands, list) and len(commands) > settings.max_batch_commands:
        message = f"в пакете {len(commands)} команд; не больше {settings.max_batch_commands}"
        raise InvalidBatch((BatchError(command=None, message=message),))


def batch_needs(body: Any, settings: Settings) -> BatchNeeds:
    """What a (possibly invalid) batch body needs looked up before :func:`validate_batch` decides: the real Jira
    keys it names and the files of its attachments; 422 first when it is too large (nothing is looked up then)."""
    check_batch_size(body, settings)
    commands = list(_raw_commands(body))
    return BatchNeeds(
        keys=frozenset(key for kind, params in commands for key in key_values(kind, params) if is_jira_key(key)),
        files=frozenset(
            params[name]
            for kind, params in commands
            if (name := CATALOGUE[kind].file_param) is not None and isinstance(params.get(name), str)
        ),
    )


def batch_keys(commands: tuple[NewCommand, ...]) -> list[str]:
    """All keys of a batch's commands, temp keys included, in order of first appearance (the tail refresh)."""
    keys: dict[str, None] = {}
    for command in commands:
        if command.type == REFRESH_TYPE:
            continue
        if command.temp_key:
            keys.setdefault(command.temp_key)
        for key in key_values(command.type, command.params):
            keys.setdefault(key)
    return list(keys)


def _note(number: int, note: Any, state: BatchWalk) -> NewNote:
    if not isinstance(note, dict) or set(note) != {"key", "text"}:
        raise ValidationError(f"заметка {number}: ожидается объект {{key, text}}")
    key, text = note["key"], note["text"]
    if not (is_jira_key(key) or is_temp_key(key)):
        raise ValidationError(f"заметка {number}: key — ожидается ключ задачи или new:<n>")
    if is_temp_key(key) and key not in state.temp_keys:
        raise ValidationError(f"заметка {number}: временный ключ {key} — в пакете нет его ensure_issue")
    scope.check_keys([key], state.ctx.settings.jira_project, where=f"заметка {number}: ")
    if not isinstance(text, str) or not text.strip():
        raise ValidationError(f"заметка {number}: text — ожидается непустая строка")
    return NewNote(key=key, text=text)


def _notes(body: dict[str, Any], state: BatchWalk, errors: Errors) -> tuple[NewNote, ...]:
    raw = body.get("notes")
    if raw is None:
        return ()
    if not isinstance(raw, list):
        errors.add(None, ValidationError("notes — ожидается список {key, text}"))
        return ()
    notes: list[NewNote] = []
    for number, note in enumerate(raw, start=1):
        try:
            notes.append(_note(number, note, state))
        except ValidationError as exc:
            errors.add(None, exc)
    return tuple(notes)


def _text_field(body: dict[str, Any], name: str) -> str:
    if name not in body:
        raise ValidationError(
            f"нет {name}; ожидаются {', '.join(_TOP_REQUIRED)}; необязательные {', '.join(_TOP_OPTIONAL)}"
        )
    value = body[name]
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(f"{name} — ожидается непустая строка")
    return value.strip()


def _top(body: dict[str, Any], ctx: BatchContext, errors: Errors) -> tuple[str, str, str | None]:
    """The batch's own fields (author, title, project), each refusal gathered."""
    unknown = [name for name in body if name not in _TOP_REQUIRED + _TOP_OPTIONAL]
    if unknown:
        errors.add(
            None,
            ValidationError(
                f"лишние поля {', '.join(unknown)}; ожидаются {', '.join(_TOP_REQUIRED)}; "
                f"необязательные {', '.join(_TOP_OPTIONAL)}"
            ),
        )
    found: list[str] = []
    for name in ("author", "title"):
        try:
            found.append(_text_field(body, name))
        except ValidationError as exc:
            errors.add(None, exc)
            found.append("")
    project = body.get("project")
    if project is not None:
        if not isinstance(project, str) or not project.strip():
            errors.add(None, ValidationError("project — ожидается имя проекта"))
            project = None
        elif project not in ctx.projects:
            errors.add(None, ValidationError(f"нет проекта {project}"))
            project = None
    return found[0], found[1], project


def _commands(raw_commands: list[Any], state: BatchWalk, errors: Errors, *, by_hub: bool) -> list[NewCommand]:
    for index, command in enumerate(raw_commands, start=1):
        if raw_type(command) in _CREATING:
            params = command.get("params")
            if isinstance(params, dict) and is_temp_key(params.get("temp_key")):
                state.all_temp_keys.setdefault(params["temp_key"], index)
    commands: list[NewCommand] = []
    for index, raw in enumerate(raw_commands, start=1):
        try:
            command_type, params = check_command(index, raw, by_hub=by_hub)
            check_command_rules(state, index, command_type, params)
        except ValidationError as exc:
            errors.add(index, exc)
            state.define_refused(index, raw)
            continue
        temp_key = params["temp_key"] if CATALOGUE[command_type].creates_issue else None
        commands.append(NewCommand(seq=index, type=command_type, params=params, temp_key=temp_key))
    return commands


def validate_batch(body: Any, ctx: BatchContext, *, by_hub: bool = False) -> ValidBatch:
    """Validate and normalise a batch body; :class:`InvalidBatch` with every violation found, the first in
    command order its message.

    ``by_hub``: a batch the hub makes itself (its automatic refresh), whose commands may set the catalogue's hub
    parameters (``refresh.changes``); every other door leaves it false."""
    if not isinstance(body, dict):
        message = "ожидается объект {author, title, project?, commands, notes?}"
        raise InvalidBatch((BatchError(command=None, message=message),))
    check_batch_size(body, ctx.settings)
    errors = Errors()
    author, title, project = _top(body, ctx, errors)
    raw_commands = body.get("commands")
    if not isinstance(raw_commands, list) or not raw_commands:
        errors.add(None, ValidationError("commands — ожидается непустой список команд {type, params}"))
        raw_commands = []

    base_jql = history.base_jql(ctx.settings.jira_project, list(ctx.projects))
    state = BatchWalk(ctx=ctx, project=project, base_jql=base_jql)
    commands = _commands(raw_commands, state, errors, by_hub=by_hub)
    notes = _notes(body, state, errors)
    errors.raise_any()

    if any(c.type != REFRESH_TYPE for c in commands):
        commands.append(
            NewCommand(seq=len(commands) + 1, type=REFRESH_TYPE, params={"keys": batch_keys(tuple(commands))})
        )
    return ValidBatch(
        author=author,
        title=title,
        project=project,
        commands=tuple(commands),
        notes=notes,
        estimate_seconds=estimate_seconds((c.type for c in commands), ctx.settings),
    )
