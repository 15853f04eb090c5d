"""What a write replaced (DESIGN.md 6.4): the values a ``done`` result carries so that a batch can be undone.

Every executor that writes puts one of these under its result's ``undo`` (the names of DESIGN 5.3 stay where they
were: ``changed`` of ``ensure_fields`` is still the list of fields written, so every reader of the seed's results
keeps working); ``conflicts`` lists what an only-if-unchanged write left alone. A result without ``undo`` was
reported before this existed: what it replaced is not known (:func:`undo_of_result` answers ``None``), and the
undo lists it instead of guessing. ``undo: {}`` is a write of nothing: there is nothing to take back.

One place for these shapes: the executors build them, the undo rule (:mod:`reconcile.outlook.undo`), the page, MCP and
the audit read them back through :func:`undo_of_result`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from reconcile.vocabulary.catalogue import CommandType
from reconcile.vocabulary.records import MirrorLink

__all__ = [
    "AttachmentRef",
    "AttachmentUndo",
    "CommentRef",
    "CommentUndo",
    "Conflict",
    "FieldChange",
    "FieldsUndo",
    "IssueUndo",
    "LinkUndo",
    "SprintName",
    "SprintUndo",
    "StatusUndo",
    "Undo",
    "conflicts_of_result",
    "link_from_json",
    "link_to_json",
    "undo_of_result",
]


@attrs.frozen(kw_only=True)
class Conflict:
    """An aspect an only-if-unchanged write left as it was: Jira held ``found``, not the ``expected`` value."""

    field: str
    expected: Any
    found: Any

    def to_json(self) -> dict[str, Any]:
        return {"field": self.field, "expected": self.expected, "found": self.found}


@attrs.frozen(kw_only=True)
class FieldChange:
    """One field written: its value before (``from``) and the one set (``to``)."""

    before: str | None
    after: str | None


@attrs.frozen(kw_only=True)
class FieldsUndo:
    """``ensure_fields``: ``changed: {field: {from, to}}`` and ``labels: {added, removed}``."""

    changed: Mapping[str, FieldChange] = attrs.field(factory=dict)
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        if not self.changed and not self.added and not self.removed:
            return {}
        return {
            "changed": {name: {"from": c.before, "to": c.after} for name, c in self.changed.items()},
            "labels": {"added": list(self.added), "removed": list(self.removed)},
        }


@attrs.frozen(kw_only=True)
class StatusUndo:
    """``ensure_status``: the status before, the one reached and the statuses passed (``path``, ``to`` last)."""

    before: str
    after: str
    path: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"from": self.before, "to": self.after, "path": list(self.path)} if self.path else {}


@attrs.frozen(kw_only=True)
class SprintName:
    """A sprint as a result names it (``{id, name}``)."""

    id: int
    name: str

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name}


@attrs.frozen(kw_only=True)
class SprintUndo:
    """``ensure_sprint``: the open sprint before and after (``None``: the backlog)."""

    before: SprintName | None
    after: SprintName | None

    def to_json(self) -> dict[str, Any]:
        if self.before == self.after:
            return {}
        return {"from": _sprint_json(self.before), "to": _sprint_json(self.after)}


def _sprint_json(sprint: SprintName | None) -> dict[str, Any] | None:
    return None if sprint is None else sprint.to_json()


def link_to_json(link: MirrorLink) -> dict[str, str]:
    return {"id": link.id, "type": link.type, "source": link.source, "target": link.target}


def link_from_json(value: Any) -> MirrorLink | None:
    if not isinstance(value, Mapping):
        return None
    link_type, source, target = (value.get(name) for name in ("type", "source", "target"))
    if not (isinstance(link_type, str) and isinstance(source, str) and isinstance(target, str)):
        return None
    return MirrorLink(id=str(value.get("id") or ""), type=link_type, source=source, target=target)


@attrs.frozen(kw_only=True)
class LinkUndo:
    """``ensure_link``: the link created (``None``: none) and the links deleted (a replace, or ``present: false``).

    Rendered as DESIGN 6.4 says — ``{created}``, or ``{replaced: {old, new}}`` when one link gave way to another —
    with ``removed`` listing every link deleted whenever any was."""

    created: MirrorLink | None = None
    removed: tuple[MirrorLink, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.created is not None and not self.removed:
            out["created"] = link_to_json(self.created)
        if self.removed:
            new = None if self.created is None else link_to_json(self.created)
            out["replaced"] = {"old": link_to_json(self.removed[0]), "new": new}
            out["removed"] = [link_to_json(link) for link in self.removed]
        return out


@attrs.frozen(kw_only=True)
class CommentRef:
    """A comment deleted, with the text it had."""

    id: str
    body: str


@attrs.frozen(kw_only=True)
class CommentUndo:
    """``ensure_comment``: ``{created: id}``, ``{updated: id, previous_body}`` or ``{deleted: [{id, body}]}``."""

    created: str | None = None
    updated: str | None = None
    previous_body: str | None = None
    deleted: tuple[CommentRef, ...] = ()

    def to_json(self) -> dict[str, Any]:
        if self.created is not None:
            return {"created": self.created}
        if self.updated is not None:
            return {"updated": self.updated, "previous_body": self.previous_body}
        if self.deleted:
            return {"deleted": [{"id": c.id, "body": c.body} for c in self.deleted]}
        return {}


@attrs.frozen(kw_only=True)
class AttachmentRef:
    """An attachment by its Jira id, the sha256 of its bytes and its name."""

    id: str
    sha256: str
    filename: str

    def to_json(self) -> dict[str, str]:
        return {"id": self.id, "sha256": self.sha256, "filename": self.filename}


@attrs.frozen(kw_only=True)
class AttachmentUndo:
    """``ensure_attachment``: ``{added: {id, sha256}}`` or ``{deleted: [{id, sha256}]}``."""

    added: AttachmentRef | None = None
    deleted: tuple[AttachmentRef, ...] = ()

    def to_json(self) -> dict[str, Any]:
        if self.added is not None:
            return {"added": self.added.to_json()}
        if self.deleted:
            return {"deleted": [a.to_json() for a in self.deleted]}
        return {}


@attrs.frozen(kw_only=True)
class IssueUndo:
    """``ensure_issue``: the key, and whether the command created it or found it."""

    key: str
    created: bool

    def to_json(self) -> dict[str, Any]:
        return {"created" if self.created else "found": self.key}


Undo = FieldsUndo | StatusUndo | SprintUndo | LinkUndo | CommentUndo | AttachmentUndo | IssueUndo


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _object(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _texts(value: Any) -> tuple[str, ...]:
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


def _sprint(value: Any) -> SprintName | None:
    if isinstance(value, Mapping) and isinstance(value.get("id"), int) and isinstance(value.get("name"), str):
        return SprintName(id=value["id"], name=value["name"])
    return None


def _fields(undo: Mapping[str, Any]) -> FieldsUndo:
    changed, labels = _object(undo.get("changed")), _object(undo.get("labels"))
    return FieldsUndo(
        changed={
            str(name): FieldChange(before=_text(c.get("from")), after=_text(c.get("to")))
            for name, c in changed.items()
            if isinstance(c, Mapping)
        },
        added=_texts(labels.get("added")),
        removed=_texts(labels.get("removed")),
    )


def _status(undo: Mapping[str, Any]) -> StatusUndo:
    return StatusUndo(
        before=_text(undo.get("from")) or "", after=_text(undo.get("to")) or "", path=_texts(undo.get("path"))
    )


def _sprint_undo(undo: Mapping[str, Any]) -> SprintUndo:
    if not undo:
        return SprintUndo(before=None, after=None)
    return SprintUndo(before=_sprint(undo.get("from")), after=_sprint(undo.get("to")))


def _links(value: Any) -> tuple[MirrorLink, ...]:
    found = (link_from_json(v) for v in value) if isinstance(value, list) else ()
    return tuple(link for link in found if link is not None)


def _link(undo: Mapping[str, Any]) -> LinkUndo:
    replaced = _object(undo.get("replaced"))
    removed = _links(undo.get("removed")) or _links([replaced.get("old")])
    return LinkUndo(created=link_from_json(undo.get("created") or replaced.get("new")), removed=removed)


def _comment(undo: Mapping[str, Any]) -> CommentUndo:
    deleted = _list(undo.get("deleted"))
    refs = tuple(
        CommentRef(id=str(c.get("id")), body=c["body"])
        for c in deleted
        if isinstance(c, Mapping) and isinstance(c.get("body"), str)
    )
    created, updated = undo.get("created"), undo.get("updated")
    return CommentUndo(
        created=None if created is None else str(created),
        updated=None if updated is None else str(updated),
        previous_body=_text(undo.get("previous_body")),
        deleted=refs,
    )


def _attachment_ref(value: Any) -> AttachmentRef | None:
    if not isinstance(value, Mapping) or not isinstance(value.get("sha256"), str):
        return None
    return AttachmentRef(id=str(value.get("id")), sha256=value["sha256"], filename=str(value.get("filename") or ""))


def _attachment(undo: Mapping[str, Any]) -> AttachmentUndo:
    deleted = _list(undo.get("deleted"))
    refs = tuple(ref for ref in (_attachment_ref(a) for a in deleted) if ref is not None)
    return AttachmentUndo(added=_attachment_ref(undo.get("added")), deleted=refs)


def _issue(undo: Mapping[str, Any]) -> IssueUndo | None:
    for name, created in (("created", True), ("found", False)):
        key = undo.get(name)
        if isinstance(key, str):
            return IssueUndo(key=key, created=created)
    return None


_READERS: Mapping[str, Any] = {
    CommandType.ENSURE_FIELDS: _fields,
    CommandType.ENSURE_STATUS: _status,
    CommandType.ENSURE_SPRINT: _sprint_undo,
    CommandType.ENSURE_LINK: _link,
    CommandType.ENSURE_COMMENT: _comment,
    CommandType.ENSURE_ATTACHMENT: _attachment,
    CommandType.ENSURE_ISSUE: _issue,
}


def undo_of_result(command_type: str, result: Mapping[str, Any] | None) -> Undo | None:
    """What the command's write replaced, read back from its result; ``None`` when the result does not say (it
    predates :mod:`reconcile.jira.replaced`, or the type writes nothing)."""
    if not isinstance(result, Mapping):
        return None
    undo = result.get("undo")
    reader = _READERS.get(command_type)
    if reader is None or not isinstance(undo, Mapping):
        return None
    read: Undo | None = reader(undo)
    return read


def conflicts_of_result(result: Mapping[str, Any] | None) -> tuple[Conflict, ...]:
    """The aspects an only-if-unchanged command left alone (``conflicts`` of its result)."""
    raw = result.get("conflicts") if isinstance(result, Mapping) else None
    if not isinstance(raw, Sequence) or isinstance(raw, str):
        return ()
    return tuple(
        Conflict(field=str(c.get("field")), expected=c.get("expected"), found=c.get("found"))
        for c in raw
        if isinstance(c, Mapping)
    )
