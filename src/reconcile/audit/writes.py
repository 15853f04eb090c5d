"""What a report's writes become in the audit (DESIGN.md 6.6): one ``jira_write`` record per operation, with the
issue it touched and, where the result says (DESIGN.md 6.4: ``changed: {field: {from, to}}``, ``from``/``to``,
``created``, ``replaced``, ``previous_body``), what it held before and after; ``None`` where the result does not
say. Pure.
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


def _fields_change(result: Mapping[str, Any]) -> tuple[Any, Any]:
    changed = result.get("changed")
    if not isinstance(changed, Mapping):
        return None, None
    pairs = {name: value for name, value in changed.items() if isinstance(value, Mapping)}
    before = {name: value.get("from") for name, value in pairs.items() if "from" in value}
    after = {name: value.get("to") for name, value in pairs.items() if "to" in value}
    return before or None, after or None


def _link_change(method: str, result: Mapping[str, Any]) -> tuple[Any, Any]:
    replaced = result.get("replaced")
    if isinstance(replaced, Mapping):
        return (replaced.get("old"), None) if method == "DELETE" else (None, replaced.get("new"))
    return None, result.get("created") if method == "POST" else None


def _change(command_type: str, method: str, result: Mapping[str, Any]) -> tuple[Any, Any]:
    """(before, after) of one write of ``command_type`` as its result tells them."""
    if command_type == CommandType.ENSURE_FIELDS:
        return _fields_change(result)
    if command_type in (CommandType.ENSURE_STATUS, CommandType.ENSURE_SPRINT):
        return result.get("from"), result.get("to")
    if command_type == CommandType.ENSURE_LINK:
        return _link_change(method, result)
    if command_type == CommandType.ENSURE_COMMENT and method == "PUT":
        return result.get("previous_body"), None
    return None, None


def jira_writes(
    command_type: str, params: Mapping[str, Any], operations: Sequence[Mapping[str, Any]], result: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """The ``data`` of each ``jira_write`` record of a report: ``method``, ``path``, ``status``, ``key``, ``before``,
    ``after``."""
    writes = []
    for operation in operations:
        method, path = str(operation.get("method")), str(operation.get("path"))
        before, after = _change(command_type, method, result)
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
