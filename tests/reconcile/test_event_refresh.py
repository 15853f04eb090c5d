"""What the hub queues for webhook events it cannot apply: one refresh {keys} and one change-only refresh at most
waiting, extended while queued, and the batch it is."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from reconcile.batches.event_refresh import (
    EVENT_REFRESH_TITLE,
    MAX_KEYS,
    EventRefreshes,
    QueuedRefresh,
    decide_event_refreshes,
    event_refresh_body,
    targets,
)
from reconcile.batches.validation import BatchContext, validate_batch
from reconcile.config.settings import Settings
from reconcile.jira.webhook_events import WebhookEvent
from reconcile.queue.history import JournalMark
from reconcile.vocabulary.records import MirrorIssue
from tests.support import BASE_AWPCA

MARK = JournalMark(started_at=datetime(2026, 10, 22, 9, 0, tzinfo=UTC), query=BASE_AWPCA)
AT = "2026-10-22T09:00:00Z"


def _deleted(key: str) -> WebhookEvent:
    return WebhookEvent(event="jira:issue_deleted", at=AT, key=key)


def _unreadable(key: str) -> WebhookEvent:
    return WebhookEvent(event="jira:issue_updated", at=AT, key=key, problem="summary: не строка")


def _applied(key: str) -> WebhookEvent:
    return WebhookEvent(event="jira:issue_updated", at=AT, key=key, issue=MirrorIssue(key=key))


LINK = WebhookEvent(event="issuelink_created", at=AT)
COMMENT = WebhookEvent(event="comment_created", at=AT)


def _decide(events: list[WebhookEvent], **given: object) -> EventRefreshes:
    arguments: dict[str, object] = {
        "linked": {},
        "queued": None,
        "changes_queued": False,
        "mark": MARK,
        "base_jql": BASE_AWPCA,
        "jira_project": "AURORA",
    }
    arguments.update(given)
    return decide_event_refreshes(events, **arguments)  # type: ignore[arg-type]


def test_a_deletion_refreshes_what_the_mirror_links_to_it() -> None:
    """The deleted issue's linked issues are read (their links went with it); the deleted one itself is not."""
    linked = {"AURORA-5": ["AURORA-6", "AURORA-5", "AURORA-7"]}
    assert targets([_deleted("AURORA-5")], linked=linked) == ["AURORA-6", "AURORA-7"]
    assert _decide([_deleted("AURORA-5")], linked=linked) == EventRefreshes(queue_keys=("AURORA-6", "AURORA-7"))
    assert _decide([_deleted("AURORA-9")], linked=linked) == EventRefreshes()


def test_an_unreadable_issue_is_refreshed_by_its_key_and_applied_ones_need_nothing() -> None:
    """One refresh {keys} for the unreadable issues of a batch of events, in the order named; applied ones and
    comments add nothing."""
    events = [_unreadable("AURORA-2"), _applied("AURORA-3"), COMMENT, _unreadable("AURORA-1"), _unreadable("AURORA-2")]
    assert _decide(events) == EventRefreshes(queue_keys=("AURORA-2", "AURORA-1"))


def test_a_queued_refresh_takes_the_new_keys() -> None:
    """While the hub's refresh {keys} is queued it has not read Jira: new keys join it, known ones change nothing."""
    queued = QueuedRefresh(command_id=7, keys=("AURORA-1",))
    assert _decide([_unreadable("AURORA-2")], queued=queued) == EventRefreshes(
        extend=QueuedRefresh(command_id=7, keys=("AURORA-1", "AURORA-2"))
    )
    assert _decide([_unreadable("AURORA-1")], queued=queued) == EventRefreshes()


def test_keys_of_another_project_are_not_the_hubs() -> None:
    """The hub's batches name only keys of its Jira project: others are not refreshed."""
    assert _decide([_unreadable("HR-1"), _unreadable("AURORA-1")]) == EventRefreshes(queue_keys=("AURORA-1",))


