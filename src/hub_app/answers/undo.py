"""The answer about the undo of a batch (DESIGN.md 6.4): its plan, or the undo batch created with it."""

from __future__ import annotations

import attrs

from hub_app.answers.batches import BatchCreated
from hub_app.answers.plans import BatchPlanView
from reconcile.outlook import Kept, UndoItem

__all__ = ["KeptView", "UndoItemView", "UndoView"]


@attrs.frozen(kw_only=True)
class UndoItemView:
    """One command of the batch undone: ``outcome`` ``undone``, ``kept``, ``unknown``, ``left`` or ``nothing``;
    ``commands`` are the positions (from 1) of its inverse commands in the undo batch."""

    command_id: int
    seq: int
    type: str
    outcome: str
    text: str
    commands: list[int]

    @classmethod
    def of(cls, item: UndoItem) -> UndoItemView:
        return cls(
            command_id=item.command_id,
            seq=item.seq,
            type=item.type,
            outcome=item.outcome,
            text=item.text,
            commands=list(item.commands),
        )


@attrs.frozen(kw_only=True)
class KeptView:
    """An aspect a person changed after the batch: not taken back (who and when from the journal)."""

    command_id: int
    key: str
    aspect: str
    now: object
    changed_by: str | None
    changed_at: str | None
    text: str

    @classmethod
    def of(cls, kept: Kept, zone: str | None) -> KeptView:
        return cls(
            command_id=kept.command_id,
            key=kept.key,
            aspect=kept.aspect,
            now=kept.now,
            changed_by=kept.changed_by,
            changed_at=kept.changed_at,
            text=kept.text(zone),
        )


@attrs.frozen(kw_only=True)
class UndoView:
    """``POST /batches/{id}/undo``: the batch undone, the undo batch's title, what happens to each of its commands,
    the aspects kept, the plan of the undo batch (``null`` when there is nothing to take back) and, once created,
    the undo batch itself (``null`` on a dry run)."""

    undo_of: int
    title: str
    items: list[UndoItemView]
    kept: list[KeptView]
    plan: BatchPlanView | None
    batch: BatchCreated | None
    dry_run: bool
