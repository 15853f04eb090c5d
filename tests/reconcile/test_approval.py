"""Approval rules: which batches wait, four eyes, what approve and reject record, and the settings' switches."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reconcile.config.settings import ApprovalDoors, Settings, merge_settings, settings_from_json, settings_to_json
from reconcile.outlook.approval import (
    HUB,
    Approval,
    ApprovalState,
    Door,
    Requester,
    approval_refusal,
    approve,
    back_to_pending,
    holds,
    initial_approval,
    reject,
    rejection_error,
)
from reconcile.outlook.approved_plan import PLAN_CHANGED, PlanChanged, PlanSnapshot, StalePlan, line_words
from reconcile.vocabulary.catalogue import CATALOGUE
from reconcile.vocabulary.errors import ConflictError, ForbiddenError, ValidationError
from tests.support import T0

PENDING = Approval(state=ApprovalState.PENDING)
ON = Settings(approval=ApprovalDoors(mcp=True, http=True))
TYPES = st.lists(st.sampled_from(list(CATALOGUE)), min_size=1)


def asker(door: Door | None, *, needs_approval: bool = False) -> Requester:
    return Requester(door=door, token_name=None if door is None else "planner", needs_approval=needs_approval)


@given(st.sampled_from([None, Door.HTTP, Door.MCP]), TYPES)
def test_nothing_waits_with_the_defaults(door: Door | None, types: list[str]) -> None:
    """Approval off (the default) for both doors, a token without --needs-approval, nothing brought back: no batch
    ever waits, every seed scenario as before."""
    assert initial_approval(asker(door), types, Settings()) is None
    assert initial_approval(asker(door), types, Settings(), brings_back=[None, None]) is None


def test_a_door_that_requires_approval_makes_writing_batches_wait() -> None:
    """Each door by its own switch; a refresh-only batch and the hub's own batches (no door) never wait."""
    only_mcp = Settings(approval=ApprovalDoors(mcp=True))
    assert initial_approval(asker(Door.MCP), ["ensure_fields", "refresh"], only_mcp) == PENDING
    assert initial_approval(asker(Door.HTTP), ["ensure_fields", "refresh"], only_mcp) is None
    assert initial_approval(asker(Door.HTTP), ["refresh"], ON) is None
    assert initial_approval(HUB, ["ensure_fields"], ON) is None
    assert holds(PENDING) and not holds(None)
    assert not holds(Approval(state=ApprovalState.APPROVED, by="b", at=T0))


@given(st.sampled_from([Door.HTTP, Door.MCP]), TYPES, st.booleans(), st.booleans())
def test_a_token_that_requires_approval_waits_through_every_door(
    door: Door, types: list[str], mcp: bool, http: bool
) -> None:
    """--needs-approval: every writing batch of the token waits, whatever the doors' switches say."""
    doors = Settings(approval=ApprovalDoors(mcp=mcp, http=http))
    writes = any(t != "refresh" for t in types)
    assert initial_approval(asker(door, needs_approval=True), types, doors) == (PENDING if writes else None)


@pytest.mark.parametrize(
    "earlier",
    [
        PENDING,
        Approval(state=ApprovalState.APPROVED, by="boss", at=T0),
        Approval(state=ApprovalState.REJECTED, by="boss", at=T0, reason="нет"),
    ],
)
def test_bringing_back_a_command_whose_batch_waited_waits_again(earlier: Approval) -> None:
    """A retry or reapply of a command whose batch waited (pending, approved or rejected) waits again, whoever asks
    and through whichever door, the doors' switches off; a read-only retry (a refresh) does not."""
    for door in (Door.HTTP, Door.MCP):
        assert initial_approval(asker(door), ["ensure_fields", "refresh"], Settings(), brings_back=[None, earlier]) == (
            PENDING
        )
    assert initial_approval(asker(Door.HTTP), ["refresh"], Settings(), brings_back=[earlier]) is None


def test_a_token_that_requires_approval_approves_nothing() -> None:
    """403 with the token's name, before anything else is judged (even a batch that does not wait)."""
    message = "токен claude сам требует одобрения своих пакетов и одобрять пакеты не может"
    for approval in (PENDING, None):
        with pytest.raises(ForbiddenError) as refused:
            approve(approval, batch_id=7, creator="planner", approver="claude", now=T0, approver_needs_approval=True)
        assert refused.value.message == message


