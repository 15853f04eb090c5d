"""Commands checked and described from the catalogue: keys, parameter validation, the MCP schema and description.

Validation of a command's parameters, the JSON Schema of the MCP tool ``batch_create`` and its human
description are all read from :data:`reconcile.vocabulary.catalogue.CATALOGUE` (seed: «Описание параметров и ошибки
валидации»). Adding a parameter there changes the three together.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from reconcile.vocabulary.catalogue import CATALOGUE, CommandSpec, CommandType, Format, Param
from reconcile.vocabulary.errors import ValidationError

__all__ = [
    "batch_create_description",
    "batch_create_schema",
    "check_command",
    "check_params",
    "command_label",
    "is_jira_key",
    "is_project_key",
    "is_temp_key",
    "key_params",
]

# Bounded so that a key always fits the hub's key columns (60 characters): a Jira project key of up to 49
# characters and an issue number of up to 10 digits; up to 9 digits after ``new:``.
TEMP_KEY_RE = re.compile(r"^new:[1-9][0-9]{0,8}$")
PROJECT_KEY_RE = re.compile(r"^[A-Z][A-Z0-9_]{0,48}$")
JIRA_KEY_RE = re.compile(PROJECT_KEY_RE.pattern.removesuffix("$") + r"-[1-9][0-9]{0,9}$")
DATE_RE = re.compile(r"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$")
SHA256_RE = re.compile(r"^[0-9a-f]{64}$")


def is_temp_key(value: object) -> bool:
    """``new:<n>`` with a positive integer ``n``."""
    return isinstance(value, str) and TEMP_KEY_RE.fullmatch(value) is not None


def is_jira_key(value: object) -> bool:
    # fullmatch: ``$`` alone would let a trailing newline through ("AURORA-1\n").
    return isinstance(value, str) and JIRA_KEY_RE.fullmatch(value) is not None


def is_project_key(value: object) -> bool:
    """A Jira project key (``AURORA``): what an issue key opens with."""
    return isinstance(value, str) and PROJECT_KEY_RE.fullmatch(value) is not None


# What a wrong value is told, in the words of the seed's 422s («нарушение — 422 с именем параметра»).
_EXPECTED: dict[Format, str] = {
    Format.ISSUE_KEY: "ключ задачи Jira (AURORA-1538) или временный ключ new:<n> этого пакета",
    Format.TEMP_KEY: "временный ключ new:<n>",
    Format.TEXT: "строка",
    Format.NONEMPTY_TEXT: "непустая строка",
    Format.DATE: "дата ГГГГ-ММ-ДД",
    Format.STRING_LIST: "список строк",
    Format.KEY_LIST: "непустой список ключей задач (AURORA-1538 или new:<n>)",
    Format.BOOL: "логическое значение true/false",
    Format.STATUS_TARGET: "имя статуса или непустой список имён (путь переходов)",
    Format.ISSUE_TYPE: "одно из task, epic, bug",
    Format.SHA256: "sha256 файла: 64 шестнадцатеричных символа в нижнем регистре",
    Format.FILENAME: 'имя файла без /, \\, " и управляющих символов',
    Format.SPRINT: "имя спринта, backlog или null",
    Format.IF_UNCHANGED_FIELDS: "объект {поле: строка или null} с полями этой команды",
    Format.IF_UNCHANGED_STATUS: 'объект {"status": имя статуса}',
    Format.IF_UNCHANGED_SPRINT: 'объект {"sprint": имя спринта или null}',
}

_ISSUE_TYPES = ("task", "epic", "bug")


# Read for every command the hub looks at; the catalogue never changes.
_KEY_PARAMS: Mapping[str, tuple[str, ...]] = {
    spec.type: tuple(p.name for p in spec.params if p.format in (Format.ISSUE_KEY, Format.KEY_LIST))
    for spec in CATALOGUE.values()
}


def key_params(command_type: str) -> tuple[str, ...]:
    """Names of the parameters of a type that hold an issue key or a temp key (refresh ``keys`` is a list)."""
    return _KEY_PARAMS[command_type]


def command_label(index: int, command_type: str | None) -> str:
    """«команда 1 (ensure_status)» — how every message names a command (``index`` counts from 1)."""
    if command_type is None:
        return f"команда {index}"
    return f"команда {index} ({command_type})"


def _has_control(text: str) -> bool:
    return any(ord(ch) < 32 or ord(ch) == 127 for ch in text)


def _value_ok(fmt: Format, value: Any) -> bool:
    if fmt is Format.BOOL:
        return isinstance(value, bool)
    if fmt in (Format.STRING_LIST, Format.KEY_LIST):
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            return False
        if fmt is Format.KEY_LIST:
            return bool(value) and all(is_jira_key(v) or is_temp_key(v) for v in value)
        return True
    if fmt in _IF_UNCHANGED:
        return _if_unchanged_ok(fmt, value)
    if fmt is Format.STATUS_TARGET:
        if isinstance(value, str):
            return bool(value.strip())
        return isinstance(value, list) and bool(value) and all(isinstance(v, str) and v.strip() for v in value)
    if not isinstance(value, str):
        return False
    text: str = value
    if fmt is Format.ISSUE_KEY:
        return is_jira_key(text) or is_temp_key(text)
    if fmt is Format.TEMP_KEY:
        return is_temp_key(text)
    if fmt in (Format.NONEMPTY_TEXT, Format.SPRINT):
        return bool(text.strip())
    if fmt is Format.DATE:
        return DATE_RE.match(text) is not None
    if fmt is Format.ISSUE_TYPE:
        return text in _ISSUE_TYPES
    if fmt is Format.SHA256:
        return SHA256_RE.match(text) is not None
    if fmt is Format.FILENAME:
        return bool(text.strip()) and not _has_control(text) and not set(text) & set('/\\"')
    return True


# Formats whose ``null`` means «не задан» on an optional parameter (seed: «Пакет и порядок выполнения»).
_NULLABLE = frozenset({Format.TEXT, Format.NONEMPTY_TEXT, Format.DATE, Format.ISSUE_KEY, Format.ISSUE_TYPE})
# Formats whose ``null`` is a value even on a required parameter: ``ensure_sprint.sprint: null`` is the backlog.
_NULL_VALUE = frozenset({Format.SPRINT})

# The only-if-unchanged objects: the one key each admits (``None``: the fields the command sets) and whether
# ``null`` is a value there.
_IF_UNCHANGED: Mapping[Format, tuple[str | None, bool]] = {
    Format.IF_UNCHANGED_FIELDS: (None, True),
    Format.IF_UNCHANGED_STATUS: ("status", False),
    Format.IF_UNCHANGED_SPRINT: ("sprint", True),
}
#: The fields of ``ensure_fields`` an only-if-unchanged value may name (labels change per label, never compared).
IF_UNCHANGED_FIELDS: tuple[str, ...] = tuple(
    p.name
    for p in CATALOGUE[CommandType.ENSURE_FIELDS].optional
    if p.format not in (Format.STRING_LIST, Format.IF_UNCHANGED_FIELDS)
)


def _if_unchanged_ok(fmt: Format, value: Any) -> bool:
    if not isinstance(value, dict) or not value:
        return False
    key, nullable = _IF_UNCHANGED[fmt]
    names = IF_UNCHANGED_FIELDS if key is None else (key,)
    for name, held in value.items():
        if name not in names:
            return False
        if held is None and nullable:
            continue
        # A field's value may be any text ("" is the empty field); a status or a sprint is named.
        if not isinstance(held, str) or (key is not None and not held.strip()):
            return False
    return True


def _if_unchanged_unset(spec: CommandSpec, params: Mapping[str, Any]) -> list[str]:
    """The fields an ``ensure_fields.if_unchanged`` names that the command does not set."""
    value = params.get("if_unchanged")
    if spec.type != CommandType.ENSURE_FIELDS or not isinstance(value, dict):
        return []
    return [name for name in value if name not in params]


def check_command(index: int, command: Any, *, by_hub: bool = False) -> tuple[str, dict[str, Any]]:
    """Check one ``{type, params}`` item against the catalogue; return ``(type, params)``.

    Raises :class:`ValidationError` with the seed's message: a missing parameter is reported before an
    extra one, both ending with the type's expected set; a value of the wrong type names the parameter.
    ``by_hub``: a batch the hub makes itself, which may also set the type's ``hub_params``.
    """
    if not isinstance(command, dict):
        raise ValidationError(f"{command_label(index, None)}: ожидается объект {{type, params}}")
    extra_keys = sorted(set(command) - {"type", "params"})
    if extra_keys:
        raise ValidationError(
            f"{command_label(index, None)}: лишние поля {', '.join(extra_keys)}; ожидаются type, params"
        )
    command_type = command.get("type")
    if not isinstance(command_type, str) or command_type not in CATALOGUE:
        # A JSON value that is no text reads the same through str() as through repr().
        raise ValidationError(
            f"{command_label(index, None)}: неизвестный тип {command_type}; ожидаются {', '.join(CATALOGUE)}"
        )
    params = command.get("params")
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise ValidationError(f"{command_label(index, command_type)}: params — ожидается объект")
    return command_type, check_params(index, CATALOGUE[command_type], params, by_hub=by_hub)


def _expected(spec: CommandSpec) -> str:
    """«ожидаются <обязательные>» and, when the type has optional ones, «необязательные <список>»."""
    parts = []
    if spec.required:
        parts.append("ожидаются " + ", ".join(p.name for p in spec.required))
    listed = [p.name for p in spec.optional if not p.unlisted]
    if listed:
        parts.append("необязательные " + ", ".join(listed))
    return "; ".join(parts)


def check_params(index: int, spec: CommandSpec, params: dict[str, Any], *, by_hub: bool = False) -> dict[str, Any]:
    """Check the params of the command numbered ``index`` against its type's entry; return a copy of them.
    ``by_hub``: a batch the hub makes itself, which may also set the type's ``hub_params``."""
    label = command_label(index, spec.type)
    freed = spec.removal.frees if spec.removal is not None and spec.removes(params) else ()
    missing = [p.name for p in spec.required if p.name not in params and p.name not in freed]
    if missing:
        raise ValidationError(f"{label}: нет {', '.join(missing)}; {_expected(spec)}", param=missing[0])
    checked = spec.params + (spec.hub_params if by_hub else ())
    known = {p.name for p in checked}
    extra = [name for name in params if name not in known]
    if extra:
        raise ValidationError(f"{label}: лишние параметры {', '.join(extra)}; {_expected(spec)}", param=extra[0])

    for param in checked:
        if param.name not in params:
            continue
        value = params[param.name]
        optional = param in spec.optional
        if value is None and ((optional and param.format in _NULLABLE) or param.format in _NULL_VALUE):
            continue
        if not _value_ok(param.format, value):
            raise ValidationError(f"{label}: {param.name} — ожидается {_EXPECTED[param.format]}", param=param.name)

    given = [name for name in spec.at_least_one if name in params]
    if spec.at_least_one and not given:
        raise ValidationError(
            f"{label}: нужен хотя бы один из {', '.join(spec.at_least_one)}", param=spec.at_least_one[0]
        )
    both = [name for name in spec.exclusive if name in params]
    if len(both) > 1:
        raise ValidationError(f"{label}: только одно из {', '.join(spec.exclusive)}", param=both[-1])
    unset = _if_unchanged_unset(spec, params)
    if unset:
        raise ValidationError(f"{label}: if_unchanged.{unset[0]} — поле не задано в команде", param="if_unchanged")
    return dict(params)


