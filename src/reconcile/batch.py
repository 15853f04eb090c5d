"""Batch validation and normalisation (seed: «Пакет и порядок выполнения», «Пакет проекта», …).

A batch is valid as a whole or rejected with the first violation in command order: :func:`validate_batch`
returns the normalised batch to store, or raises :class:`~reconcile.errors.ValidationError` with the
seed's message. The caller passes in everything a rule needs (settings, projects, the mirror labels of the
keys the batch names, the stored files); nothing here reads a database. What to look up for a body is the core's
answer too: :func:`batch_needs` says it (or refuses a body too large to look at), the caller fetches it once into
a :class:`BatchContext`, and :func:`validate_batch` decides.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import attrs

from reconcile import history, scope
from reconcile.catalogue import CATALOGUE, creating_types
from reconcile.commands import (
    check_command,
    command_label,
    is_jira_key,
    is_temp_key,
    key_params,
)
from reconcile.errors import ValidationError
from reconcile.pacing import estimate_seconds
from reconcile.settings import Settings

__all__ = [
    "AUTO_REFRESH_AUTHOR",
    "AUTO_REFRESH_CHANGES_TITLE",
    "AUTO_REFRESH_TITLE",
    "NO_PROJECTS_FOR_FULL_REFRESH",
    "BatchContext",
    "BatchNeeds",
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

NO_PROJECTS_FOR_FULL_REFRESH = "нет проектов — полное обновление невозможно"
#: The batch a claim creates when the queue is empty and the last full refresh is too old (DESIGN.md 6).
AUTO_REFRESH_AUTHOR = "hub"
AUTO_REFRESH_TITLE = "автообновление"
#: The title of the hub's change-only refresh (DESIGN.md 6.2).
AUTO_REFRESH_CHANGES_TITLE = "автообновление (изменения)"

_TOP_REQUIRED = ("author", "title", "commands")
#: The types whose commands define a temp key (they create the issue it stands for).
_CREATING = creating_types(CATALOGUE)
_TOP_OPTIONAL = ("project", "notes")


@attrs.frozen(kw_only=True)
class ProjectInfo:
    name: str
    board_id: int | None = None
    board_type: str | None = None


@attrs.frozen(kw_only=True)
class BatchNeeds:
    """What to look up for a batch body: the mirror labels of the Jira ``keys``, which ``files`` (sha256) are stored."""

    keys: frozenset[str] = frozenset()
    files: frozenset[str] = frozenset()


@attrs.frozen(kw_only=True)
class BatchContext:
    """What validation needs to know about the hub's state.

    ``projects`` in creation order; ``mirror_labels`` holds the labels of the mirror issues among the keys of
    :func:`batch_needs` (a key absent from it is not in the mirror); ``files`` maps the sha256 of stored files to
    their size.
    """

    settings: Settings
    projects: Mapping[str, ProjectInfo] = attrs.field(factory=dict)
    mirror_labels: Mapping[str, tuple[str, ...]] = attrs.field(factory=dict)
    files: Mapping[str, int] = attrs.field(factory=dict)


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


# --- tolerant walks over any JSON, for the caller to prefetch what validation needs --------------------


def _raw_commands(body: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    if not isinstance(body, dict) or not isinstance(body.get("commands"), list):
        return
    for command in body["commands"]:
        if not isinstance(command, dict):
            continue
        command_type, params = command.get("type"), command.get("params")
        if isinstance(command_type, str) and command_type in CATALOGUE and isinstance(params, dict):
            yield command_type, params


def _key_values(command_type: str, params: Mapping[str, Any]) -> Iterator[str]:
    for name in key_params(command_type):
        value = params.get(name)
        values = value if isinstance(value, list) else [value]
        yield from (v for v in values if isinstance(v, str))


def check_batch_size(body: Any, settings: Settings) -> None:
    """At most ``max_batch_commands`` commands (DESIGN.md 3): checked first, before anything is looked up."""
    commands = body.get("commands") if isinstance(body, dict) else None
    if isinstance(commands, list) and len(commands) > settings.max_batch_commands:
        raise ValidationError(f"в пакете {len(commands)} команд; не больше {settings.max_batch_commands}")


def batch_needs(body: Any, settings: Settings) -> BatchNeeds:
    """What a (possibly invalid) batch body needs looked up before :func:`validate_batch` decides: the real Jira
    keys it names and the files of its attachments; 422 first when it is too large (nothing is looked up then)."""
    check_batch_size(body, settings)
    commands = list(_raw_commands(body))
    return BatchNeeds(
        keys=frozenset(key for kind, params in commands for key in _key_values(kind, params) if is_jira_key(key)),
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
        if command.type == "refresh":
            continue
        if command.temp_key:
            keys.setdefault(command.temp_key)
        for key in _key_values(command.type, command.params):
            keys.setdefault(key)
    return list(keys)


def retry_body(
    *, command_type: str, params: Mapping[str, Any], author: str, title: str, project: str | None
) -> dict[str, Any]:
    """The body that re-validates a command as new (``POST /commands/{id}/retry``).

    The hub-added ``board_id`` is dropped so that the board is resolved again, and so are the type's hub
    parameters (a retry is a person's request: a retried change-only refresh reads its JQL whole, as ``POST
    /refresh {}`` does); temp keys must already be substituted by the caller.
    """
    dropped = {p.name for p in CATALOGUE[command_type].hub_params} if command_type in CATALOGUE else set()
    dropped |= {"board_id"} if command_type == "ensure_sprint" else set()
    clean = {k: v for k, v in params.items() if k not in dropped}
    return {
        "author": author,
        "title": title,
        "project": project,
        "commands": [{"type": command_type, "params": clean}],
    }


def refresh_body(*, keys: list[str] | None, jql: str | None, base_jql: str | None, author: str) -> dict[str, Any]:
    """The batch of ``POST /refresh``: ``{keys}``, ``{jql}``, or neither — a full refresh by the base JQL."""
    if keys is not None and jql is not None:
        raise ValidationError("только одно из keys, jql")
    params: dict[str, Any]
    if keys is not None:
        params = {"keys": keys}
    elif jql is not None:
        params = {"jql": jql}
    elif base_jql is None:
        raise ValidationError(NO_PROJECTS_FOR_FULL_REFRESH)
    else:
        params = {"jql": base_jql}
    return {"author": author, "title": "обновление из Jira", "commands": [{"type": "refresh", "params": params}]}


def auto_refresh_body(base_jql: str, *, changes: bool = False) -> dict[str, Any]:
    """The hub's own refresh batch (DESIGN.md 6, 6.2): a full one by the base JQL, or with ``changes`` the
    change-only one (``{"jql": <base JQL>, "changes": true}``, titled :data:`AUTO_REFRESH_CHANGES_TITLE`), which
    only :func:`validate_batch` with ``by_hub=True`` accepts."""
    params: dict[str, Any] = {"jql": base_jql, "changes": True} if changes else {"jql": base_jql}
    return {
        "author": AUTO_REFRESH_AUTHOR,
        "title": AUTO_REFRESH_CHANGES_TITLE if changes else AUTO_REFRESH_TITLE,
        "commands": [{"type": "refresh", "params": params}],
    }


# --- validation -------------------------------------------------------------------------------------------


def _text_field(body: dict[str, Any], name: str) -> str:
    if name not in body:
        raise ValidationError(
            f"нет {name}; ожидаются {', '.join(_TOP_REQUIRED)}; необязательные {', '.join(_TOP_OPTIONAL)}"
        )
    value = body[name]
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(f"{name} — ожидается непустая строка")
    return value.strip()


@attrs.define
class _Batch:
    """What the walk over the commands has seen so far."""

    ctx: BatchContext
    project: str | None
    base_jql: str | None = None  # the base JQL of the context's projects: a full refresh, kept as it is
    temp_keys: dict[str, int] = attrs.Factory(dict)  # temp key -> index of its ensure_issue
    temp_labels: dict[str, list[str]] = attrs.Factory(dict)
    summaries: dict[str, int] = attrs.Factory(dict)
    all_temp_keys: dict[str, int] = attrs.Factory(dict)  # every ensure_issue temp key of the body

    def in_project(self, key: str) -> bool:
        """A temp key of this batch, or a mirror issue with the project label (exact, as in the slice)."""
        assert self.project is not None
        if is_temp_key(key):
            return key in self.temp_keys
        return self.project in self.ctx.mirror_labels.get(key, ())

    def other_project(self, label: str) -> bool:
        """The label is another hub project's name in any case (only a project batch asks)."""
        assert self.project is not None
        folded = label.casefold()
        return folded != self.project.casefold() and any(name.casefold() == folded for name in self.ctx.projects)

    def labels_of(self, key: str) -> list[str]:
        """The labels of a key: a temp key's are known, as ``_check_temp_refs`` has already run."""
        if is_temp_key(key):
            return self.temp_labels[key]
        return list(self.ctx.mirror_labels.get(key, ()))


