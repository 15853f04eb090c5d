"""The undo of a batch (DESIGN.md 6.4): the inverse batch of what its commands wrote, as a pure rule.

Every ``done`` command that wrote something is taken back from what its result says it replaced
(:mod:`reconcile.jira.replaced`), newest first (by ``seq`` descending: the order they ran in, reversed):

- fields back to their values before, each only while Jira still holds the value the batch set
  (``if_unchanged``); labels added are removed and labels removed are added back;
- the status back along the reverse of the path taken, only while the issue is in the status the batch left (a
  missing transition fails as the seed says, naming the ones available);
- the sprint back (the backlog for ``null``), only while the issue is in the sprint the batch put it in;
- a link created is removed (``present: false``), a link deleted (a replace, a removal) is created again;
- a comment created is deleted (``absent: true``: only the agent's own), an updated one gets its previous body, a
  deleted one is written again;
- an attachment added is deleted (``absent: true``), a deleted one uploaded again;
- an issue created is never deleted: ``settings.undo.created_issue`` leaves it (named in the plan) or moves it
  along a path of statuses and labels it.

An aspect that the mirror shows changed since the batch set it was changed by a person: it is kept, left out of
the inverse batch and named with the journal's author and time («срок изменил ivanov 02.12 10:14 — не
возвращается»); what the mirror has not seen yet the agent's only-if-unchanged check still keeps. Walking back
newest first, an aspect set twice by the batch is compared with what the newer command's inverse leaves there, not
with the mirror; once kept, it stays kept for every older command (the person changed it after them all). A
command that failed is taken back as far as it wrote (its result says what it replaced so far: a status moved one
step of its path before a missing transition). A command whose
result says nothing of what it replaced (it predates this rule, or its report was lost: ``confirmed_by_state``)
is listed «что было до — не известно», never guessed. A command that wrote nothing has nothing to take back.

A batch is undone once: while an undo batch of it stands (one not wholly cancelled — it runs, waits, or ran), its
plan takes nothing back and names that batch («откат уже в пакете 18»); what that undo failed to do is retried
there. Undoing again would read what the first undo put back as the batch's own values and write them again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import attrs

from reconcile.config.settings import Settings
from reconcile.jira.replaced import (
    AttachmentUndo,
    CommentUndo,
    FieldsUndo,
    IssueUndo,
    LinkUndo,
    SprintUndo,
    StatusUndo,
    Undo,
    undo_of_result,
)
from reconcile.outlook.drift import Drift, attribute
from reconcile.vocabulary.catalogue import REFRESH_TYPE, CommandType
from reconcile.vocabulary.lifecycle import CommandStatus
from reconcile.vocabulary.records import HistoryEntry, MirrorIssue, MirrorLink
from reconcile.vocabulary.text import same_text
from reconcile.vocabulary.wording import field_name, field_value

__all__ = ["DoneCommand", "Kept", "UndoItem", "UndoPlan", "plan_undo", "standing_undo", "undo_title"]

UNKNOWN = "что было до — не известно"


@attrs.frozen(kw_only=True)
class DoneCommand:
    """A command of the batch to undo: ``params`` with the batch's temp keys resolved, whether it wrote."""

    id: int
    seq: int
    type: str
    params: Mapping[str, Any]
    status: CommandStatus
    result: Mapping[str, Any] | None
    wrote: bool
    finished_at: datetime | None = None


@attrs.frozen(kw_only=True)
class Kept:
    """An aspect a person changed after the batch set it: not taken back."""

    command_id: int
    key: str
    aspect: str
    now: Any
    changed_by: str | None = None
    changed_at: str | None = None

    def text(self, zone: str | None) -> str:
        """«срок изменил ivanov 02.12 10:14 — не возвращается» (who and when from the journal, when it says)."""
        who = self.changed_by or "человек"
        when = f" {_local(self.changed_at, zone)}" if self.changed_at else ""
        return f"{self.key}: {field_name(self.aspect)} изменил {who}{when} — не возвращается"


