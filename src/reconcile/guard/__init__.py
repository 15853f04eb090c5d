"""The bank's guard: the agent's local policy, Jira's JQL parsed and written anew, Jira paths from checked
parts, custom fields verified against Jira, the hub's project scope, the page's drafts and login throttle.

The apps and other tools import from this face only; its modules are the inside."""

from __future__ import annotations

from reconcile.guard import jql_tree, scope
from reconcile.guard.fields import ROLES, JiraField, fields_from_jira, is_field_id, unseen_ids, verified_mapping
from reconcile.guard.jql import JqlProblem, read_jql
from reconcile.guard.login_throttle import MAX_BLOCK, Throttle, after_failure, retry_after, throttle_keys
from reconcile.guard.paths import constant_for_run
from reconcile.guard.policy import (
    ANY_TYPE,
    BUDGET_WINDOW_SECONDS,
    READ_ONLY_TYPES,
    AgentPolicy,
    budget_wait,
    key_project,
    refusal,
    scoped_params,
)
from reconcile.guard.web_drafts import DRAFT_LIFETIME, ENDED_SESSION_KEPT, place_draft

__all__ = [
    "ANY_TYPE",
    "BUDGET_WINDOW_SECONDS",
    "DRAFT_LIFETIME",
    "ENDED_SESSION_KEPT",
    "MAX_BLOCK",
    "READ_ONLY_TYPES",
    "ROLES",
    "AgentPolicy",
    "JiraField",
    "JqlProblem",
    "Throttle",
    "after_failure",
    "budget_wait",
    "constant_for_run",
    "fields_from_jira",
    "is_field_id",
    "jql_tree",
    "key_project",
    "place_draft",
    "read_jql",
    "refusal",
    "retry_after",
    "scope",
    "scoped_params",
    "throttle_keys",
    "unseen_ids",
    "verified_mapping",
]