def _value_schema(fmt: Format) -> dict[str, Any]:
    schemas: dict[Format, dict[str, Any]] = {
        Format.ISSUE_KEY: {"type": "string", "pattern": f"{JIRA_KEY_RE.pattern}|{TEMP_KEY_RE.pattern}"},
        Format.TEMP_KEY: {"type": "string", "pattern": TEMP_KEY_RE.pattern},
        Format.TEXT: {"type": "string"},
        Format.NONEMPTY_TEXT: {"type": "string", "minLength": 1},
        Format.DATE: {"type": "string", "pattern": DATE_RE.pattern},
        Format.STRING_LIST: {"type": "array", "items": {"type": "string"}},
        Format.KEY_LIST: {
            "type": "array",
            "minItems": 1,
            "items": {"type": "string", "pattern": f"{JIRA_KEY_RE.pattern}|{TEMP_KEY_RE.pattern}"},
        },
        Format.BOOL: {"type": "boolean"},
        Format.STATUS_TARGET: {
            "anyOf": [
                {"type": "string", "minLength": 1},
                {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}},
            ]
        },
        Format.ISSUE_TYPE: {"type": "string", "enum": list(_ISSUE_TYPES)},
        Format.SHA256: {"type": "string", "pattern": SHA256_RE.pattern},
        Format.FILENAME: {"type": "string", "minLength": 1, "pattern": '^[^/\\\\"\\x00-\\x1f\\x7f]+$'},
        Format.SPRINT: {"anyOf": [{"type": "string", "minLength": 1}, {"type": "null"}]},
        Format.IF_UNCHANGED_FIELDS: {
            "type": "object",
            "minProperties": 1,
            "properties": {name: {"anyOf": [{"type": "string"}, {"type": "null"}]} for name in IF_UNCHANGED_FIELDS},
            "additionalProperties": False,
        },
        Format.IF_UNCHANGED_STATUS: {
            "type": "object",
            "properties": {"status": {"type": "string", "minLength": 1}},
            "required": ["status"],
            "additionalProperties": False,
        },
        Format.IF_UNCHANGED_SPRINT: {
            "type": "object",
            "properties": {"sprint": {"anyOf": [{"type": "string", "minLength": 1}, {"type": "null"}]}},
            "required": ["sprint"],
            "additionalProperties": False,
        },
    }
    return dict(schemas[fmt])


