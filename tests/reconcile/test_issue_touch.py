"""Which commands touched an issue (:mod:`reconcile.batches.issue_touch`): a writing command naming it by key or by a
temp key its batch created it under, the ensure_issue that created it; never a refresh, never another issue."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs
from hypothesis import given
from hypothesis import strategies as st

from reconcile.batches.issue_touch import created_keys, touching


@attrs.frozen
class _Command:
    type: str
    params: Mapping[str, Any]
    result: Mapping[str, Any] | None = None


BATCH = [
    _Command("ensure_issue", {"temp_key": "new:1", "summary": "Новая"}, {"key": "AURORA-77"}),
    _Command("ensure_fields", {"key": "new:1", "duedate": "2026-10-23"}),
    _Command("ensure_link", {"source": "AURORA-1", "target": "new:1", "link_type": "связанные"}),
    _Command("ensure_comment", {"key": "AURORA-10", "marker": "m", "body": "b"}),
    _Command("refresh", {"keys": ["AURORA-1", "AURORA-77"]}),
]


def test_the_created_issue_is_touched_by_its_creation_and_its_temp_key() -> None:
    """AURORA-77: created by command 1, written by 2 and 3 through new:1; not by the tail refresh."""
    assert created_keys(BATCH) == {"new:1": "AURORA-77"}
    assert touching("AURORA-77", BATCH) == BATCH[:3]


def test_a_key_is_matched_whole() -> None:
    """AURORA-1 is named by the link only; AURORA-10 is another issue."""
    assert touching("AURORA-1", BATCH) == [BATCH[2]]
    assert touching("AURORA-10", BATCH) == [BATCH[3]]


def test_a_temp_key_never_created_names_no_issue() -> None:
    """A batch whose ensure_issue has not reported: new:1 is no key yet."""
    pending = [attrs.evolve(BATCH[0], result=None), *BATCH[1:3]]
    assert touching("AURORA-77", pending) == []


@given(st.lists(st.sampled_from(["AURORA-1", "AURORA-2", "new:1"]), max_size=4))
def test_a_refresh_never_touches(keys: list[str]) -> None:
    """Reading is not touching, whatever keys a refresh names."""
    assert touching("AURORA-1", [_Command("refresh", {"keys": keys})]) == []


def test_a_command_that_only_reads_does_not_end_the_search_and_odd_results_name_nothing() -> None:
    """A refresh before the writes is skipped, not the end; a created key that is no text, or a creation without
    its temp key, names no issue."""
    refresh_first = [BATCH[4], *BATCH[:4]]
    assert touching("AURORA-77", refresh_first) == BATCH[:3]
    odd = [
        _Command("ensure_issue", {"temp_key": "new:2", "summary": "a"}, {"key": 77}),
        _Command("ensure_issue", {"summary": "b"}, {"key": "AURORA-78"}),
    ]
    assert created_keys(odd) == {}
    assert touching("AURORA-78", odd) == [odd[1]]
