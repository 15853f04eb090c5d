"""The undo of a batch (DESIGN.md 6.4): ``POST /batches/{id}/undo[?dry_run=true]``, the page's «Откатить пакет…»
and MCP ``batch_undo`` — the inverse batch computed by the core (:func:`reconcile.outlook.undo.plan_undo`) from what the
batch's commands replaced, its plan from the mirror, and the batch created with ``undo_of``.

The undo batch is signed by the caller, titled «Откат пакета 17: <title>», and waits for approval as any batch of
the caller's token and door would — and always when the batch it undoes waited. A batch still running is not
undone (409): what it has still to write would not be taken back; nor is a batch undone twice (409, naming its
undo batch: :func:`reconcile.outlook.undo.standing_undo`).
"""

from __future__ import annotations

from typing import Any

from hub_app.answers.undo import KeptView, UndoItemView, UndoView
from hub_app.operations.batches import create_batch, validate
from hub_app.operations.plan import plan_view
from hub_app.runtime.hub import Unit
from hub_app.runtime.lookups import batch, resolved_in_batch
from reconcile.outlook import DoneCommand, Requester, UndoPlan, plan_undo, standing_undo, undo_title
from reconcile.queue import substitute
from reconcile.vocabulary import PENDING, ConflictError

__all__ = ["undo_batch"]


async def _standing_undo(unit: Unit, batch_id: int) -> int | None:
    earlier = (await unit.db.queue.undone_by([batch_id]))[batch_id]
    their = await unit.db.queue.commands_of(earlier) if earlier else {}
    return standing_undo({undo_id: [c.status for c in commands] for undo_id, commands in their.items()})


async def _undo_plan(unit: Unit, batch_id: int, *, dry_run: bool) -> tuple[UndoPlan, str, Any, str | None]:
    found = await batch(unit, batch_id)
    stored = (await unit.db.queue.commands_of([found.id]))[found.id]
    if any(c.status in PENDING for c in stored):
        raise ConflictError(f"пакет {found.id} ещё выполняется — дождитесь его или отмените, затем откатывайте")
    undone_by = await _standing_undo(unit, found.id)
    resolved = await resolved_in_batch(unit, found.id)
    done = [
        DoneCommand(
            id=c.id,
            seq=c.seq,
            type=c.type,
            params=substitute(c.type, c.params, resolved),
            status=c.status,
            result=c.result,
            wrote=bool(c.operations),
            finished_at=c.finished_at,
        )
        for c in stored
    ]
    keys = [str(c.params["key"]) for c in done if isinstance(c.params.get("key"), str)]
    agent = await unit.db.admin.agent_status()
    zone = agent.jira_time_zone if agent else None
    undo = plan_undo(
        done,
        mirror=await unit.db.mirror.issues(keys),
        journal=await unit.db.mirror.journals(keys),
        settings=await unit.db.admin.settings(),
        zone=zone,
        undone_by=undone_by,
    )
    if undone_by is not None and not dry_run:
        raise ConflictError(
            f"у пакета {found.id} уже есть откат — пакет {undone_by}; неудавшиеся команды отката повторяйте в нём"
        )
    return undo, undo_title(found.id, found.title), found.approval, zone


async def undo_batch(unit: Unit, batch_id: int, *, requester: Requester, dry_run: bool) -> UndoView:
    """The undo of batch ``batch_id``: its plan (``dry_run``) or the undo batch created (409 when there is nothing
    to take back, or the batch still runs)."""
    undo, title, approval, zone = await _undo_plan(unit, batch_id, dry_run=dry_run)
    body: dict[str, Any] = {
        "author": requester.token_name or "interface",
        "title": title,
        "commands": [dict(c) for c in undo.commands],
    }
    plan = None
    created = None
    if undo.commands and dry_run:
        plan = await plan_view(unit, *await validate(unit, body))
    elif undo.commands:
        created = await create_batch(unit, body, requester=requester, brings_back=[approval], undo_of=batch_id)
        unit.audit("batch_undo", batch_id=created.id, data={"undo_of": batch_id, "commands": len(undo.commands)})
    elif not dry_run:
        raise ConflictError(f"в пакете {batch_id} нечего откатывать")
    return UndoView(
        undo_of=batch_id,
        title=title,
        items=[UndoItemView.of(item) for item in undo.items],
        kept=[KeptView.of(kept, zone) for kept in undo.kept],
        plan=plan,
        batch=created,
        dry_run=dry_run,
    )
