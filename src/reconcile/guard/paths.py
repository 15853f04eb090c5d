"""Jira paths built only from checked parts (DESIGN.md 5.7): the one way an executor makes a path.

A path is fixed resource names (:data:`Fixed`, a closed set), issue keys that passed the key rule
(:func:`issue_key`) and positive integer ids (:func:`positive_id`), joined by :func:`jira_path`. A value the hub
sent (a board id, a key) or Jira answered (a comment's, a link's, a sprint's id) that is anything else —
``..``, ``/``, ``?``, ``#``, ``%2e``, whitespace, another script's digits — raises :class:`PathRefused` before
the call is made, so no string chosen outside the agent is ever pasted into a URL.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal, get_args
from urllib.parse import quote

import attrs

from reconcile.vocabulary.commands import is_jira_key, is_temp_key

__all__ = [
    "AGILE",
    "API",
    "FIXED",
    "Fixed",
    "IssueKey",
    "PathRefused",
    "PositiveId",
    "constant_for_run",
    "issue_key",
    "issue_path",
    "jira_path",
    "positive_id",
    "shown_value",
]

#: Every fixed part a path may hold: the two API roots and the resource names the executors use.
Fixed = Literal[
    "rest/api/2",
    "rest/agile/1.0",
    "issue",
    "comment",
    "transitions",
    "attachments",
    "attachment",
    "issueLink",
    "issueLinkType",
    "search",
    "board",
    "sprint",
    "backlog",
]
FIXED: frozenset[str] = frozenset(get_args(Fixed))
API: Fixed = "rest/api/2"
AGILE: Fixed = "rest/agile/1.0"

#: A positive decimal number without a leading zero, in ASCII digits only, that fits Jira's ``long``.
_ID = re.compile(r"[1-9][0-9]{0,17}", re.ASCII)
_LONG = 10**18
_BOARD = re.compile(r"/rest/agile/1\.0/board/[1-9][0-9]{0,17}", re.ASCII)


class PathRefused(Exception):
    """A part that may not go into a Jira path; ``message`` is the command's ``error``."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@attrs.frozen
class IssueKey:
    """An issue key that passed the key rule (``AURORA-1538``; a plan's ``new:1`` too): none other can be made."""

    text: str = attrs.field()

    @text.validator
    def _key_rule(self, _attribute: Any, value: Any) -> None:
        if not (is_jira_key(value) or is_temp_key(value)):
            raise PathRefused(f"недопустимый ключ задачи: {shown_value(value)}")


@attrs.frozen
class PositiveId:
    """A positive integer id (a board's, a sprint's, a comment's, a link's): none other can be made."""

    number: int = attrs.field()

    @number.validator
    def _positive(self, _attribute: Any, value: Any) -> None:
        if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < _LONG:
            raise PathRefused(f"недопустимый id: {shown_value(value)}")


def shown_value(value: Any) -> str:
    """A refused value as a message shows it: JSON-quoted (control characters escaped), at most 80 characters."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = type(value).__name__
    return text if len(text) <= 80 else text[:79] + "…"


def issue_key(value: Any) -> IssueKey:
    """``value`` as a path part when it is a Jira issue key (or a plan's temp key), else :class:`PathRefused`."""
    return IssueKey(value)


def positive_id(value: Any, what: str) -> PositiveId:
    """``value`` (a number, or digits as Jira sends ids in strings) as a path part when it is a positive integer,
    else :class:`PathRefused` «недопустимый id <what>: …»."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value < _LONG:
        return PositiveId(value)
    if isinstance(value, str) and _ID.fullmatch(value):
        return PositiveId(int(value))
    raise PathRefused(f"недопустимый id {what}: {shown_value(value)}")


def jira_path(*parts: Fixed | IssueKey | PositiveId) -> str:
    """``/`` + the parts joined by ``/``; a fixed part outside :data:`FIXED` (or any other value) is refused."""
    segments: list[str] = []
    for part in parts:
        if isinstance(part, IssueKey):
            segments.append(quote(part.text, safe=""))
        elif isinstance(part, PositiveId):
            segments.append(str(part.number))
        elif isinstance(part, str) and part in FIXED:
            segments.append(part)
        else:
            raise PathRefused(f"недопустимая часть пути Jira: {shown_value(part)}")
    return "/" + "/".join(segments)


def issue_path(key: Any, *rest: Fixed | PositiveId) -> str:
    """``/rest/api/2/issue/<key>[/<rest>…]`` for a key that passes :func:`issue_key`."""
    return jira_path(API, "issue", issue_key(key), *rest)


def constant_for_run(method: str, path: str) -> bool:
    """Whether Jira's successful answer to this call may be kept for the agent's whole run: a board's own read
    (its project and type), so each board the hub names is verified with one call per run."""
    return method == "GET" and _BOARD.fullmatch(path) is not None
