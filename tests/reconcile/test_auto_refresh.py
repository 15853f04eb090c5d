"""The hub's automatic refresh (DESIGN.md 6, 6.2): none, full or change-only, and the batch each one is."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reconcile.batches.validation import (
    AUTO_REFRESH_CHANGES_TITLE,
    BatchContext,
    ProjectInfo,
    auto_refresh_body,
    retry_body,
    validate_batch,
)
from reconcile.config.settings import Settings
from reconcile.queue.auto_refresh import AutoRefresh, decide_auto_refresh
from reconcile.queue.history import JournalMark
from reconcile.vocabulary.errors import ValidationError
from tests.support import BASE_AWPCA, BASE_BOTH, T0


def _decide(**given: Any) -> AutoRefresh:
    arguments: dict[str, Any] = {
        "queue_empty": True,
        "base_jql": BASE_AWPCA,
        "last_full_refresh_started_at": T0,
        "last_base_refresh_started_at": T0,
        "mark": JournalMark(started_at=T0, query=BASE_AWPCA),
        "now": T0 + timedelta(minutes=16),
        "auto_refresh_minutes": 15,
        "full_refresh_hours": 24,
    }
    arguments.update(given)
    return decide_auto_refresh(**arguments)


def test_never_a_full_refresh_with_projects_is_a_full_one() -> None:
    """No full refresh ever started, projects present, nothing queued: a full refresh."""
    assert _decide(last_full_refresh_started_at=None, last_base_refresh_started_at=None, mark=None) is AutoRefresh.FULL


def test_nothing_without_projects_or_while_commands_wait() -> None:
    """No base JQL (no projects), or anything that can be issued: no automatic refresh."""
    assert _decide(base_jql=None, last_full_refresh_started_at=None) is AutoRefresh.NONE
    assert _decide(queue_empty=False, last_full_refresh_started_at=None) is AutoRefresh.NONE
    assert _decide(queue_empty=False, now=T0 + timedelta(days=3)) is AutoRefresh.NONE


def test_after_the_interval_with_a_mark_it_is_change_only() -> None:
    """The last refresh more than auto_refresh_minutes ago, a mark by the current base JQL: change-only."""
    assert _decide() is AutoRefresh.CHANGES


def test_exactly_the_interval_is_not_yet() -> None:
    """Exactly auto_refresh_minutes after the last start nothing is created; a moment more, the change-only one."""
    assert _decide(now=T0 + timedelta(minutes=15)) is AutoRefresh.NONE
    assert _decide(now=T0 + timedelta(minutes=15, seconds=1)) is AutoRefresh.CHANGES
    assert _decide(now=T0 + timedelta(seconds=0.2), auto_refresh_minutes=0) is AutoRefresh.CHANGES


def test_the_last_change_only_refresh_counts_for_the_interval() -> None:
    """A change-only refresh started 10 minutes ago (the full one hours ago) holds the next one back."""
    now = T0 + timedelta(hours=5)
    assert _decide(now=now, last_base_refresh_started_at=now - timedelta(minutes=10)) is AutoRefresh.NONE
    assert _decide(now=now, last_base_refresh_started_at=now - timedelta(minutes=16)) is AutoRefresh.CHANGES


def test_a_full_refresh_every_full_refresh_hours() -> None:
    """No full refresh started within full_refresh_hours: a full one, however recent the change-only one."""
    now = T0 + timedelta(hours=24, seconds=1)
    assert _decide(now=now, last_base_refresh_started_at=now - timedelta(minutes=1)) is AutoRefresh.FULL
    assert _decide(now=T0 + timedelta(hours=24), last_base_refresh_started_at=T0 + timedelta(hours=23)) is (
        AutoRefresh.CHANGES
    )
    assert _decide(now=T0 + timedelta(hours=2, seconds=1), full_refresh_hours=2) is AutoRefresh.FULL


def test_without_a_mark_it_must_be_full() -> None:
    """No journal mark (no run ever read the journal through): no since to read changes from, so full."""
    assert _decide(mark=None) is AutoRefresh.FULL
    assert _decide(mark=None, now=T0 + timedelta(minutes=5)) is AutoRefresh.NONE


def test_a_mark_by_an_older_base_jql_makes_it_full() -> None:
    """A project was added after the mark («Новый проект»): only a full read brings its issues and start journal."""
    assert _decide(base_jql=BASE_BOTH, last_base_refresh_started_at=None) is AutoRefresh.FULL


@given(
    full_ago=st.none() | st.integers(0, 3 * 24 * 60),
    base_ago=st.none() | st.integers(0, 3 * 24 * 60),
    mark=st.sampled_from([None, BASE_AWPCA, BASE_BOTH]),
    auto=st.integers(0, 120),
    hours=st.integers(1, 48),
)
def test_change_only_only_within_the_full_period_with_a_current_mark(
    full_ago: int | None, base_ago: int | None, mark: str | None, auto: int, hours: int
) -> None:
    """Law: a change-only refresh needs a full one within full_refresh_hours, a mark by the current base JQL and
    no refresh by the base JQL within auto_refresh_minutes; a full one is made whenever the full period ran out."""
    now = T0 + timedelta(days=5)
    last_full = None if full_ago is None else now - timedelta(minutes=full_ago)
    last_base = None if base_ago is None else now - timedelta(minutes=base_ago)
    decided = decide_auto_refresh(
        queue_empty=True,
        base_jql=BASE_AWPCA,
        last_full_refresh_started_at=last_full,
        last_base_refresh_started_at=last_base,
        mark=None if mark is None else JournalMark(started_at=now - timedelta(hours=1), query=mark),
        now=now,
        auto_refresh_minutes=auto,
        full_refresh_hours=hours,
    )
    full_due = full_ago is None or full_ago > hours * 60
    if full_due:
        assert decided is AutoRefresh.FULL
    recent = [ago for ago in (full_ago, base_ago) if ago is not None]
    if decided is not AutoRefresh.NONE and not full_due:
        assert min(recent) > auto
    if decided is AutoRefresh.CHANGES:
        assert mark == BASE_AWPCA


def test_the_change_only_batch() -> None:
    """The hub's change-only batch: author hub, «автообновление (изменения)», refresh {jql: base, changes: true}."""
    assert auto_refresh_body(BASE_AWPCA, changes=True) == {
        "author": "hub",
        "title": "автообновление (изменения)",
        "commands": [{"type": "refresh", "params": {"jql": BASE_AWPCA, "changes": True}}],
    }
    assert AUTO_REFRESH_CHANGES_TITLE == "автообновление (изменения)"