@attrs.frozen(kw_only=True)
class UndoItem:
    """What the undo does with one command of the batch: ``outcome`` ``undone`` (with the inverse commands'
    positions in the undo batch), ``kept`` (all it set was changed since), ``unknown``, ``left`` (an issue
    created), ``nothing`` (it wrote nothing); ``text`` says it in words."""

    command_id: int
    seq: int
    type: str
    outcome: str
    text: str
    commands: tuple[int, ...] = ()


@attrs.frozen(kw_only=True)
class UndoPlan:
    """The inverse batch's commands (newest first), each command of the batch with what happens to it, and the
    aspects kept."""

    commands: tuple[Mapping[str, Any], ...]
    items: tuple[UndoItem, ...]
    kept: tuple[Kept, ...]


def undo_title(batch_id: int, title: str) -> str:
    return f"Откат пакета {batch_id}: {title}"


def standing_undo(undo_batches: Mapping[int, Sequence[CommandStatus]]) -> int | None:
    """The undo batch that stands for a batch, of its undo batches (id → their commands' statuses): the oldest not
    wholly cancelled; ``None`` when there is none (the batch may be undone)."""
    return next(
        (
            batch_id
            for batch_id, statuses in sorted(undo_batches.items())
            if any(s is not CommandStatus.CANCELLED for s in statuses)
        ),
        None,
    )


def _local(at: str, zone: str | None) -> str:
    try:
        moment = datetime.fromisoformat(at)
    except ValueError:
        return at
    try:
        tz: Any = ZoneInfo(zone) if zone else UTC
    except (ZoneInfoNotFoundError, ValueError):
        tz = UTC
    moment = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    return moment.astimezone(tz).strftime("%d.%m %H:%M")


@attrs.frozen(kw_only=True)
class _Inverse:
    commands: list[dict[str, Any]] = attrs.Factory(list)
    kept: list[Kept] = attrs.Factory(list)
    outcome: str = "undone"
    text: str = ""


@attrs.define
class _Walk:
    """What each aspect ``(key, aspect)`` holds as the undo walks the batch back, newest first: the mirror's value
    until an inverse writes another, and the aspects kept."""

    values: dict[tuple[str, str], Any] = attrs.Factory(dict)
    kept: set[tuple[str, str]] = attrs.Factory(set)

    def back(self, key: str, aspect: str, *, after: Any, mirror: Any, before: Any) -> _Held | None:
        """``None`` when the aspect still holds ``after`` (its inverse then writes ``before``), else what it holds
        (the aspect is kept from now on)."""
        slot = (key, aspect)
        now = self.values.get(slot, mirror)
        if slot not in self.kept and same_text(now, after):
            self.values[slot] = before
            return None
        self.kept.add(slot)
        return _Held(now)


@attrs.frozen
class _Held:
    """A kept aspect's value now (which may be ``None``)."""

    value: Any


def _command(command_type: str, **params: Any) -> dict[str, Any]:
    return {"type": command_type, "params": params}


def _fields(done: DoneCommand, undo: FieldsUndo, issue: MirrorIssue | None, walk: _Walk) -> _Inverse:
    key = str(done.params.get("key"))
    params: dict[str, Any] = {}
    expected: dict[str, Any] = {}
    inverse = _Inverse()
    for name, change in undo.changed.items():
        mirror = getattr(issue, name, None) if issue is not None else change.after
        held = walk.back(key, name, after=change.after, mirror=mirror, before=change.before)
        if held is not None:
            inverse.kept.append(Kept(command_id=done.id, key=key, aspect=name, now=held.value))
            continue
        params[name] = change.before
        expected[name] = change.after
    if undo.added:
        params["labels_remove"] = list(undo.added)
    if undo.removed:
        params["labels_add"] = list(undo.removed)
    if expected:
        params["if_unchanged"] = expected
    if params:
        inverse.commands.append(_command(CommandType.ENSURE_FIELDS, key=key, **params))
    return inverse


def _status(done: DoneCommand, undo: StatusUndo, issue: MirrorIssue | None, walk: _Walk) -> _Inverse:
    key = str(done.params.get("key"))
    mirror = issue.status if issue is not None else undo.after
    held = walk.back(key, "status", after=undo.after, mirror=mirror, before=undo.before)
    if held is not None:
        return _Inverse(kept=[Kept(command_id=done.id, key=key, aspect="status", now=held.value)])
    back = [*reversed(undo.path[:-1]), undo.before]
    target: Any = back[0] if len(back) == 1 else back
    return _Inverse(
        commands=[_command(CommandType.ENSURE_STATUS, key=key, target=target, if_unchanged={"status": undo.after})]
    )