def _param_schema(param: Param, *, optional: bool) -> dict[str, Any]:
    schema = _value_schema(param.format)
    if optional and param.format in _NULLABLE:
        schema = {"anyOf": [schema, {"type": "null"}]}
    schema["description"] = param.doc
    return schema


def command_schema(spec: CommandSpec) -> dict[str, Any]:
    params: dict[str, Any] = {
        "type": "object",
        "properties": {
            **{p.name: _param_schema(p, optional=False) for p in spec.required},
            **{p.name: _param_schema(p, optional=True) for p in spec.optional},
        },
        "required": [p.name for p in spec.required],
        "additionalProperties": False,
    }
    removal = spec.removal
    if removal is not None and removal.frees:
        # A removal does without these: either they are given, or the removal is asked for.
        params["required"] = [name for name in params["required"] if name not in removal.frees]
        asks = {"properties": {removal.param: {"const": removal.value}}, "required": [removal.param]}
        params["anyOf"] = [{"required": list(removal.frees)}, asks]
    if spec.at_least_one:
        params["minProperties"] = len(spec.required) + 1
    return {
        "type": "object",
        "description": f"{spec.type}: {spec.doc}",
        "properties": {"type": {"const": spec.type}, "params": params},
        "required": ["type", "params"],
        "additionalProperties": False,
    }


