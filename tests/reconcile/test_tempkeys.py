"""Temp keys inside a batch: references, substitution, and the seed's skip messages."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from reconcile.queue.tempkeys import (
    NO_KEYS_TO_REFRESH,
    Ready,
    Skip,
    TempKeyOutcome,
    Wait,
    outcome_of,
    resolved_keys,
    settle,
    skip_reason,
    substitute,
    temp_refs,
)
from reconcile.vocabulary.catalogue import CATALOGUE, Format

DONE_60 = {"new:60": TempKeyOutcome(status="done", key="AURORA-1590")}


def test_temp_refs_of_a_link() -> None:
    """Both ends of a link may be temp keys; real keys are not references."""
    params = {"source": "new:60", "target": "AURORA-1537", "link_type": "связанные"}
    assert temp_refs("ensure_link", params) == ("new:60",)
    assert temp_refs("ensure_link", {**params, "target": "new:61"}) == ("new:60", "new:61")


def test_temp_refs_of_ensure_issue_exclude_its_own_temp_key() -> None:
    """An ensure_issue defines its temp_key and references only its epic_key."""
    params = {"temp_key": "new:2", "issue_type": "task", "summary": "Отчёт", "epic_key": "new:1"}
    assert temp_refs("ensure_issue", params) == ("new:1",)
    assert temp_refs("ensure_issue", {"temp_key": "new:2", "summary": "Отчёт"}) == ()


def test_temp_refs_of_fields_include_epic_key() -> None:
    """ensure_fields references its key and its epic_key."""
    assert temp_refs("ensure_fields", {"key": "new:3", "epic_key": "new:1"}) == ("new:3", "new:1")


def test_temp_refs_of_a_tail_refresh() -> None:
    """Every temp key in refresh keys counts, once."""
    params = {"keys": ["new:1", "AURORA-1", "new:2", "new:1"]}
    assert temp_refs("refresh", params) == ("new:1", "new:2")


def test_status_target_is_not_a_key() -> None:
    """ensure_status's target is a status name, never a reference."""
    assert temp_refs("ensure_status", {"key": "AURORA-1", "target": "new:1"}) == ()


def test_create_and_link() -> None:
    """Scenario «Создать и привязать»: the link is issued with source = AURORA-1590."""
    params = {"source": "new:60", "target": "AURORA-1537", "link_type": "связанные"}
    assert settle("ensure_link", params, DONE_60) == Ready(
        params={"source": "AURORA-1590", "target": "AURORA-1537", "link_type": "связанные"}
    )


def test_creation_confirmed_by_state_resolves_too() -> None:
    """An ensure_issue confirmed by state has a key: dependents go ahead with it."""
    outcomes = {"new:5": TempKeyOutcome(status="confirmed_by_state", key="AURORA-7")}
    assert settle("ensure_comment", {"key": "new:5", "marker": "m", "body": "b"}, outcomes) == Ready(
        params={"key": "AURORA-7", "marker": "m", "body": "b"}
    )


def test_creation_cancelled() -> None:
    """Scenario «Создание отменено»: the comment is skipped with «создание задачи new:901 отменено»."""
    outcomes = {"new:901": TempKeyOutcome(status="cancelled")}
    verdict = settle("ensure_comment", {"key": "new:901", "marker": "m", "body": "b"}, outcomes)
    assert verdict == Skip(error="создание задачи new:901 отменено")


def test_creation_failed() -> None:
    """Scenario «Создание упало»: the link is skipped with «задача new:902 не создана»."""
    outcomes = {"new:902": TempKeyOutcome(status="failed")}
    verdict = settle("ensure_link", {"source": "new:902", "target": "AURORA-1", "link_type": "x"}, outcomes)
    assert verdict == Skip(error="задача new:902 не создана")


def test_cancelled_creation_with_a_late_key_still_skips() -> None:
    """A cancelled ensure_issue that later got its key recorded still skips its dependents."""
    outcomes = {"new:1": TempKeyOutcome(status="cancelled", key="AURORA-9")}
    assert settle("ensure_sprint", {"key": "new:1", "sprint": "Спринт 2"}, outcomes) == Skip(
        error="создание задачи new:1 отменено"
    )


def test_skip_reasons() -> None:
    """cancelled → «отменено»; failed, skipped and anything else → «не создана»."""
    assert skip_reason("new:7", "cancelled") == "создание задачи new:7 отменено"
    assert skip_reason("new:7", "failed") == "задача new:7 не создана"
    assert skip_reason("new:7", "skipped") == "задача new:7 не создана"
    assert skip_reason("new:7", "done") == "задача new:7 не создана"


def test_missing_outcome_counts_as_not_created() -> None:
    """A temp key without an ensure_issue outcome is «не создана»."""
    assert settle("ensure_comment", {"key": "new:4", "marker": "m", "body": "b"}, {}) == Skip(
        error="задача new:4 не создана"
    )


def test_done_without_a_key_counts_as_not_created() -> None:
    """A done ensure_issue without a result key cannot be substituted: «не создана»."""
    outcomes = {"new:4": TempKeyOutcome(status="done", key=None)}
    assert settle("ensure_comment", {"key": "new:4", "marker": "m", "body": "b"}, outcomes) == Skip(
        error="задача new:4 не создана"
    )


def test_pending_creation_waits() -> None:
    """A dependent of a queued or claimed ensure_issue waits."""
    for status in ("queued", "claimed"):
        outcomes = {"new:1": TempKeyOutcome(status=status)}
        assert settle("ensure_comment", {"key": "new:1", "marker": "m", "body": "b"}, outcomes) == Wait(
            temp_key="new:1"
        )


