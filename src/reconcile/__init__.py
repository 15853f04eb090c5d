"""reconcile — the pure core of sdlc-hub: every rule of the commands specification, with no I/O, no clock and no
database, so that the hub, the agent and other tools judge alike (docs/library.md shows it used from outside).

Its folders are floors, each importing only the ones below (tests/test_structure.py):

- ``outlook`` — what a person reads: the dry run against a mirror snapshot, plan lines and their approval, progress
  and its ETA, readable results, confirmation by state, drift, undo;
- ``types`` — each command type bound whole: executor, plan lines, result words, state check, dry-run answers;
- ``executors`` — one sans-I/O executor per command type (a generator of Jira calls and pauses);
- ``batches`` — a batch as submitted: validation and normalisation with every error, the hub's own bodies;
- ``jira``, ``queue`` and ``audit`` — Jira as the core sees it (answers, issue model, webhooks, rate-limit bucket,
  the mirror's rule, what a write replaced); the queue's decisions (the claim, temp keys, pacing, the journal mark,
  idempotent creation); the audit's hash chain;
- ``guard`` — the bank's policy the agent enforces: JQL parsed and written anew, Jira paths from checked parts,
  custom fields verified; the hub's project scope;
- ``config`` — the hub's settings;
- ``vocabulary`` — the words every floor speaks: the command catalogue, records, the lifecycle, errors.

The names below are the stable face; a folder's own face (``reconcile.queue``, …) offers more, the modules behind
the faces are the inside.
"""

from __future__ import annotations

from reconcile.batches.validation import BatchContext, BatchError, InvalidBatch, ValidBatch, validate_batch
from reconcile.config.settings import Settings, settings_from_json
from reconcile.guard.jql import client_jql, read_jql
from reconcile.guard.policy import AgentPolicy, refusal, scoped_params
from reconcile.outlook.confirm import confirm
from reconcile.outlook.dryrun import Prediction, predict_batch
from reconcile.outlook.plan_lines import CommandPlan, PlanLine, plan_commands
from reconcile.queue.claim import ClaimDecision, ClaimSnapshot, decide_claim
from reconcile.queue.pacing import estimate_seconds
from reconcile.types.binding import TYPES, executor_for
from reconcile.vocabulary.catalogue import CATALOGUE, CommandSpec, CommandType, Param
from reconcile.vocabulary.commands import batch_create_schema, check_command
from reconcile.vocabulary.errors import ReconcileError, ValidationError
from reconcile.vocabulary.lifecycle import CommandStatus, IllegalTransition, advance, can
from reconcile.vocabulary.records import HistoryEntry, MirrorIssue, MirrorLink, SprintRef

__all__ = [
    "CATALOGUE",
    "TYPES",
    "AgentPolicy",
    "BatchContext",
    "BatchError",
    "ClaimDecision",
    "ClaimSnapshot",
    "CommandPlan",
    "CommandSpec",
    "CommandStatus",
    "CommandType",
    "HistoryEntry",
    "IllegalTransition",
    "InvalidBatch",
    "MirrorIssue",
    "MirrorLink",
    "Param",
    "PlanLine",
    "Prediction",
    "ReconcileError",
    "Settings",
    "SprintRef",
    "ValidBatch",
    "ValidationError",
    "advance",
    "batch_create_schema",
    "can",
    "check_command",
    "client_jql",
    "confirm",
    "decide_claim",
    "estimate_seconds",
    "executor_for",
    "plan_commands",
    "predict_batch",
    "read_jql",
    "refusal",
    "scoped_params",
    "settings_from_json",
    "validate_batch",
]
