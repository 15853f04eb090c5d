"""Reading Jira's answers strictly: each helper returns the value in the shape Jira documents, or raises
:class:`~reconcile.vocabulary.errors.JiraAnswerError` naming the issue key (or the call) and the field.

Used by :mod:`reconcile.jira.model` and the executors, so no answer of Jira reaches a Python ``TypeError``,
``AttributeError``, ``KeyError`` or ``OverflowError``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from reconcile.vocabulary.errors import JiraAnswerError, ValidationError
from reconcile.vocabulary.text import check_text, utc_text

__all__ = [
    "answer_key",
    "jira_id",
    "jira_int",
    "jira_list",
    "jira_object",
    "jira_text",
    "jira_time",
    "kind_of",
    "opt_object",
    "opt_text",
]

_KINDS: tuple[tuple[type, str], ...] = (
    (bool, "логическое значение"),
    (int, "число"),
    (float, "число"),
    (str, "строка"),
    (list, "список"),
    (dict, "объект"),
)
# Jira's ids are digits; anything short without spaces is taken (the dry run's placeholders are words).
_ID = re.compile(r"\S{1,64}")


def kind_of(value: Any) -> str:
    """What a JSON value is, in the words of the messages («число», «список», …)."""
    if value is None:
        return "null"
    return next((name for kind, name in _KINDS if isinstance(value, kind)), type(value).__name__)


def _wrong(key: str, field: str, expected: str, value: Any) -> JiraAnswerError:
    return JiraAnswerError(key, field, f"ожидается {expected}, получено: {kind_of(value)}")


def jira_object(value: Any, key: str, field: str) -> Mapping[str, Any]:
    """An object (``{}``-shaped) answer or field."""
    if not isinstance(value, Mapping):
        raise _wrong(key, field, "объект", value)
    return value


def opt_object(value: Any, key: str, field: str) -> Mapping[str, Any] | None:
    """An object or ``null``."""
    return None if value is None else jira_object(value, key, field)


def jira_list(value: Any, key: str, field: str) -> list[Any]:
    """A list; ``null`` reads as empty."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise _wrong(key, field, "список", value)
    return value


def _clean(value: str, key: str, field: str) -> str:
    try:
        check_text(value, field)
    except ValidationError:
        raise JiraAnswerError(key, field, "недопустимый символ") from None
    return value


def opt_text(value: Any, key: str, field: str) -> str | None:
    """A string (valid Unicode without NUL) or ``null``."""
    if value is not None and not isinstance(value, str):
        raise _wrong(key, field, "строка или null", value)
    return None if value is None else _clean(value, key, field)


def jira_text(value: Any, key: str, field: str) -> str:
    """A non-empty string (valid Unicode without NUL)."""
    if not isinstance(value, str) or not value:
        raise _wrong(key, field, "непустая строка", value)
    return _clean(value, key, field)


def jira_id(value: Any, key: str, field: str) -> str:
    """An id Jira gives as a string or a number (``"10400"`` or ``10400``), as a string."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 10**18:
        return str(value)
    if isinstance(value, str) and _ID.fullmatch(value):
        return _clean(value, key, field)
    raise _wrong(key, field, "идентификатор Jira", value)


def jira_int(value: Any, key: str, field: str) -> int:
    """A numeric id (a sprint's, a board's) given as a number or a string of digits."""
    text = jira_id(value, key, field)
    if not (text.isascii() and text.isdigit()):
        raise _wrong(key, field, "число", value)
    return int(text)


def jira_time(value: Any, key: str, field: str, *, millis: bool = False) -> str | None:
    """A Jira timestamp (``2026-10-22T12:00:00.000+0300``) as UTC ISO-8601 with ``Z``; ``null`` stays ``None``.

    To the second, or with ``millis`` to Jira's millisecond when it has one (``2026-10-22T09:00:00.123Z``; a whole
    second is still written ``…:00Z``, so a time read before stays the same text)."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise _wrong(key, field, "дата-время", value)
    try:
        moment = datetime.fromisoformat(value)
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        moment = moment.astimezone(UTC)
    except (ValueError, OverflowError):
        raise JiraAnswerError(key, field, f"не дата-время: {value[:40]!r}") from None
    return utc_text(moment, "milli") if millis and moment.microsecond // 1000 else utc_text(moment)


def answer_key(raw: Any, default: str = "?") -> str:
    """The ``key`` of an issue answer when it has a readable one (to name it in a message), else ``default``."""
    key = raw.get("key") if isinstance(raw, Mapping) else None
    return key if isinstance(key, str) and key else default
