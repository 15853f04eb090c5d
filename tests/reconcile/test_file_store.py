"""The file store's rules: room up to ``max_store_bytes``, and pruning only what is past retention and unneeded."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reconcile.batches.file_store import check_room, files_to_prune, retention_cutoff
from reconcile.vocabulary.errors import TooLargeError
from tests.support import T0

SHAS = st.text("0123456789abcdef", min_size=1, max_size=3)
UPLOADS = st.dictionaries(SHAS, st.integers(-500, 500).map(lambda h: T0 + timedelta(hours=h)), max_size=12)


@given(UPLOADS, st.sets(SHAS), st.integers(0, 400))
def test_pruned_files_are_exactly_the_old_unneeded_ones(
    uploaded: dict[str, datetime], needed: set[str], hours: int
) -> None:
    """A file is pruned iff its last upload is at or before the cutoff and no unfinished command names it."""
    cutoff = retention_cutoff(T0, hours)
    gone = files_to_prune(uploaded, needed=needed, cutoff=cutoff)
    assert gone == sorted(gone)
    assert set(gone) == {sha for sha, at in uploaded.items() if at <= T0 - timedelta(hours=hours) and sha not in needed}


@given(st.integers(0, 10**6), st.integers(0, 10**6), st.integers(1, 10**6))
def test_room_is_refused_exactly_past_the_limit(used: int, adding: int, limit: int) -> None:
    """An upload fits iff the store's bytes with it stay within ``max_store_bytes``."""
    if used + adding <= limit:
        check_room(used=used, adding=adding, limit=limit)
    else:
        with pytest.raises(TooLargeError):
            check_room(used=used, adding=adding, limit=limit)


def test_an_upload_that_fills_the_store_exactly_fits() -> None:
    """The limit itself is room: 60 + 40 of 100 fits, 60 + 41 does not."""
    check_room(used=60, adding=40, limit=100)
    with pytest.raises(TooLargeError):
        check_room(used=60, adding=41, limit=100)


def test_the_refusal_says_how_full_the_store_is() -> None:
    """The 413's words: what is used, the limit, the upload's size."""
    with pytest.raises(TooLargeError) as refused:
        check_room(used=60, adding=50, limit=100)
    assert refused.value.message == (
        "хранилище файлов заполнено: занято 60 из max_store_bytes = 100 байт, файл в 50 байт не помещается"
    )
