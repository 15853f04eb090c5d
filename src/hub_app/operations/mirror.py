"""The mirror as the planning tools read it: a project's slice, one issue with its notes, its journal and the commands
that touched it; notes."""

from __future__ import annotations

import attrs

from adapters.storage.records import BatchRecord, CommandRecord
from hub_app.answers.mirror import IssueDetail, IssueView, NoteView
from hub_app.answers.wire import Items
from hub_app.bodies.mirror import NoteIn
from hub_app.bodies.parsing import page_bounds
from hub_app.runtime.hub import Unit
from hub_app.runtime.lookups import project
from reconcile.batches import touching
from reconcile.guard import scope
from reconcile.outlook import QueueFilter
from reconcile.vocabulary import HistoryEntry, NotFoundError, ValidationError, is_jira_key

__all__ = [
    "IssueTouch",
    "add_note",
    "get_issue",
    "issue_commands",
    "issue_history",
    "list_issues",
    "list_notes",
    "slice_statuses",
]


async def list_issues(
    unit: Unit,
    *,
    project_name: str | None = None,
    text: str | None = None,
    status: str | None = None,
    limit: int | None = None,
    offset: int | None = None,
) -> Items[IssueView]:
    """A project's slice (issues with its label, exact match, not vanished), or every issue; ``text`` narrows it
    to keys or summaries containing it, ``status`` to one status."""
    size, start = page_bounds(limit, offset)
    if project_name is not None:
        await project(unit, project_name)
    entries, total = await unit.db.mirror.slice(project_name, limit=size, offset=start, text=text, status=status)
    return Items(items=[IssueView.of(entry) for entry in entries], total=total)


async def slice_statuses(unit: Unit, project_name: str) -> list[str]:
    """The statuses found in a project's slice (what its status filter offers)."""
    return await unit.db.mirror.statuses(project_name)


async def get_issue(unit: Unit, key: str) -> IssueDetail:
    entry = await unit.db.mirror.entry(key)
    if entry is None:
        raise NotFoundError(f"задачи {key} нет в зеркале")
    return IssueDetail.with_notes(entry, await unit.db.notes.of_key(key))


@attrs.frozen(kw_only=True)
class IssueTouch:
    """A command that touched an issue (:func:`reconcile.batches.issue_touch.touching`), with its batch."""

    batch: BatchRecord
    command: CommandRecord


async def issue_commands(unit: Unit, key: str, *, batches: int) -> tuple[list[IssueTouch], bool]:
    """The commands that touched ``key``, newest batch first, from the latest ``batches`` batches whose text names
    it (the queue's text search: keys, results); and whether older batches name it too."""
    found, total = await unit.db.queue.batches(limit=batches, offset=0, only=QueueFilter(text=key, automatic=True))
    commands = await unit.db.queue.commands_of([b.id for b in found])
    touches = [IssueTouch(batch=b, command=c) for b in found for c in touching(key, commands[b.id])]
    return touches, total > batches


async def issue_history(
    unit: Unit, key: str, *, limit: int | None = None, offset: int | None = None
) -> Items[HistoryEntry]:
    size, start = page_bounds(limit, offset)
    entries, total = await unit.db.mirror.history(key, limit=size, offset=start)
    return Items(items=entries, total=total)


async def add_note(unit: Unit, body: NoteIn, *, author: str) -> NoteView:
    if not is_jira_key(body.key):
        raise ValidationError("key — ожидается ключ задачи Jira (AURORA-1538); new:<n> — только в пакете")
    scope.check_keys([body.key], (await unit.db.admin.settings()).jira_project)
    note = await unit.db.notes.add(key=body.key, author=author, text=body.text, now=unit.now)
    return NoteView.of(note)


async def list_notes(
    unit: Unit, *, key: str | None = None, limit: int | None = None, offset: int | None = None
) -> Items[NoteView]:
    size, start = page_bounds(limit, offset)
    notes, total = await unit.db.notes.page(key=key, limit=size, offset=start)
    return Items(items=[NoteView.of(n) for n in notes], total=total)
