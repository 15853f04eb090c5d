"""Text rules: Jira text compares as the seed asks (CRLF equals LF, ``null`` equals ""); requests carry clean text;
a moment is written as UTC ISO 8601 with ``Z`` one way (:func:`utc_text`)."""

from __future__ import annotations

import html
import math
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Literal

from reconcile.vocabulary.errors import ValidationError

__all__ = [
    "BODY_HEAD",
    "MAX_JSON_DEPTH",
    "TooDeep",
    "bad_place",
    "body_text",
    "check_request_json",
    "check_text",
    "error_text",
    "normalise_text",
    "readable",
    "same_text",
    "utc_text",
]


def utc_text(moment: datetime, fraction: Literal["none", "milli", "micro", "auto"] = "none") -> str:
    """``moment`` in UTC as ISO 8601 with ``Z`` (a naive one is taken as UTC): to the second (``none``), with
    milliseconds or microseconds always (``milli``, ``micro``), or with microseconds only when it has any (``auto``,
    what ``isoformat`` writes): ``2026-10-22T09:00:00Z``, ``2026-10-22T09:00:00.120Z``, ``…:00.120000Z``."""
    utc = moment if moment.tzinfo is None else moment.astimezone(UTC)  # a naive one is in UTC already
    whole = utc.replace(microsecond=0, tzinfo=None).isoformat()
    if fraction == "milli":
        return f"{whole}.{utc.microsecond // 1000:03d}Z"
    if fraction == "micro" or (fraction == "auto" and utc.microsecond):
        return f"{whole}.{utc.microsecond:06d}Z"
    return f"{whole}Z"


def normalise_text(value: str | None) -> str:
    if value is None:
        return ""
    return value.replace("\r\n", "\n")


def same_text(a: str | None, b: str | None) -> bool:
    return normalise_text(a) == normalise_text(b)


#: How deep a request's JSON may nest (a batch needs 5 levels; anything far deeper is an attack or a bug).
MAX_JSON_DEPTH = 64


class TooDeep(ValueError):
    """The JSON nests deeper than :data:`MAX_JSON_DEPTH` (HTTP 400: not a request anyone means)."""


_BAD = re.compile("[\x00\ud800-\udfff]")


def _bad_text(text: str) -> bool:
    """A NUL or a lone surrogate (what JSON's ``\\u`` escapes can smuggle in) anywhere in ``text``."""
    return _BAD.search(text) is not None


def readable(value: Any) -> Any:
    """``value`` (a JSON value) with every NUL or lone surrogate in its texts replaced by U+FFFD: for what the
    agent reports of Jira's own words (an error message, a status name), which the hub would otherwise refuse."""
    if isinstance(value, str):
        return _BAD.sub("\ufffd", value)
    if isinstance(value, Mapping):
        return {readable(k): readable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [readable(v) for v in value]
    return value


_HTML = re.compile(r"<\s*(?:!doctype|html|head|body|title)\b", re.IGNORECASE)
_TITLE = re.compile(r"<title[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)
_HIDDEN = re.compile(r"<(script|style|head)\b.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]*>")
#: The most of an HTML page's text an error line shows when the page has no title.
BODY_HEAD = 200


def body_text(body: str, status: int | None = None) -> str:
    """An error body as a line a person reads: an HTML page (a proxy's or Jira's own 503) by its ``<title>``, without
    the status code it repeats («503 Service Unavailable» → «Service Unavailable»), or else by the head of its text;
    any other body as it is, trimmed."""
    text = body.strip()
    if not _HTML.search(text):
        return text
    found = _TITLE.search(text)
    words = " ".join(html.unescape(_TAG.sub(" ", found.group(1))).split()) if found else ""
    if not words:
        words = " ".join(html.unescape(_TAG.sub(" ", _HIDDEN.sub(" ", text))).split())
    if status is not None and words.startswith(f"{status} "):
        words = words[len(str(status)) + 1 :].strip()
    return words if len(words) <= BODY_HEAD else words[: BODY_HEAD - 1] + "…"


_HTTP_ERROR = re.compile(r"(.*?\bHTTP (\d{3}): )(.*)", re.DOTALL)


def error_text(error: str) -> str:
    """An error line as a person reads it: one stored before :func:`body_text` named HTML pages by their title
    («HTTP 503: <html>…») reads as one stored after; any other line as it is."""
    found = _HTTP_ERROR.fullmatch(error)
    if found is None or not _HTML.search(found.group(3)):
        return error
    return found.group(1) + body_text(found.group(3), int(found.group(2)))


def check_text(text: str, where: str) -> None:
    """A text of a request is valid Unicode without NUL: else «недопустимый символ в <where>» (422)."""
    if _bad_text(text):
        raise ValidationError(f"недопустимый символ в {where}")


def _clean(value: Any, depth: int) -> bool:
    """Whether ``value`` has no bad text or number and is not too deep (no paths made: the common case)."""
    if depth > MAX_JSON_DEPTH:
        return False
    if isinstance(value, str):
        return _BAD.search(value) is None
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(
            (not isinstance(key, str) or _BAD.search(key) is None) and _clean(child, depth + 1)
            for key, child in value.items()
        )
    if isinstance(value, list | tuple):
        return all(_clean(child, depth + 1) for child in value)
    return True


def bad_place(value: Any) -> tuple[str, str] | None:
    """The first place in a JSON value whose text is invalid or number not finite: (path, message), or ``None``.

    The message is the 422's («недопустимый символ в commands[0].params.body»); the path is "" at the root.
    Raises :class:`TooDeep` past :data:`MAX_JSON_DEPTH` levels.
    """
    return None if _clean(value, 1) else _walk(value)


def _walk(value: Any) -> tuple[str, str] | None:
    """:func:`bad_place` the slow way, making each place's path (the fast :func:`_clean` must agree with it)."""
    stack: list[tuple[Any, str, int]] = [(value, "", 1)]
    while stack:
        item, path, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            raise TooDeep(f"вложенность JSON глубже {MAX_JSON_DEPTH}")
        where = path or "теле запроса"
        if isinstance(item, str):
            if _bad_text(item):
                return path, f"недопустимый символ в {where}"
        elif isinstance(item, float):
            if not math.isfinite(item):
                return path, f"недопустимое число в {where}"
        elif isinstance(item, dict):
            for key, child in reversed(list(item.items())):
                if isinstance(key, str) and _bad_text(key):
                    return path, f"недопустимый символ в {where}"
                stack.append((child, f"{path}.{key}" if path else str(key), depth + 1))
        elif isinstance(item, list | tuple):
            for index in reversed(range(len(item))):
                stack.append((item[index], f"{path}[{index}]", depth + 1))
    return None


def check_request_json(value: Any) -> None:
    """Every text in a request is valid Unicode without NUL, and every number is finite (DESIGN.md 3).

    Raises :class:`ValidationError` «недопустимый символ в <путь>» / «недопустимое число в <путь>» naming
    where (``commands[0].params.body``), or :class:`TooDeep`.
    """
    found = bad_place(value)
    if found is not None:
        raise ValidationError(found[1])
