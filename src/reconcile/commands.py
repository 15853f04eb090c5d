"""The command catalogue: every command type's parameters, defined once.

Validation of a command's parameters, the JSON Schema of the MCP tool ``batch_create`` and its human
description are all read from :data:`CATALOGUE` (seed: «Описание параметров и ошибки валидации»). Adding a
parameter here changes the three together.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from enum import Enum
from typing import Any

import attrs

from reconcile.errors import ValidationError

__all__ = [
    "CATALOGUE",
    "CommandSpec",
    "Format",
    "Param",
    "batch_create_description",
    "batch_create_schema",
    "check_command",
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


class Format(Enum):
    """A parameter's value format: what validation checks and what the schema and description say."""

    ISSUE_KEY = "issue_key"
    TEMP_KEY = "temp_key"
    TEXT = "text"
    NONEMPTY_TEXT = "nonempty_text"
    DATE = "date"
    STRING_LIST = "string_list"
    KEY_LIST = "key_list"
    BOOL = "bool"
    STATUS_TARGET = "status_target"
    ISSUE_TYPE = "issue_type"
    SHA256 = "sha256"
    FILENAME = "filename"


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
}

_ISSUE_TYPES = ("task", "epic", "bug")


@attrs.frozen(kw_only=True)
class Param:
    name: str
    format: Format
    doc: str


@attrs.frozen(kw_only=True)
class CommandSpec:
    """One command type: required and optional parameters and the condition on the set."""

    type: str
    doc: str
    required: tuple[Param, ...]
    optional: tuple[Param, ...] = ()
    # Set conditions: at least one of ``at_least_one`` must be given; at most one of ``exclusive``.
    at_least_one: tuple[str, ...] = ()
    exclusive: tuple[str, ...] = ()
    # The hub's own parameters: set only on the batches the hub makes itself (``check_command(by_hub=True)``); a
    # client's batch naming one is refused like any unknown parameter, and neither the MCP schema nor the
    # description shows them.
    hub_params: tuple[Param, ...] = ()

    @property
    def params(self) -> tuple[Param, ...]:
        return self.required + self.optional

    def expected_suffix(self) -> str:
        """«ожидаются <обязательные>» and, when the type has optional ones, «необязательные <список>»."""
        parts = []
        if self.required:
            parts.append("ожидаются " + ", ".join(p.name for p in self.required))
        if self.optional:
            parts.append("необязательные " + ", ".join(p.name for p in self.optional))
        return "; ".join(parts)


def _p(name: str, fmt: Format, doc: str) -> Param:  # pragma: no mutate block (runs only at import)
    return Param(name=name, format=fmt, doc=doc)


_KEY = _p("key", Format.ISSUE_KEY, "задача: ключ Jira или new:<n> из ensure_issue этого пакета")
_SUMMARY = _p("summary", Format.NONEMPTY_TEXT, "тема задачи")
_DESCRIPTION = _p("description", Format.TEXT, "описание (переводы строк \\r\\n и \\n равны)")
_PRIORITY = _p("priority", Format.TEXT, "приоритет по имени Jira (Major, …)")
_DUEDATE = _p("duedate", Format.DATE, "срок")
_PLANNED_START = _p("planned_start", Format.DATE, "плановое начало")
_PLANNED_END = _p("planned_end", Format.DATE, "плановое окончание")
_EPIC_KEY = _p("epic_key", Format.ISSUE_KEY, "эпик задачи: ключ или new:<n>")
_ASSIGNEE = _p("assignee", Format.TEXT, "исполнитель: имя пользователя Jira")

# The fields ensure_fields may set, in the order the agent compares and reports them.
_FIELDS = (
    _SUMMARY,
    _DESCRIPTION,
    _PRIORITY,
    _DUEDATE,
    _PLANNED_START,
    _PLANNED_END,
    _p("labels_add", Format.STRING_LIST, "метки, которые должны быть"),
    _p("labels_remove", Format.STRING_LIST, "метки, которых быть не должно"),
    _EPIC_KEY,
    _ASSIGNEE,
)