def _check_temp_refs(state: _Batch, index: int, command_type: str, params: Mapping[str, Any]) -> None:
    for key in _key_values(command_type, params):
        if not is_temp_key(key) or key in state.temp_keys:
            continue
        later = state.all_temp_keys.get(key)
        if later is not None:
            raise ValidationError(
                f"{command_label(index, None)}: {key} используется раньше своей ensure_issue (команда {later})"
            )
        raise ValidationError(
            f"{command_label(index, None)}: временный ключ {key} — в пакете нет ensure_issue с этим temp_key"
        )


def _ensure_issue(state: _Batch, index: int, params: dict[str, Any]) -> None:
    settings = state.ctx.settings
    temp_key = params["temp_key"]
    if temp_key in state.temp_keys:
        raise ValidationError(
            f"{command_label(index, None)}: временный ключ {temp_key} уже занят командой {state.temp_keys[temp_key]}"
        )
    summary = params["summary"].strip()
    if summary in state.summaries:
        raise ValidationError(
            f"{command_label(index, None)}: задача с темой «{summary}» уже создаётся в пакете "
            f"(команда {state.summaries[summary]})"
        )
    issue_type = params.get("issue_type") or "task"
    ref = settings.issue_types.get(issue_type)
    if ref is None or not ref.is_set():
        raise ValidationError(f"{command_label(index, None)}: нет настройки issue_types.{issue_type}")

    labels = list(params.get("labels") or [])
    if state.project is not None:
        project = state.project
        for label in labels:
            if state.other_project(label):
                raise ValidationError(f"метка другого проекта: {label}")
        labels = [project if label.casefold() == project.casefold() else label for label in labels]
        labels = list(dict.fromkeys(labels))
        if project not in labels:
            labels.append(project)
        params["labels"] = labels
    state.temp_keys[temp_key] = index
    state.temp_labels[temp_key] = labels
    state.summaries[summary] = index


