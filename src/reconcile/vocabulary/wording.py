"""How plans and results name fields and show values to a person (DESIGN.md 8, round 3: «срок: 23.10 → 15.12»).

A field is named by its catalogue label (:data:`reconcile.vocabulary.catalogue.FIELD_PARAMS`), in lower case inside a
line; a date (``2026-10-23``) reads ``23.10.2026``, and a change of a date within one year ``23.10 → 15.12``; a text is
quoted and cut, a list joined, nothing is «пусто».
"""

from __future__ import annotations

import re
from typing import Any

from reconcile.vocabulary.catalogue import FIELD_PARAMS, Format

__all__ = ["conflict_text", "field_change", "field_name", "field_value", "show"]

_LONG = 80
_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")


def show(value: Any) -> str:
    """A value as a person reads it in a line: «пусто» for none, long texts cut, line breaks visible."""
    if value is None or value in ("", []):
        return "пусто"
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    text = str(value).replace("\r\n", "\n").replace("\n", " ⏎ ")
    if len(text) > _LONG:
        text = text[: _LONG - 1] + "…"
    return f"«{text}»"


#: The aspects an only-if-unchanged command compares that are no field of ``ensure_fields``.
_ASPECTS = {"status": "статус", "sprint": "спринт"}


def field_name(name: str) -> str:
    """The field's catalogue label as a line names it (``duedate`` → «срок»); an unknown name as it is."""
    param = FIELD_PARAMS.get(name)
    if name in _ASPECTS or param is None:
        return _ASPECTS.get(name, name)
    return param.label[:1].lower() + param.label[1:]


def _is_date(name: str) -> bool:
    param = FIELD_PARAMS.get(name)
    return param is not None and param.format is Format.DATE


def _date(value: Any, *, year: bool = True) -> str | None:
    found = _DATE.fullmatch(value) if isinstance(value, str) else None
    if found is None:
        return None
    yyyy, mm, dd = found.groups()
    return f"{dd}.{mm}.{yyyy}" if year else f"{dd}.{mm}"


def field_value(name: str, value: Any) -> str:
    """A field's value: a date as ``23.10.2026``, anything else as :func:`show` shows it."""
    if _is_date(name):
        return _date(value) or show(value)
    return show(value)


def field_change(name: str, before: Any, after: Any) -> str:
    """«срок: 23.10 → 15.12»: the year is left out when both dates are of the same year."""
    if _is_date(name) and isinstance(before, str) and isinstance(after, str) and before[:4] == after[:4]:
        short_before, short_after = _date(before, year=False), _date(after, year=False)
        if short_before and short_after:
            return f"{field_name(name)}: {short_before} → {short_after}"
    return f"{field_name(name)}: {field_value(name, before)} → {field_value(name, after)}"


def conflict_text(name: str, expected: Any, found: Any) -> str:
    """An aspect an only-if-unchanged write left: «срок не изменён: в Jira 15.12.2026, ожидалось 01.10.2026»."""
    shown = "бэклог" if name == "sprint" and found is None else field_value(name, found)
    wanted = "бэклог" if name == "sprint" and expected is None else field_value(name, expected)
    return f"{field_name(name)} не изменён: в Jira {shown}, ожидалось {wanted}"
