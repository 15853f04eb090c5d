"""Normalised mirror records: what the agent reads from Jira, sends to the hub, and the hub stores.

The wire shapes are DESIGN.md section 6 («Wire records»). Strings keep Jira's text as is (CRLF included);
comparison rules live in :mod:`reconcile.text`.
"""

from __future__ import annotations

from typing import Any

import attrs
import cattrs
from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn, override

__all__ = [
    "HistoryEntry",
    "HistoryItem",
    "MirrorIssue",
    "MirrorLink",
    "SprintRef",
    "converter",
    "issue_from_wire",
    "issue_to_wire",
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
    from_: str | None = None
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
