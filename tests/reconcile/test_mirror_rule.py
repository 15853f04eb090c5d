"""The mirror's upsert rule: an event replaces a row only when strictly newer, a read when not older, a full
refresh's read always; so events and pages of states within one second, interleaved in any order and with
repeats, end at Jira's last state, and no event or read ever makes a row older."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reconcile.jira.mirror_rule import FUTURE_LIMIT, Arrival, applies, newest, to_apply, too_far_ahead, updated_at
from reconcile.vocabulary.records import MirrorIssue
from tests.support import T0

EVENT, READ, FULL = Arrival.EVENT, Arrival.READ, Arrival.FULL_READ


def _at(millis: int) -> str:
    """``updated`` as the agent writes it: Jira's millisecond kept (``…09:00:00.123Z``), a whole second bare."""
    moment = T0 + timedelta(milliseconds=millis)
    fraction = f".{moment.microsecond // 1000:03d}" if moment.microsecond else ""
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + fraction + "Z"


def _state(key: str, version: int, millis: int | None = None, **fields: object) -> MirrorIssue:
    at = _at(version if millis is None else millis)
    return MirrorIssue(key=key, summary=f"{key} v{version}", updated=at, **fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("incoming", "stored", "event", "read"),
    [
        ("2026-10-22T09:00:00.124Z", "2026-10-22T09:00:00.123Z", True, True),
        ("2026-10-22T09:00:00.123Z", "2026-10-22T09:00:00.123Z", False, True),
        ("2026-10-22T09:00:00.122Z", "2026-10-22T09:00:00.123Z", False, False),
        ("2026-10-22T09:00:00.001Z", "2026-10-22T09:00:00Z", True, True),
        ("2026-10-22T09:00:00Z", "2026-10-22T09:00:00.000Z", False, True),
        ("2026-10-22T12:00:00.124+0300", "2026-10-22T09:00:00.123Z", True, True),
        ("2026-10-22T11:59:59.999+0300", "2026-10-22T09:00:00Z", False, False),
        (None, "2026-10-22T09:00:00Z", False, False),
        ("вчера", "2026-10-22T09:00:00Z", False, False),
        ("2026-10-22T08:00:00Z", None, True, True),
        (None, None, True, True),
        ("2026-10-22T08:00:00Z", "не время", True, True),
    ],
)
def test_an_event_needs_newer_a_read_not_older(
    incoming: str | None, stored: str | None, event: bool, read: bool
) -> None:
    """By the millisecond, zones compared as moments: an event applies only when strictly newer, a read when newer
    or equal; a row without a readable time takes anything, a record without one replaces only such a row."""
    assert (applies(incoming, stored, EVENT), applies(incoming, stored, READ)) == (event, read)


@pytest.mark.parametrize(
    ("incoming", "stored"), [("2026-10-22T08:00:00Z", "2027-10-22T09:00:00Z"), (None, "x"), (None, None)]
)
def test_a_full_refresh_writes_what_jira_says(incoming: str | None, stored: str | None) -> None:
    """A full refresh's read replaces the row whatever the row's ``updated`` (one from the future included)."""
    assert applies(incoming, stored, FULL)


def test_updated_more_than_five_minutes_ahead_is_too_far() -> None:
    """300 s after the hub's clock is still taken (clocks differ a little); a millisecond more is not."""
    assert FUTURE_LIMIT.total_seconds() == 300
    limit = T0 + FUTURE_LIMIT
    assert not too_far_ahead(limit.strftime("%Y-%m-%dT%H:%M:%SZ"), T0)
    assert too_far_ahead(_at(300_001), T0)
    assert not too_far_ahead(None, T0)
    assert not too_far_ahead("не время", T0)


def test_a_naive_time_is_utc() -> None:
    """A time without a zone is UTC, as the hub keeps them."""
    assert updated_at("2026-10-22T09:00:00") == T0
    assert updated_at("2026-10-22T09:00:00.5Z") == T0 + timedelta(milliseconds=500)
    assert updated_at("") is None


def test_the_record_kept_of_each_key_in_a_batch() -> None:
    """Within one batch, as if they came one by one: the newest of each key; on a tie a read's later record, an
    event's earlier one."""
    a1, a3, b2 = _state("A-1", 1), _state("A-1", 3), _state("B-1", 2)
    tie = MirrorIssue(key="B-1", summary="again", updated=b2.updated)
    assert newest([a3, b2, a1, tie], READ) == {"A-1": a3, "B-1": tie}
    assert newest([a3, b2, a1, tie], EVENT) == {"A-1": a3, "B-1": b2}
    assert newest([a3, b2, a1, tie], FULL) == {"A-1": a1, "B-1": tie}


