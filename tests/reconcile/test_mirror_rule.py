"""The mirror's upsert rule: a record replaces a row only when not older, so events and pages in any order and
with repeats leave each row at the newest state, and no delivery makes a row older."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reconcile.mirror_rule import applies, newest, to_apply, updated_at
from reconcile.records import MirrorIssue
from tests.support import T0


def _at(seconds: int) -> str:
    return (T0 + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")


def _state(key: str, version: int, **fields: object) -> MirrorIssue:
    return MirrorIssue(key=key, summary=f"{key} v{version}", updated=_at(version), **fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("incoming", "stored", "expected"),
    [
        ("2026-10-22T09:00:01Z", "2026-10-22T09:00:00Z", True),
        ("2026-10-22T09:00:00Z", "2026-10-22T09:00:00Z", True),
        ("2026-10-22T08:59:59Z", "2026-10-22T09:00:00Z", False),
        ("2026-10-22T12:00:00.000+0300", "2026-10-22T09:00:00Z", True),
        ("2026-10-22T11:59:59.000+0300", "2026-10-22T09:00:00Z", False),
        (None, "2026-10-22T09:00:00Z", False),
        ("вчера", "2026-10-22T09:00:00Z", False),
        ("2026-10-22T08:00:00Z", None, True),
        (None, None, True),
        ("2026-10-22T08:00:00Z", "не время", True),
    ],
)
def test_not_older_applies(incoming: str | None, stored: str | None, expected: bool) -> None:
    """Newer or equal replaces the row, older does not, zones compared as moments; a row without a readable time
    takes anything, a record without one replaces only such a row."""
    assert applies(incoming, stored) is expected


def test_a_naive_time_is_utc() -> None:
    """A time without a zone is UTC, as the hub keeps them."""
    assert updated_at("2026-10-22T09:00:00") == T0
    assert updated_at("") is None


def test_the_newest_of_each_key_in_a_batch() -> None:
    """Within one page the newest record of a key is offered; on a tie the later one, as a page always did."""
    a1, a3, b2 = _state("A-1", 1), _state("A-1", 3), _state("B-1", 2)
    tie = MirrorIssue(key="B-1", summary="again", updated=b2.updated)
    assert newest([a3, b2, a1, tie]) == {"A-1": a3, "B-1": tie}


def test_only_records_not_older_than_their_rows() -> None:
    """Against the rows' updated: an older record is left out, an equal or newer one and a new key are written."""
    stored = {"A-1": _at(5), "B-1": _at(5), "C-1": None}
    records = [_state("A-1", 4), _state("B-1", 5), _state("C-1", 1), _state("D-1", 0)]
    assert list(to_apply(records, stored)) == ["B-1", "C-1", "D-1"]


# --- the laws -------------------------------------------------------------------------------------------------

KEYS = ("AURORA-1", "AURORA-2", "AURORA-3")


@st.composite
def deliveries(draw: st.DrawFn) -> tuple[dict[str, MirrorIssue], list[list[MirrorIssue]]]:
    """Each issue's states (distinct times), and deliveries of them in any order with repeats: single records
    (webhook events) and batches of several keys (refresh pages)."""
    states = {
        key: [
            _state(key, v, labels=(f"v{v}",)) for v in sorted(draw(st.sets(st.integers(0, 50), min_size=1, max_size=4)))
        ]
        for key in draw(st.sets(st.sampled_from(KEYS), min_size=1))
    }
    every = [state for versions in states.values() for state in versions]
    # every state is delivered at least once; more copies and any order on top
    pool = every + draw(st.lists(st.sampled_from(every), max_size=8))
    order = draw(st.permutations(pool))
    batches: list[list[MirrorIssue]] = []
    rest = list(order)
    while rest:
        size = draw(st.integers(1, 3))
        batches.append(rest[:size])
        rest = rest[size:]
    return {key: versions[-1] for key, versions in states.items()}, batches


@given(deliveries())
def test_any_order_with_repeats_leaves_the_newest_state(
    case: tuple[dict[str, MirrorIssue], list[list[MirrorIssue]]],
) -> None:
    """Law: events and pages applied in any order, with repeats, leave each row as the newest state applied once;
    and no delivery ever makes a row older."""
    newest_states, batches = case
    mirror: dict[str, MirrorIssue] = {}
    for batch in batches:
        before = {key: updated_at(row.updated) for key, row in mirror.items()}
        mirror.update(to_apply(batch, {key: row.updated for key, row in mirror.items()}))
        for key, moment in before.items():
            after = updated_at(mirror[key].updated)
            assert moment is not None and after is not None and after >= moment
    assert mirror == newest_states
