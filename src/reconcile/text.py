"""Text rules: Jira text compares as the seed asks (CRLF equals LF, ``null`` equals ""); requests carry clean text."""

from __future__ import annotations

import math
from typing import Any

from reconcile.errors import ValidationError

__all__ = ["MAX_JSON_DEPTH", "TooDeep", "check_request_json", "check_text", "normalise_text", "same_text"]


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


def _bad_text(text: str) -> bool:
    return "\x00" in text or any(0xD800 <= ord(ch) <= 0xDFFF for ch in text)


def check_text(text: str, where: str) -> None:
    """A text of a request is valid Unicode without NUL: else «недопустимый символ в <where>» (422)."""
    if _bad_text(text):
        raise ValidationError(f"недопустимый символ в {where}")


def check_request_json(value: Any) -> None:
    """Every text in a request is valid Unicode without NUL, and every number is finite (DESIGN.md 3).

    Raises :class:`ValidationError` «недопустимый символ в <путь>» / «недопустимое число в <путь>» naming
    where (``commands[0].params.body``), or :class:`TooDeep`.
    """
    stack: list[tuple[Any, str, int]] = [(value, "", 1)]
    while stack:
        item, path, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            raise TooDeep(f"вложенность JSON глубже {MAX_JSON_DEPTH}")
        where = path or "теле запроса"
        if isinstance(item, str):
            check_text(item, where)
        elif isinstance(item, float):
            if not math.isfinite(item):
                raise ValidationError(f"недопустимое число в {where}")
        elif isinstance(item, dict):
            for key, child in reversed(list(item.items())):
                child_path = f"{path}.{key}" if path else str(key)
                check_text(key, where)
                stack.append((child, child_path, depth + 1))
        elif isinstance(item, list):
            for index in reversed(range(len(item))):
                stack.append((item[index], f"{path}[{index}]", depth + 1))