def test_links_and_empty_bodies_make_one_change_only_refresh() -> None:
    """Link events and empty bodies: one change-only refresh, none while one is queued or without a current mark."""
    empty = WebhookEvent(event=None, at=AT)
    assert _decide([LINK, empty, LINK]) == EventRefreshes(queue_changes=True)
    assert _decide([LINK], changes_queued=True) == EventRefreshes()
    assert _decide([LINK], mark=None) == EventRefreshes()
    assert _decide([LINK], mark=JournalMark(started_at=MARK.started_at, query="older")) == EventRefreshes()
    assert _decide([LINK], base_jql=None) == EventRefreshes()


def test_a_queued_refresh_holds_one_search_page_of_keys() -> None:
    """At most MAX_KEYS keys wait in the refresh; the rest are left to the change-only and full refreshes."""
    queued = QueuedRefresh(command_id=3, keys=tuple(f"AURORA-{n}" for n in range(1, MAX_KEYS)))
    decided = _decide([_unreadable("AURORA-500"), _unreadable("AURORA-501")], queued=queued)
    assert decided.extend is not None and len(decided.extend.keys) == MAX_KEYS == 100
    assert decided.left == ("AURORA-501",)


def test_a_full_queued_refresh_takes_no_key_and_leaves_every_one() -> None:
    """A waiting refresh already holding MAX_KEYS keys is not extended, and no new one is queued: all are left."""
    queued = QueuedRefresh(command_id=3, keys=tuple(f"AURORA-{n}" for n in range(1, MAX_KEYS + 1)))
    decided = _decide([_unreadable("AURORA-500"), _unreadable("AURORA-501")], queued=queued)
    assert (decided.extend, decided.queue_keys, decided.left) == (None, (), ("AURORA-500", "AURORA-501"))


def test_the_event_refresh_batch() -> None:
    """The hub's refresh for events: author hub, «обновление по событиям Jira», refresh {keys}, valid as any."""
    body = event_refresh_body(["AURORA-6", "AURORA-7"])
    assert body == {
        "author": "hub",
        "title": "обновление по событиям Jira",
        "commands": [{"type": "refresh", "params": {"keys": ["AURORA-6", "AURORA-7"]}}],
    }
    assert EVENT_REFRESH_TITLE == "обновление по событиям Jira"
    valid = validate_batch(body, BatchContext(settings=Settings()))
    assert [dict(c.params) for c in valid.commands] == [{"keys": ["AURORA-6", "AURORA-7"]}]


keys = st.sampled_from([f"AURORA-{n}" for n in range(1, 8)] + ["HR-1"])
events = st.one_of(keys.map(_unreadable), keys.map(_deleted), keys.map(_applied), st.just(LINK), st.just(COMMENT))
steps = st.lists(st.one_of(st.lists(events, min_size=1, max_size=5), st.just("deliver")), max_size=30)


@given(steps)
def test_bursts_keep_one_of_each_waiting_and_lose_no_key(script: list[list[WebhookEvent] | str]) -> None:
    """Law: whatever the events and whenever the agent takes the queued refreshes, at most one refresh {keys} and
    one change-only refresh wait, the waiting one never exceeds MAX_KEYS, and every key of the project that an
    event needs read is waiting right after that event (a delivered refresh covers nothing later)."""
    linked = {"AURORA-1": ["AURORA-2"], "AURORA-3": ["AURORA-4", "HR-1"]}
    queued: QueuedRefresh | None = None
    changes_queued = False
    next_id = 1
    for step in script:
        if step == "deliver":
            queued, changes_queued = None, False
            continue
        assert isinstance(step, list)
        decided = _decide(step, linked=linked, queued=queued, changes_queued=changes_queued)
        assert not (decided.extend and decided.queue_keys)
        if decided.extend is not None:
            assert queued is not None and decided.extend.command_id == queued.command_id
            queued = decided.extend
        elif decided.queue_keys:
            assert queued is None
            queued, next_id = QueuedRefresh(command_id=next_id, keys=decided.queue_keys), next_id + 1
        if decided.queue_changes:
            assert not changes_queued
            changes_queued = True
        waiting = set(queued.keys) if queued else set()
        assert len(waiting) <= MAX_KEYS
        needed = {k for k in targets(step, linked=linked) if k.startswith("AURORA-")}
        assert needed <= waiting
        if any(e.event == "issuelink_created" for e in step):
            assert changes_queued