CATALOGUE: Mapping[str, CommandSpec] = {
    spec.type: spec
    for spec in (
        CommandSpec(
            type="ensure_issue",
            doc=(
                "задача существует: агент ищет нашу задачу с той же темой, созданную за 7 дней, "
                "и создаёт её, только если не нашёл; результат — key"
            ),
            required=(
                _p(
                    "temp_key",
                    Format.TEMP_KEY,
                    "временный ключ new:<n>, по которому на задачу ссылаются остальные команды пакета",
                ),
                _SUMMARY,
            ),
            optional=(
                _p("issue_type", Format.ISSUE_TYPE, "task (по умолчанию), epic или bug"),
                _DESCRIPTION,
                _PRIORITY,
                _DUEDATE,
                _PLANNED_START,
                _PLANNED_END,
                _p("labels", Format.STRING_LIST, "метки; в пакете проекта метка проекта дописывается"),
                _EPIC_KEY,
                _ASSIGNEE,
            ),
        ),
        CommandSpec(
            type="ensure_fields",
            doc="поля задачи равны заданным: агент пишет только отличающиеся; null очищает поле",
            required=(_KEY,),
            optional=_FIELDS,
            at_least_one=tuple(p.name for p in _FIELDS),
        ),
        CommandSpec(
            type="ensure_comment",
            doc=(
                "у задачи есть комментарий, начинающийся с marker, с этим текстом: "
                "правится найденный, иначе добавляется новый"
            ),
            required=(
                _KEY,
                _p("marker", Format.NONEMPTY_TEXT, "метка в начале комментария, по которой он находится"),
                _p("body", Format.TEXT, "текст комментария"),
            ),
        ),
        CommandSpec(
            type="ensure_status",
            doc="задача в статусе target: агент проходит переходы по шагам пути с паузой между ними",
            required=(
                _KEY,
                _p("target", Format.STATUS_TARGET, "имя статуса или путь — список имён статусов по порядку"),
            ),
        ),
        CommandSpec(
            type="ensure_link",
            doc=(
                "между source и target есть связь link_type (source — inwardIssue, target — outwardIssue); "
                "связь другого типа или обратная — конфликт: с replace она заменяется, без — failed"
            ),
            required=(
                _p("source", Format.ISSUE_KEY, "задача, которая блокирует/ссылается"),
                _p("target", Format.ISSUE_KEY, "задача, на которую ссылаются"),
                _p("link_type", Format.NONEMPTY_TEXT, "логическое имя типа связи из настроек link_types"),
            ),
            optional=(_p("replace", Format.BOOL, "заменить конфликтующую связь"),),
        ),
        CommandSpec(
            type="ensure_sprint",
            doc=(
                "задача в спринте sprint (активном или будущем) доски своего проекта или в бэклоге; "
                "доску хаб определяет сам по метке проекта"
            ),
            required=(_KEY, _p("sprint", Format.NONEMPTY_TEXT, "имя спринта или backlog")),
        ),
        CommandSpec(
            type="ensure_attachment",
            doc=(
                "у задачи есть вложение filename того же размера: иначе агент загружает файл, "
                "предварительно загруженный в хаб (POST /files)"
            ),
            required=(
                _KEY,
                _p("file", Format.SHA256, "sha256 файла, загруженного в хаб через POST /files"),
                _p("filename", Format.FILENAME, "имя вложения в Jira"),
            ),
        ),
        CommandSpec(
            type="refresh",
            doc="прочитать задачи из Jira в зеркало хаба; Jira не меняется",
            required=(),
            optional=(
                _p("keys", Format.KEY_LIST, "ключи задач"),
                _p("jql", Format.NONEMPTY_TEXT, "запрос JQL"),
            ),
            at_least_one=("keys", "jql"),
            exclusive=("keys", "jql"),
            # Only the hub's change-only refresh (DESIGN.md 6.2): what it reads depends on the journal mark, which
            # only the hub's own refresh by the base JQL may move; a client's refresh is always a whole read.
            hub_params=(_p("changes", Format.BOOL, "только изменённое с отметки журнала (автообновление хаба)"),),
        ),
    )
}


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
    if fmt is Format.NONEMPTY_TEXT:
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
    spec = CATALOGUE[command_type]
    label = command_label(index, command_type)
    params = command.get("params")
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise ValidationError(f"{label}: params — ожидается объект")

    missing = [p.name for p in spec.required if p.name not in params]
    if missing:
        raise ValidationError(f"{label}: нет {', '.join(missing)}; {spec.expected_suffix()}")
    checked = spec.params + (spec.hub_params if by_hub else ())
    known = {p.name for p in checked}
    extra = [name for name in params if name not in known]
    if extra:
        raise ValidationError(f"{label}: лишние параметры {', '.join(extra)}; {spec.expected_suffix()}")

    for param in checked:
        if param.name not in params:
            continue
        value = params[param.name]
        optional = param in spec.optional
        if value is None and optional and param.format in _NULLABLE:
            continue
        if not _value_ok(param.format, value):
            raise ValidationError(f"{label}: {param.name} — ожидается {_EXPECTED[param.format]}")

    given = [name for name in spec.at_least_one if name in params]
    if spec.at_least_one and not given:
        raise ValidationError(f"{label}: нужен хотя бы один из {', '.join(spec.at_least_one)}")
    both = [name for name in spec.exclusive if name in params]
    if len(both) > 1:
        raise ValidationError(f"{label}: только одно из {', '.join(spec.exclusive)}")
    return command_type, dict(params)


# --- JSON Schema and description for MCP, read from the same table -------------------------------------


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
