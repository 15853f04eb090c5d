"""The refresh ``history`` parameter, the journal mark and when a run sets it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reconcile.queue.history import (
    JournalMark,
    SyncRunMark,
    base_jql,
    format_since,
    history_at_on_report,
    history_param,
    is_changes_refresh,
    is_full_refresh,
    journal_mark,
    start_jql,
    sync_query,
)
from tests.support import BASE_AWPCA, BASE_BOTH, T0

START_AWPCA = '(project = AURORA AND labels in ("AWPCA")) AND sprint in openSprints() AND statusCategory != Done'
START_BOTH = (
    '(project = AURORA AND labels in ("AWPCA", "STOCKS_DRRK")) AND sprint in openSprints() AND statusCategory != Done'
)
NINE = datetime(2026, 10, 22, 9, 0, tzinfo=UTC)


def test_base_jql_over_projects_in_creation_order() -> None:
    """The base JQL lists every project label in creation order; none without projects."""
    assert base_jql("AURORA", ["AWPCA", "STOCKS_DRRK"]) == BASE_BOTH
    assert base_jql("AURORA", ["AWPCA"]) == BASE_AWPCA
    assert base_jql("AURORA", []) is None


def test_start_jql() -> None:
    """The start JQL wraps the base JQL with open sprints and not-done issues."""
    assert start_jql(BASE_AWPCA) == START_AWPCA


def test_first_refresh_after_rollout() -> None:
    """Scenario «Первый refresh после выкатки»: no mark, full run → history = {jql: start JQL}."""
    assert history_param(full=True, has_base_jql=True, mark=None, base_jql=BASE_AWPCA) == {"jql": START_AWPCA}


def test_regular_refresh() -> None:
    """Scenario «Регулярный refresh»: mark 09:00 by the current base JQL → since 08:45Z only."""
    mark = JournalMark(started_at=datetime.fromisoformat("2026-10-22T09:00:00+00:00"), query=BASE_AWPCA)
    assert history_param(full=True, has_base_jql=True, mark=mark, base_jql=BASE_AWPCA) == {
        "since": "2026-10-22T08:45:00Z"
    }


def test_journal_not_read_through() -> None:
    """Scenario «Журнал не дочитан»: the 10:00 run had history.error, so since comes from the 09:00 run."""
    ten_report = {"issues": 3, "neighbours": 0, "boards": {}, "history": {"error": "HTTP 500: boom"}}
    nine_report = {"issues": 3, "neighbours": 0, "boards": {}, "history": {"entries": 4}}
    runs = [
        SyncRunMark(
            started_at=NINE,
            query=BASE_AWPCA,
            history_at=NINE + timedelta(minutes=1) if history_at_on_report(full=True, result=nine_report) else None,
        ),
        SyncRunMark(
            started_at=NINE + timedelta(hours=1),
            query=BASE_AWPCA,
            history_at=NINE + timedelta(hours=1, minutes=1)
            if history_at_on_report(full=True, result=ten_report)
            else None,
        ),
    ]
    mark = journal_mark(runs)
    assert mark == JournalMark(started_at=NINE, query=BASE_AWPCA)
    assert history_param(full=True, has_base_jql=True, mark=mark, base_jql=BASE_AWPCA) == {
        "since": "2026-10-22T08:45:00Z"
    }


def test_new_project() -> None:
    """Scenario «Новый проект»: mark by the AWPCA-only JQL, now two projects → since plus the new start JQL."""
    mark = JournalMark(started_at=NINE, query=BASE_AWPCA)
    assert history_param(full=True, has_base_jql=True, mark=mark, base_jql=BASE_BOTH) == {
        "since": "2026-10-22T08:45:00Z",
        "jql": START_BOTH,
    }


def test_tail_refresh() -> None:
    """Scenario «Хвост пакета»: keys with a mark → {since}; its done report with history leaves history_at NULL."""
    mark = JournalMark(started_at=NINE, query=BASE_AWPCA)
    params = {"keys": ["AURORA-1"]}
    full = is_full_refresh(params, BASE_AWPCA)
    assert full is False
    assert history_param(full=full, has_base_jql=True, mark=mark, base_jql=BASE_AWPCA) == {
        "since": "2026-10-22T08:45:00Z"
    }
    assert history_at_on_report(full=full, result={"issues": 1, "history": {"entries": 2}}) is False


def test_tail_refresh_before_the_first_mark() -> None:
    """Scenario «Хвост пакета до первой отметки»: keys, no mark → no history parameter."""
    assert history_param(full=False, has_base_jql=True, mark=None, base_jql=BASE_AWPCA) is None


def test_refresh_by_another_jql() -> None:
    """A refresh by a JQL that is not the base one is not full: since with a mark, nothing without."""
    params = {"jql": "project = AURORA AND key = AURORA-1"}
    assert is_full_refresh(params, BASE_AWPCA) is False
    mark = JournalMark(started_at=NINE, query="key in (AURORA-1)")
    assert history_param(full=False, has_base_jql=True, mark=mark, base_jql=BASE_AWPCA) == {
        "since": "2026-10-22T08:45:00Z"
    }


def test_no_projects_no_history() -> None:
    """Without a base JQL (no projects) history is never added."""
    mark = JournalMark(started_at=NINE, query=BASE_AWPCA)
    assert history_param(full=False, has_base_jql=False, mark=mark, base_jql=None) is None
    assert history_param(full=True, has_base_jql=False, mark=None, base_jql=None) is None


def test_has_base_jql_must_agree() -> None:
    """Contradictory arguments are a programming error."""
    with pytest.raises(ValueError, match="has_base_jql disagrees with base_jql"):
        history_param(full=True, has_base_jql=True, mark=None, base_jql=None)


def test_full_refresh_is_by_the_current_base_jql() -> None:
    """A refresh by the base JQL, or with neither keys nor jql, is full; by an old base JQL it is not."""
    assert is_full_refresh({"jql": BASE_BOTH}, BASE_BOTH) is True
    assert is_full_refresh({}, BASE_BOTH) is True
    assert is_full_refresh({"jql": BASE_AWPCA}, BASE_BOTH) is False
    assert is_full_refresh({"jql": BASE_AWPCA}, None) is False


def test_history_at_rules() -> None:
    """history_at is set only for a full run whose result has history without error."""
    assert history_at_on_report(full=True, result={"history": {"entries": 0}}) is True
    assert history_at_on_report(full=True, result={"history": {"error": "HTTP 500"}}) is False
    assert history_at_on_report(full=True, result={"issues": 3}) is False
    assert history_at_on_report(full=True, result=None) is False
    assert history_at_on_report(full=False, result={"history": {"entries": 5}}) is False


def test_mark_is_the_latest_marked_run_whatever_its_query() -> None:
    """The mark is the latest run with history_at, even when its query differs from the current base."""
    runs = [
        SyncRunMark(started_at=NINE, query=BASE_AWPCA, history_at=NINE),
        SyncRunMark(started_at=NINE + timedelta(hours=2), query="key in (A-1)", history_at=None),
        SyncRunMark(started_at=NINE + timedelta(hours=1), query=BASE_BOTH, history_at=NINE + timedelta(hours=1)),
    ]
    assert journal_mark(runs) == JournalMark(started_at=NINE + timedelta(hours=1), query=BASE_BOTH)
    assert journal_mark([]) is None


def test_since_from_naive_and_offset_times() -> None:
    """A naive time is UTC (as SQLite returns it); an offset time is converted; seconds are kept."""
    assert format_since(datetime(2026, 10, 22, 9, 0)) == "2026-10-22T08:45:00Z"
    assert format_since(datetime(2026, 10, 22, 12, 0, 30, 999, tzinfo=timezone(timedelta(hours=3)))) == (
        "2026-10-22T08:45:30Z"
    )


@pytest.mark.usefixtures("moscow")
def test_since_is_reckoned_in_utc_whatever_the_machines_zone() -> None:
    """On a machine in Moscow (UTC+3) a mark in the last hours of year 9999 still gives its since: only UTC counts."""
    assert format_since(datetime(9999, 12, 31, 22, 0, tzinfo=UTC)) == "9999-12-31T21:45:00Z"


@given(st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC)))
def test_since_is_never_after_mark_minus_overlap(moment: datetime) -> None:
    """since is at most 15 minutes before the mark and never later (truncation reads a little more)."""
    since = datetime.strptime(format_since(moment), "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    assert timedelta(0) <= moment - timedelta(minutes=15) - since < timedelta(seconds=1)


def test_a_refresh_names_its_query_by_its_jql_or_its_keys() -> None:
    """A sync run's query: the refresh's JQL as given, else its keys as ``key in (…)``."""
    assert sync_query({"jql": "project = AURORA"}) == "project = AURORA"
    assert sync_query({"keys": ["A-1", "A-2"]}) == "key in (A-1, A-2)"
    assert sync_query({"keys": None}) == "key in ()"


def test_project_labels_are_quoted_with_their_backslashes_and_quotes_escaped() -> None:
    """A label is a JQL string: a backslash and a double quote inside it are escaped."""
    assert base_jql("AURORA", ['a"b', "c\\d"]) == 'project = AURORA AND labels in ("a\\"b", "c\\\\d")'


def test_a_naive_mark_is_utc_and_an_offset_is_applied() -> None:
    """SQLite's naive times are UTC; a time with an offset is converted (15 minutes of overlap either way)."""
    assert format_since(datetime(2026, 10, 22, 9, 0)) == "2026-10-22T08:45:00Z"
    assert format_since(datetime(2026, 10, 22, 12, 0, tzinfo=timezone(timedelta(hours=3)))) == "2026-10-22T08:45:00Z"


