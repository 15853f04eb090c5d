"""What the hub takes of the records the agent sends (DESIGN.md 5.7, the hub): refresh pages and webhook events
name only issues of the hub's Jira project, and an event's ``updated`` is not far in the future.

The agent's token is a secret outside the bank's walls too: a record it sends is checked as any client's input,
and a refused request stores nothing (422 naming the record). A legitimate agent never meets these refusals: its
refreshes read inside the hub's project (neighbours of another project stay link ends), its listener drops the
events of other projects, and Jira's clock is within minutes of the hub's.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from reconcile.guard.policy import key_project
from reconcile.jira.mirror_rule import FUTURE_LIMIT, too_far_ahead
from reconcile.jira.webhook_events import WebhookEvent
from reconcile.vocabulary.records import HistoryEntry, MirrorIssue
from reconcile.vocabulary.text import utc_text

__all__ = ["event_refusal", "page_refusal"]


def _outside(key: str, jira_project: str) -> str | None:
    """«HR-1 не в проекте Jira AURORA» unless ``key`` is a Jira key of ``jira_project`` (a temp key is none)."""
    return None if key_project(key) == jira_project else f"{key} не в проекте Jira {jira_project}"


def page_refusal(issues: Sequence[MirrorIssue], history: Sequence[HistoryEntry], *, jira_project: str) -> str | None:
    """Why a refresh page is refused («issues[2]: HR-1 не в проекте Jira AURORA»), or ``None``."""
    keys = {"issues": [r.key for r in issues], "history": [e.key for e in history]}
    for what, named in keys.items():
        for index, key in enumerate(named):
            problem = _outside(key, jira_project)
            if problem is not None:
                return f"{what}[{index}]: {problem}"
    return None


def event_refusal(event: WebhookEvent, index: int, *, jira_project: str, now: datetime) -> str | None:
    """Why relayed event ``index`` is refused — its issue outside ``jira_project``, or its ``updated`` more than
    :data:`~reconcile.jira.mirror_rule.FUTURE_LIMIT` after ``now`` — or ``None``."""
    problem = _outside(event.key, jira_project) if event.key is not None else None
    if problem is None and event.issue is not None and too_far_ahead(event.issue.updated, now):
        limit = int(FUTURE_LIMIT.total_seconds())
        problem = f"updated {event.issue.updated} позже часов хаба ({utc_text(now)}) больше чем на {limit} с"
    return None if problem is None else f"events[{index}]: {problem}"
