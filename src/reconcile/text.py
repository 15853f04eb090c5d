"""Comparison of Jira text the way the seed asks: CRLF equals LF, ``null`` equals the empty string."""

from __future__ import annotations

__all__ = ["normalise_text", "same_text"]


def normalise_text(value: str | None) -> str:
    if value is None:
        return ""
    return value.replace("\r\n", "\n")


def same_text(a: str | None, b: str | None) -> bool:
    return normalise_text(a) == normalise_text(b)
