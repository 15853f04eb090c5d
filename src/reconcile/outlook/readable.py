"""What the page shows in words where the hub holds values (DESIGN.md 8, round 3): a command's result by its type's
rule (:mod:`reconcile.types.result_words`), its parameters by their catalogue labels, a sprint's state, and the
journal's fields and values (Jira's own fields by their Russian names, the catalogue's by their labels, dates as dates),
and a drifted aspect with what was wanted and what is there now.

Pure: the page, and any reader of the API, renders these same words.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from reconcile.types.binding import TYPES
from reconcile.vocabulary.catalogue import FIELD_PARAMS, AspectKind, Format
from reconcile.vocabulary.wording import field_value, show

__all__ = [
    "ASPECT_NAMES",
    "JIRA_FIELD_NAMES",
    "SPRINT_STATES",
    "aspect_label",
    "drift_value",
    "journal_field",
    "journal_value",
    "params_in_words",
    "result_in_words",
    "sprint_state",
]

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")

SPRINT_STATES: Mapping[str, str] = {"active": "активный", "future": "будущий", "closed": "закрыт"}

#: The aspects of an issue's state other than its fields (drift's «Что»).
ASPECT_NAMES: Mapping[str, str] = {
    AspectKind.EXISTENCE.value: "Задача",
    AspectKind.STATUS.value: "Статус",
    AspectKind.SPRINT.value: "Спринт",
    AspectKind.LINK.value: "Связь",
}
_LABEL = "label:"

#: The journal's fields that no command sets, as Jira names them in a changelog.
JIRA_FIELD_NAMES: Mapping[str, str] = {
    "status": "Статус",
    "resolution": "Резолюция",
    "issuetype": "Тип задачи",
    "reporter": "Автор",
    "Sprint": "Спринт",
    "Epic Link": "Эпик",
    "Epic Child": "Задача эпика",
    "Link": "Связь",
    "Attachment": "Вложение",
    "Comment": "Комментарий",
    "Rank": "Ранг",
}


def result_in_words(command_type: str, params: Mapping[str, Any], result: Mapping[str, Any] | None) -> list[str]:
    """The phrases of a command's result (none for no result, an unknown type or a result of another shape)."""
    entry = TYPES.get(command_type)
    if entry is None or not isinstance(result, Mapping):
        return []
    return entry.result_words(params, result)


def params_in_words(command_type: str, params: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Each parameter given as ``(label, value)`` in the catalogue's order (a parameter the type does not name,
    as the hub's own ``boards``, by its name)."""
    entry = TYPES.get(command_type)
    known = entry.spec.params + entry.spec.hub_params if entry is not None else ()
    labels = {param.name: param.label for param in known}
    order = [param.name for param in known if param.name in params] + [n for n in params if n not in labels]
    return [(labels.get(name, name), field_value(name, params[name])) for name in order]


def sprint_state(state: str | None) -> str:
    """A sprint's state in Russian (an unknown one as Jira says it)."""
    return SPRINT_STATES.get(state or "", state or "—")


def journal_field(field: str) -> str:
    """A changelog item's field as a person names it: a catalogue field by its label, Jira's own by its name."""
    param = FIELD_PARAMS.get(field)
    if param is not None:
        return param.label
    return JIRA_FIELD_NAMES.get(field, field)


#: How Jira's changelog opens a link's line whatever the language of its link types («This issue блокирует
#: начало AURORA-1538»): the page drops it, the line names the issue it is on.
_THIS_ISSUE = "This issue "


def journal_value(field: str, raw: str | None, shown: str | None) -> str:
    """One side of a changelog item: a date field's ``2026-10-23`` (Jira's raw value, or its display string
    ``2026-10-23 00:00:00.0``) as ``23.10.2026``; a link as its type's words and the other issue («блокирует начало
    AURORA-1538», not Jira's English «This issue …»); else Jira's display string, its raw value, or «—»."""
    param = FIELD_PARAMS.get(field)
    date = (raw or shown or "")[:10]
    if param is not None and param.format is Format.DATE and _DATE.fullmatch(date):
        return field_value(field, date)
    if field == "Link" and shown and shown.startswith(_THIS_ISSUE):
        return shown.removeprefix(_THIS_ISSUE)
    return shown or raw or "—"


def aspect_label(aspect: str) -> str:
    """A drifted aspect as a person names it: «Срок», «Метка AWPCA», «Статус», «Связь»…"""
    if aspect.startswith(_LABEL):
        return f"Метка {aspect.removeprefix(_LABEL)}"
    param = FIELD_PARAMS.get(aspect)
    return param.label if param is not None else ASPECT_NAMES.get(aspect, aspect)


def _link(value: Any) -> str:
    if not isinstance(value, Mapping):
        return show(value)
    return f"«{value.get('type')}» {value.get('source')} → {value.get('target')}"


def drift_value(value: Any, aspect: str) -> str:
    """What a command wanted of an aspect, or what the mirror shows now, in words."""
    if aspect.startswith(_LABEL):
        return "есть" if value else "нет"
    if aspect == AspectKind.LINK.value:
        if isinstance(value, list):
            return "; ".join(_link(link) for link in value) or "нет связи"
        return _link(value)
    if aspect == AspectKind.SPRINT.value and value == "backlog":
        return "бэклог"
    return field_value(aspect, value)