def test_approve_takes_another_token() -> None:
    """The creator's token → 403 «нельзя одобрить свой пакет»; another records by and at."""
    with pytest.raises(ForbiddenError, match=r"^нельзя одобрить свой пакет$"):
        approve(PENDING, batch_id=7, creator="planner", approver="planner", now=T0)
    assert approve(PENDING, batch_id=7, creator="planner", approver="boss", now=T0) == Approval(
        state=ApprovalState.APPROVED, by="boss", at=T0
    )


def test_the_page_asks_whether_a_token_may_approve() -> None:
    """What the page asks before it offers «Одобрить»: another token may, the creator's may not (403), a token that
    requires approval of its own batches approves nothing (403)."""
    assert approval_refusal(PENDING, batch_id=7, creator="planner", approver="boss") is None
    own = approval_refusal(PENDING, batch_id=7, creator="planner", approver="planner")
    assert isinstance(own, ForbiddenError) and own.message == "нельзя одобрить свой пакет"
    assistant = approval_refusal(
        PENDING, batch_id=7, creator="planner", approver="claude", approver_needs_approval=True
    )
    assert isinstance(assistant, ForbiddenError)
    assert assistant.message == "токен claude сам требует одобрения своих пакетов и одобрять пакеты не может"


def test_only_a_pending_batch_is_approved_or_rejected() -> None:
    """Not waiting → 409 naming the batch and why."""
    approved = Approval(state=ApprovalState.APPROVED, by="boss", at=T0)
    rejected = Approval(state=ApprovalState.REJECTED, by="boss", at=T0, reason="нет")
    cases = [
        (None, "пакет 7 не ждёт одобрения: одобрение ему не требовалось"),
        (approved, "пакет 7 не ждёт одобрения: уже одобрен (boss)"),
        (rejected, "пакет 7 не ждёт одобрения: уже отклонён (boss)"),
    ]
    for approval, message in cases:
        with pytest.raises(ConflictError) as refused:
            approve(approval, batch_id=7, creator="planner", approver="other", now=T0)
        assert refused.value.message == message
        with pytest.raises(ConflictError) as refused:
            reject(approval, batch_id=7, by="other", reason="x", now=T0)
        assert refused.value.message == message


def test_reject_records_the_reason_and_words_the_error() -> None:
    """The creator may withdraw its own batch; the commands' error is «пакет отклонён: <reason>»."""
    assert reject(PENDING, batch_id=7, by="planner", reason="не тот срок", now=T0) == Approval(
        state=ApprovalState.REJECTED, by="planner", at=T0, reason="не тот срок"
    )
    assert rejection_error("не тот срок") == "пакет отклонён: не тот срок"


def test_approval_settings_round_trip_and_keep_the_other_door() -> None:
    """approval is off by default, survives the JSON round trip, and naming one door keeps the other."""
    assert settings_to_json(Settings())["approval"] == {"mcp": False, "http": False}
    both = settings_from_json({"approval": {"mcp": True, "http": True}})
    assert settings_from_json(settings_to_json(both)) == both
    assert merge_settings(both, {"approval": {"http": False}}).approval == ApprovalDoors(mcp=True)
    for bad, message in (
        ({"approval": True}, "настройки: approval — объект {mcp?, http?}"),
        ({"approval": {"mcp": 1}}, "настройки: approval.mcp — логическое значение true/false"),
    ):
        with pytest.raises(ValidationError) as refused:
            settings_from_json(bad)
        assert refused.value.message == message


