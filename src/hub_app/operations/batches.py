"""Batches and their commands, as the planning tools see them: create, read, cancel, retry, refresh.

A batch is validated as a whole by :func:`reconcile.batches.validation.validate_batch` (the seed's 422 messages; a
refused batch writes nothing), stored with its tail refresh, and announced so waiting claims wake at once. A batch whose
door, token or retried batch requires approval (:mod:`reconcile.outlook.approval`) waits for a person with its plan:
``approve`` wakes the claims, ``reject`` cancels its commands (:mod:`hub_app.operations.approvals`). Every status change
goes through :func:`reconcile.vocabulary.lifecycle.advance`.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

import attrs

from adapters.storage.records import BatchRecord, CommandRecord
from hub_app.answers.batches import BatchCreated, BatchDetail, BatchView, CommandView
from hub_app.answers.mirror import NoteView
from hub_app.answers.wire import Items
from hub_app.bodies.batches import CancelIn, RefreshIn
from hub_app.bodies.parsing import page_bounds
from hub_app.operations.predict import stored_plan
from hub_app.runtime.hub import Unit
from hub_app.runtime.lookups import base_jql, batch, batch_context, command, held_batches, resolved_in_batch, run_facts
from reconcile.batches import ValidBatch, batch_needs, refresh_body, retry_body, retry_params, validate_batch
from reconcile.config import Settings
from reconcile.outlook import QueueFilter, Requester, approval
from reconcile.queue import delivery, history
from reconcile.vocabulary import PENDING, REFRESH_TYPE, RETRYABLE, CommandStatus, ConflictError, Event, advance, can

log = logging.getLogger(__name__)

__all__ = [
    "cancel_batch",
    "cancel_command",
    "create_batch",
    "create_refresh",
    "get_batch",
    "get_command",
    "list_batches",
    "request_refresh",
    "retried",
    "retry_batch",
    "retry_command",
    "retry_draft",
    "validate",
]


async def validate(unit: Unit, body: Any, *, by_hub: bool = False) -> tuple[ValidBatch, Settings]:
    """A batch body checked by the core against the hub's state, nothing stored (422 in the seed's words): what
    it needs read (:func:`reconcile.batches.validation.batch_needs`), read, and validated. ``by_hub``: the hub's own
    batch, which may carry the hub's parameters."""
    settings = await unit.db.admin.settings()
    context = await batch_context(unit, batch_needs(body, settings), settings)
    with unit.metrics().timed_validation():
        return validate_batch(body, context, by_hub=by_hub), settings


async def create_batch(
    unit: Unit,
    body: Any,
    *,
    requester: Requester,
    retry_of: int | None = None,
    brings_back: Iterable[approval.Approval | None] = (),
    undo_of: int | None = None,
) -> BatchCreated:
    """The one way a batch is made, whoever asks (a door, a retry, an undo, drift's repair, the hub's refreshes):
    :func:`validate` it, store it with its tail refresh and notes, and wake the claims waiting for work unless it
    waits for approval. ``retry_of``: the command it retries; ``brings_back``: the approvals of the batches it
    brings back; ``undo_of``: the batch it undoes."""
    valid, settings = await validate(unit, body, by_hub=requester.by_hub)
    stored = await _store(
        unit, valid, settings, requester=requester, retry_of=retry_of, brings_back=brings_back, undo_of=undo_of
    )
    return BatchCreated.of(*stored)


async def _store(
    unit: Unit,
    valid: ValidBatch,
    settings: Settings,
    *,
    requester: Requester,
    retry_of: int | None,
    brings_back: Iterable[approval.Approval | None],
    undo_of: int | None,
) -> tuple[BatchRecord, list[CommandRecord]]:
    """Store a validated batch with its notes, ``pending`` when its door, its token or a batch it brings back
    requires approval (:func:`reconcile.outlook.approval.initial_approval`); unless it waits, wake the claims waiting
    for work (here and elsewhere)."""
    waits = approval.initial_approval(requester, (c.type for c in valid.commands), settings, brings_back=brings_back)
    batch, commands = await unit.db.queue.add_batch(
        valid,
        token_name=requester.token_name,
        retry_of=retry_of,
        now=unit.now,
        door=requester.door.value if requester.door else None,
        approval=waits,
        undo_of=undo_of,
    )
    # Notes are signed with the token's name through every door (the batch's author is what the caller says).
    await unit.db.notes.add_to_batch(batch.id, valid.notes, author=requester.token_name or valid.author, now=unit.now)
    if approval.holds(waits):
        assert waits is not None
        waits = attrs.evolve(waits, plan=(await stored_plan(unit, batch, settings)).snapshot)
        await unit.db.queue.save_approval(batch.id, waits)
        batch = attrs.evolve(batch, approval=waits)
    else:
        await unit.db.announce_batch(unit.wakeup.notify)
    created = {
        "token": requester.token_name,
        "author": valid.author,
        "title": valid.title,
        "commands": len(commands),
        "retry_of": retry_of,
        "waits": approval.holds(waits),
        "digest": waits.plan.digest if waits is not None and waits.plan else None,
    }
    by_hub = requester.by_hub
    unit.audit(
        "batch_created",
        batch_id=batch.id,
        data=created,
        actor="hub" if by_hub else None,
        door="hub" if by_hub else None,
    )
    unit.after_commit(lambda metrics: metrics.batch_created(c.type for c in commands))
    fields = {"batch_id": batch.id, "commands": len(commands), "author": valid.author, "waits": approval.holds(waits)}
    unit.db.after_commit.append(lambda: log.info("batch_created", extra=fields))
    return batch, commands