def test_only_records_the_rule_lets_in() -> None:
    """Against the rows' updated: an older record is left out, an equal one only from a read, a newer one and a
    new key always."""
    stored = {"A-1": _at(5), "B-1": _at(5), "C-1": None}
    records = [_state("A-1", 4), _state("B-1", 5), _state("C-1", 1), _state("D-1", 0)]
    assert list(to_apply(records, stored, READ)) == ["B-1", "C-1", "D-1"]
    assert list(to_apply(records, stored, EVENT)) == ["C-1", "D-1"]
    assert list(to_apply(records, stored, FULL)) == ["A-1", "B-1", "C-1", "D-1"]


def test_a_late_event_of_the_same_second_leaves_the_row() -> None:
    """Issue 32 item 11: create, sprint, comment and status within one second; the delayed event of the second
    state arrives after the read of the last: the row stays at the last state (to the second they were equal and
    the later arrival won)."""
    states = [_state("AURORA-1646", v, millis=m) for v, m in enumerate((120, 340, 610, 870))]
    row = to_apply([states[-1]], {}, READ)
    late = to_apply([states[1]], {"AURORA-1646": states[-1].updated}, EVENT)
    assert row == {"AURORA-1646": states[-1]}
    assert late == {}


# --- the laws -------------------------------------------------------------------------------------------------

KEYS = ("AURORA-1", "AURORA-2", "AURORA-3")

Delivery = tuple[Arrival, list[MirrorIssue]]


@st.composite
def within_one_second(draw: st.DrawFn) -> tuple[dict[str, MirrorIssue], list[Delivery]]:
    """Each issue's states within one second (distinct milliseconds, as Jira keeps them); Jira's webhook sends each
    state's event at most once, reads find states and come late; events and pages (several keys) interleaved in any
    order, with repeats, and the last state of each issue delivered at least once (its event or a read)."""
    states = {
        key: [
            _state(key, version, millis=m, labels=(f"v{version}",))
            for version, m in enumerate(sorted(draw(st.sets(st.integers(0, 999), min_size=1, max_size=5))))
        ]
        for key in draw(st.sets(st.sampled_from(KEYS), min_size=1))
    }
    every = [state for versions in states.values() for state in versions]
    lasts = [versions[-1] for versions in states.values()]
    events = [s for s in every if draw(st.booleans())]  # at most once
    reads = lasts + draw(st.lists(st.sampled_from(every), max_size=8))  # late, repeated
    tagged = [(EVENT, s) for s in events] + [(READ, s) for s in reads]
    order = draw(st.permutations(tagged))
    deliveries: list[Delivery] = []
    while order:
        arrival, state = order.pop(0)
        page = [state]
        if arrival is READ:  # a page of up to three of the reads that come next
            while order and order[0][0] is READ and len(page) < draw(st.integers(1, 3)):
                page.append(order.pop(0)[1])
        deliveries.append((arrival, page))
    return {key: versions[-1] for key, versions in states.items()}, deliveries


@given(within_one_second())
def test_events_and_pages_within_one_second_end_at_jiras_last_state(
    case: tuple[dict[str, MirrorIssue], list[Delivery]],
) -> None:
    """Law: events and pages of states within one second, in any order and with repeats, leave each row at Jira's
    last state; no event and no read ever makes a row older."""
    last, deliveries = case
    mirror: dict[str, MirrorIssue] = {}
    for arrival, records in deliveries:
        before = {key: updated_at(row.updated) for key, row in mirror.items()}
        mirror.update(to_apply(records, {key: row.updated for key, row in mirror.items()}, arrival))
        for key, moment in before.items():
            after = updated_at(mirror[key].updated)
            assert moment is not None and after is not None and after >= moment
    assert mirror == last


@given(
    st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=6),
    st.lists(st.booleans(), min_size=6, max_size=6),
)
def test_states_of_one_millisecond_end_at_the_read_after_them(summaries: list[str], events: list[bool]) -> None:
    """Law: states that share one ``updated`` cannot be told apart by it; events of them never replace the row,
    so the read made after the last of them, arriving last, leaves Jira's last state."""
    states = [MirrorIssue(key="AURORA-1", summary=s, updated=_at(500)) for s in summaries]
    mirror: dict[str, MirrorIssue] = {}
    for state, is_event in zip(states, events, strict=False):
        before = dict(mirror)
        mirror.update(to_apply([state], {k: r.updated for k, r in mirror.items()}, EVENT if is_event else READ))
        if is_event and before:
            assert mirror == before
    mirror.update(to_apply([states[-1]], {k: r.updated for k, r in mirror.items()}, READ))
    assert mirror == {"AURORA-1": states[-1]}
