"""Normalised mirror records: what the agent reads from Jira, sends to the hub, and the hub stores.

The wire shapes are DESIGN.md section 6 («Wire records»). Strings keep Jira's text as is (CRLF included);
comparison rules live in :mod:`reconcile.vocabulary.text`.
"""

from __future__ import annotations

import re
from typing import Any

import attrs
import cattrs
from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn, override

from reconcile.vocabulary.errors import ValidationError

__all__ = [
    "HISTORY_LIMITS",
    "ISSUE_LIMITS",
    "ISSUE_TEXT_FIELDS",
    "LINK_LIMITS",
    "NATURAL_KEY_MAX",
    "HistoryEntry",
    "HistoryItem",
    "MirrorIssue",
    "MirrorLink",
    "SprintRef",
    "converter",
    "issue_from_wire",
    "issue_to_wire",
    "natural_key",
    "oversized",
    "wire_history",
    "wire_issue",
]


@attrs.frozen(kw_only=True)
class SprintRef:
    """The issue's sprint as the mirror keeps it: the active one, else the latest future one."""

    id: int
    name: str
    state: str


@attrs.frozen(kw_only=True)
class MirrorLink:
    """A link normalised to ``source → target`` = Jira's ``inwardIssue → outwardIssue``."""

    id: str
    type: str
    source: str
    target: str


@attrs.frozen(kw_only=True)
class MirrorIssue:
    key: str
    summary: str | None = None
    description: str | None = None
    status: str | None = None
    status_category: str | None = None
    priority: str | None = None
    duedate: str | None = None
    planned_start: str | None = None
    planned_end: str | None = None
    labels: tuple[str, ...] = ()
    epic_key: str | None = None
    assignee: str | None = None
    reporter: str | None = None
    created: str | None = None
    updated: str | None = None
    sprint: SprintRef | None = None
    links: tuple[MirrorLink, ...] = ()


@attrs.frozen(kw_only=True)
class HistoryItem:
    field: str
    from_: str | None = attrs.field(default=None, metadata={"json": "from"})
    from_string: str | None = None
    to: str | None = None
    to_string: str | None = None


@attrs.frozen(kw_only=True)
class HistoryEntry:
    """One changelog history of one issue (``id`` is Jira's history id)."""

    key: str
    id: str
    created: str
    author: str | None = None
    items: tuple[HistoryItem, ...] = ()


converter = cattrs.Converter(forbid_extra_keys=False)
converter.register_unstructure_hook(
    HistoryItem, make_dict_unstructure_fn(HistoryItem, converter, from_=override(rename="from"))
)
converter.register_structure_hook(
    HistoryItem, make_dict_structure_fn(HistoryItem, converter, from_=override(rename="from"))
)


def issue_to_wire(issue: MirrorIssue) -> dict[str, Any]:
    result: dict[str, Any] = converter.unstructure(issue)
    return result


def issue_from_wire(data: dict[str, Any]) -> MirrorIssue:
    return converter.structure(data, MirrorIssue)


#: The text fields of a mirror issue (all but ``key``, ``labels``, ``sprint`` and ``links``).
ISSUE_TEXT_FIELDS = (
    "summary", "description", "status", "status_category", "priority", "duedate", "planned_start",
    "planned_end", "epic_key", "assignee", "reporter", "created", "updated",
)  # fmt: skip


#: The longest text the hub keeps in each bounded field of a record (its database columns): a longer value is
#: refused by the hub and read as unreadable by the agent.
ISSUE_LIMITS: dict[str, int] = {
    "key": 60, "status_category": 40, "duedate": 40, "planned_start": 40, "planned_end": 40, "epic_key": 60,
    "created": 40, "updated": 40,
}  # fmt: skip
LINK_LIMITS: dict[str, int] = {"id": 60, "source": 60, "target": 60}
HISTORY_LIMITS: dict[str, int] = {"key": 60, "id": 60, "created": 40}


_DIGITS = re.compile(r"\d+")


def _number(found: re.Match[str]) -> str:
    digits = found.group().lstrip("0") or "0"
    return f"{len(digits):02d}{digits}"


def natural_key(key: str) -> str:
    """The text that sorts issue keys in natural order (``AURORA-2`` before ``AURORA-10``) by plain comparison of
    code points: every run of digits becomes its length in two digits, then the digits without leading zeros.

    One definition for the hub's lists: the mirror stores it as the issues' sort column, the core sorts with it.
    """
    return _DIGITS.sub(_number, key)


