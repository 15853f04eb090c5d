"""Each command type's result in words (DESIGN.md 8, round 3: «создана AURORA-1590», «срок → 15.12.2026»):
what the agent's report says, as a person reads it (:mod:`reconcile.types.binding` names each type's rule).

A rule takes the command's params and its ``result`` (what the executor reported, in full on ``done``, partly on
``failed``) and gives phrases; it reads only what is there, so a partial or an older result gives fewer words,
never an error. The raw result stays on the page for experts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from reconcile.executors.fields import FIELD_ORDER
from reconcile.jira.replaced import FieldsUndo, conflicts_of_result, undo_of_result
from reconcile.vocabulary.catalogue import CommandType
from reconcile.vocabulary.wording import conflict_text, field_change, field_name, field_value, show

__all__ = [
    "ResultRule",
    "attachment_words",
    "comment_words",
    "fields_words",
    "issue_words",
    "link_words",
    "refresh_words",
    "sprint_words",
    "status_words",
]

#: ``(params, result)`` → phrases.
ResultRule = Callable[[Mapping[str, Any], Mapping[str, Any]], list[str]]


def _texts(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, Sequence) and not isinstance(value, str) else []


def _conflicts(result: Mapping[str, Any]) -> list[str]:
    return [conflict_text(c.field, c.expected, c.found) for c in conflicts_of_result(result)]


def issue_words(params: Mapping[str, Any], result: Mapping[str, Any]) -> list[str]:
    key = result.get("key")
    if not isinstance(key, str):
        return []
    return [f"создана {key}" if result.get("created") else f"уже была: {key}"]


def fields_words(params: Mapping[str, Any], result: Mapping[str, Any]) -> list[str]:
    if "changed" not in result:
        return []
    changed = _texts(result.get("changed"))
    if not changed:
        return _conflicts(result) or ["поля уже такие: без изменений"]
    undo = undo_of_result(CommandType.ENSURE_FIELDS, result)
    before = undo.changed if isinstance(undo, FieldsUndo) else {}
    words = []
    for name in FIELD_ORDER:
        if name not in changed:
            continue
        if name in ("labels_add", "labels_remove"):
            words.append(f"{field_name(name)}: {show(_texts(params.get(name)))}")
        elif name in before:
            words.append(field_change(name, before[name].before, before[name].after))
        else:
            words.append(f"{field_name(name)} → {field_value(name, params.get(name))}")
    return words + _conflicts(result)


def comment_words(params: Mapping[str, Any], result: Mapping[str, Any]) -> list[str]:
    said = {
        "created": "комментарий добавлен",
        "updated": "комментарий изменён",
        "deleted": "комментарий удалён",
        "none": "комментарий уже такой" if params.get("absent") is not True else "комментария нет",
    }
    action = result.get("action")
    return [said[action]] if isinstance(action, str) and action in said else []


def status_words(params: Mapping[str, Any], result: Mapping[str, Any]) -> list[str]:
    status = result.get("status")
    taken = _texts(result.get("transitions"))
    words = []
    if taken:
        words.append("переходы: " + " → ".join(show(step) for step in taken))
    if isinstance(status, str) and not conflicts_of_result(result):
        words.append(f"статус: {show(status)}" if taken else f"статус уже {show(status)}")
    return words + _conflicts(result)


def link_words(params: Mapping[str, Any], result: Mapping[str, Any]) -> list[str]:
    link = f"связь {params.get('source')} → {params.get('target')}"
    removed = _texts(result.get("removed"))
    if params.get("present") is False:
        return [f"{link} удалена" if removed else f"{link} нет"] if "removed" in result else []
    words = [f"удалены конфликтующие связи: {', '.join(removed)}"] if removed else []
    if result.get("existed") is True:
        words.append(f"{link} уже была")
    elif result.get("link_id") is not None and "existed" in result:
        words.append(f"{link} создана")
    return words


def sprint_words(params: Mapping[str, Any], result: Mapping[str, Any]) -> list[str]:
    if "moved" not in result:
        return []
    sprint = params.get("sprint")
    place = "бэклог" if sprint in ("backlog", None) else f"спринт {show(sprint)}"
    if conflicts_of_result(result):
        return _conflicts(result)
    return [f"перенесена в {place}" if result.get("moved") else f"уже в: {place}"]


def attachment_words(params: Mapping[str, Any], result: Mapping[str, Any]) -> list[str]:
    if "uploaded" not in result:
        return []
    name = show(params.get("filename") or f"{str(params.get('file'))[:12]}…")
    if params.get("absent") is True:
        deleted = result.get("deleted")
        return [f"вложение {name} удалено" if deleted else f"вложения {name} нет"]
    return [f"вложение {name} загружено" if result.get("uploaded") else f"вложение {name} уже было"]


def refresh_words(params: Mapping[str, Any], result: Mapping[str, Any]) -> list[str]:
    words = []
    if isinstance(result.get("issues"), int):
        read = f"прочитано задач: {result['issues']}"
        if result.get("neighbours"):
            read += f", связанных: {result['neighbours']}"
        words.append(read + (" (только изменения)" if result.get("changes") else ""))
    history = result.get("history")
    if isinstance(history, Mapping):
        if isinstance(history.get("entries"), int):
            words.append(f"записей журнала: {history['entries']}")
        elif history.get("error"):
            words.append(f"журнал не прочитан: {history['error']}")
    unreadable = result.get("unreadable")
    if isinstance(unreadable, list) and unreadable:
        keys = ", ".join(str(item.get("key")) for item in unreadable if isinstance(item, Mapping))
        words.append(f"не прочитаны: {keys}")
    refused = result.get("refused_boards")
    if isinstance(refused, list) and refused:
        words.extend(str(item.get("error")) for item in refused if isinstance(item, Mapping))
    return words
