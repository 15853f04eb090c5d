"""What a person reads before and after: the dry run, plan lines, the approved plan and its expiry,
batch state and progress, readable results, confirmation by state, drift and undo.

The apps and other tools import from this face only; its modules are the inside."""

from __future__ import annotations

from reconcile.outlook import approval, approved_plan, confirm, dryrun, eta, plan_lines
from reconcile.outlook.approval import (
    OWN_BATCH,
    WAITS_FOR_ANOTHER,
    Approval,
    ApprovalState,
    Door,
    Requester,
    approval_refusal,
)
from reconcile.outlook.approved_plan import PLAN_NEEDED, PlanChanged, PlanSnapshot, StalePlan, approved_for, line_words
from reconcile.outlook.batch_state import BatchState, bar, batch_state, command_seconds
from reconcile.outlook.confirm import AgentFacts
from reconcile.outlook.drift import (
    SETTING_TYPES,
    Drift,
    MirrorReads,
    SetCommand,
    Setting,
    attribute,
    find_drift,
    journal_keys,
    latest_settings,
    mirror_reads,
    reapply_body,
)
from reconcile.outlook.dryrun import Prediction
from reconcile.outlook.eta import AgentPace, RunFacts, effective_gap, pace_from_wire, paced_settings
from reconcile.outlook.plan_lines import CommandPlan
from reconcile.outlook.queue_filter import QueueFilter, parse_filter, search_text
from reconcile.outlook.readable import (
    aspect_label,
    drift_value,
    journal_field,
    journal_value,
    params_in_words,
    result_in_words,
    sprint_state,
)
from reconcile.outlook.undo import DoneCommand, Kept, UndoItem, UndoPlan, plan_undo, standing_undo, undo_title

__all__ = [
    "OWN_BATCH",
    "PLAN_NEEDED",
    "SETTING_TYPES",
    "WAITS_FOR_ANOTHER",
    "AgentFacts",
    "AgentPace",
    "Approval",
    "ApprovalState",
    "BatchState",
    "CommandPlan",
    "DoneCommand",
    "Door",
    "Drift",
    "Kept",
    "MirrorReads",
    "PlanChanged",
    "PlanSnapshot",
    "Prediction",
    "QueueFilter",
    "Requester",
    "RunFacts",
    "SetCommand",
    "Setting",
    "StalePlan",
    "UndoItem",
    "UndoPlan",
    "approval",
    "approval_refusal",
    "approved_for",
    "approved_plan",
    "aspect_label",
    "attribute",
    "bar",
    "batch_state",
    "command_seconds",
    "confirm",
    "drift_value",
    "dryrun",
    "effective_gap",
    "eta",
    "find_drift",
    "journal_field",
    "journal_keys",
    "journal_value",
    "latest_settings",
    "line_words",
    "mirror_reads",
    "pace_from_wire",
    "paced_settings",
    "params_in_words",
    "parse_filter",
    "plan_lines",
    "plan_undo",
    "reapply_body",
    "result_in_words",
    "search_text",
    "sprint_state",
    "standing_undo",
    "undo_title",
]