def batch_create_schema() -> dict[str, Any]:
    """The input schema of the MCP tool ``batch_create`` (and of ``POST /batches``' commands)."""
    return {
        "type": "object",
        "properties": {
            "author": {"type": "string", "minLength": 1, "description": "кто ставит пакет"},
            "title": {"type": "string", "minLength": 1, "description": "заголовок пакета"},
            "project": {
                "anyOf": [{"type": "string", "minLength": 1}, {"type": "null"}],
                "description": "проект хаба (метка Jira): включает проверки пакета проекта",
            },
            "commands": {
                "type": "array",
                "minItems": 1,
                "items": {"oneOf": [command_schema(spec) for spec in CATALOGUE.values()]},
            },
            "notes": {
                "anyOf": [
                    {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "key": {"type": "string", "description": "ключ задачи или new:<n> этого пакета"},
                                "text": {"type": "string", "minLength": 1},
                            },
                            "required": ["key", "text"],
                            "additionalProperties": False,
                        },
                    },
                    {"type": "null"},
                ],
                "description": "заметки хаба к задачам пакета (в Jira не пишутся)",
            },
        },
        "required": ["author", "title", "commands"],
        "additionalProperties": False,
    }


#: The opening of :func:`batch_create_description`; the types and parameters follow, read from the catalogue.
_DESCRIPTION_INTRO = (
    "Создаёт пакет команд для Jira. Каждая команда — ЖЕЛАЕМОЕ СОСТОЯНИЕ одной задачи: агент внутри банка",
    "читает Jira, сравнивает и записывает только разницу; повтор уже выполненной команды ничего не пишет.",
    "Команды выполняются по одной, в порядке списка, с паузами политики темпа между записями; результат",
    "приходит асинхронно — ответ содержит estimate_seconds (оценку длительности), статусы читайте через",
    "batch_status. Пакет проверяется целиком: при первой ошибке он не создаётся и ничего не записано.",
    "Временные ключи: ensure_issue с temp_key new:<n> создаёт задачу; другие команды этого же пакета",
    "ссылаются на неё как new:<n> (key, source, target, epic_key) — хаб подставит настоящий ключ, когда",
    "задача будет создана; new:<n> должен стоять после своей ensure_issue. В хвост пакета хаб добавляет",
    "refresh по всем его ключам. С project = P хаб проверяет, что задачи пакета — задачи проекта P, и",
    "дописывает метку P в labels новых задач.",
    "",
    "Типы команд (params):",
)


def _param_line(param: Param) -> str:
    return f"    - {param.name}: {_EXPECTED[param.format]} — {param.doc}"


def batch_create_description() -> str:
    """The human description of ``batch_create``, built from the catalogue."""
    lines = list(_DESCRIPTION_INTRO)
    for spec in CATALOGUE.values():
        lines.append(f"- {spec.type}: {spec.doc}")
        if spec.required:
            lines.append("  обязательные:")
            lines.extend(_param_line(p) for p in spec.required)
        if spec.optional:
            lines.append("  необязательные (null — «не задан»):")
            lines.extend(_param_line(p) for p in spec.optional)
        if spec.at_least_one:
            condition = f"  условие: хотя бы один из {', '.join(spec.at_least_one)}"
            if spec.exclusive:
                condition += f"; только одно из {', '.join(spec.exclusive)}"
            lines.append(condition)
    return "\n".join(lines)
