"""The change-only refresh (DESIGN.md 6.2) driven through httpx against the simulator, counting its calls."""

from __future__ import annotations

from collections import Counter

import pytest

from jira_sim.generated import generated_seed
from tests.support import BASE_BOTH

from .sim_support import Bench, make_bench

pytestmark = pytest.mark.anyio

SEARCH = "/rest/api/2/search"


def _changes(since: str, **extra: object) -> dict[str, object]:
    return {"jql": BASE_BOTH, "changes": True, "boards": [], "history": {"since": since}, **extra}


def _searches(bench: Bench) -> int:
    return sum(1 for call in bench.sim.calls if call["path"] == SEARCH)


async def test_an_idle_change_only_refresh_costs_one_search(bench: Bench) -> None:
    """Nothing changed since the mark: one search call, one empty issues page, the result says changes."""
    outcome = await bench.run("refresh", _changes("2026-10-22T08:45:00Z"))
    assert outcome.report.status == "done", outcome.report.error
    assert [(c["method"], c["path"]) for c in bench.sim.calls] == [("POST", SEARCH)]
    assert outcome.jira_calls == 1
    assert [(p.page, p.kind, p.issues, p.history) for p in bench.pages] == [(1, "issues", (), ())]
    assert dict(outcome.report.result) == {
        "issues": 0,
        "neighbours": 0,
        "boards": {},
        "history": {"entries": 0},
        "changes": True,
    }


async def test_a_change_comes_with_its_journal_from_the_same_search(bench: Bench) -> None:
    """An edit after since: the issue and its history entry from one search, no neighbours though it has links."""
    bench.clock.advance(60)  # 09:01:00Z: the edit is after since, in Moscow time 12:01
    edit = await bench.run("ensure_fields", {"key": "AURORA-1537", "priority": "High"})
    assert edit.report.status == "done", edit.report.error
    outcome = await bench.run("refresh", _changes("2026-10-22T09:00:00Z"))
    assert outcome.report.status == "done", outcome.report.error
    assert _searches(bench) == 1 and len(bench.sim.calls) == 1
    assert [(p.page, p.kind) for p in bench.pages] == [(1, "issues"), (2, "history")]
    [changed] = bench.pages[0].issues
    assert (changed.key, changed.priority, changed.updated) == ("AURORA-1537", "High", "2026-10-22T09:01:00Z")
    assert changed.links  # its links are kept from the changed issue itself; their other ends are not read
    [entry] = bench.pages[1].history
    assert (entry.key, entry.created, [i.field for i in entry.items]) == (
        "AURORA-1537",
        "2026-10-22T09:01:00Z",
        ["priority"],
    )
    assert dict(outcome.report.result) == {
        "issues": 1,
        "neighbours": 0,
        "boards": {},
        "history": {"entries": 1},
        "changes": True,
    }


async def test_the_sample_journal_since_a_moment(bench: Bench) -> None:
    """Since 2026-10-20T08:00Z: the two sample histories after it, in one search; AURORA-1537's of 06:30Z is not."""
    outcome = await bench.run("refresh", _changes("2026-10-20T08:00:00Z"))
    journal = sorted((h.key, h.created) for p in bench.pages if p.kind == "history" for h in p.history)
    assert journal == [("AURORA-1445", "2026-10-21T07:15:00Z"), ("AURORA-1533", "2026-10-20T09:00:00Z")]
    assert _searches(bench) == 1
    assert outcome.report.result["history"] == {"entries": 2}


async def test_a_large_change_set_is_read_once_page_by_page() -> None:
    """250 changed issues: three search pages, each an issues page and a journal page from the same answer."""
    bench = make_bench(seed=generated_seed(250))
    outcome = await bench.run("refresh", {**_changes("2026-01-01T00:00:00Z"), "jql": "project = AURORA"})
    assert outcome.report.status == "done", outcome.report.error
    assert _searches(bench) == 3
    kinds = Counter(p.kind for p in bench.pages)
    assert kinds["issues"] == 3 and kinds["neighbours"] == 0
    assert sum(len(p.issues) for p in bench.pages) == 250
    assert outcome.report.result["issues"] == 250
    assert outcome.report.result["neighbours"] == 0


async def test_unknown_boards_and_a_start_journal_are_read_as_by_any_refresh(bench: Bench) -> None:
    """A board of unknown type is asked once; a history.jql is read after the change-only search."""
    params = _changes(
        "2026-10-22T08:45:00Z",
        boards=[{"id": 5120, "type": None}],
        history={"since": "2026-10-22T08:45:00Z", "jql": "key = AURORA-1533"},
    )
    outcome = await bench.run("refresh", params)
    assert [c["path"] for c in bench.sim.calls] == [SEARCH, "/rest/agile/1.0/board/5120", SEARCH]
    assert dict(outcome.report.result) == {
        "issues": 0,
        "neighbours": 0,
        "boards": {"5120": "kanban"},
        "history": {"entries": 1},
        "changes": True,
    }


async def test_without_since_the_jql_is_read_whole(bench: Bench) -> None:
    """changes without history.since: nothing to read changes from, so an ordinary refresh (neighbours too)."""
    outcome = await bench.run("refresh", {"jql": "key = AURORA-1537", "changes": True, "boards": []})
    assert outcome.report.status == "done", outcome.report.error
    assert "changes" not in outcome.report.result
    assert [p.kind for p in bench.pages] == ["issues", "neighbours"]


async def test_a_since_that_is_no_time_fails_the_change_only_refresh(bench: Bench) -> None:
    """The read itself needs since: an unreadable one fails the command before any call."""
    outcome = await bench.run("refresh", _changes("вчера"))
    assert outcome.report.status == "failed"
    assert outcome.report.error == "history.since: Invalid isoformat string: 'вчера'"
    assert bench.sim.calls == []


async def test_a_failed_search_fails_the_change_only_refresh(bench: Bench) -> None:
    """Its one search is the issues' read too: Jira's error fails it (a journal-only failure would not)."""
    bench.sim.add_fault(path_regex="/search", status=503, times=6)
    outcome = await bench.run("refresh", _changes("2026-10-22T08:45:00Z"))
    assert outcome.report.status == "failed"
    assert (outcome.report.error or "").startswith("HTTP 503")