# --- the same scenarios with the hub's change-only refresh (DESIGN.md 6.2) ------------------------------------

CHANGES = {"jql": BASE_AWPCA, "changes": True}


def test_change_only_refresh_is_not_full_and_is_a_change_only_run() -> None:
    """{jql: base, changes: true} is no full run (no vanished issues) but the hub's change-only run."""
    assert is_full_refresh(CHANGES, BASE_AWPCA) is False
    assert is_changes_refresh(CHANGES, BASE_AWPCA) is True
    assert is_changes_refresh({"jql": BASE_AWPCA}, BASE_AWPCA) is False
    assert is_changes_refresh({"keys": ["AURORA-1"], "changes": True}, BASE_AWPCA) is False
    assert is_changes_refresh({**CHANGES, "keys": ["AURORA-1"]}, BASE_AWPCA) is False  # keys: a refresh of those
    assert is_changes_refresh({"jql": BASE_AWPCA, "changes": "yes"}, BASE_AWPCA) is False
    assert is_changes_refresh(CHANGES, None) is False


def test_a_change_only_refresh_made_before_a_new_project_is_no_longer_one() -> None:
    """Its JQL is the old base JQL once a project is added: its journal misses the new project, it sets no mark."""
    assert is_changes_refresh(CHANGES, BASE_BOTH) is False
    assert history_at_on_report(full=False, changes=False, result={"history": {"entries": 1}}) is False