def test_an_approved_batch_waits_again_with_the_new_plan() -> None:
    """Found stale by the agent: it waits with the plan and why (the last lapse kept); lapsed: it waits with the
    plan and the moment it lapsed (the last stale finding kept)."""
    old_stale = StalePlan(difference=({"key": "AURORA-1"},), at=T0)
    approved = Approval(state=ApprovalState.APPROVED, by="lead", at=T0, stale=old_stale, expired_at=T0)
    plan = PlanSnapshot(digest="d2", lines=({"seq": 1, "key": "AURORA-1", "aspect": "duedate", "to": None},), at=T0)
    now = T0 + timedelta(hours=30)
    stale = StalePlan(difference=({"key": "AURORA-2"},), at=now)
    assert back_to_pending(approved, plan=plan, now=now, stale=stale) == Approval(
        state=ApprovalState.PENDING, plan=plan, stale=stale, expired_at=T0
    )
    assert back_to_pending(approved, plan=plan, now=now) == Approval(
        state=ApprovalState.PENDING, plan=plan, stale=old_stale, expired_at=now
    )


def test_a_plan_and_a_stale_finding_are_kept_as_json_and_read_back() -> None:
    """As the database keeps them: times in UTC with microseconds, read back as the same moments."""
    at = datetime(2026, 10, 22, 9, 30, 15, 250, tzinfo=UTC)
    lines = ({"seq": 1, "key": "AURORA-1", "aspect": "duedate", "to": "2026-11-01", "from": None},)
    plan = PlanSnapshot(digest="ab" * 32, lines=lines, at=at)
    assert plan.to_json() == {"digest": "ab" * 32, "lines": [dict(lines[0])], "at": "2026-10-22T09:30:15.000250Z"}
    assert PlanSnapshot.from_json(plan.to_json()) == plan
    assert PlanSnapshot.from_json({"digest": "d", "at": "2026-10-22T09:30:15Z"}).lines == ()
    stale = StalePlan(difference=({"found": lines[0], "approved": None},), at=at)
    assert stale.to_json() == {
        "difference": [{"found": lines[0], "approved": None}],
        "at": "2026-10-22T09:30:15.000250Z",
    }
    assert StalePlan.from_json(stale.to_json()) == stale
    assert StalePlan.from_json({"difference": None, "at": "2026-10-22T09:30:15Z"}).difference == ()


def test_a_changed_plan_is_a_conflict_that_carries_the_plan_now() -> None:
    plan = PlanSnapshot(digest="d", lines=(), at=T0)
    error = PlanChanged(plan)
    assert isinstance(error, ConflictError)
    assert (error.message, error.plan) == (PLAN_CHANGED, plan)
    assert PLAN_CHANGED == "план изменился — посмотрите и одобрите заново"


def test_a_link_line_in_words() -> None:
    link = {"type": "Связанные", "source": "AURORA-1", "target": "AURORA-2"}
    assert (
        line_words({"key": "AURORA-1", "aspect": "link", "to": link})
        == "AURORA-1 + связь «Связанные» AURORA-1 → AURORA-2"
    )
    assert line_words({"key": "AURORA-1", "aspect": "link", "to": None, "from": link}) == (
        "AURORA-1 - связь «Связанные» AURORA-1 → AURORA-2"
    )
    assert line_words({"key": "AURORA-1", "aspect": "link", "to": "AURORA-2"}) == "AURORA-1 + связь «AURORA-2»"
    partial = {"type": "Связанные", "source": "AURORA-1"}
    assert line_words({"key": "AURORA-1", "aspect": "link", "to": partial}).startswith("AURORA-1 + связь «{")


def test_an_approval_is_of_the_plan_the_approver_read() -> None:
    """The digest sent must be the plan's now: another is 409 carrying the plan now; the same records that plan,
    and a stale finding that made the batch wait again is kept beside it."""
    plan = PlanSnapshot(digest="d2", lines=({"seq": 1, "key": "AURORA-1", "aspect": "duedate", "to": None},), at=T0)
    stale = StalePlan(difference=({"key": "AURORA-1"},), at=T0)
    waiting = Approval(state=ApprovalState.PENDING, plan=plan, stale=stale)
    with pytest.raises(PlanChanged) as changed:
        approve(waiting, batch_id=7, creator="planner", approver="boss", now=T0, digest="d1", current=plan)
    assert changed.value.plan == plan
    approved = approve(waiting, batch_id=7, creator="planner", approver="boss", now=T0, digest="d2", current=plan)
    assert approved == Approval(state=ApprovalState.APPROVED, by="boss", at=T0, plan=plan, stale=stale)
