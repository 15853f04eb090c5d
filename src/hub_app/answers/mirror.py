"""Answers about the mirror: an issue as the hub last saw it (with its notes), and a note."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from adapters.storage.records import MirrorEntry, NoteRecord
from hub_app.answers.wire import iso
from reconcile.vocabulary import MirrorLink, SprintRef

__all__ = ["IssueDetail", "IssueView", "NoteView"]


@attrs.frozen(kw_only=True)
class IssueView:
    """A mirror issue (the wire record of DESIGN 6) with when the hub last saw it, and whether it vanished."""

    key: str
    summary: str | None
    description: str | None
    status: str | None
    status_category: str | None
    priority: str | None
    duedate: str | None
    planned_start: str | None
    planned_end: str | None
    labels: list[str]
    epic_key: str | None
    assignee: str | None
    reporter: str | None
    created: str | None
    updated: str | None
    sprint: SprintRef | None
    links: list[MirrorLink]
    refreshed_at: str
    vanished_at: str | None

    @classmethod
    def fields_of(cls, entry: MirrorEntry) -> dict[str, Any]:
        data: dict[str, Any] = attrs.asdict(entry.issue, recurse=False)
        data.update(
            labels=list(entry.issue.labels),
            links=list(entry.issue.links),
            refreshed_at=iso(entry.refreshed_at),
            vanished_at=iso(entry.vanished_at),
        )
        return data

    @classmethod
    def of(cls, entry: MirrorEntry) -> IssueView:
        return cls(**cls.fields_of(entry))


@attrs.frozen(kw_only=True)
class IssueDetail(IssueView):
    notes: list[NoteView]

    @classmethod
    def with_notes(cls, entry: MirrorEntry, notes: Sequence[NoteRecord]) -> IssueDetail:
        return cls(**IssueView.fields_of(entry), notes=[NoteView.of(n) for n in notes])


@attrs.frozen(kw_only=True)
class NoteView:
    id: int
    batch_id: int | None
    key: str
    author: str
    text: str
    created_at: str

    @classmethod
    def of(cls, note: NoteRecord) -> NoteView:
        return cls(
            id=note.id,
            batch_id=note.batch_id,
            key=note.key,
            author=note.author,
            text=note.text,
            created_at=iso(note.created_at),
        )
