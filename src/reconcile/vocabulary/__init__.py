"""The words every floor speaks: the command catalogue and parameter rules, settings, the mirror's
records, the command lifecycle, errors, texts and wording.

The apps and other tools import from this face only; its modules are the inside."""

from __future__ import annotations

from reconcile.vocabulary.canonical import canonical_json
from reconcile.vocabulary.catalogue import (
    CATALOGUE,
    REFRESH_TYPE,
    CommandSpec,
    CommandType,
    Editor,
    Format,
    Param,
    creating_types,
)
from reconcile.vocabulary.commands import batch_create_description, batch_create_schema, is_jira_key, is_temp_key
from reconcile.vocabulary.error_words import in_labels
from reconcile.vocabulary.errors import (
    ConflictError,
    ForbiddenError,
    NotFoundError,
    ReconcileError,
    TooLargeError,
    ValidationError,
)
from reconcile.vocabulary.lifecycle import FINAL, PENDING, RESOLVED, RETRYABLE, CommandStatus, Event, advance, can
from reconcile.vocabulary.notices import budget_notice, retry_notice
from reconcile.vocabulary.project_names import PROJECT_NAME_MAX, check_project_name
from reconcile.vocabulary.records import (
    ISSUE_TEXT_FIELDS,
    NATURAL_KEY_MAX,
    HistoryEntry,
    HistoryItem,
    MirrorIssue,
    MirrorLink,
    SprintRef,
    converter,
    issue_to_wire,
    natural_key,
    wire_history,
    wire_issue,
)
from reconcile.vocabulary.text import (
    MAX_JSON_DEPTH,
    TooDeep,
    bad_place,
    body_text,
    check_request_json,
    check_text,
    error_text,
    readable,
    utc_text,
)

__all__ = [
    "CATALOGUE",
    "FINAL",
    "ISSUE_TEXT_FIELDS",
    "MAX_JSON_DEPTH",
    "NATURAL_KEY_MAX",
    "PENDING",
    "PROJECT_NAME_MAX",
    "REFRESH_TYPE",
    "RESOLVED",
    "RETRYABLE",
    "CommandSpec",
    "CommandStatus",
    "CommandType",
    "ConflictError",
    "Editor",
    "Event",
    "ForbiddenError",
    "Format",
    "HistoryEntry",
    "HistoryItem",
    "MirrorIssue",
    "MirrorLink",
    "NotFoundError",
    "Param",
    "ReconcileError",
    "SprintRef",
    "TooDeep",
    "TooLargeError",
    "ValidationError",
    "advance",
    "bad_place",
    "batch_create_description",
    "batch_create_schema",
    "body_text",
    "budget_notice",
    "can",
    "canonical_json",
    "check_project_name",
    "check_request_json",
    "check_text",
    "converter",
    "creating_types",
    "error_text",
    "in_labels",
    "is_jira_key",
    "is_temp_key",
    "issue_to_wire",
    "natural_key",
    "readable",
    "retry_notice",
    "utc_text",
    "wire_history",
    "wire_issue",
]
