"""What the hub takes of the agent's records: pages and events only of the hub's Jira project, events not more
than 300 s ahead of the hub's clock; each refusal names the record."""

from __future__ import annotations

from datetime import timedelta

import pytest

from reconcile.jira.agent_records import event_refusal, page_refusal
from reconcile.jira.webhook_events import WebhookEvent
from reconcile.vocabulary.records import HistoryEntry, MirrorIssue
from tests.support import T0


def _issue(key: str, updated: str = "2026-10-22T09:00:00Z") -> MirrorIssue:
    return MirrorIssue(key=key, updated=updated)  # type: ignore[call-arg]


def _entry(key: str) -> HistoryEntry:
    return HistoryEntry(key=key, id="1", created="2026-10-22T08:00:00Z", author=None, items=())


def test_a_page_of_the_hubs_project_is_taken() -> None:
    """Issues and journal entries of AURORA: nothing to refuse (an empty page neither)."""
    assert page_refusal([_issue("AURORA-1"), _issue("AURORA-22")], [_entry("AURORA-1")], jira_project="AURORA") is None
    assert page_refusal([], [], jira_project="AURORA") is None


@pytest.mark.parametrize(
    ("issues", "history", "refusal"),
    [
        (["AURORA-1", "HR-1"], [], "issues[1]: HR-1 не в проекте Jira AURORA"),
        (["HR-1", "HR-2"], [], "issues[0]: HR-1 не в проекте Jira AURORA"),
        (["AURORA-1"], ["AURORA-1", "HR-3"], "history[1]: HR-3 не в проекте Jira AURORA"),
        (["HR-1"], ["HR-3"], "issues[0]: HR-1 не в проекте Jira AURORA"),
        (["new:1"], [], "issues[0]: new:1 не в проекте Jira AURORA"),
        (["AURORA"], [], "issues[0]: AURORA не в проекте Jira AURORA"),
        (["AURORA-1-2"], [], "issues[0]: AURORA-1-2 не в проекте Jira AURORA"),
    ],
)
def test_a_record_outside_the_hubs_project_refuses_the_page(
    issues: list[str], history: list[str], refusal: str
) -> None:
    """The first record not a Jira key of AURORA, issues before the journal: named with its index."""
    found = page_refusal([_issue(k) for k in issues], [_entry(k) for k in history], jira_project="AURORA")
    assert found == refusal


def test_an_event_outside_the_hubs_project_is_refused() -> None:
    """An event naming HR-1 is refused with its index; one naming no key (a link event) is taken."""
    hr = WebhookEvent(event="jira:issue_deleted", at="2026-10-22T09:00:00Z", key="HR-1")
    link = WebhookEvent(event="issuelink_created", at="2026-10-22T09:00:00Z")
    assert event_refusal(hr, 4, jira_project="AURORA", now=T0) == "events[4]: HR-1 не в проекте Jira AURORA"
    assert event_refusal(link, 0, jira_project="AURORA", now=T0) is None


@pytest.mark.parametrize(("ahead", "refused"), [(timedelta(seconds=300), False), (timedelta(seconds=300.001), True)])
def test_an_event_more_than_300_s_ahead_is_refused(ahead: timedelta, refused: bool) -> None:
    """``updated`` up to 300 s after the hub's clock is taken, a millisecond more refused, saying both times."""
    updated = (T0 + ahead).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    event = WebhookEvent(event="jira:issue_updated", at=updated, key="AURORA-1", issue=_issue("AURORA-1", updated))
    expected = f"events[1]: updated {updated} позже часов хаба (2026-10-22T09:00:00Z) больше чем на 300 с"
    assert event_refusal(event, 1, jira_project="AURORA", now=T0) == (expected if refused else None)


def test_the_project_is_named_before_the_time() -> None:
    """An event both of another project and from the future is refused for its project."""
    event = WebhookEvent(
        event="jira:issue_updated", at="2027-01-01T00:00:00Z", key="HR-1", issue=_issue("HR-1", "2027-01-01T00:00:00Z")
    )
    assert event_refusal(event, 0, jira_project="AURORA", now=T0) == "events[0]: HR-1 не в проекте Jira AURORA"
