"""What a stored batch would write in Jira now: its unfinished commands predicted from the mirror by the executors
the agent runs (:mod:`reconcile.outlook.dryrun`), as lines a person reads (:mod:`reconcile.outlook.plan_lines`) and as
the plan an approval means (:mod:`reconcile.outlook.approved_plan`). Both from one prediction, so the digest a page
shows beside its lines is the digest ``approve`` checks. Nothing here writes.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from adapters.storage.records import BatchRecord, CommandRecord
from hub_app.runtime.hub import Unit
from reconcile.batches import NewCommand, batch_keys
from reconcile.config import Settings
from reconcile.outlook import PlanSnapshot, Prediction, approved_plan, dryrun, plan_lines
from reconcile.queue import Skip, resolved_keys, settle, substitute
from reconcile.vocabulary import CATALOGUE, PENDING, REFRESH_TYPE, CommandStatus, MirrorIssue

__all__ = ["StoredPlan", "plan_commands", "predict", "stored_plan"]


async def _mirror(unit: Unit, commands: Sequence[NewCommand]) -> dict[str, MirrorIssue]:
    """The mirror records the commands need: the issues they name and, for the duplicate search of each
    ``ensure_issue``, the issues with its summary."""
    mirror = await unit.db.mirror.issues(batch_keys(tuple(commands)))
    summaries = [c.params.get("summary") for c in commands if CATALOGUE[c.type].creates_issue]
    mirror.update(await unit.db.mirror.issues_with_summary(*(s.strip() for s in summaries if isinstance(s, str))))
    return mirror


async def predict(
    unit: Unit, commands: Sequence[NewCommand], settings: Settings
) -> tuple[tuple[Prediction, ...], dict[str, MirrorIssue]]:
    """The predictions of ``commands`` and the records they were made against (issues to be created included)."""
    agent = await unit.db.admin.agent_status()
    jira_user = agent.jira_user if agent else None
    mirror = await _mirror(unit, commands)
    predictions = dryrun.predict_commands(
        commands,
        mirror=mirror,
        settings=settings,
        jira_user=jira_user,
        symmetric_link_types=frozenset(agent.symmetric_link_types) if agent else frozenset(),
        now=unit.now,
    )
    return predictions, dryrun.with_issues_to_be_created(commands, mirror, jira_user=jira_user, now=unit.now)


async def plan_commands(
    unit: Unit, commands: Sequence[NewCommand], settings: Settings, *, skips: dict[int, str]
) -> tuple[tuple[plan_lines.CommandPlan, ...], list[Prediction | None]]:
    """The plans of ``commands`` (those in ``skips`` planned as skipped) and the predictions they rest on."""
    predicted = [c for c in commands if c.seq not in skips]
    predictions, issues = await predict(unit, predicted, settings)
    by_seq = {c.seq: p for c, p in zip(predicted, predictions, strict=True)}
    ordered = [by_seq.get(c.seq) for c in commands]
    return plan_lines.plan_commands(commands, ordered, issues=issues, settings=settings, skips=skips), ordered


@attrs.frozen(kw_only=True)
class StoredPlan:
    """A stored batch's unfinished commands, their plans and the plan an approval of them means."""

    unfinished: list[CommandRecord]
    plans: tuple[plan_lines.CommandPlan, ...]
    snapshot: PlanSnapshot


async def stored_plan(unit: Unit, batch: BatchRecord, settings: Settings) -> StoredPlan:
    """The plan of ``batch``'s unfinished commands computed now from the mirror, with the temp keys already created
    substituted; a command whose temp key will never exist is planned as skipped."""
    unfinished = [c for c in (await unit.db.queue.commands_of([batch.id]))[batch.id] if c.status in PENDING]
    outcomes = (await unit.db.queue.temp_key_outcomes([batch.id]))[batch.id]
    resolved = resolved_keys(outcomes)
    commands: list[NewCommand] = []
    skips: dict[int, str] = {}
    for command in unfinished:
        verdict = settle(command.type, command.params, outcomes)
        if isinstance(verdict, Skip) and command.status is CommandStatus.QUEUED:
            skips[command.seq] = verdict.error
        params = substitute(command.type, command.params, resolved)
        if command.type == REFRESH_TYPE and isinstance(keys := command.params.get("keys"), list):
            # A tail refresh names the keys still to be created too: it reads them once they exist.
            params["keys"] = [resolved.get(key, key) for key in keys]
        commands.append(NewCommand(seq=command.seq, type=command.type, params=params, temp_key=command.temp_key))
    plans, predictions = await plan_commands(unit, commands, settings, skips=skips)
    to_be_created = [c.temp_key for c in commands if c.temp_key and c.temp_key not in resolved]
    snapshot = approved_plan.snapshot(commands, predictions, to_be_created=to_be_created, now=unit.now)
    return StoredPlan(unfinished=unfinished, plans=plans, snapshot=snapshot)
