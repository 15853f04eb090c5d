"""The rules of a batch that look past one command (seed: «Пакет и порядок выполнения», «Пакет проекта», …).

:class:`BatchWalk` is what the walk over a batch's commands has seen so far (its temp keys, the summaries being
created, the project's labels); :func:`check_command_rules` holds one command, already checked against the
catalogue, to the rules that need the rest of the batch or the hub's state, and normalises its params in place
(a project batch's labels, a refresh's JQL, the sprint's board). Each refusal is a
:class:`~reconcile.vocabulary.errors.ValidationError` naming the parameter it is about.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import attrs

from reconcile.config.settings import Settings
from reconcile.guard import scope
from reconcile.vocabulary.catalogue import CATALOGUE, REFRESH_TYPE, CommandType
from reconcile.vocabulary.commands import command_label, is_temp_key, key_params
from reconcile.vocabulary.errors import ValidationError

__all__ = ["BatchContext", "BatchWalk", "ProjectInfo", "check_command_rules", "key_items", "key_values", "raw_type"]


@attrs.frozen(kw_only=True)
class ProjectInfo:
    name: str
    board_id: int | None = None
    board_type: str | None = None


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


def key_items(command_type: str, params: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """``(parameter, key)`` for every issue or temp key a command names (refresh ``keys`` is a list)."""
    for name in key_params(command_type):
        value = params.get(name)
        values = value if isinstance(value, list) else [value]
        yield from ((name, v) for v in values if isinstance(v, str))


def key_values(command_type: str, params: Mapping[str, Any]) -> Iterator[str]:
    return (key for _, key in key_items(command_type, params))


def raw_type(raw: Any) -> str | None:
    """The ``type`` of a command as sent, when it is a string: anything else (an object, a list) is no type's name
    and must not reach a lookup by name, where it would not even hash."""
    found = raw.get("type") if isinstance(raw, dict) else None
    return found if isinstance(found, str) else None


@attrs.define
class BatchWalk:
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

    def define_refused(self, index: int, raw: Any) -> None:
        """A creating command that was refused still defines its temp key for the commands after it (when no
        other command holds it), so that they are not refused for naming it: one mistake, one error."""
        command_type = raw_type(raw)
        params = raw.get("params") if command_type in CATALOGUE else None
        if command_type is None or not isinstance(params, dict) or not CATALOGUE[command_type].creates_issue:
            return
        temp_key = params.get("temp_key")
        if isinstance(temp_key, str) and is_temp_key(temp_key) and temp_key not in self.temp_keys:
            labels = params.get("labels")
            self.temp_keys[temp_key] = index
            self.temp_labels[temp_key] = [v for v in labels if isinstance(v, str)] if isinstance(labels, list) else []


def _check_temp_refs(state: BatchWalk, index: int, command_type: str, params: Mapping[str, Any]) -> None:
    for name, key in key_items(command_type, params):
        if not is_temp_key(key) or key in state.temp_keys:
            continue
        later = state.all_temp_keys.get(key)
        if later is not None:
            raise ValidationError(
                f"{command_label(index, None)}: {key} используется раньше своей ensure_issue (команда {later})",
                param=name,
            )
        raise ValidationError(
            f"{command_label(index, None)}: временный ключ {key} — в пакете нет ensure_issue с этим temp_key",
            param=name,
        )


def _ensure_issue(state: BatchWalk, index: int, params: dict[str, Any]) -> None:
    settings = state.ctx.settings
    temp_key = params["temp_key"]
    if temp_key in state.temp_keys:
        raise ValidationError(
            f"{command_label(index, None)}: временный ключ {temp_key} уже занят командой {state.temp_keys[temp_key]}",
            param="temp_key",
        )
    summary = params["summary"].strip()
    if summary in state.summaries:
        raise ValidationError(
            f"{command_label(index, None)}: задача с темой «{summary}» уже создаётся в пакете "
            f"(команда {state.summaries[summary]})",
            param="summary",
        )
    issue_type = params.get("issue_type") or "task"
    ref = settings.issue_types.get(issue_type)
    if ref is None or not ref.is_set():
        raise ValidationError(
            f"{command_label(index, None)}: нет настройки issue_types.{issue_type}", param="issue_type"
        )

    labels = list(params.get("labels") or [])
    if state.project is not None:
        project = state.project
        for label in labels:
            if state.other_project(label):
                raise ValidationError(f"метка другого проекта: {label}", param="labels")
        labels = [project if label.casefold() == project.casefold() else label for label in labels]
        labels = list(dict.fromkeys(labels))
        if project not in labels:
            labels.append(project)
        params["labels"] = labels
    state.temp_keys[temp_key] = index
    state.temp_labels[temp_key] = labels
    state.summaries[summary] = index


def _ensure_fields_project(state: BatchWalk, params: Mapping[str, Any]) -> None:
    assert state.project is not None
    for label in params.get("labels_remove") or []:
        if label.casefold() == state.project.casefold():
            raise ValidationError(f"метку проекта {state.project} нельзя снять: {params['key']}", param="labels_remove")
    for label in params.get("labels_add") or []:
        if state.other_project(label):
            raise ValidationError(f"метка другого проекта: {label}", param="labels_add")


def _resolve_board(state: BatchWalk, index: int, key: str) -> int:
    label = command_label(index, None)
    labels = state.labels_of(key)
    projects = [state.ctx.projects[name] for name in state.ctx.projects if name in labels]
    if not projects:
        raise ValidationError(f"{label}: {key} ни в одном проекте — доску для спринта не определить", param="key")
    boards = {p.board_id for p in projects}
    if len(boards) > 1:
        names = ", ".join(p.name for p in projects)
        raise ValidationError(f"{label}: {key} в нескольких проектах с разными досками: {names}", param="key")
    project = projects[0]
    if project.board_id is None:
        raise ValidationError(f"у проекта {project.name} нет доски", param="sprint")
    kinds = {p.board_type for p in projects}
    if "kanban" in kinds:
        kanban = next(p for p in projects if p.board_type == "kanban")
        raise ValidationError(f"у проекта {kanban.name} канбан-доска, спринтов нет", param="sprint")
    if None in kinds:
        unknown = next(p for p in projects if p.board_type is None)
        raise ValidationError(
            f"тип доски проекта {unknown.name} ещё не известен — дождитесь обновления из Jira", param="sprint"
        )
    return project.board_id


def _ensure_link(state: BatchWalk, index: int, params: Mapping[str, Any]) -> None:
    settings, project = state.ctx.settings, state.project
    if params["link_type"] not in settings.link_types:
        raise ValidationError(
            f"{command_label(index, 'ensure_link')}: неизвестный тип связи «{params['link_type']}»; "
            f"доступны: {', '.join(settings.link_types)}",
            param="link_type",
        )
    if params["source"] == params["target"]:
        raise ValidationError(f"{command_label(index, 'ensure_link')}: source и target — одна задача", param="target")
    if project is not None and not (state.in_project(params["source"]) or state.in_project(params["target"])):
        raise ValidationError(f"ни {params['source']}, ни {params['target']} не в проекте {project}", param="source")


def _check_scope(state: BatchWalk, command_type: str, params: Mapping[str, Any]) -> None:
    for name, key in key_items(command_type, params):
        try:
            scope.check_keys([key], state.ctx.settings.jira_project)
        except ValidationError as exc:
            raise ValidationError(exc.message, param=name) from None


def check_command_rules(state: BatchWalk, index: int, command_type: str, params: dict[str, Any]) -> None:
    """Hold command ``index`` to the rules past the catalogue; the first one it breaks raises."""
    settings = state.ctx.settings
    _check_scope(state, command_type, params)
    _check_temp_refs(state, index, command_type, params)
    spec = CATALOGUE[command_type]
    if spec.creates_issue:
        _ensure_issue(state, index, params)
        return
    project = state.project
    if command_type == CommandType.ENSURE_LINK:
        _ensure_link(state, index, params)
        return
    if command_type == REFRESH_TYPE:
        if isinstance(params.get("jql"), str):
            jql = params["jql"]
            try:
                params["jql"] = scope.scoped_jql(
                    index, jql, jira_project=settings.jira_project, base_jql=state.base_jql
                )
            except ValidationError as exc:
                raise ValidationError(exc.message, param="jql") from None
        return
    if project is not None:
        if command_type == CommandType.ENSURE_FIELDS:
            _ensure_fields_project(state, params)
        if not state.in_project(params["key"]):
            raise ValidationError(f"{params['key']} не в проекте {project}", param="key")
    if command_type == CommandType.ENSURE_SPRINT:
        params["board_id"] = _resolve_board(state, index, params["key"])
    elif spec.file_param is not None and params[spec.file_param] not in state.ctx.files:
        raise ValidationError(
            f"{command_label(index, None)}: файл {params[spec.file_param]} не загружен: POST /files",
            param=spec.file_param,
        )