def test_post_refresh_with_nothing_is_always_full() -> None:
    """POST /refresh {} stores the base JQL without changes: a full run, never a change-only one."""
    assert is_full_refresh({}, BASE_AWPCA) is True
    assert is_full_refresh({"jql": BASE_AWPCA}, BASE_AWPCA) is True
    assert is_changes_refresh({}, BASE_AWPCA) is False


def test_regular_refresh_change_only() -> None:
    """«Регулярный refresh» with the automatic refresh change-only: mark 09:00 by the base JQL → since 08:45Z."""
    mark = JournalMark(started_at=datetime.fromisoformat("2026-10-22T09:00:00+00:00"), query=BASE_AWPCA)
    full = is_full_refresh(CHANGES, BASE_AWPCA)
    assert history_param(full=full, has_base_jql=True, mark=mark, base_jql=BASE_AWPCA) == {
        "since": "2026-10-22T08:45:00Z"
    }


def test_change_only_run_moves_the_mark() -> None:
    """A change-only run done with its journal sets history_at; with history.error or no history it does not."""
    assert history_at_on_report(full=False, changes=True, result={"history": {"entries": 0}}) is True
    assert history_at_on_report(full=False, changes=True, result={"history": {"error": "HTTP 500"}}) is False
    assert history_at_on_report(full=False, changes=True, result={"issues": 0, "changes": True}) is False
    assert history_at_on_report(full=False, changes=True, result=None) is False


