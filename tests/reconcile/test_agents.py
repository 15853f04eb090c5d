"""Who may claim (DESIGN.md 5.4): one agent process at a time, by agent_id and instance."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reconcile.queue.agents import AgentConflict, check_claimant, check_instance, holds_claim
from reconcile.vocabulary.errors import ValidationError
from tests.support import T0

IDS = st.sampled_from(["agent-1", "agent-2"])
INSTANCES = st.none() | st.sampled_from(["", "A", "B"])


@given(
    claimant=IDS,
    instance=INSTANCES,
    active=IDS,
    active_instance=INSTANCES,
    ago=st.floats(0, 200),
    wait=st.floats(0.5, 60),
)
def test_one_process_at_a_time(
    *, claimant: str, instance: str | None, active: str, active_instance: str | None, ago: float, wait: float
) -> None:
    """Admitted iff the same process (agent_id and instance; none = "") or the active one was away longer
    than 2 × claim wait; a refusal says when it would count as away."""
    seen = T0 - timedelta(seconds=ago)
    same = claimant == active and (instance or "") == (active_instance or "")
    away = ago > 2 * wait
    try:
        check_claimant(
            claimant,
            instance=instance,
            active=active,
            active_instance=active_instance,
            active_seen_at=seen,
            now=T0,
            claim_wait_seconds=wait,
        )
    except AgentConflict as refused:
        assert not (same or away)
        assert 1 <= refused.retry_after <= 2 * wait + 1
    else:
        assert same or away


def test_a_copy_is_told_it_is_a_second_process() -> None:
    """The same agent_id from another instance hears that it is a second process, not a second agent."""
    with pytest.raises(AgentConflict) as refused:
        check_claimant(
            "agent-1",
            instance="B",
            active="agent-1",
            active_instance="A",
            active_seen_at=T0 - timedelta(seconds=10),
            now=T0,
            claim_wait_seconds=25,
        )
    assert refused.value.message == (
        "агент agent-1 уже работает в другом процессе (последний раз 2026-10-22T08:59:50Z); "
        "второй процесс с тем же agent_id не допускается"
    )
    assert refused.value.retry_after == 40


def test_the_holder_is_the_active_instance() -> None:
    """A process holds the claimed command only while it is the active instance; an older agent (no instance)
    is taken at its word."""
    assert holds_claim("A", active_instance="A")
    assert not holds_claim("A", active_instance="B")
    assert holds_claim(None, active_instance="B")


@pytest.mark.parametrize("instance", ["", "x" * 65])
def test_an_instance_is_short_text(instance: str) -> None:
    """An empty instance or one longer than 64 characters is refused (422)."""
    with pytest.raises(ValidationError, match=r"^instance — ожидается непустая строка не длиннее 64 символов$"):
        check_instance(instance)


def test_the_bounds_of_an_instance() -> None:
    """One to 64 characters; none means an older agent."""
    for ok in (None, "a", "x" * 64):
        check_instance(ok)
    for bad in ("", "x" * 65):
        with pytest.raises(ValidationError) as info:
            check_instance(bad)
        assert info.value.message == "instance — ожидается непустая строка не длиннее 64 символов"


def test_the_edge_of_online_and_what_a_refusal_says() -> None:
    """Seen exactly two long polls ago is still online; the refusal names the active agent and when it was
    seen (in UTC, with Z), and retry_after is never below one second."""
    seen = (T0 - timedelta(seconds=50)).astimezone(timezone(timedelta(hours=3)))
    with pytest.raises(AgentConflict) as info:
        check_claimant("agent-2", active="agent-1", active_seen_at=seen, now=T0, claim_wait_seconds=25)
    assert info.value.message == (
        "активен другой агент agent-1 (последний раз 2026-10-22T08:59:10Z); второй агент не допускается"
    )
    assert info.value.retry_after == 1
    with pytest.raises(AgentConflict) as info:
        check_claimant(
            "agent-2", active="agent-1", active_seen_at=T0 - timedelta(seconds=10), now=T0, claim_wait_seconds=25
        )
    assert info.value.retry_after == 40


def test_without_an_active_agent_or_its_time_anyone_claims() -> None:
    """No active agent, or one never seen: nothing to refuse."""
    check_claimant("agent-2", active="agent-1", active_seen_at=None, now=T0, claim_wait_seconds=25)
    check_claimant("agent-2", active=None, active_seen_at=T0, now=T0, claim_wait_seconds=25)


def test_an_empty_instance_holds_the_claim_of_an_agent_without_one() -> None:
    """The instance "" is the same as none on the hub's side."""
    assert holds_claim("", active_instance=None) is True
    assert holds_claim("A", active_instance=None) is False


@pytest.mark.usefixtures("moscow")
def test_a_refused_claim_says_when_the_active_agent_was_seen_in_utc() -> None:
    """The 409 names the active agent's last sighting as UTC with Z, whatever the machine's zone."""
    seen = datetime(2026, 10, 22, 12, 0, 5, tzinfo=timezone(timedelta(hours=3)))
    with pytest.raises(AgentConflict) as refused:
        check_claimant(
            "agent-2", active="agent-1", active_seen_at=seen, now=seen + timedelta(seconds=10), claim_wait_seconds=25
        )
    assert refused.value.message == (
        "активен другой агент agent-1 (последний раз 2026-10-22T09:00:05Z); второй агент не допускается"
    )


@pytest.mark.parametrize(
    ("ago", "shown"),
    [
        (timedelta(seconds=10), "2026-10-22T08:59:50Z"),
        (timedelta(seconds=10, microseconds=250000), "2026-10-22T08:59:49.750000Z"),
    ],
)
def test_the_refusal_says_when_the_other_agent_was_last_seen_in_utc(ago: timedelta, shown: str) -> None:
    """A whole second without a fraction, a fraction to the microsecond (the time as the other agent reported)."""
    now = datetime(2026, 10, 22, 9, 0, tzinfo=UTC)
    with pytest.raises(AgentConflict) as refused:
        check_claimant("agent-2", active="agent-1", active_seen_at=now - ago, now=now, claim_wait_seconds=25)
    assert refused.value.message == f"активен другой агент agent-1 (последний раз {shown}); второй агент не допускается"