def test_failed_reference_skips_even_when_another_is_pending() -> None:
    """One reference that can never resolve skips the command without waiting for the others."""
    outcomes = {"new:1": TempKeyOutcome(status="queued"), "new:2": TempKeyOutcome(status="failed")}
    assert settle("ensure_link", {"source": "new:1", "target": "new:2", "link_type": "x"}, outcomes) == Skip(
        error="задача new:2 не создана"
    )


def test_tail_refresh_drops_keys_not_created() -> None:
    """A tail refresh reads the keys that exist and drops the temp keys never created."""
    outcomes = {
        "new:1": TempKeyOutcome(status="done", key="AURORA-10"),
        "new:2": TempKeyOutcome(status="cancelled"),
        "new:3": TempKeyOutcome(status="failed"),
    }
    params = {"keys": ["new:1", "AURORA-1537", "new:2", "new:3"]}
    assert settle("refresh", params, outcomes) == Ready(params={"keys": ["AURORA-10", "AURORA-1537"]})


def test_tail_refresh_with_no_key_left_is_skipped() -> None:
    """A tail refresh whose every key was a temp key never created is skipped: «нет ключей для обновления»."""
    outcomes = {"new:1": TempKeyOutcome(status="cancelled"), "new:2": TempKeyOutcome(status="failed")}
    assert settle("refresh", {"keys": ["new:1", "new:2"]}, outcomes) == Skip(error=NO_KEYS_TO_REFRESH)
    assert NO_KEYS_TO_REFRESH == "нет ключей для обновления"


def test_tail_refresh_waits_for_a_pending_creation() -> None:
    """A tail refresh waits while one of its temp keys is still being created."""
    outcomes = {"new:1": TempKeyOutcome(status="claimed")}
    assert settle("refresh", {"keys": ["new:1", "AURORA-1"]}, outcomes) == Wait(temp_key="new:1")


def test_jql_refresh_is_ready_as_is() -> None:
    """A refresh by JQL references nothing."""
    assert settle("refresh", {"jql": "project = AURORA"}, {}) == Ready(params={"jql": "project = AURORA"})


def test_substitute_leaves_unresolved_and_does_not_mutate() -> None:
    """Unresolved temp keys stay (outside refresh); the input params are not changed."""
    params = {"source": "new:1", "target": "new:2", "link_type": "x"}
    assert substitute("ensure_link", params, {"new:1": "AURORA-1"}) == {
        "source": "AURORA-1",
        "target": "new:2",
        "link_type": "x",
    }
    assert params == {"source": "new:1", "target": "new:2", "link_type": "x"}


temp_keys = st.integers(min_value=1, max_value=30).map(lambda n: f"new:{n}")
real_keys = st.integers(min_value=1, max_value=5000).map(lambda n: f"AURORA-{n}")
any_key = st.one_of(temp_keys, real_keys)
resolved_maps = st.dictionaries(temp_keys, real_keys, max_size=10)


@st.composite
def commands(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    """A command of any type: the catalogue's example with every key drawn (an optional one maybe null)."""
    kind = draw(st.sampled_from(list(CATALOGUE)))
    params = dict(CATALOGUE[kind].example)
    for param in CATALOGUE[kind].params:
        if param.format is Format.ISSUE_KEY:
            params[param.name] = draw(any_key if param.name in params else st.none() | any_key)
        elif param.format is Format.KEY_LIST:
            params[param.name] = draw(st.lists(any_key, max_size=8))
        elif param.format is Format.TEMP_KEY:
            params[param.name] = draw(temp_keys)
    return kind, params


@given(commands(), resolved_maps)
def test_substitution_is_idempotent(command: tuple[str, dict[str, Any]], resolved: dict[str, str]) -> None:
    """Substituting twice gives the same params as substituting once."""
    kind, params = command
    once = substitute(kind, params, resolved)
    assert substitute(kind, once, resolved) == once


@given(commands(), resolved_maps)
def test_substitution_removes_every_resolved_reference(
    command: tuple[str, dict[str, Any]], resolved: dict[str, str]
) -> None:
    """After substitution no resolved temp key is referenced; a refresh references none at all."""
    kind, params = command
    left = temp_refs(kind, substitute(kind, params, resolved))
    assert not set(left) & set(resolved)
    if kind == "refresh":
        assert left == ()
    if kind == "ensure_issue":
        assert substitute(kind, params, resolved)["temp_key"] == params["temp_key"]


def test_the_outcome_of_an_ensure_issue_without_a_result_or_a_text_key_has_no_key() -> None:
    """A queued ensure_issue has no result; a key that is not a text is no key."""
    assert outcome_of("queued", None) == TempKeyOutcome(status="queued")
    assert outcome_of("done", {"key": 5}) == TempKeyOutcome(status="done")
    assert outcome_of("done", {"key": "A-1"}) == TempKeyOutcome(status="done", key="A-1")


def test_only_resolved_outcomes_give_keys() -> None:
    """A cancelled ensure_issue whose late report named its key is not resolved: its dependents get no key."""
    outcomes = {
        "new:1": TempKeyOutcome(status="cancelled", key="A-5"),
        "new:2": TempKeyOutcome(status="done", key="A-6"),
        "new:3": TempKeyOutcome(status="failed", key="A-7"),
    }
    assert resolved_keys(outcomes) == {"new:2": "A-6"}


def test_a_refresh_by_jql_with_null_keys_keeps_them_null() -> None:
    """A refresh whose keys are null (it reads its jql) has nothing to substitute."""
    params = {"jql": "project = AURORA", "keys": None}
    assert substitute("refresh", params, {"new:1": "A-1"}) == params
