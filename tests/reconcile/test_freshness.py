"""The mirror's freshness: its staleness, and what each relayed webhook event did to the mirror."""

from __future__ import annotations

from datetime import timedelta

from hypothesis import given
from hypothesis import strategies as st

from reconcile.jira.freshness import EventOutcome, event_outcomes, staleness_seconds
from reconcile.jira.mirror_rule import Arrival, to_apply
from reconcile.jira.webhook_events import WebhookEvent
from reconcile.vocabulary.records import MirrorIssue
from tests.support import T0


def _at(seconds: int) -> str:
    return (T0 + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")


def _event(key: str, version: int) -> WebhookEvent:
    issue = MirrorIssue(key=key, summary=f"{key} v{version}", updated=_at(version))  # type: ignore[call-arg]
    return WebhookEvent(event="jira:issue_updated", key=key, at=_at(version), issue=issue)


def test_staleness_is_since_the_later_refresh_start() -> None:
    """The later of the full and change-only starts counts; none finished → unknown; never negative."""
    now = T0 + timedelta(minutes=20)
    assert staleness_seconds(now=now, last_full_refresh_at=T0, last_changes_refresh_at=None) == 1200.0
    later = T0 + timedelta(minutes=16)
    assert staleness_seconds(now=now, last_full_refresh_at=T0, last_changes_refresh_at=later) == 240.0
    assert staleness_seconds(now=now, last_full_refresh_at=None, last_changes_refresh_at=None) is None
    assert staleness_seconds(now=T0, last_full_refresh_at=now, last_changes_refresh_at=None) == 0.0


def test_outcomes_of_one_request() -> None:
    """Newer than the row → applied; the row's ``updated`` → duplicate (not written); older → stale; a hint →
    applied."""
    hint = WebhookEvent(event="issuelink_created", at=_at(0))
    events = [_event("A-1", 5), _event("A-2", 3), _event("A-3", 1), _event("A-1", 5), _event("A-4", 2), hint]
    stored = {"A-1": _at(4), "A-2": _at(3), "A-3": _at(2)}
    assert event_outcomes(events, stored) == [
        EventOutcome.APPLIED,  # the first copy is the one written
        EventOutcome.DUPLICATE,
        EventOutcome.STALE,
        EventOutcome.DUPLICATE,  # its copy before it in the request was written
        EventOutcome.APPLIED,  # a new row
        EventOutcome.APPLIED,
    ]


@given(
    versions=st.lists(st.tuples(st.sampled_from(["A-1", "A-2"]), st.integers(0, 5)), max_size=12),
    stored=st.dictionaries(st.sampled_from(["A-1", "A-2"]), st.integers(0, 5)),
)
def test_outcomes_agree_with_the_upsert_rule(versions: list[tuple[str, int]], stored: dict[str, int]) -> None:
    """Exactly the events whose records the upsert rule writes (an event: strictly newer) are applied, at most one
    per key; every other is a duplicate when its ``updated`` is the one it lost to (the request's newest of its
    issue, or the row's), else stale."""
    events = [_event(key, version) for key, version in versions]
    rows = {key: _at(version) for key, version in stored.items()}
    outcomes = event_outcomes(events, rows)
    written = to_apply([e.issue for e in events if e.issue is not None], rows, Arrival.EVENT)
    for event, outcome in zip(events, outcomes, strict=True):
        assert event.issue is not None
        key, updated = event.issue.key, event.issue.updated
        mine = [e.issue for e in events if e.issue is not None and e.issue.key == key]
        request_newest = max(issue.updated or "" for issue in mine)
        first_newest = next(issue for issue in mine if issue.updated == request_newest)
        if written.get(key) is event.issue:
            assert outcome is EventOutcome.APPLIED
        elif event.issue is not first_newest:
            assert outcome is (EventOutcome.DUPLICATE if updated == request_newest else EventOutcome.STALE)
        else:
            assert outcome is (EventOutcome.DUPLICATE if updated == rows[key] else EventOutcome.STALE)
    assert outcomes.count(EventOutcome.APPLIED) == len(written)


def test_an_event_that_writes_no_record_does_not_hide_the_events_after_it() -> None:
    """A hint first and a deletion that carries the issue's last state are applied as they are (nothing to
    compare), and neither competes with an update of the same issue in the request."""
    hint = WebhookEvent(event="issuelink_created", at=_at(0))
    deleted = WebhookEvent(
        event="jira:issue_deleted",
        key="A-1",
        at=_at(9),
        issue=MirrorIssue(key="A-1", summary="A-1 v9", updated=_at(9)),  # type: ignore[call-arg]
    )
    events = [hint, deleted, _event("A-1", 5), _event("A-2", 3)]
    assert event_outcomes(events, {"A-1": _at(4), "A-2": _at(3)}) == [
        EventOutcome.APPLIED,
        EventOutcome.APPLIED,
        EventOutcome.APPLIED,
        EventOutcome.DUPLICATE,
    ]