def _ensure_fields_project(state: _Batch, params: Mapping[str, Any]) -> None:
    assert state.project is not None
    for label in params.get("labels_remove") or []:
        if label.casefold() == state.project.casefold():
            raise ValidationError(f"метку проекта {state.project} нельзя снять: {params['key']}")
    for label in params.get("labels_add") or []:
        if state.other_project(label):
            raise ValidationError(f"метка другого проекта: {label}")


def _resolve_board(state: _Batch, index: int, key: str) -> int:
    label = command_label(index, None)
    labels = state.labels_of(key)
    projects = [state.ctx.projects[name] for name in state.ctx.projects if name in labels]
    if not projects:
        raise ValidationError(f"{label}: {key} ни в одном проекте — доску для спринта не определить")
    boards = {p.board_id for p in projects}
    if len(boards) > 1:
        names = ", ".join(p.name for p in projects)
        raise ValidationError(f"{label}: {key} в нескольких проектах с разными досками: {names}")
    project = projects[0]
    if project.board_id is None:
        raise ValidationError(f"у проекта {project.name} нет доски")
    kinds = {p.board_type for p in projects}
    if "kanban" in kinds:
        kanban = next(p for p in projects if p.board_type == "kanban")
        raise ValidationError(f"у проекта {kanban.name} канбан-доска, спринтов нет")
    if None in kinds:
        unknown = next(p for p in projects if p.board_type is None)
        raise ValidationError(f"тип доски проекта {unknown.name} ещё не известен — дождитесь обновления из Jira")
    return project.board_id