async def request_refresh(unit: Unit, body: RefreshIn, *, requester: Requester) -> tuple[BatchCreated, bool]:
    """``POST /refresh``: ``{keys}``, ``{jql}`` or ``{}`` (a full refresh by the base JQL) as a batch; and whether
    it is new. A full refresh asked while one is queued or running (the hub's automatic one, another person's)
    is that one: its batch is answered and nothing is stored (two full reads of Jira one after the other would
    return the same issues at the bank's pace)."""
    base = await base_jql(unit, await unit.db.admin.settings())
    asked = refresh_body(keys=body.keys, jql=body.jql, base_jql=base, author=requester.token_name or "interface")
    [refresh] = asked["commands"]
    if history.is_full_refresh(refresh["params"], base):
        await unit.db.lock_queue()  # two requests at once: the second sees the first's
        held = await held_batches(unit)
        for running in await unit.db.queue.unfinished_of_type(REFRESH_TYPE):
            if running.batch_id not in held and history.answers_full_refresh(
                running.params, status=running.status, deliveries=running.deliveries, base=base
            ):
                found = await batch(unit, running.batch_id)
                commands = (await unit.db.queue.commands_of([found.id]))[found.id]
                return BatchCreated.of(found, commands), False
    return await create_batch(unit, asked, requester=requester), True


async def create_refresh(unit: Unit, body: RefreshIn, *, requester: Requester) -> BatchCreated:
    """:func:`request_refresh`'s batch, new or the full refresh already queued or running."""
    created, _ = await request_refresh(unit, body, requester=requester)
    return created


async def list_batches(
    unit: Unit, *, limit: int | None = None, offset: int | None = None, only: QueueFilter | None = None
) -> Items[BatchView]:
    """Batches, newest first: all, or those ``only`` asks for (the page's queue)."""
    size, start = page_bounds(limit, offset)
    batches, total = await unit.db.queue.batches(limit=size, offset=start, only=only)
    settings = await unit.db.admin.settings()
    commands = await unit.db.queue.commands_of([b.id for b in batches])
    facts = await run_facts(unit)
    undone = await unit.db.queue.undone_by([b.id for b in batches])
    items = [
        BatchView.of(b, commands[b.id], settings=settings, now=unit.now, facts=facts, undone_by=undone.get(b.id, ()))
        for b in batches
    ]
    return Items(items=items, total=total)


async def get_batch(unit: Unit, batch_id: int) -> BatchDetail:
    found = await batch(unit, batch_id)
    commands = (await unit.db.queue.commands_of([found.id]))[found.id]
    notes = [NoteView.of(n) for n in await unit.db.notes.of_batch(found.id)]
    return BatchDetail(
        **attrs.asdict(
            BatchView.of(
                found,
                commands,
                settings=await unit.db.admin.settings(),
                now=unit.now,
                facts=await run_facts(unit),
                undone_by=(await unit.db.queue.undone_by([found.id]))[found.id],
            ),
            recurse=False,
        ),
        notes=notes,
    )


async def get_command(unit: Unit, command_id: int) -> CommandView:
    return CommandView.of(await command(unit, command_id), now=unit.now)


async def cancel_command(unit: Unit, command_id: int, body: CancelIn) -> CommandView:
    """Cancel a queued command; a claimed one only with ``force`` (409 without)."""
    await unit.db.lock_queue()
    found = await command(unit, command_id)
    event = Event.FORCE_CANCEL if body.force else Event.CANCEL
    status = advance(found.status, event, command_id=command_id)
    if found.status is CommandStatus.CANCELLED:
        return CommandView.of(found, now=unit.now)
    cancelled = attrs.evolve(found, status=status, finished_at=unit.now)
    await unit.db.queue.save(cancelled)
    unit.audit("batch_cancelled", batch_id=found.batch_id, command_id=found.id, data={"force": body.force})
    return CommandView.of(cancelled, now=unit.now)


