"""Request bodies of the hub's API and MCP tools: typed (attrs), parsed with the API's Russian messages.

A body class says what a request carries; :func:`parse` checks a JSON value against it — missing fields
before extra ones, then each value by its kind — and answers 422 with the field's name and what was expected
(«нет key; ожидаются key, text», «board_id — ожидается целое число или null»). The same classes describe the
bodies in the OpenAPI document (:mod:`hub_app.api.openapi`). Rules of the domain stay in :mod:`reconcile`: a
batch body is documented here but checked by :func:`reconcile.batch.validate_batch`.

A field whose absence means "leave as it is" (not "set to null") is listed in ``given``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, Literal, TypeVar

import attrs

from adapters.storage.models import DB_INT_MAX
from reconcile.errors import ValidationError
from reconcile.records import HistoryEntry, MirrorIssue, wire_history, wire_issue

__all__ = [
    "AgentProblemIn",
    "BatchIn",
    "CancelIn",
    "ClaimIn",
    "CommandIn",
    "EmptyIn",
    "NoteIn",
    "PagesIn",
    "ProjectIn",
    "ProjectPatchIn",
    "RefreshIn",
    "RejectIn",
    "ReportIn",
    "SettingsIn",
    "TokenIn",
    "json_schema",
    "meta",
    "page_bounds",
    "parse",
]

T = TypeVar("T")


# What a wrong value is told, by kind.
_KINDS: dict[str, str] = {
    "str": "строка",
    "nonempty": "непустая строка",
    "int": "целое число",
    "int?": "целое число или null",
    "str?": "строка или null",
    "bool": "логическое значение true/false",
    "number": "неотрицательное число",
    "list[str]": "список строк",
    "dict": "объект",
    "dict?": "объект или null",
    "list": "список",
}


def meta(name: str, doc: str = "", *, item: Callable[[Any, str], Any] | None = None, **schema: Any) -> dict[str, Any]:
    """The metadata of a body field: its kind (the keys of the kinds' table), its doc for MCP and OpenAPI, for a
    list the ``item`` that turns each element into its record (422 naming ``field[i]``), and JSON Schema extras
    (``minimum``, ``minItems``)."""
    return {"kind": name, "doc": doc, "item": item, "schema": schema}


_KIND_SCHEMAS: dict[str, dict[str, Any]] = {
    "str": {"type": "string"},
    "nonempty": {"type": "string", "minLength": 1},
    "int": {"type": "integer"},
    "bool": {"type": "boolean"},
    "number": {"type": "number", "minimum": 0},
    "list[str]": {"type": "array", "items": {"type": "string"}},
    "dict": {"type": "object"},
    "list": {"type": "array"},
}


def json_schema(cls: type[Any]) -> dict[str, Any]:
    """The JSON Schema of a body class (the input schema of an MCP tool), read from its fields' kinds."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    for field in attrs.fields(cls):
        meta = field.metadata
        if "kind" not in meta:
            continue
        base = {**_KIND_SCHEMAS[meta["kind"].rstrip("?")], **meta["schema"]}
        schema = {"anyOf": [base, {"type": "null"}]} if meta["kind"].endswith("?") else base
        if meta["doc"]:
            schema["description"] = meta["doc"]
        properties[field.name] = schema
        if field.default is attrs.NOTHING:
            required.append(field.name)
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and -DB_INT_MAX - 1 <= value <= DB_INT_MAX


def _kind_ok(kind: str, value: Any) -> bool:
    if kind.endswith("?") and value is None:
        return True
    base = kind.rstrip("?")
    checks: dict[str, bool] = {
        "str": isinstance(value, str),
        "nonempty": isinstance(value, str) and bool(value.strip()),
        "int": _is_int(value),
        "bool": isinstance(value, bool),
        "number": isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and value >= 0,
        "list[str]": isinstance(value, list) and all(isinstance(v, str) for v in value),
        "dict": isinstance(value, dict),
        "list": isinstance(value, list),
    }
    return checks[base]


def expected_fields(cls: type[Any]) -> str:
    """«ожидаются <обязательные>; необязательные <список>» of a body class."""
    fields = [f for f in attrs.fields(cls) if "kind" in f.metadata]
    required = [f.name for f in fields if f.default is attrs.NOTHING]
    optional = [f.name for f in fields if f.default is not attrs.NOTHING]
    expected = "ожидаются " + (", ".join(required) or "—")
    if optional:
        expected += "; необязательные " + ", ".join(optional)
    return expected


def parse(cls: type[T], body: Any) -> T:
    """``body`` (a JSON value; ``None`` = an empty body) as a ``cls``; 422 naming the field on any mismatch."""
    fields = {f.name: f for f in attrs.fields(cls) if "kind" in f.metadata}  # type: ignore[arg-type]
    expected = expected_fields(cls)
    if body is None:
        body = {}
    if not isinstance(body, dict):
        raise ValidationError(f"тело запроса — ожидается объект; {expected}")
    missing = [name for name, f in fields.items() if f.default is attrs.NOTHING and name not in body]
    if missing:
        raise ValidationError(f"нет {', '.join(missing)}; {expected}")
    extra = [name for name in body if name not in fields]
    if extra:
        raise ValidationError(f"лишние поля {', '.join(extra)}; {expected}")
    for name, value in body.items():
        kind = fields[name].metadata["kind"]
        if not _kind_ok(kind, value):
            raise ValidationError(f"{name} — ожидается {_KINDS[kind]}")
    values = dict(body)
    for name, value in body.items():
        item = fields[name].metadata.get("item")
        if item is not None and value is not None:
            values[name] = [item(element, f"{name}[{i}]") for i, element in enumerate(value)]
    if "given" in {f.name for f in attrs.fields(cls)}:  # type: ignore[arg-type]
        values["given"] = frozenset(body)
    return cls(**values)


def page_bounds(limit: int | None, offset: int | None) -> tuple[int, int]:
    """``?limit&offset`` of a list: limit 100 by default, at most 1000; 422 on a negative or huge value."""
    for name, value in (("limit", limit), ("offset", offset)):
        if value is not None and not (0 <= value <= 2**53):
            raise ValidationError(f"{name} — ожидается неотрицательное целое")
    return (100 if limit is None else min(limit, 1000)), (offset or 0)


_HIDDEN = {"doc": False}


# --- interface --------------------------------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class CommandIn:
    """One command of a batch: its parameters are described by the command catalogue (one source)."""

    type: str
    params: dict[str, Any]


@attrs.frozen(kw_only=True)
class BatchNoteIn:
    key: str
    text: str


@attrs.frozen(kw_only=True)
class BatchIn:
    """``POST /batches`` (validated as a whole by the core: the first violation answers 422)."""

    author: str
    title: str
    commands: list[CommandIn]
    project: str | None = None
    notes: list[BatchNoteIn] | None = None


@attrs.frozen(kw_only=True)
class EmptyIn:
    """A request without fields (``{}`` or an empty body)."""


@attrs.frozen(kw_only=True)
class CancelIn:
    force: bool = attrs.field(
        default=False, metadata=meta("bool", "и команду, уже выданную агенту (она, возможно, уже пишется в Jira)")
    )


@attrs.frozen(kw_only=True)
class RejectIn:
    reason: str = attrs.field(metadata=meta("nonempty", "почему пакет отклонён (попадёт в error его команд)"))


@attrs.frozen(kw_only=True)
class NoteIn:
    key: str = attrs.field(metadata=meta("nonempty", "ключ задачи Jira (AURORA-1538)"))
    text: str = attrs.field(metadata=meta("nonempty"))


@attrs.frozen(kw_only=True)
class RefreshIn:
    """``{keys}``, ``{jql}`` or ``{}`` (a full refresh by the base JQL)."""

    keys: list[str] | None = attrs.field(default=None, metadata=meta("list[str]"))
    jql: str | None = attrs.field(default=None, metadata=meta("nonempty"))
    given: frozenset[str] = attrs.field(default=frozenset(), metadata=_HIDDEN)


# --- admin ------------------------------------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class ProjectIn:
    name: str = attrs.field(metadata=meta("nonempty", "метка Jira проекта"))
    board_id: int | None = attrs.field(default=None, metadata=meta("int?"))
    board_type: Literal["scrum", "kanban"] | None = attrs.field(default=None, metadata=meta("str?"))


@attrs.frozen(kw_only=True)
class ProjectPatchIn:
    board_id: int | None = attrs.field(default=None, metadata=meta("int?"))
    board_type: Literal["scrum", "kanban"] | None = attrs.field(default=None, metadata=meta("str?"))
    given: frozenset[str] = attrs.field(default=frozenset(), metadata=_HIDDEN)


@attrs.frozen(kw_only=True)
class TokenIn:
    name: str = attrs.field(metadata=meta("nonempty"))
    role: Literal["agent", "interface", "admin"] = attrs.field(metadata=meta("str"))
    needs_approval: bool = attrs.field(
        default=False, metadata=meta("bool", "каждый пакет этого токена ждёт одобрения человеком (только interface)")
    )


@attrs.frozen(kw_only=True)
class IssueTypeIn:
    id: str | None = None
    name: str | None = None


@attrs.frozen(kw_only=True)
class EpicLinkIn:
    mode: Literal["field", "parent"] = "field"
    field_id: str | None = None


@attrs.frozen(kw_only=True)
class ApprovalIn:
    """Per door (``mcp``, ``http``): whether its batches wait for a person's approval."""

    mcp: bool | None = None
    http: bool | None = None


@attrs.frozen(kw_only=True)
class SettingsIn:
    """``PATCH /settings``: any subset of the settings, merged into the current ones (objects key by key, ``null``
    restores a default) and checked as a whole by :mod:`reconcile.settings`."""

    jira_project: str | None = None
    issue_types: dict[str, IssueTypeIn] | None = None
    epic_name_field_id: str | None = None
    epic_link: EpicLinkIn | None = None
    fields: dict[str, str] | None = None
    link_types: dict[str, str] | None = None
    pacing: dict[str, float] | None = None
    auto_refresh_minutes: float | None = None
    full_refresh_hours: float | None = None
    claim_wait_seconds: float | None = None
    max_file_bytes: int | None = None
    max_store_bytes: int | None = None
    file_retention_hours: float | None = None
    max_batch_commands: int | None = None
    approval: ApprovalIn | None = None


# --- agent ------------------------------------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class ClaimIn:
    agent_id: str = attrs.field(metadata=meta("nonempty"))
    version: str | None = attrs.field(default=None, metadata=meta("str?"))
    jira_user: str | None = attrs.field(default=None, metadata=meta("str?"))
    jira_time_zone: str | None = attrs.field(default=None, metadata=meta("str?"))
    symmetric_link_types: list[str] | None = attrs.field(default=None, metadata=meta("list[str]"))
    wait: float | None = attrs.field(default=None, metadata=meta("number", "секунды долгого запроса"))
    instance: str | None = attrs.field(
        default=None,
        metadata=meta("str?", "процесс агента (из его журнала): второй процесс с тем же agent_id получает 409"),
    )
    given: frozenset[str] = attrs.field(default=frozenset(), metadata=_HIDDEN)


@attrs.frozen(kw_only=True)
class AgentProblemIn:
    """What keeps the agent from claiming (``POST /agent/status``): one line naming the URL and the fix."""

    agent_id: str = attrs.field(metadata=meta("nonempty"))
    version: str | None = attrs.field(default=None, metadata=meta("str?"))
    instance: str | None = attrs.field(default=None, metadata=meta("str?", "процесс агента (из его журнала)"))
    last_error: str | None = attrs.field(
        metadata=meta("str?", "почему агент не может работать; null — больше ничего не мешает")
    )
    given: frozenset[str] = attrs.field(default=frozenset(), metadata=_HIDDEN)


@attrs.frozen(kw_only=True)
class PagesIn:
    """One page of a refresh; the records are checked strictly by :func:`reconcile.records.wire_issue`."""

    page: int = attrs.field(metadata=meta("int"))
    kind: Literal["issues", "neighbours", "history"] | None = attrs.field(default=None, metadata=meta("str"))
    issues: list[MirrorIssue] | None = attrs.field(default=None, metadata=meta("list", item=wire_issue))
    history: list[HistoryEntry] | None = attrs.field(default=None, metadata=meta("list", item=wire_history))


@attrs.frozen(kw_only=True)
class OperationIn:
    """A write the agent made in Jira."""

    method: str
    path: str
    status: int


def _operation(value: Any, what: str) -> OperationIn:
    if not (
        isinstance(value, dict)
        and set(value) == {"method", "path", "status"}
        and isinstance(value["method"], str)
        and isinstance(value["path"], str)
        and _is_int(value["status"])
    ):
        raise ValidationError(f"{what}: ожидается объект {{method, path, status}}")
    return OperationIn(method=value["method"], path=value["path"], status=value["status"])


@attrs.frozen(kw_only=True)
class ReportIn:
    status: Literal["done", "failed"] = attrs.field(metadata=meta("str"))
    result: dict[str, Any] | None = attrs.field(default=None, metadata=meta("dict?"))
    error: str | None = attrs.field(default=None, metadata=meta("str?"))
    jira_calls: int | None = attrs.field(default=None, metadata=meta("int?"))
    operations: list[OperationIn] | None = attrs.field(default=None, metadata=meta("list", item=_operation))


def documented(value: Mapping[str, Any]) -> bool:
    """Whether an attrs field's metadata lets it into the OpenAPI document."""
    return value.get("doc", True) is not False
