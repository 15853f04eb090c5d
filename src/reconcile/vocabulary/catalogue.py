"""The command catalogue: everything declarative that is true of a command type, one entry per type.

An entry (:class:`CommandSpec`) holds the type's parameters with their value formats (seed: «Описание параметров и
ошибки валидации»), its Russian label and help and each parameter's, each parameter's editor, an example of its params,
its default gap (seed: «Политика темпа»), whether it writes to Jira, the aspect of an issue's state it sets (which
confirmation by state and drift follow), the parameter naming the issue that shows it, and its role. Validation, the MCP
schema and description (:mod:`reconcile.vocabulary.commands`), pacing, approval, drift and the agent's policy read this
table; :mod:`reconcile.types.binding` binds each entry to the code that runs, plans and confirms it.

The tables other modules derive are functions of a catalogue (:func:`default_gaps`, :func:`read_only_types`,
:func:`setting_types`, :func:`creating_types`, :func:`role_type`): their module-level values are computed from
:data:`CATALOGUE`, and a test feeds them a copy with one more type.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from reconcile.vocabulary.param_kinds import AspectKind, CommandType, Editor, Format, Param, Removal, TypeRole

__all__ = [
    "CATALOGUE",
    "FIELD_PARAMS",
    "REFRESH_TYPE",
    "AspectKind",
    "CommandSpec",
    "CommandType",
    "Editor",
    "Format",
    "Param",
    "Removal",
    "TypeRole",
    "creating_types",
    "default_gaps",
    "field_params",
    "read_only_types",
    "role_type",
    "setting_types",
]


@attrs.frozen(kw_only=True)
class CommandSpec:
    """One command type: its parameters and the condition on the set, and what else is true of the type.

    ``gap``: the default pause in seconds before (and between) its Jira writes. ``writes``: whether it writes to
    Jira (``refresh`` only reads). ``sets``: the aspect it makes true, ``None`` when confirmation by state and
    drift do not follow it (seed 001, change 000). ``subject``: the parameter naming the issue whose mirror record
    shows that state (``None`` when no one issue does). ``role``: what the hub does with it beyond running it.
    """

    type: str  # a CommandType (a test's throwaway type in a copy of the catalogue: any name)
    label: str
    doc: str
    required: tuple[Param, ...]
    optional: tuple[Param, ...] = ()
    # Set conditions: at least one of ``at_least_one`` must be given; at most one of ``exclusive``.
    at_least_one: tuple[str, ...] = ()
    exclusive: tuple[str, ...] = ()
    gap: float
    writes: bool
    sets: AspectKind | None
    subject: str | None
    example: Mapping[str, Any]
    # The hub's own parameters: set only on the batches the hub makes itself (``check_command(by_hub=True)``); a
    # client's batch naming one is refused like any unknown parameter, and neither the MCP schema nor the
    # description shows them.
    hub_params: tuple[Param, ...] = ()
    removal: Removal | None = None
    role: TypeRole | None = None

    @property
    def params(self) -> tuple[Param, ...]:
        return self.required + self.optional

    def removes(self, params: Mapping[str, Any]) -> bool:
        """Whether ``params`` ask for the removal of what the type otherwise makes exist."""
        removal = self.removal
        return removal is not None and params.get(removal.param) is removal.value

    @property
    def creates_issue(self) -> bool:
        """Whether the command makes an issue exist (and defines the temp key other commands name it by)."""
        return self.sets is AspectKind.EXISTENCE

    @property
    def file_param(self) -> str | None:
        """The parameter naming a file uploaded to the hub (the command carries a file), if any."""
        return next((p.name for p in self.params if p.format is Format.SHA256), None)


# Runs only at import, before mutmut forks (docs/mutation.md): a mutant of it would never run.
def _p(
    name: str, fmt: Format, label: str, editor: Editor, doc: str, *, unlisted: bool = False
) -> Param:  # pragma: no mutate block (on the colon's line: mutmut reads a function's pragma there)
    return Param(name=name, format=fmt, label=label, editor=editor, doc=doc, unlisted=unlisted)


_KEY = _p(
    "key", Format.ISSUE_KEY, "Задача", Editor.ISSUE_KEY, "задача: ключ Jira или new:<n> из ensure_issue этого пакета"
)
_SUMMARY = _p("summary", Format.NONEMPTY_TEXT, "Тема", Editor.TEXT, "тема задачи")
_DESCRIPTION = _p(
    "description", Format.TEXT, "Описание", Editor.MULTILINE_TEXT, "описание (переводы строк \\r\\n и \\n равны)"
)
_PRIORITY = _p("priority", Format.TEXT, "Приоритет", Editor.TEXT, "приоритет по имени Jira (Major, …)")
_DUEDATE = _p("duedate", Format.DATE, "Срок", Editor.DATE, "срок")
_PLANNED_START = _p("planned_start", Format.DATE, "Плановое начало", Editor.DATE, "плановое начало")
_PLANNED_END = _p("planned_end", Format.DATE, "Плановое окончание", Editor.DATE, "плановое окончание")
_EPIC_KEY = _p("epic_key", Format.ISSUE_KEY, "Эпик", Editor.ISSUE_KEY, "эпик задачи: ключ или new:<n>")
_ASSIGNEE = _p("assignee", Format.TEXT, "Исполнитель", Editor.TEXT, "исполнитель: имя пользователя Jira")

# The fields ensure_fields may set, in the order the agent compares and reports them.
_FIELDS = (
    _SUMMARY,
    _DESCRIPTION,
    _PRIORITY,
    _DUEDATE,
    _PLANNED_START,
    _PLANNED_END,
    _p("labels_add", Format.STRING_LIST, "Добавить метки", Editor.LIST, "метки, которые должны быть"),
    _p("labels_remove", Format.STRING_LIST, "Убрать метки", Editor.LIST, "метки, которых быть не должно"),
    _EPIC_KEY,
    _ASSIGNEE,
)

#: Keyed by :class:`CommandType`; looked up by any text (a type named on the wire, a test's copy with one more).
CATALOGUE: Mapping[str, CommandSpec] = {
    spec.type: spec
    for spec in (
        CommandSpec(
            type=CommandType.ENSURE_ISSUE,
            label="Задача существует",
            doc=(
                "задача существует: агент ищет нашу задачу с той же темой, созданную за 7 дней, "
                "и создаёт её, только если не нашёл; результат — key"
            ),
            required=(
                _p(
                    "temp_key",
                    Format.TEMP_KEY,
                    "Временный ключ",
                    Editor.TEMP_KEY,
                    "временный ключ new:<n>, по которому на задачу ссылаются остальные команды пакета",
                ),
                _SUMMARY,
            ),
            optional=(
                _p(
                    "issue_type",
                    Format.ISSUE_TYPE,
                    "Тип задачи",
                    Editor.ISSUE_TYPE,
                    "task (по умолчанию), epic или bug",
                ),
                _DESCRIPTION,
                _PRIORITY,
                _DUEDATE,
                _PLANNED_START,
                _PLANNED_END,
                _p(
                    "labels",
                    Format.STRING_LIST,
                    "Метки",
                    Editor.LIST,
                    "метки; в пакете проекта метка проекта дописывается",
                ),
                _EPIC_KEY,
                _ASSIGNEE,
            ),
            gap=120,
            writes=True,
            sets=AspectKind.EXISTENCE,
            subject=None,
            example={"temp_key": "new:1", "issue_type": "bug", "summary": "ОСВ 60 не распознана", "labels": ["AWPCA"]},
        ),
        CommandSpec(
            type=CommandType.ENSURE_FIELDS,
            label="Поля задачи",
            doc="поля задачи равны заданным: агент пишет только отличающиеся; null очищает поле",
            required=(_KEY,),
            optional=(
                *_FIELDS,
                _p(
                    "if_unchanged",
                    Format.IF_UNCHANGED_FIELDS,
                    "Только если не изменено",
                    Editor.JSON_OBJECT,
                    "{поле: значение}: поле пишется, только пока в Jira это значение; иначе оно остаётся "
                    "и попадает в conflicts",
                    unlisted=True,
                ),
            ),
            at_least_one=tuple(p.name for p in _FIELDS),
            gap=120,
            writes=True,
            sets=AspectKind.FIELDS,
            subject="key",
            example={"key": "AURORA-1533", "duedate": "2026-10-23"},
        ),
        CommandSpec(
            type=CommandType.ENSURE_COMMENT,
            label="Комментарий",
            doc=(
                "у задачи есть комментарий, начинающийся с marker, с этим текстом: "
                "правится найденный, иначе добавляется новый"
            ),
            required=(
                _KEY,
                _p(
                    "marker",
                    Format.NONEMPTY_TEXT,
                    "Метка комментария",
                    Editor.TEXT,
                    "метка в начале комментария, по которой он находится",
                ),
                _p("body", Format.TEXT, "Текст комментария", Editor.MULTILINE_TEXT, "текст комментария"),
            ),
            optional=(
                _p(
                    "absent",
                    Format.BOOL,
                    "Удалить",
                    Editor.YES_NO,
                    "true — удалить комментарий с marker (только написанный агентом); body тогда не нужен",
                    unlisted=True,
                ),
            ),
            removal=Removal(param="absent", value=True, frees=("body",)),
            gap=30,
            writes=True,
            sets=None,
            subject="key",
            example={"key": "AURORA-1537", "marker": "[план]", "body": "Стенд готов"},
        ),
        CommandSpec(
            type=CommandType.ENSURE_STATUS,
            label="Статус",
            doc="задача в статусе target: агент проходит переходы по шагам пути с паузой между ними",
            required=(
                _KEY,
                _p(
                    "target",
                    Format.STATUS_TARGET,
                    "Статус или путь",
                    Editor.STATUS_PATH,
                    "имя статуса или путь — список имён статусов по порядку",
                ),
            ),
            optional=(
                _p(
                    "if_unchanged",
                    Format.IF_UNCHANGED_STATUS,
                    "Только если статус",
                    Editor.JSON_OBJECT,
                    '{"status": имя}: переходы делаются, только пока задача в этом статусе; иначе conflicts',
                    unlisted=True,
                ),
            ),
            gap=30,
            writes=True,
            sets=AspectKind.STATUS,
            subject="key",
            example={"key": "AURORA-1537", "target": ["Разработка", "Готово"]},
        ),
        CommandSpec(
            type=CommandType.ENSURE_LINK,
            label="Связь",
            doc=(
                "между source и target есть связь link_type (source — inwardIssue, target — outwardIssue); "
                "связь другого типа или обратная — конфликт: с replace она заменяется, без — failed"
            ),
            required=(
                _p("source", Format.ISSUE_KEY, "Откуда", Editor.ISSUE_KEY, "задача, которая блокирует/ссылается"),
                _p("target", Format.ISSUE_KEY, "Куда", Editor.ISSUE_KEY, "задача, на которую ссылаются"),
                _p(
                    "link_type",
                    Format.NONEMPTY_TEXT,
                    "Тип связи",
                    Editor.LINK_TYPE,
                    "логическое имя типа связи из настроек link_types",
                ),
            ),
            optional=(
                _p("replace", Format.BOOL, "Заменить конфликтующую", Editor.YES_NO, "заменить конфликтующую связь"),
                _p(
                    "present",
                    Format.BOOL,
                    "Связь есть",
                    Editor.YES_NO,
                    "false — удалить эту связь (source → target типа link_type), если она есть",
                    unlisted=True,
                ),
            ),
            removal=Removal(param="present", value=False),
            gap=30,
            writes=True,
            sets=AspectKind.LINK,
            subject="source",
            example={"source": "AURORA-1537", "target": "AURORA-1538", "link_type": "связанные", "replace": True},
        ),
        CommandSpec(
            type=CommandType.ENSURE_SPRINT,
            label="Спринт",
            doc=(
                "задача в спринте sprint (активном или будущем) доски своего проекта или в бэклоге; "
                "доску хаб определяет сам по метке проекта"
            ),
            required=(
                _KEY,
                _p("sprint", Format.SPRINT, "Спринт", Editor.SPRINT, "имя спринта, backlog или null (бэклог)"),
            ),
            optional=(
                _p(
                    "if_unchanged",
                    Format.IF_UNCHANGED_SPRINT,
                    "Только если спринт",
                    Editor.JSON_OBJECT,
                    '{"sprint": имя или null}: задача переносится, только пока она в этом спринте '
                    "(null — в бэклоге); иначе conflicts",
                    unlisted=True,
                ),
            ),
            gap=30,
            writes=True,
            sets=AspectKind.SPRINT,
            subject="key",
            example={"key": "AURORA-1538", "sprint": "Спринт 2"},
        ),
        CommandSpec(
            type=CommandType.ENSURE_ATTACHMENT,
            label="Вложение",
            doc=(
                "у задачи есть вложение filename того же размера: иначе агент загружает файл, "
                "предварительно загруженный в хаб (POST /files)"
            ),
            required=(
                _KEY,
                _p(
                    "file",
                    Format.SHA256,
                    "Файл",
                    Editor.FILE,
                    "sha256 файла, загруженного в хаб через POST /files",
                ),
                _p("filename", Format.FILENAME, "Имя вложения", Editor.TEXT, "имя вложения в Jira"),
            ),
            optional=(
                _p(
                    "absent",
                    Format.BOOL,
                    "Удалить",
                    Editor.YES_NO,
                    "true — удалить вложение с этим sha256, добавленное агентом; filename тогда не обязателен",
                    unlisted=True,
                ),
            ),
            removal=Removal(param="absent", value=True, frees=("filename",)),
            gap=30,
            writes=True,
            sets=None,
            subject="key",
            example={"key": "AURORA-1537", "file": "0123456789abcdef" * 4, "filename": "ОСВ 60.xlsx"},
        ),
        CommandSpec(
            type=CommandType.REFRESH,
            label="Обновление из Jira",
            doc="прочитать задачи из Jira в зеркало хаба; Jira не меняется",
            required=(),
            optional=(
                _p("keys", Format.KEY_LIST, "Ключи задач", Editor.KEY_LIST, "ключи задач"),
                _p("jql", Format.NONEMPTY_TEXT, "Запрос JQL", Editor.TEXT, "запрос JQL"),
            ),
            at_least_one=("keys", "jql"),
            exclusive=("keys", "jql"),
            gap=2,
            writes=False,
            sets=None,
            subject=None,
            example={"keys": ["AURORA-1537", "AURORA-1538"]},
            role=TypeRole.MIRROR_REFRESH,
            # Only the hub's change-only refresh (DESIGN.md 6.2): what it reads depends on the journal mark, which
            # only the hub's own refresh by the base JQL may move; a client's refresh is always a whole read.
            hub_params=(
                _p(
                    "changes",
                    Format.BOOL,
                    "Только изменения",
                    Editor.YES_NO,
                    "только изменённое с отметки журнала (автообновление хаба)",
                ),
            ),
        ),
    )
}


def default_gaps(catalogue: Mapping[str, CommandSpec]) -> dict[str, float]:
    """The default pacing: each type's gap, in the catalogue's order."""
    return {name: spec.gap for name, spec in catalogue.items()}


def read_only_types(catalogue: Mapping[str, CommandSpec]) -> tuple[str, ...]:
    """The types that only read Jira."""
    return tuple(name for name, spec in catalogue.items() if not spec.writes)


def creating_types(catalogue: Mapping[str, CommandSpec]) -> tuple[str, ...]:
    """The types that make an issue exist (their result names it)."""
    return tuple(name for name, spec in catalogue.items() if spec.creates_issue)


def setting_types(catalogue: Mapping[str, CommandSpec]) -> tuple[str, ...]:
    """The types that set an aspect of an issue's state (drift follows them)."""
    return tuple(name for name, spec in catalogue.items() if spec.sets is not None)


def field_params(catalogue: Mapping[str, CommandSpec]) -> dict[str, Param]:
    """Each parameter name with its first entry in the catalogue's order: an issue's field (``duedate``,
    ``labels``…) keeps the one label and format a person reads it by wherever it is set."""
    found: dict[str, Param] = {}
    for spec in catalogue.values():
        for param in spec.params:
            found.setdefault(param.name, param)
    return found


def role_type(catalogue: Mapping[str, CommandSpec], role: TypeRole) -> str:
    """The one type of ``catalogue`` that plays ``role``."""
    found = [name for name, spec in catalogue.items() if spec.role is role]
    if len(found) != 1:
        raise ValueError(f"{role.value} is played by {', '.join(found) or 'no type'}: one type plays each role")
    return str(found[0])  # the type's name as commands carry it, whether the catalogue is keyed by text or members


#: The type that reads Jira into the mirror (:attr:`TypeRole.MIRROR_REFRESH`): ``refresh``.
REFRESH_TYPE = role_type(CATALOGUE, TypeRole.MIRROR_REFRESH)

#: The fields' labels and formats (plans and results in words name fields by them).
FIELD_PARAMS: Mapping[str, Param] = field_params(CATALOGUE)
