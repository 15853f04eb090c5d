"""What a report's writes become in the audit (DESIGN.md 6.6): one ``jira_write`` record per operation, with the
issue it touched and, where the result says, what it held before and after; ``None`` where the result does not
say. Pure.

What a write replaced is under the result's ``undo`` (:mod:`reconcile.jira.replaced`, DESIGN.md 6.4):
``changed: {field: {from, to}}``, ``from``/``to`` of a status or a sprint, a link ``created`` or ``replaced``, a
comment ``created`` (its id after), ``updated`` (``previous_body`` before) or ``deleted`` (its text before), an
attachment ``added`` or ``deleted``. A result reported before ``undo`` existed said some of these at its top level:
they are read there when it has no ``undo``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import unquote

from reconcile.vocabulary.catalogue import CommandType

__all__ = ["jira_writes"]

_ISSUE_KEY = re.compile(r"/issue/([A-Z][A-Z0-9_]*-[0-9]+)")


def _key(path: str, params: Mapping[str, Any], result: Mapping[str, Any]) -> str | None:
    found = _ISSUE_KEY.search(unquote(path))
    if found is not None:
        return found.group(1)
    for name in ("key", "source"):
        value = params.get(name)
        if isinstance(value, str):
            return value
    key = result.get("key")
    return key if isinstance(key, str) else None


def _fields_change(said: Mapping[str, Any]) -> tuple[Any, Any]:
    changed = said.get("changed")
    if not isinstance(changed, Mapping):
        return None, None
    pairs = {name: value for name, value in changed.items() if isinstance(value, Mapping)}
    before = {name: value.get("from") for name, value in pairs.items() if "from" in value}
    after = {name: value.get("to") for name, value in pairs.items() if "to" in value}
    return before or None, after or None


def _link_change(method: str, said: Mapping[str, Any]) -> tuple[Any, Any]:
    replaced = said.get("replaced")
    if isinstance(replaced, Mapping):
        return (replaced.get("old"), None) if method == "DELETE" else (None, replaced.get("new"))
    return None, said.get("created") if method == "POST" else None


def _deleted(said: Mapping[str, Any], path: str) -> Any:
    """The item of ``deleted`` whose id ends the path of its ``DELETE``."""
    written_id = unquote(path).rpartition("/")[2]
    deleted = said.get("deleted")
    items = deleted if isinstance(deleted, list) else []
    return next((d for d in items if isinstance(d, Mapping) and str(d.get("id")) == written_id), None)


def _comment_change(method: str, path: str, said: Mapping[str, Any]) -> tuple[Any, Any]:
    if method == "PUT":
        return said.get("previous_body"), None
    if method == "DELETE":
        comment = _deleted(said, path)
        return (comment.get("body") if comment is not None else None), None
    return None, said.get("created")  # a POST: the writes of a comment are POST, PUT and DELETE


def _attachment_change(method: str, path: str, said: Mapping[str, Any]) -> tuple[Any, Any]:
    if method == "DELETE":
        return _deleted(said, path), None
    return None, said.get("added")  # a POST: the writes of an attachment are POST and DELETE


def _change(command_type: str, method: str, path: str, said: Mapping[str, Any]) -> tuple[Any, Any]:
    """(before, after) of one write of ``command_type`` as what its result says it replaced tells them."""
    if command_type == CommandType.ENSURE_FIELDS:
        return _fields_change(said)
    if command_type in (CommandType.ENSURE_STATUS, CommandType.ENSURE_SPRINT):
        return said.get("from"), said.get("to")
    if command_type == CommandType.ENSURE_LINK:
        return _link_change(method, said)
    if command_type == CommandType.ENSURE_COMMENT:
        return _comment_change(method, path, said)
    if command_type == CommandType.ENSURE_ATTACHMENT:
        return _attachment_change(method, path, said)
    return None, None


def jira_writes(
    command_type: str, params: Mapping[str, Any], operations: Sequence[Mapping[str, Any]], result: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """The ``data`` of each ``jira_write`` record of a report: ``method``, ``path``, ``status``, ``key``, ``before``,
    ``after``."""
    undo = result.get("undo")
    said = undo if isinstance(undo, Mapping) else result
    writes = []
    for operation in operations:
        method, path = str(operation.get("method")), str(operation.get("path"))
        before, after = _change(command_type, method, path, said)
        writes.append(
            {
                "method": method,
                "path": path,
                "status": operation.get("status"),
                "key": _key(path, params, result),
                "before": before,
                "after": after,
            }
        )
    return writes
