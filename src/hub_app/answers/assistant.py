"""What the MCP tools answer beyond the API's answers (DESIGN.md 7): a new batch told to an assistant, and an issue
with its journal. Subclasses of the API's types, so one converter and one schema generator serve both doors."""

from __future__ import annotations

import attrs

from hub_app.answers.batches import BatchCreated
from hub_app.answers.mirror import IssueDetail
from hub_app.answers.wire import Items
from reconcile.vocabulary import HistoryEntry

__all__ = ["IssueWithJournal", "ToldBatch"]


@attrs.frozen(kw_only=True)
class ToldBatch(BatchCreated):
    """A batch an assistant created (or retried, or refreshed): when it waits for a person, the page to approve it
    on and what to tell the user; ``replayed`` when the call's ``idempotency_key`` answered an earlier call's
    batch. Each extra field is present only when it applies."""

    approval_url: str | None = None
    message: str | None = None
    replayed: bool | None = None


@attrs.frozen(kw_only=True)
class IssueWithJournal(IssueDetail):
    """An issue of the mirror with its links and notes, and its journal (``issue_get``)."""

    journal: Items[HistoryEntry]
