"""The command lifecycle: one table of moves; every other move is refused with the state and the event named."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reconcile.vocabulary.errors import ConflictError
from reconcile.vocabulary.lifecycle import (
    FINAL,
    PENDING,
    RESOLVED,
    RETRYABLE,
    TRANSITIONS,
    CommandStatus,
    Event,
    IllegalTransition,
    advance,
    can,
)

S = CommandStatus
E = Event
events = st.lists(st.sampled_from(list(Event)), max_size=30)


def test_seed_paths() -> None:
    """A command is issued, re-delivered, then reported; a queued one is skipped or cancelled."""
    assert advance(S.QUEUED, E.ISSUE) is S.CLAIMED
    assert advance(S.CLAIMED, E.REDELIVER) is S.CLAIMED
    assert advance(S.CLAIMED, E.REPORT_DONE) is S.DONE
    assert advance(S.CLAIMED, E.REPORT_FAILED) is S.FAILED
    assert advance(S.CLAIMED, E.DELIVERY_LIMIT) is S.FAILED
    assert advance(S.CLAIMED, E.CONFIRM_BY_STATE) is S.CONFIRMED_BY_STATE
    assert advance(S.QUEUED, E.SKIP) is S.SKIPPED
    assert advance(S.QUEUED, E.CANCEL) is S.CANCELLED
    assert advance(S.QUEUED, E.REJECT) is S.CANCELLED
    assert advance("claimed", E.FORCE_CANCEL) is S.CANCELLED


def test_claimed_is_never_cancelled_without_force() -> None:
    """The seed: a claimed command MUST NOT be cancelled automatically; the refusal says how to do it."""
    with pytest.raises(IllegalTransition) as refused:
        advance(S.CLAIMED, E.CANCEL, command_id=40)
    assert refused.value.message == "команда 40 выдана агенту — отмена только с force: true"
    assert isinstance(refused.value, ConflictError)


def test_report_for_a_queued_command_is_refused() -> None:
    """A report for a command never issued is a conflict, not a status change."""
    with pytest.raises(IllegalTransition) as refused:
        advance(S.QUEUED, E.REPORT_DONE, command_id=7)
    assert refused.value.message == "команда 7 не выдана агенту"


def test_finished_commands_say_so() -> None:
    """Cancelling a finished command names its status; without an id the message still reads."""
    with pytest.raises(IllegalTransition) as refused:
        advance(S.DONE, E.CANCEL, command_id=3)
    assert refused.value.message == "команда 3 уже завершена (done)"
    with pytest.raises(IllegalTransition) as generic:
        advance(S.QUEUED, E.REDELIVER)
    assert generic.value.message == "команда в статусе queued: «redeliver» недопустимо"
    assert (generic.value.status, generic.value.event) == (S.QUEUED, E.REDELIVER)


def test_status_sets() -> None:
    """Final, resolved, pending and retryable statuses as the seed names them."""
    assert {s.value for s in FINAL} == {"done", "failed", "skipped", "cancelled", "confirmed_by_state"}
    assert {s.value for s in RESOLVED} == {"done", "confirmed_by_state"}
    assert {s.value for s in PENDING} == {"queued", "claimed"}
    assert {s.value for s in RETRYABLE} == {"failed", "skipped", "cancelled"}
    assert set(CommandStatus) == FINAL | PENDING


@given(st.sampled_from(list(CommandStatus)), events)
def test_random_events_follow_the_table(start: CommandStatus, sequence: list[Event]) -> None:
    """Any event sequence either moves by the table or is refused naming state and event; the state then stays."""
    status = start
    for event in sequence:
        expected = TRANSITIONS[status].get(event)
        if expected is None:
            assert not can(status, event)
            with pytest.raises(IllegalTransition) as refused:
                advance(status, event, command_id=1)
            assert (refused.value.status, refused.value.event) == (status, event)
            assert refused.value.message.startswith("команда 1 ")
        else:
            assert can(status, event)
            status = advance(status, event)
            assert status is expected


@given(st.sampled_from(sorted(FINAL)), events)
def test_final_is_final(start: CommandStatus, sequence: list[Event]) -> None:
    """No event moves a command out of a final status."""
    status = start
    for event in sequence:
        if can(status, event):
            status = advance(status, event)
        assert status is start


@given(events)
def test_no_outcome_without_a_claim(sequence: list[Event]) -> None:
    """From queued, done, failed by report and confirmed_by_state are reachable only through claimed."""
    status = S.QUEUED
    seen = [status]
    for event in sequence:
        if can(status, event):
            status = advance(status, event)
            seen.append(status)
    for outcome in (S.DONE, S.FAILED, S.CONFIRMED_BY_STATE):
        if outcome in seen:
            assert S.CLAIMED in seen[: seen.index(outcome)]


def test_an_illegal_move_carries_the_command_it_refused() -> None:
    """The refusal keeps the command's id (none when not given) beside its status and event."""
    with pytest.raises(IllegalTransition) as refused:
        advance(CommandStatus.CLAIMED, Event.CANCEL, command_id=40)
    assert (refused.value.status, refused.value.event, refused.value.command_id) == (
        CommandStatus.CLAIMED,
        Event.CANCEL,
        40,
    )
    with pytest.raises(IllegalTransition) as anonymous:
        advance(CommandStatus.DONE, Event.ISSUE)
    assert anonymous.value.command_id is None