def test_journal_not_read_through_by_a_change_only_run() -> None:
    """«Журнал не дочитан»: a change-only run at 10:00 with history.error leaves the 09:00 mark; the next full
    refresh reads since 08:45Z."""
    runs = [
        SyncRunMark(started_at=NINE, query=BASE_AWPCA, history_at=NINE + timedelta(minutes=1)),
        SyncRunMark(
            started_at=NINE + timedelta(hours=1),
            query=BASE_AWPCA,
            history_at=NINE + timedelta(hours=1, minutes=1)
            if history_at_on_report(full=False, changes=True, result={"history": {"error": "HTTP 500"}})
            else None,
        ),
    ]
    mark = journal_mark(runs)
    assert mark == JournalMark(started_at=NINE, query=BASE_AWPCA)
    assert history_param(full=True, has_base_jql=True, mark=mark, base_jql=BASE_AWPCA) == {
        "since": "2026-10-22T08:45:00Z"
    }


def test_a_change_only_mark_is_a_mark_like_any() -> None:
    """A change-only run at 10:00 with its journal is the mark: the next refresh, full or not, reads since 09:45Z."""
    runs = [
        SyncRunMark(started_at=NINE, query=BASE_AWPCA, history_at=NINE),
        SyncRunMark(started_at=NINE + timedelta(hours=1), query=BASE_AWPCA, history_at=NINE + timedelta(hours=1)),
    ]
    mark = journal_mark(runs)
    assert history_param(full=True, has_base_jql=True, mark=mark, base_jql=BASE_AWPCA) == {
        "since": "2026-10-22T09:45:00Z"
    }
    assert history_param(full=False, has_base_jql=True, mark=mark, base_jql=BASE_AWPCA) == {
        "since": "2026-10-22T09:45:00Z"
    }


def test_tail_refreshes_are_unchanged_by_change_only_refreshes() -> None:
    """«Хвост пакета» and «… до первой отметки»: a refresh {keys} is neither full nor change-only and sets no mark."""
    params = {"keys": ["AURORA-1"]}
    assert (is_full_refresh(params, BASE_AWPCA), is_changes_refresh(params, BASE_AWPCA)) == (False, False)
    result = {"issues": 1, "history": {"entries": 2}}
    assert history_at_on_report(full=False, changes=False, result=result) is False
    assert history_param(full=False, has_base_jql=True, mark=None, base_jql=BASE_AWPCA) is None


@pytest.mark.usefixtures("moscow")
def test_journal_times_are_utc_whatever_the_machine_zone() -> None:
    """A naive started_at (SQLite) is UTC, an aware one its instant; ``since`` is written in UTC — in any zone."""
    assert format_since(datetime(2026, 10, 22, 9, 0)) == "2026-10-22T08:45:00Z"
    assert format_since(datetime(2026, 10, 22, 12, 0, tzinfo=timezone(timedelta(hours=3)))) == "2026-10-22T08:45:00Z"
    naive = SyncRunMark(started_at=datetime(2026, 10, 22, 9, 0), query="a", history_at=T0)
    aware = SyncRunMark(
        started_at=datetime(2026, 10, 22, 10, 0, tzinfo=timezone(timedelta(hours=3))), query="b", history_at=T0
    )  # 07:00 UTC: earlier than the naive 09:00 UTC
    assert journal_mark([naive, aware]) == JournalMark(started_at=naive.started_at, query="a")
    assert journal_mark([aware, naive]) == JournalMark(started_at=naive.started_at, query="a")


def test_history_param_refuses_a_base_flag_that_disagrees() -> None:
    """``has_base_jql`` must agree with ``base_jql``: a caller that passes both differently is told so."""
    with pytest.raises(ValueError) as refused:
        history_param(full=True, has_base_jql=True, mark=None, base_jql=None)
    assert str(refused.value) == "has_base_jql disagrees with base_jql"