def _sprint(done: DoneCommand, undo: SprintUndo, issue: MirrorIssue | None, walk: _Walk) -> _Inverse:
    key = str(done.params.get("key"))
    after = undo.after.name if undo.after is not None else None
    before = undo.before.name if undo.before is not None else None
    mirror = (issue.sprint.name if issue.sprint is not None else None) if issue is not None else after
    held = walk.back(key, "sprint", after=after, mirror=mirror, before=before)
    if held is not None:
        return _Inverse(kept=[Kept(command_id=done.id, key=key, aspect="sprint", now=held.value)])
    return _Inverse(
        commands=[_command(CommandType.ENSURE_SPRINT, key=key, sprint=before, if_unchanged={"sprint": after})]
    )


def _logical(link: MirrorLink, settings: Settings) -> str | None:
    return next((name for name, jira in settings.link_types.items() if jira == link.type), None)


def _link(done: DoneCommand, undo: LinkUndo, settings: Settings) -> _Inverse:
    inverse = _Inverse()
    wanted = [(undo.created, False)] if undo.created is not None else []
    for link, restore in (*wanted, *((old, True) for old in undo.removed)):
        assert link is not None
        logical = _logical(link, settings)
        if logical is None:
            return _Inverse(outcome="unknown", text=f"тип связи «{link.type}» не в настройках link_types")
        params: dict[str, Any] = {"source": link.source, "target": link.target, "link_type": logical}
        params.update(replace=False) if restore else params.update(present=False)
        inverse.commands.append(_command(CommandType.ENSURE_LINK, **params))
    return inverse


def _comment(done: DoneCommand, undo: CommentUndo) -> _Inverse:
    key, marker = str(done.params.get("key")), str(done.params.get("marker"))
    if undo.created is not None:
        return _Inverse(commands=[_command(CommandType.ENSURE_COMMENT, key=key, marker=marker, absent=True)])
    body = undo.previous_body if undo.updated is not None else undo.deleted[0].body if undo.deleted else None
    if body is None:
        return _Inverse(outcome="nothing")
    return _Inverse(commands=[_command(CommandType.ENSURE_COMMENT, key=key, marker=marker, body=body)])


def _attachment(done: DoneCommand, undo: AttachmentUndo) -> _Inverse:
    key = str(done.params.get("key"))
    if undo.added is not None:
        added = undo.added
        return _Inverse(
            commands=[
                _command(
                    CommandType.ENSURE_ATTACHMENT, key=key, file=added.sha256, filename=added.filename, absent=True
                )
            ]
        )
    return _Inverse(
        commands=[
            _command(CommandType.ENSURE_ATTACHMENT, key=key, file=a.sha256, filename=a.filename)
            for a in undo.deleted[:1]
        ]
    )


def _issue(undo: IssueUndo, settings: Settings) -> _Inverse:
    if not undo.created:
        return _Inverse(outcome="nothing")
    created = settings.undo.created_issue
    if created.mode == "leave":
        return _Inverse(outcome="left", text=f"задача {undo.key} создана пакетом и не удаляется")
    target: Any = created.path[0] if len(created.path) == 1 else list(created.path)
    commands = [_command(CommandType.ENSURE_STATUS, key=undo.key, target=target)]
    if created.label:
        commands.append(_command(CommandType.ENSURE_FIELDS, key=undo.key, labels_add=[created.label]))
    text = f"задача {undo.key} создана пакетом: не удаляется, переводится в {field_value('status', created.path[-1])}"
    return _Inverse(commands=commands, text=text)


def _inverse(done: DoneCommand, undo: Undo, issue: MirrorIssue | None, settings: Settings, walk: _Walk) -> _Inverse:
    if isinstance(undo, FieldsUndo):
        return _fields(done, undo, issue, walk)
    if isinstance(undo, StatusUndo):
        return _status(done, undo, issue, walk) if undo.path else _Inverse(outcome="nothing")
    if isinstance(undo, SprintUndo):
        return _sprint(done, undo, issue, walk) if undo.before != undo.after else _Inverse(outcome="nothing")
    if isinstance(undo, LinkUndo):
        return _link(done, undo, settings)
    if isinstance(undo, CommentUndo):
        return _comment(done, undo)
    if isinstance(undo, AttachmentUndo):
        return _attachment(done, undo)
    return _issue(undo, settings)


