"""The queue's decisions: the claim (re-deliver, fail at the limit, next queued), temp keys, delivery,
pacing, the journal mark, automatic refreshes, reports, the one-agent rule and idempotent creation.

The apps and other tools import from this face only; its modules are the inside."""

from __future__ import annotations

from reconcile.queue import auto_refresh, claim, delivery, history, idempotency, reports
from reconcile.queue.agents import (
    BACKOFF_CAP_SECONDS,
    AgentConflict,
    check_claimant,
    check_instance,
    holds_claim,
    is_online,
)
from reconcile.queue.history import SyncRunMark
from reconcile.queue.idempotency import BATCH_ASKED, REFRESH_ASKED, canonical_json
from reconcile.queue.pacing import pause_left, pause_seconds
from reconcile.queue.tempkeys import Skip, TempKeyOutcome, outcome_of, resolved_keys, settle, substitute

__all__ = [
    "BACKOFF_CAP_SECONDS",
    "BATCH_ASKED",
    "REFRESH_ASKED",
    "AgentConflict",
    "Skip",
    "SyncRunMark",
    "TempKeyOutcome",
    "auto_refresh",
    "canonical_json",
    "check_claimant",
    "check_instance",
    "claim",
    "delivery",
    "history",
    "holds_claim",
    "idempotency",
    "is_online",
    "outcome_of",
    "pause_left",
    "pause_seconds",
    "reports",
    "resolved_keys",
    "settle",
    "substitute",
]
