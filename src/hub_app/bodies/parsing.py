"""How a request body is read: typed (attrs), parsed with the API's Russian messages.

A body class says what a request carries; :func:`parse` checks a JSON value against it — missing fields
before extra ones, then each value by its kind — and answers 422 with the field's name and what was expected
(«нет key; ожидаются key, text», «board_id — ожидается целое число или null»). The same classes describe the
bodies in the OpenAPI document (:mod:`hub_app.api.openapi`) and the MCP tools' input schemas (:func:`json_schema`).

A field whose absence means "leave as it is" (not "set to null") is listed in ``given`` (a field marked
:data:`HIDDEN`, left out of the documents).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import attrs

from adapters.storage.models import DB_INT_MAX
from reconcile.vocabulary import ValidationError

__all__ = [
    "HIDDEN",
    "documented",
    "expected_fields",
    "given_json",
    "is_body",
    "is_db_int",
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


def meta(
    name: str,
    doc: str = "",
    *,
    item: Callable[[Any, str], Any] | None = None,
    missing: str | None = None,
    **schema: Any,
) -> dict[str, Any]:
    """The metadata of a body field: its kind (the keys of the kinds' table), its doc for MCP and OpenAPI, for a
    list the ``item`` that turns each element into its record (422 naming ``field[i]``), what a body without this
    required field (or no object at all) is told instead of «нет …», and JSON Schema extras (``minimum``,
    ``minItems``)."""
    return {"kind": name, "doc": doc, "item": item, "missing": missing, "schema": schema}


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


def is_db_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and -DB_INT_MAX - 1 <= value <= DB_INT_MAX


def _kind_ok(kind: str, value: Any) -> bool:
    if kind.endswith("?") and value is None:
        return True
    base = kind.rstrip("?")
    checks: dict[str, bool] = {
        "str": isinstance(value, str),
        "nonempty": isinstance(value, str) and bool(value.strip()),
        "int": is_db_int(value),
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


def is_body(cls: Any) -> bool:
    """Whether ``cls`` is a body class :func:`parse` reads: an attrs class each of whose fields says its kind
    (``given`` aside; :class:`EmptyIn` has none)."""
    return attrs.has(cls) and all(f.name == "given" or "kind" in f.metadata for f in attrs.fields(cls))


def parse(cls: type[T], body: Any) -> T:
    """``body`` (a JSON value; ``None`` = an empty body) as a ``cls``; 422 naming the field on any mismatch."""
    fields = {f.name: f for f in attrs.fields(cls) if "kind" in f.metadata}  # type: ignore[arg-type]
    expected = expected_fields(cls)
    if body is None:
        body = {}
    required = [name for name, f in fields.items() if f.default is attrs.NOTHING]
    told = [m for name in required if (m := fields[name].metadata.get("missing")) is not None]
    if not isinstance(body, dict):
        raise ValidationError(told[0] if told else f"тело запроса — ожидается объект; {expected}")
    missing = [name for name in required if name not in body]
    if missing:
        told = [m for name in missing if (m := fields[name].metadata.get("missing")) is not None]
        raise ValidationError(told[0] if told else f"нет {', '.join(missing)}; {expected}")
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


def given_json(body: Any) -> dict[str, Any]:
    """The fields a parsed body's request gave, as JSON (a body class with ``given``; what an idempotency key's
    fingerprint reads)."""
    return {name: getattr(body, name) for name in sorted(body.given)}


def page_bounds(limit: int | None, offset: int | None) -> tuple[int, int]:
    """``?limit&offset`` of a list: limit 100 by default, at most 1000; 422 on a negative or huge value."""
    for name, value in (("limit", limit), ("offset", offset)):
        if value is not None and not (0 <= value <= 2**53):
            raise ValidationError(f"{name} — ожидается неотрицательное целое")
    return (100 if limit is None else min(limit, 1000)), (offset or 0)


HIDDEN = {"doc": False}


def documented(value: Mapping[str, Any]) -> bool:
    """Whether an attrs field's metadata lets it into the OpenAPI document."""
    return value.get("doc", True) is not False
