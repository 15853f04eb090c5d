"""The undo's plan as a pure rule (DESIGN.md 6.4, :func:`reconcile.outlook.undo.plan_undo`): an aspect the batch
set twice, a command that failed after it wrote part of its path, a batch undone already — the cases the undo law
on the simulator found (tests/agent/test_undo_laws.py)."""

from __future__ import annotations

from typing import Any

from reconcile.config.settings import Settings
from reconcile.outlook import DoneCommand, plan_undo, standing_undo
from reconcile.vocabulary import CommandStatus
from reconcile.vocabulary.records import HistoryEntry, HistoryItem, MirrorIssue

KEY = "AURORA-1445"


def _fields(command_id: int, before: str | None, after: str) -> DoneCommand:
    undo = {"changed": {"duedate": {"from": before, "to": after}}, "labels": {"added": [], "removed": []}}
    return DoneCommand(
        id=command_id,
        seq=command_id,
        type="ensure_fields",
        params={"key": KEY, "duedate": after},
        status=CommandStatus.DONE,
        result={"changed": ["duedate"], "undo": undo},
        wrote=True,
    )


def _plan(commands: list[DoneCommand], issue: MirrorIssue, journal: list[HistoryEntry] | None = None) -> Any:
    return plan_undo(commands, mirror={KEY: issue}, journal={KEY: journal or []}, settings=Settings())


def test_a_field_set_twice_goes_back_step_by_step_to_its_first_value() -> None:
    """Two commands set one due date in turn: the newer goes back to the value between them, the older to the
    first value, each only while Jira holds what that command set; nothing is named kept."""
    plan = _plan(
        [_fields(1, "2026-10-01", "2026-11-01"), _fields(2, "2026-11-01", "2026-12-01")],
        MirrorIssue(key=KEY, duedate="2026-12-01"),
    )
    assert plan.kept == ()
    assert [dict(c["params"]) for c in plan.commands] == [
        {"key": KEY, "duedate": "2026-11-01", "if_unchanged": {"duedate": "2026-12-01"}},
        {"key": KEY, "duedate": "2026-10-01", "if_unchanged": {"duedate": "2026-11-01"}},
    ]
    assert [(i.command_id, i.outcome) for i in plan.items] == [(2, "undone"), (1, "undone")]


def test_a_field_a_person_set_after_both_commands_stays_kept_for_both() -> None:
    """A person changed that due date after the batch, even back to the value between the two commands: it is kept
    for both, named with her for each, and nothing writes it."""
    change = HistoryItem(field="duedate", to_string="2026-11-01")
    journal = [HistoryEntry(key=KEY, id="7", created="2026-12-02T10:14:00+00:00", author="ivanov", items=(change,))]
    plan = _plan(
        [_fields(1, "2026-10-01", "2026-11-01"), _fields(2, "2026-11-01", "2026-12-01")],
        MirrorIssue(key=KEY, duedate="2026-11-01"),
        journal,
    )
    assert plan.commands == ()
    assert [(k.command_id, k.aspect, k.now, k.changed_by) for k in plan.kept] == [
        (2, "duedate", "2026-11-01", "ivanov"),
        (1, "duedate", "2026-11-01", "ivanov"),
    ]
    assert [(i.command_id, i.outcome) for i in plan.items] == [(2, "kept"), (1, "kept")]


def test_a_status_moved_part_of_its_path_before_failing_goes_back() -> None:
    """An ``ensure_status`` that moved one step and then found no transition is ``failed``, but what it wrote is
    taken back from what its result says it replaced; one that failed before writing is not listed."""
    moved = DoneCommand(
        id=1,
        seq=1,
        type="ensure_status",
        params={"key": KEY, "target": ["Ожидание разработки", "Тестирование"]},
        status=CommandStatus.FAILED,
        result={
            "status": "Ожидание разработки",
            "transitions": ["Вернуть в ожидание"],
            "undo": {"from": "Разработка", "to": "Ожидание разработки", "path": ["Ожидание разработки"]},
        },
        wrote=True,
    )
    refused = DoneCommand(
        id=2,
        seq=2,
        type="ensure_status",
        params={"key": KEY, "target": "Готово"},
        status=CommandStatus.FAILED,
        result={"status": "Ожидание разработки", "transitions": []},
        wrote=False,
    )
    plan = _plan([moved, refused], MirrorIssue(key=KEY, status="Ожидание разработки"))
    assert [(c["type"], dict(c["params"])) for c in plan.commands] == [
        (
            "ensure_status",
            {"key": KEY, "target": "Разработка", "if_unchanged": {"status": "Ожидание разработки"}},
        )
    ]
    assert [(i.command_id, i.outcome) for i in plan.items] == [(1, "undone")]


def test_the_undo_that_stands_is_the_oldest_not_wholly_cancelled() -> None:
    """Of a batch's undo batches, the oldest with a command not cancelled stands (running, waiting or run); one
    rejected or cancelled whole does not, and without one the batch may be undone."""
    done, cancelled, queued = CommandStatus.DONE, CommandStatus.CANCELLED, CommandStatus.QUEUED
    assert standing_undo({}) is None
    assert standing_undo({18: [cancelled, cancelled]}) is None
    assert standing_undo({21: [queued], 18: [cancelled], 19: [cancelled, CommandStatus.FAILED]}) == 19
    assert standing_undo({18: [done], 19: [done]}) == 18


def test_a_batch_undone_already_takes_nothing_back_and_names_its_undo() -> None:
    """Once an undo batch stands, the plan has no command and names it for each command: what that undo put back
    is not read as the batch's own value and written again."""
    plan = plan_undo(
        [_fields(1, "2026-10-01", "2026-11-01")],
        mirror={KEY: MirrorIssue(key=KEY, duedate="2026-10-01")},
        journal={},
        settings=Settings(),
        undone_by=18,
    )
    assert (plan.commands, plan.kept) == ((), ())
    assert [(i.command_id, i.outcome, i.text) for i in plan.items] == [(1, "nothing", "откат уже в пакете 18")]