def _inverse_of(
    done: DoneCommand, mirror: Mapping[str, MirrorIssue], settings: Settings, walk: _Walk
) -> _Inverse | None:
    """The inverse of one command of the batch; ``None`` for one the undo does not list (a refresh, one that never
    ran, one that failed or was cancelled before it wrote)."""
    if done.type == REFRESH_TYPE:
        return None
    if done.status not in (CommandStatus.DONE, CommandStatus.CONFIRMED_BY_STATE) and not (
        done.status in (CommandStatus.FAILED, CommandStatus.CANCELLED) and done.wrote
    ):
        return None
    undo = undo_of_result(done.type, done.result) if done.status is not CommandStatus.CONFIRMED_BY_STATE else None
    if undo is None:
        return _Inverse(outcome="unknown", text=UNKNOWN) if done.wrote or done.result is None else _Inverse()
    key = done.params.get("key")
    return _inverse(done, undo, mirror.get(key) if isinstance(key, str) else None, settings, walk)


def _attributed(kept: list[Kept], journal: Mapping[str, Sequence[HistoryEntry]]) -> list[Kept]:
    """Who changed each kept aspect last, and when (the journal read as drift reads it)."""
    asked = [
        Drift(command_id=k.command_id, batch_id=0, key=k.key, type="", aspect=k.aspect, wanted=None, now=k.now)
        for k in kept
    ]
    found = attribute(asked, journal)
    return [attrs.evolve(k, changed_by=d.changed_by, changed_at=d.changed_at) for k, d in zip(kept, found, strict=True)]


def _item(done: DoneCommand, inverse: _Inverse, first: int, zone: str | None) -> UndoItem:
    positions = tuple(range(first, first + len(inverse.commands)))
    if inverse.kept and not inverse.commands:
        outcome = "kept"
    elif not inverse.commands and inverse.outcome == "undone":
        outcome = "nothing"
    else:
        outcome = inverse.outcome
    said = [inverse.text] if inverse.text else []
    said += [k.text(zone) for k in inverse.kept]
    if not said:
        said = ["возвращается"] if positions else ["нечего возвращать"]
    return UndoItem(
        command_id=done.id, seq=done.seq, type=done.type, outcome=outcome, text="; ".join(said), commands=positions
    )


def plan_undo(
    commands: Sequence[DoneCommand],
    *,
    mirror: Mapping[str, MirrorIssue],
    journal: Mapping[str, Sequence[HistoryEntry]],
    settings: Settings,
    zone: str | None = None,
    undone_by: int | None = None,
) -> UndoPlan:
    """The inverse of ``commands`` (the batch's, any order): ``mirror`` holds the records of their keys and
    ``journal`` their journal (who changed a kept aspect); ``zone`` is the Jira user's time zone (times in words);
    ``undone_by`` the undo batch that stands for it (:func:`standing_undo`): then nothing is taken back again."""
    inverses: list[tuple[DoneCommand, _Inverse]] = []
    walk = _Walk()
    for done in sorted(commands, key=lambda c: c.seq, reverse=True):
        inverse = _inverse_of(done, mirror, settings, walk)
        if inverse is not None and undone_by is not None:
            inverse = _Inverse(outcome="nothing", text=f"откат уже в пакете {undone_by}")
        if inverse is not None:
            inverses.append((done, inverse))
    kept = _attributed([k for _, inverse in inverses for k in inverse.kept], journal)
    by_command = iter(kept)
    body: list[Mapping[str, Any]] = []
    items: list[UndoItem] = []
    for done, inverse in inverses:
        named = attrs.evolve(inverse, kept=[next(by_command) for _ in inverse.kept])
        items.append(_item(done, named, len(body) + 1, zone))
        body.extend(inverse.commands)
    return UndoPlan(commands=tuple(body), items=tuple(items), kept=tuple(kept))
