"""Drift as the planning tools see it (DESIGN.md section 6.1): ``GET /drift``, ``POST /drift/reapply`` and the MCP
tool ``drift_list``.

The rules are :mod:`reconcile.outlook.drift`; here the inputs are gathered set-based — the setting commands in one
query, the mirror records of the issues they name in a few, the journal of one page's issues in a few — and a
page of the answer is cut in natural key order. What was found is kept in the process until a write changes what
it is computed from (:func:`_kept_drift`; the database's drift generations say when). Putting drift back is a
batch like any other (:func:`hub_app.operations.batches.create_batch`): validated as new, with its tail refresh.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator, Mapping

from hub_app.answers.batches import BatchCreated
from hub_app.answers.drift import DriftPage
from hub_app.answers.wire import iso
from hub_app.bodies.drift import ReapplyIn
from hub_app.bodies.parsing import page_bounds
from hub_app.operations.batches import create_batch
from hub_app.runtime.hub import Unit
from hub_app.runtime.lookups import agent_facts, project
from reconcile.outlook import (
    SETTING_TYPES,
    AgentFacts,
    Drift,
    MirrorReads,
    Requester,
    Setting,
    attribute,
    find_drift,
    journal_keys,
    latest_settings,
    mirror_reads,
    reapply_body,
)
from reconcile.vocabulary import ConflictError, NotFoundError, ValidationError

__all__ = ["list_drift", "reapply"]


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Drift of a large project makes a few hundred thousand short-lived objects, none in a cycle; left on, the
    cyclic collector would walk the hub's whole heap several times meanwhile (a third of the time, measured).
    Paused only around synchronous work: never across an ``await``, where other requests run."""
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


async def _kept_drift(unit: Unit, project_name: str | None) -> list[Drift]:
    """:func:`_judged`, computed again only when what it is computed from changed since it was kept: a command
    resolved, the mirror written (the database's drift generations, read first), the link types, the agent's facts;
    of the settings (:func:`_settings`) only when a command resolved."""
    commands, mirrored = await unit.db.drift_generations()
    settings = await unit.db.admin.settings()
    facts = await agent_facts(unit)
    stamp = (commands, mirrored, dict(settings.link_types), facts)
    found = unit.drift.found.get(project_name, stamp)
    if found is None:
        latest = unit.drift.settings.get(None, commands)
        if latest is None:
            latest = await _settings(unit)
            unit.drift.settings.keep(None, commands, latest)
        found = await _judged(unit, latest, project_name, link_types=settings.link_types, facts=facts)
        unit.drift.found.keep(project_name, stamp, found)
    return found


async def _settings(unit: Unit) -> tuple[list[Setting], MirrorReads]:
    """The settings of the resolved commands, and what the mirror must hold to judge them."""
    commands = await unit.db.queue.setting_commands(SETTING_TYPES)
    with _collector_paused():
        latest = latest_settings(commands)
        return latest, mirror_reads(latest)


async def _judged(
    unit: Unit,
    latest: tuple[list[Setting], MirrorReads],
    project_name: str | None,
    *,
    link_types: Mapping[str, str],
    facts: AgentFacts,
) -> list[Drift]:
    """Every drifted aspect of ``latest`` (of one project's slice, or of the whole mirror), in natural key order."""
    settings, reads = latest
    labels = reads.labels or project_name is not None  # a project's drift: its issues by their label
    fields = {*reads.fields, *(("labels",) if labels else ()), *(("sprint",) if reads.sprints else ())}
    entries = await unit.db.mirror.entries(reads.keys, fields=fields, linked=reads.linked)
    with _collector_paused():
        return find_drift(
            settings,
            mirror={key: entry.issue for key, entry in entries.items() if entry.vanished_at is None},
            vanished={key: entry.issue for key, entry in entries.items() if entry.vanished_at is not None},
            facts=facts,
            link_types=link_types,
            project=project_name,
            read_at={key: entry.vanished_at or entry.refreshed_at for key, entry in entries.items()},
        )


async def list_drift(
    unit: Unit, *, project_name: str | None = None, limit: int | None = None, offset: int | None = None
) -> DriftPage:
    """``GET /drift?project=P``: a page of the desired states Jira no longer shows, with who changed them."""
    size, start = page_bounds(limit, offset)
    if project_name is not None:
        await project(unit, project_name)
    found = await _kept_drift(unit, project_name)
    page = found[start : start + size]
    journals = await unit.db.mirror.journals(journal_keys(page))
    return DriftPage(
        items=list(attribute(page, journals)),
        total=len(found),
        last_full_refresh_at=iso(await unit.db.queue.last_full_refresh()),
    )


async def reapply(unit: Unit, body: ReapplyIn, *, requester: Requester) -> BatchCreated:
    """``POST /drift/reapply``: one batch re-asserting the drifted aspects of the chosen commands. It waits for a
    person like any batch of its door and token, and whenever one of the chosen commands' batches waited.

    404 for a command that does not exist; 409 for one that shows no drift now (nothing to put back).
    """
    wanted = list(dict.fromkeys(body.command_ids))
    if not wanted:
        raise ValidationError("command_ids — ожидается непустой список номеров команд")
    by_command: dict[int, list[Drift]] = {}
    settings = await unit.db.admin.settings()
    # Computed afresh: what is chosen goes into a new batch, never a kept answer's values.
    found = await _judged(
        unit, await _settings(unit), None, link_types=settings.link_types, facts=await agent_facts(unit)
    )
    for drift in found:
        by_command.setdefault(drift.command_id, []).append(drift)
    for command_id in wanted:
        if command_id in by_command:
            continue
        if await unit.db.queue.command(command_id) is None:
            raise NotFoundError(f"команды {command_id} нет")
        raise ConflictError(f"команда {command_id}: Jira показывает то, что она задала, — возвращать нечего")
    chosen = [drift for command_id in wanted for drift in by_command[command_id]]
    setters = (await unit.db.queue.batches_by_id({d.batch_id for d in chosen})).values()
    projects = {b.project for b in setters}
    batch = reapply_body(
        chosen,
        author=requester.token_name or "interface",
        title=f"возврат расхождений: команды {', '.join(str(c) for c in sorted(wanted))}",
        project=projects.pop() if len(projects) == 1 else None,
    )
    return await create_batch(unit, batch, requester=requester, brings_back=[b.approval for b in setters])