def _ctx() -> BatchContext:
    return BatchContext(settings=Settings(), projects={"AWPCA": ProjectInfo(name="AWPCA")})


def test_the_hub_may_set_changes_and_keeps_its_base_jql() -> None:
    """Validated as the hub's own batch, the change-only refresh is stored as it is (base JQL unwrapped)."""
    valid = validate_batch(auto_refresh_body(BASE_AWPCA, changes=True), _ctx(), by_hub=True)
    assert [(c.type, dict(c.params)) for c in valid.commands] == [("refresh", {"jql": BASE_AWPCA, "changes": True})]


@pytest.mark.parametrize("params", [{"jql": BASE_AWPCA, "changes": True}, {"keys": ["AURORA-1"], "changes": False}])
def test_a_client_may_not_send_changes(params: dict[str, Any]) -> None:
    """changes is the hub's own parameter: in a client's batch it is an extra one (422, the usual message)."""
    body = {"author": "a", "title": "t", "commands": [{"type": "refresh", "params": params}]}
    with pytest.raises(ValidationError) as refused:
        validate_batch(body, _ctx())
    assert refused.value.message == "команда 1 (refresh): лишние параметры changes; необязательные keys, jql"


def test_the_hub_parameter_must_be_a_boolean() -> None:
    """Even the hub's own batch is checked: changes is true or false."""
    body = {
        "author": "hub",
        "title": "t",
        "commands": [{"type": "refresh", "params": {"jql": BASE_AWPCA, "changes": 1}}],
    }
    with pytest.raises(ValidationError) as refused:
        validate_batch(body, _ctx(), by_hub=True)
    assert refused.value.message == "команда 1 (refresh): changes — ожидается логическое значение true/false"


def test_a_retried_change_only_refresh_is_a_whole_read() -> None:
    """A retry is a person's request: the hub's changes is dropped and the retry validates as new."""
    body = retry_body(
        command_type="refresh", params={"jql": BASE_AWPCA, "changes": True}, author="hub", title="повтор", project=None
    )
    assert body["commands"] == [{"type": "refresh", "params": {"jql": BASE_AWPCA}}]
    assert [dict(c.params) for c in validate_batch(body, _ctx()).commands] == [{"jql": BASE_AWPCA}]
