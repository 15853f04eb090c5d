"""Where a draft of «Новый пакет» goes: 2 MB each, 5 a session (a newer one replaces the oldest), 200 MB in all."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from reconcile.guard.web_drafts import MAX_DRAFT_BYTES, MAX_DRAFTS_PER_SESSION, MAX_TOTAL_BYTES, DraftPlace, place_draft


def test_a_draft_up_to_2_mb_is_kept() -> None:
    """2 000 000 bytes are kept, one more is not."""
    assert place_draft(MAX_DRAFT_BYTES, session_drafts=[], total_bytes=0) == DraftPlace(keep=True)
    assert place_draft(MAX_DRAFT_BYTES + 1, session_drafts=[], total_bytes=0) == DraftPlace(keep=False)


def test_the_sixth_draft_of_a_session_replaces_its_oldest() -> None:
    """Four kept: the fifth goes beside them; five kept: the oldest makes room; six (an older hub's): two go."""
    four = [(i, 10) for i in range(1, 5)]
    assert place_draft(10, session_drafts=four, total_bytes=40) == DraftPlace(keep=True)
    five = [*four, (5, 10)]
    assert place_draft(10, session_drafts=five, total_bytes=50) == DraftPlace(keep=True, drop=(1,))
    assert place_draft(10, session_drafts=[*five, (6, 10)], total_bytes=60) == DraftPlace(keep=True, drop=(1, 2))


def test_past_200_mb_in_all_nothing_more_is_kept() -> None:
    """Up to 200 MB in all a draft is kept; past it, not — unless the session's oldest, dropped, makes room."""
    full = MAX_TOTAL_BYTES - 100
    assert place_draft(100, session_drafts=[], total_bytes=full) == DraftPlace(keep=True)
    assert place_draft(101, session_drafts=[], total_bytes=full) == DraftPlace(keep=False)
    mine = [(i, 1_000) for i in range(1, 6)]
    assert place_draft(1_000, session_drafts=mine, total_bytes=MAX_TOTAL_BYTES) == DraftPlace(keep=True, drop=(1,))
    assert place_draft(1_001, session_drafts=mine, total_bytes=MAX_TOTAL_BYTES) == DraftPlace(keep=False)


@given(
    size=st.integers(0, MAX_DRAFT_BYTES + 10),
    sizes=st.lists(st.integers(0, MAX_DRAFT_BYTES), max_size=8),
    others=st.integers(0, MAX_TOTAL_BYTES),
)
def test_what_is_kept_stays_within_the_bounds(size: int, sizes: list[int], others: int) -> None:
    """Law: after a placement, the session holds at most 5 drafts, the kept one at most 2 MB, all at most 200 MB
    (when they were within it before) — and only the session's oldest ever go."""
    mine = list(enumerate(sizes, start=1))
    total = others + sum(sizes)
    place = place_draft(size, session_drafts=mine, total_bytes=total)
    assert place.drop == tuple(i for i, _ in mine[: len(place.drop)])
    if place.keep:
        assert size <= MAX_DRAFT_BYTES
        assert len(mine) - len(place.drop) + 1 <= MAX_DRAFTS_PER_SESSION
        assert total - sum(s for i, s in mine if i in place.drop) + size <= max(MAX_TOTAL_BYTES, total)
    else:
        assert place.drop == ()