async def cancel_batch(unit: Unit, batch_id: int, body: CancelIn) -> BatchView:
    """Cancel the batch's queued commands, and its claimed one too with ``force``."""
    await unit.db.lock_queue()
    found = await batch(unit, batch_id)
    event = Event.FORCE_CANCEL if body.force else Event.CANCEL
    commands = []
    cancelled: list[int] = []
    for current in (await unit.db.queue.commands_of([found.id]))[found.id]:
        after = current
        if current.status in PENDING and can(current.status, event):
            after = attrs.evolve(current, status=advance(current.status, event), finished_at=unit.now)
            await unit.db.queue.save(after)
            cancelled.append(after.id)
        commands.append(after)
    unit.audit("batch_cancelled", batch_id=found.id, data={"force": body.force, "commands": cancelled})
    settings = await unit.db.admin.settings()
    return BatchView.of(found, commands, settings=settings, now=unit.now, facts=await run_facts(unit))


async def _retried_params(unit: Unit, found: CommandRecord) -> dict[str, Any]:
    """A stored command's params as a new command's: resolved temp keys substituted, the hub's additions dropped."""
    params = delivery.complete_params(
        found.type, found.params, resolved_temp_keys=await resolved_in_batch(unit, found.batch_id)
    )
    params.pop("boards", None)
    params.pop("size", None)
    return retry_params(found.type, params)


async def _retryable(unit: Unit, command_id: int) -> CommandRecord:
    found = await command(unit, command_id)
    if found.status not in RETRYABLE:
        raise ConflictError(
            f"команда {command_id} в статусе {found.status} — повтор только после failed, skipped, cancelled"
        )
    return found


async def _retry(unit: Unit, command_id: int) -> tuple[dict[str, Any], BatchRecord]:
    found = await _retryable(unit, command_id)
    parent = await batch(unit, found.batch_id)
    body = retry_body(
        command_type=found.type,
        params=await _retried_params(unit, found),
        author=parent.author,
        title=f"повтор команды {command_id}: {parent.title}",
        project=parent.project,
    )
    if body.get("project") is None:
        body.pop("project")
    return body, parent


async def retry_draft(unit: Unit, *, command_ids: list[int] | None, batch_id: int | None) -> dict[str, Any]:
    """The batch the editor opens with to retry: the commands ``command_ids`` (each failed, skipped or cancelled;
    409 otherwise), or every failed command of batch ``batch_id`` but its tail refresh; temp keys resolved where
    known. ``retry_of`` lists the commands retried (:func:`retried` reads it back)."""
    if command_ids is None:
        assert batch_id is not None
        parent = await batch(unit, batch_id)
        stored = (await unit.db.queue.commands_of([parent.id]))[parent.id]
        tail = stored[-1].id if len(stored) > 1 and stored[-1].type == REFRESH_TYPE else None
        found = [c for c in stored if c.status is CommandStatus.FAILED and c.id != tail]
        title = f"повтор ошибок пакета {parent.id}: {parent.title}"
    else:
        found = [await _retryable(unit, command_id) for command_id in command_ids]
        parent = await batch(unit, found[0].batch_id)
        title = f"повтор команды {found[0].id}: {parent.title}"
    body: dict[str, Any] = {"author": parent.author, "title": title}
    if parent.project is not None:
        body["project"] = parent.project
    body["commands"] = [{"type": c.type, "params": await _retried_params(unit, c)} for c in found]
    body["retry_of"] = [c.id for c in found]
    return body


async def retried(unit: Unit, command_ids: Iterable[int]) -> dict[str, Any]:
    """What :func:`create_batch` is told of a batch that retries ``command_ids`` (the editor's retry): the one
    command it retries, and the approvals of their batches, so that it waits again when one of them waited."""
    ids, parents = [], []
    for command_id in dict.fromkeys(command_ids):
        found = await unit.db.queue.command(command_id)
        if found is not None:
            ids.append(command_id)
            parents.append((await batch(unit, found.batch_id)).approval)
    return {"retry_of": ids[0] if len(ids) == 1 else None, "brings_back": parents}


async def retry_batch(unit: Unit, command_id: int) -> dict[str, Any]:
    """The batch a retry of the command would create: one command, same params, resolved temp keys substituted.

    409 unless the command is failed, skipped or cancelled. The page shows it before the person confirms.
    """
    body, _ = await _retry(unit, command_id)
    return body


async def retry_command(unit: Unit, command_id: int, *, requester: Requester) -> BatchCreated:
    """``POST /commands/{id}/retry``: a new batch with the same command (temp keys resolved), validated as new;
    it waits for approval again when the command's batch waited (whoever asks)."""
    body, parent = await _retry(unit, command_id)
    created = await create_batch(unit, body, requester=requester, retry_of=command_id, brings_back=[parent.approval])
    unit.audit("command_retried", batch_id=parent.id, command_id=command_id, data={"batch": created.id})
    return created
