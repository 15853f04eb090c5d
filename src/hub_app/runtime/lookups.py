"""What the hub's operations look up before they decide, in the unit they run in; nothing here writes.

An object named by a request (a batch, a command, a project): the record, or
:class:`~reconcile.vocabulary.errors.NotFoundError` (404). The queue's facts a claim, a report and a plan read again and
again: the batches waiting for a person, a batch's temp keys already created, the base JQL, the stored files, what
the agent told of Jira. And the hub's state a batch body is validated against (:func:`batch_context`).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from adapters.files import is_sha256
from adapters.storage.records import BatchRecord, CommandRecord, ProjectRecord
from hub_app.runtime.hub import Unit
from reconcile.batches import BatchContext, BatchNeeds, ProjectInfo
from reconcile.config import Settings
from reconcile.guard import BUDGET_WINDOW_SECONDS
from reconcile.outlook import AgentFacts, AgentPace, RunFacts, approval
from reconcile.queue import history, resolved_keys
from reconcile.vocabulary import NotFoundError

__all__ = [
    "agent_facts",
    "base_jql",
    "batch",
    "batch_context",
    "command",
    "held_batches",
    "project",
    "reported_pause",
    "resolved_in_batch",
    "run_facts",
    "stored_files",
]


async def batch(unit: Unit, batch_id: int) -> BatchRecord:
    found = await unit.db.queue.batch(batch_id)
    if found is None:
        raise NotFoundError(f"пакета {batch_id} нет")
    return found


async def command(unit: Unit, command_id: int) -> CommandRecord:
    found = await unit.db.queue.command(command_id)
    if found is None:
        raise NotFoundError(f"команды {command_id} нет")
    return found


async def project(unit: Unit, name: str) -> ProjectRecord:
    found = await unit.db.admin.project(name)
    if found is None:
        raise NotFoundError(f"нет проекта {name}")
    return found


async def held_batches(unit: Unit) -> frozenset[int]:
    """The batches whose commands must not be issued: they wait for a person's approval."""
    return frozenset(b.id for b in await unit.db.queue.awaiting_approval() if approval.holds(b.approval))


async def resolved_in_batch(unit: Unit, batch_id: int) -> dict[str, str]:
    """The batch's temp keys whose issues exist: ``new:<n>`` → the real key."""
    outcomes = await unit.db.queue.temp_key_outcomes([batch_id])
    return resolved_keys(outcomes[batch_id])


async def reported_pause(unit: Unit) -> tuple[int, datetime] | None:
    """The command whose pause the agent is waiting out and when that pause ends, as its heartbeat said."""
    status = await unit.db.admin.agent_status()
    if status is None or status.pause_command_id is None or status.pause_ends_at is None:
        return None
    return status.pause_command_id, status.pause_ends_at


async def run_facts(unit: Unit) -> RunFacts:
    """What the live figures of a batch read of the agent (:class:`reconcile.outlook.eta.RunFacts`): its reported pace
    and pause, the end of its last command, whether it holds one, its writes of the last hour."""
    status = await unit.db.admin.agent_status()
    holding, last_call_at, writes = await unit.db.queue.agent_work(unit.now - timedelta(seconds=BUDGET_WINDOW_SECONDS))
    pause = None
    if status is not None and status.pause_command_id is not None and status.pause_ends_at is not None:
        pause = (status.pause_command_id, status.pause_ends_at)
    return RunFacts(
        pace=status.policy if status is not None and status.policy is not None else AgentPace(),
        pause=pause,
        last_call_at=last_call_at,
        holding=holding,
        writes=tuple(writes),
    )


async def base_jql(unit: Unit, settings: Settings) -> str | None:
    return history.base_jql(settings.jira_project, [p.name for p in await unit.db.admin.projects()])


async def stored_files(unit: Unit, shas: set[str] | frozenset[str]) -> dict[str, int]:
    """The recorded files among ``shas`` whose bytes the store still has: sha256 → size."""
    found: dict[str, int] = {}
    for sha in await unit.db.admin.recorded_files(s for s in shas if is_sha256(s)):
        size = unit.files.size(sha)
        if size is not None:
            found[sha] = size
    return found


async def agent_facts(unit: Unit) -> AgentFacts:
    """What the agent told the hub about Jira, as the confirmation rules read it."""
    agent = await unit.db.admin.agent_status()
    if agent is None:
        return AgentFacts()
    return AgentFacts(jira_user=agent.jira_user, symmetric_link_types=frozenset(agent.symmetric_link_types))


async def batch_context(unit: Unit, needs: BatchNeeds, settings: Settings) -> BatchContext:
    """The hub's state a batch body is validated against: the projects, and what
    :func:`reconcile.batches.validation.batch_needs` said the body needs (the mirror labels of its keys, its stored
    files)."""
    projects = {
        p.name: ProjectInfo(name=p.name, board_id=p.board_id, board_type=p.board_type)
        for p in await unit.db.admin.projects()
    }
    if needs.files:
        await unit.db.lock_files()  # a file found stored here is not pruned before this batch commits
    return BatchContext(
        settings=settings,
        projects=projects,
        mirror_labels=await unit.db.mirror.labels(needs.keys),
        files=await stored_files(unit, needs.files),
    )