def _check_command_rules(state: _Batch, index: int, command_type: str, params: dict[str, Any]) -> None:
    settings = state.ctx.settings
    scope.check_keys(_key_values(command_type, params), settings.jira_project)
    _check_temp_refs(state, index, command_type, params)
    spec = CATALOGUE[command_type]
    if spec.creates_issue:
        _ensure_issue(state, index, params)
        return
    project = state.project
    if command_type == "ensure_link":
        if params["link_type"] not in settings.link_types:
            raise ValidationError(
                f"{command_label(index, command_type)}: неизвестный тип связи «{params['link_type']}»; "
                f"доступны: {', '.join(settings.link_types)}"
            )
        if params["source"] == params["target"]:
            raise ValidationError(f"{command_label(index, command_type)}: source и target — одна задача")
        if project is not None and not (state.in_project(params["source"]) or state.in_project(params["target"])):
            raise ValidationError(f"ни {params['source']}, ни {params['target']} не в проекте {project}")
        return
    if command_type == "refresh":
        if isinstance(params.get("jql"), str):
            jql = params["jql"]
            params["jql"] = scope.scoped_jql(index, jql, jira_project=settings.jira_project, base_jql=state.base_jql)
        return
    if project is not None:
        if command_type == "ensure_fields":
            _ensure_fields_project(state, params)
        if not state.in_project(params["key"]):
            raise ValidationError(f"{params['key']} не в проекте {project}")
    if command_type == "ensure_sprint":
        params["board_id"] = _resolve_board(state, index, params["key"])
    elif spec.file_param is not None and params[spec.file_param] not in state.ctx.files:
        raise ValidationError(f"{command_label(index, None)}: файл {params[spec.file_param]} не загружен: POST /files")


def _notes(body: dict[str, Any], state: _Batch) -> tuple[NewNote, ...]:
    raw = body.get("notes")
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise ValidationError("notes — ожидается список {key, text}")
    notes: list[NewNote] = []
    for number, note in enumerate(raw, start=1):
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
        notes.append(NewNote(key=key, text=text))
    return tuple(notes)


def validate_batch(body: Any, ctx: BatchContext, *, by_hub: bool = False) -> ValidBatch:
    """Validate and normalise a batch body; the first violation in command order raises.

    ``by_hub``: a batch the hub makes itself (its automatic refresh), whose commands may set the catalogue's hub
    parameters (``refresh.changes``); every other door leaves it false."""
    if not isinstance(body, dict):
        raise ValidationError("ожидается объект {author, title, project?, commands, notes?}")
    check_batch_size(body, ctx.settings)
    unknown = [name for name in body if name not in _TOP_REQUIRED + _TOP_OPTIONAL]
    if unknown:
        raise ValidationError(
            f"лишние поля {', '.join(unknown)}; ожидаются {', '.join(_TOP_REQUIRED)}; "
            f"необязательные {', '.join(_TOP_OPTIONAL)}"
        )
    author = _text_field(body, "author")
    title = _text_field(body, "title")
    project = body.get("project")
    if project is not None:
        if not isinstance(project, str) or not project.strip():
            raise ValidationError("project — ожидается имя проекта")
        if project not in ctx.projects:
            raise ValidationError(f"нет проекта {project}")
    raw_commands = body.get("commands")
    if not isinstance(raw_commands, list) or not raw_commands:
        raise ValidationError("commands — ожидается непустой список команд {type, params}")

    base_jql = history.base_jql(ctx.settings.jira_project, list(ctx.projects))
    state = _Batch(ctx=ctx, project=project, base_jql=base_jql)
    for index, command in enumerate(raw_commands, start=1):
        if isinstance(command, dict) and command.get("type") in _CREATING:
            params = command.get("params")
            if isinstance(params, dict) and is_temp_key(params.get("temp_key")):
                state.all_temp_keys.setdefault(params["temp_key"], index)

    commands: list[NewCommand] = []
    for index, raw in enumerate(raw_commands, start=1):
        command_type, params = check_command(index, raw, by_hub=by_hub)
        _check_command_rules(state, index, command_type, params)
        temp_key = params["temp_key"] if CATALOGUE[command_type].creates_issue else None
        commands.append(NewCommand(seq=index, type=command_type, params=params, temp_key=temp_key))

    if any(c.type != "refresh" for c in commands):
        commands.append(NewCommand(seq=len(commands) + 1, type="refresh", params={"keys": batch_keys(tuple(commands))}))
    notes = _notes(body, state)
    return ValidBatch(
        author=author,
        title=title,
        project=project,
        commands=tuple(commands),
        notes=notes,
        estimate_seconds=estimate_seconds((c.type for c in commands), ctx.settings),
    )