#: The longest :func:`natural_key` of a key within ``ISSUE_LIMITS["key"]``: each digit run grows by two, and
#: runs are apart, so at most every other character starts one.
NATURAL_KEY_MAX = 120


def _over(record: Any, limits: dict[str, int], prefix: str = "") -> str | None:
    for name, limit in limits.items():
        value = getattr(record, name)
        if isinstance(value, str) and len(value) > limit:
            return f"{prefix}{name} — длиннее {limit} символов"
    return None


def oversized(record: MirrorIssue | HistoryEntry) -> str | None:
    """What in ``record`` is longer than the hub keeps («links[0].id — длиннее 60 символов»), or ``None``."""
    if isinstance(record, HistoryEntry):
        return _over(record, HISTORY_LIMITS)
    found = _over(record, ISSUE_LIMITS)
    for index, link in enumerate(record.links):
        found = found or _over(link, LINK_LIMITS, f"links[{index}].")
    return found


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _check_issue(data: Any, what: str) -> None:
    # Checked strictly before cattrs, which alone would take a string for a list of labels.
    if not isinstance(data, dict):
        raise ValidationError(f"{what}: ожидается объект")
    if not isinstance(data.get("key"), str) or not data["key"]:
        raise ValidationError(f"{what}: key — ожидается ключ задачи")
    for name in ISSUE_TEXT_FIELDS:
        if data.get(name) is not None and not isinstance(data[name], str):
            raise ValidationError(f"{what}: {name} — ожидается строка или null")
    if not _strings(data.get("labels", [])):
        raise ValidationError(f"{what}: labels — ожидается список строк")
    sprint = data.get("sprint")
    if sprint is not None and not (
        isinstance(sprint, dict)
        and isinstance(sprint.get("id"), int)
        and not isinstance(sprint.get("id"), bool)
        and isinstance(sprint.get("name"), str)
        and isinstance(sprint.get("state"), str)
    ):
        raise ValidationError(f"{what}: sprint — ожидается {{id, name, state}} или null")
    links = data.get("links", [])
    if not isinstance(links, list) or not all(
        isinstance(k, dict) and all(isinstance(k.get(f), str) for f in ("id", "type", "source", "target"))
        for k in links
    ):
        raise ValidationError(f"{what}: links — ожидается список {{id, type, source, target}}")


def _check_history(data: Any, what: str) -> None:
    if not isinstance(data, dict):
        raise ValidationError(f"{what}: ожидается объект")
    for name in ("key", "id", "created"):
        if not isinstance(data.get(name), str):
            raise ValidationError(f"{what}: {name} — ожидается строка")
    if data.get("author") is not None and not isinstance(data["author"], str):
        raise ValidationError(f"{what}: author — ожидается строка или null")
    items = data.get("items", [])
    if not isinstance(items, list) or not all(_history_item(i) for i in items):
        raise ValidationError(f"{what}: items — ожидается список {{field, from, from_string, to, to_string}}")


def _history_item(item: Any) -> bool:
    # cattrs alone would turn a number or an object into its text.
    return (
        isinstance(item, dict)
        and isinstance(item.get("field"), str)
        and all(item.get(name) is None or isinstance(item[name], str) for name in _HISTORY_ITEM_TEXTS)
    )


_HISTORY_ITEM_TEXTS = ("from", "from_string", "to", "to_string")


def _structure(data: dict[str, Any], cls: type[Any], what: str) -> Any:
    try:
        return converter.structure(data, cls)
    except (cattrs.BaseValidationError, TypeError, ValueError, KeyError, AttributeError) as exc:
        raise ValidationError(f"{what}: запись не той формы: {exc}") from None


def wire_issue(data: Any, what: str) -> MirrorIssue:
    """A wire issue record sent by the agent (``what`` names it in the 422: ``issues[3]``)."""
    _check_issue(data, what)
    issue: MirrorIssue = _structure(data, MirrorIssue, what)
    problem = oversized(issue)
    if problem is not None:
        raise ValidationError(f"{what}: {problem}")
    return issue


def wire_history(data: Any, what: str) -> HistoryEntry:
    """A wire journal entry sent by the agent."""
    _check_history(data, what)
    entry: HistoryEntry = _structure(data, HistoryEntry, what)
    problem = oversized(entry)
    if problem is not None:
        raise ValidationError(f"{what}: {problem}")
    return entry
