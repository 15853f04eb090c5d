"""The undo's plan as a pure rule (DESIGN.md 6.4, :func:`reconcile.outlook.undo.plan_undo`): an aspect the batch
set twice, a command that failed after it wrote part of its path, a batch undone already — the cases the undo law
on the simulator found (tests/agent/test_undo_laws.py)."""

from __future__ import annotations

import time
from typing import Any

import attrs
import pytest

from reconcile.config.settings import Settings
from reconcile.config.undo import CreatedIssueUndo, UndoSettings
from reconcile.outlook import DoneCommand, plan_undo, standing_undo
from reconcile.outlook.undo import Kept
from reconcile.vocabulary import CommandStatus
from reconcile.vocabulary.records import HistoryEntry, HistoryItem, MirrorIssue, SprintRef

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


def _done(command_type: str, params: dict[str, Any], undo: Any, **changes: Any) -> DoneCommand:
    fields: dict[str, Any] = {
        "id": 1,
        "seq": 1,
        "type": command_type,
        "params": {"key": KEY, **params},
        "status": CommandStatus.DONE,
        "result": {"undo": undo},
        "wrote": True,
    }
    return DoneCommand(**{**fields, **changes})


def _one(done: DoneCommand, issue: MirrorIssue | None = None, settings: Settings | None = None) -> Any:
    """The plan's commands as (type, params), and the one item's (outcome, text)."""
    plan = plan_undo(
        [done], mirror={KEY: issue} if issue else {}, journal={}, settings=settings or Settings(), zone="UTC"
    )
    [item] = plan.items
    return [(c["type"], dict(c["params"])) for c in plan.commands], (item.outcome, item.text)


S1, S2 = {"id": 1, "name": "Спринт 1"}, {"id": 2, "name": "Спринт 2"}


def _in_sprint(name: str | None) -> MirrorIssue:
    return MirrorIssue(key=KEY, sprint=None if name is None else SprintRef(id=9, name=name, state="active"))


def test_a_sprint_goes_back_while_the_issue_is_in_the_one_the_batch_put_it_in() -> None:
    """Back to the sprint before (the backlog for none), only while Jira holds the batch's sprint; a person's
    move since is kept; a sprint the command found already set wrote nothing."""
    done = _done("ensure_sprint", {"sprint": "Спринт 2"}, {"from": S1, "to": S2})
    back = ("ensure_sprint", {"key": KEY, "sprint": "Спринт 1", "if_unchanged": {"sprint": "Спринт 2"}})
    assert _one(done, _in_sprint("Спринт 2")) == ([back], ("undone", "возвращается"))
    assert _one(done) == ([back], ("undone", "возвращается"))  # not in the mirror: the agent's check decides
    assert _one(done, _in_sprint("Спринт 3"))[0] == []
    assert _one(done, _in_sprint("Спринт 3"))[1][0] == "kept"
    assert _one(done, _in_sprint(None))[1][0] == "kept"
    from_backlog = _done("ensure_sprint", {"sprint": "Спринт 2"}, {"from": None, "to": S2})
    assert _one(from_backlog, _in_sprint("Спринт 2"))[0] == [
        ("ensure_sprint", {"key": KEY, "sprint": None, "if_unchanged": {"sprint": "Спринт 2"}})
    ]
    to_backlog = _done("ensure_sprint", {"sprint": None}, {"from": S1, "to": None})
    assert _one(to_backlog, _in_sprint(None))[0] == [
        ("ensure_sprint", {"key": KEY, "sprint": "Спринт 1", "if_unchanged": {"sprint": None}})
    ]
    assert _one(_done("ensure_sprint", {"sprint": "Спринт 1"}, {}), _in_sprint("Спринт 1")) == (
        [],
        ("nothing", "нечего возвращать"),
    )


def test_a_link_created_is_removed_and_a_link_removed_is_made_again() -> None:
    """By the logical type the settings name the Jira type by; a Jira type no setting names cannot be undone."""
    made = {"id": "5", "type": "Связанные", "source": KEY, "target": "AURORA-2"}
    old = {"id": "4", "type": "Блокирует начало", "source": KEY, "target": "AURORA-3"}
    created = _done("ensure_link", {}, {"created": made})
    assert _one(created)[0] == [
        ("ensure_link", {"source": KEY, "target": "AURORA-2", "link_type": "связанные", "present": False})
    ]
    replaced = _done("ensure_link", {}, {"replaced": {"old": old, "new": made}, "removed": [old]})
    assert _one(replaced) == (
        [
            ("ensure_link", {"source": KEY, "target": "AURORA-2", "link_type": "связанные", "present": False}),
            ("ensure_link", {"source": KEY, "target": "AURORA-3", "link_type": "блокирует начало", "replace": False}),
        ],
        ("undone", "возвращается"),
    )
    strange = _done("ensure_link", {}, {"removed": [{**old, "type": "Дублирует"}]})
    assert _one(strange) == ([], ("unknown", "тип связи «Дублирует» не в настройках link_types"))


def test_a_comment_goes_back_as_it_was() -> None:
    """Created: deleted (only the agent's own, by its marker); updated: its previous body; deleted: written again."""
    params = {"marker": "[m]", "body": "[m] новое"}
    assert _one(_done("ensure_comment", params, {"created": "10001"}))[0] == [
        ("ensure_comment", {"key": KEY, "marker": "[m]", "absent": True})
    ]
    updated = {"updated": "10001", "previous_body": "[m] было"}
    assert _one(_done("ensure_comment", params, updated))[0] == [
        ("ensure_comment", {"key": KEY, "marker": "[m]", "body": "[m] было"})
    ]
    deleted = {"deleted": [{"id": "1", "body": "[m] первый"}, {"id": "2", "body": "[m] второй"}]}
    assert _one(_done("ensure_comment", {"marker": "[m]", "absent": True}, deleted))[0] == [
        ("ensure_comment", {"key": KEY, "marker": "[m]", "body": "[m] первый"})
    ]
    assert _one(_done("ensure_comment", params, {})) == ([], ("nothing", "нечего возвращать"))
    assert _one(_done("ensure_comment", params, {"updated": "10001"})) == ([], ("nothing", "нечего возвращать"))


def test_an_attachment_added_is_deleted_and_one_deleted_is_uploaded_again() -> None:
    added = {"added": {"id": "7", "sha256": "ab" * 32, "filename": "отчёт.pdf"}}
    assert _one(_done("ensure_attachment", {}, added))[0] == [
        ("ensure_attachment", {"key": KEY, "file": "ab" * 32, "filename": "отчёт.pdf", "absent": True})
    ]
    deleted = {"deleted": [{"id": "7", "sha256": "cd" * 32, "filename": "a.txt"}, {"id": "8", "sha256": "ef" * 32}]}
    assert _one(_done("ensure_attachment", {}, deleted))[0] == [
        ("ensure_attachment", {"key": KEY, "file": "cd" * 32, "filename": "a.txt"})
    ]
    assert _one(_done("ensure_attachment", {}, {})) == ([], ("nothing", "нечего возвращать"))


def test_an_issue_created_is_left_or_moved_along_the_settings_path_never_deleted() -> None:
    created = _done("ensure_issue", {}, {"created": "AURORA-1450"})
    assert _one(created) == ([], ("left", "задача AURORA-1450 создана пакетом и не удаляется"))
    one_step = Settings(undo=UndoSettings(created_issue=CreatedIssueUndo(mode="status", path=["Отменено"])))
    commands, (outcome, text) = _one(created, settings=one_step)
    assert commands == [("ensure_status", {"key": "AURORA-1450", "target": "Отменено"})]
    assert (outcome, text) == ("undone", "задача AURORA-1450 создана пакетом: не удаляется, переводится в «Отменено»")
    path = CreatedIssueUndo(mode="status", path=["Ревью", "Отменено"], label="откат")
    commands, (outcome, text) = _one(created, settings=Settings(undo=UndoSettings(created_issue=path)))
    assert commands == [
        ("ensure_status", {"key": "AURORA-1450", "target": ["Ревью", "Отменено"]}),
        ("ensure_fields", {"key": "AURORA-1450", "labels_add": ["откат"]}),
    ]
    assert text.endswith("переводится в «Отменено»")
    assert _one(_done("ensure_issue", {}, {"found": "AURORA-1450"})) == ([], ("nothing", "нечего возвращать"))


def test_what_a_result_does_not_say_is_named_not_guessed() -> None:
    """Confirmed by state, or reported before results said what they replaced: «не известно»; a status that moved
    nowhere and a sprint left as it was wrote nothing; a refresh and a command that never ran are not listed."""
    unknown = ("unknown", "что было до — не известно")
    by_state = _done("ensure_fields", {}, {"changed": {}}, status=CommandStatus.CONFIRMED_BY_STATE)
    assert _one(by_state) == ([], unknown)
    assert _one(_done("ensure_fields", {}, None, result={"changed": ["duedate"]})) == ([], unknown)
    assert _one(_done("ensure_fields", {}, None, result=None, wrote=False)) == ([], unknown)
    assert _one(_done("ensure_status", {"target": "Готово"}, {})) == ([], ("nothing", "нечего возвращать"))
    assert _one(_done("ensure_sprint", {}, {"from": S1, "to": S1})) == ([], ("nothing", "нечего возвращать"))
    silent = _done("ensure_fields", {}, None, result={"changed": []}, wrote=False)
    assert _one(silent) == ([], ("nothing", "нечего возвращать"))
    never = [
        _done("refresh", {}, {}, type="refresh"),
        _done("ensure_fields", {}, {}, status=CommandStatus.QUEUED, wrote=False),
        _done("ensure_fields", {}, {}, status=CommandStatus.CANCELLED, wrote=False),
    ]
    assert plan_undo(never, mirror={}, journal={}, settings=Settings()).items == ()


STATUS = {"from": "Разработка", "to": "Готово", "path": ["Ревью", "Готово"]}
CANCELLED_BY_IVANOV = [
    HistoryEntry(
        key=KEY,
        id="7",
        created="2026-12-02T10:14:00+00:00",
        author="ivanov",
        items=(HistoryItem(field="status", to_string="Отменено"),),
    )
]


@pytest.mark.parametrize(
    ("zone", "when"),
    [("Europe/Moscow", "02.12 13:14"), (None, "02.12 10:14"), ("", "02.12 10:14"), ("Nowhere/City", "02.12 10:14")],
)
def test_a_kept_aspect_names_who_changed_it_and_when_in_the_users_zone(zone: str | None, when: str) -> None:
    """The journal's author and time, in the Jira user's time zone (UTC when it has none or one no zone database
    knows); the status the batch reached is no longer there, so it is not walked back."""
    done = _done("ensure_status", {"target": "Готово"}, STATUS)
    plan = plan_undo(
        [done],
        mirror={KEY: MirrorIssue(key=KEY, status="Отменено")},
        journal={KEY: CANCELLED_BY_IVANOV},
        settings=Settings(),
        zone=zone,
    )
    assert plan.commands == ()
    assert [(i.outcome, i.text) for i in plan.items] == [
        ("kept", f"{KEY}: статус изменил ivanov {when} — не возвращается")
    ]
    assert [(k.command_id, k.key, k.aspect, k.now) for k in plan.kept] == [(1, KEY, "status", "Отменено")]


def test_a_kept_aspect_without_the_journal_is_changed_by_a_person() -> None:
    done = _done("ensure_status", {"target": "Готово"}, STATUS)
    plan = plan_undo(
        [done], mirror={KEY: MirrorIssue(key=KEY, status="Отменено")}, journal={}, settings=Settings(), zone="UTC"
    )
    assert [i.text for i in plan.items] == [f"{KEY}: статус изменил человек — не возвращается"]


@pytest.mark.parametrize(
    ("at", "when"),
    [("2026-12-02T10:14:00", "02.12 13:14"), ("2026-12-02T10:14:00+03:00", "02.12 10:14"), ("вчера", "вчера")],
)
def test_a_time_without_a_zone_is_utc_and_one_that_is_no_time_is_shown_as_it_is(at: str, when: str) -> None:
    kept = Kept(command_id=1, key=KEY, aspect="duedate", now=None, changed_by="ivanov", changed_at=at)
    assert kept.text("Europe/Moscow") == f"{KEY}: срок изменил ivanov {when} — не возвращается"


def test_a_status_goes_back_along_its_path_reversed() -> None:
    """Through the statuses passed, newest first, to the one before; while Jira shows the status reached (or the
    mirror does not hold the issue)."""
    done = _done("ensure_status", {"target": "Готово"}, STATUS)
    back = ("ensure_status", {"key": KEY, "target": ["Ревью", "Разработка"], "if_unchanged": {"status": "Готово"}})
    assert _one(done, MirrorIssue(key=KEY, status="Готово")) == ([back], ("undone", "возвращается"))
    assert _one(done) == ([back], ("undone", "возвращается"))


def test_fields_go_back_one_by_one_and_labels_the_other_way() -> None:
    """A field a person changed is kept and named, the next field still goes back; labels added are removed,
    labels removed added back."""
    undo = {
        "changed": {"duedate": {"from": "2026-10-01", "to": "2026-11-01"}, "summary": {"from": "a", "to": "b"}},
        "labels": {"added": ["x"], "removed": ["y", "z"]},
    }
    done = _done("ensure_fields", {}, undo)
    commands, (outcome, text) = _one(done, MirrorIssue(key=KEY, duedate="2026-12-01", summary="b"))
    assert commands == [
        (
            "ensure_fields",
            {
                "key": KEY,
                "summary": "a",
                "labels_remove": ["x"],
                "labels_add": ["y", "z"],
                "if_unchanged": {"summary": "b"},
            },
        )
    ]
    assert (outcome, text) == ("undone", f"{KEY}: срок изменил человек — не возвращается")
    assert _one(done)[0] == [
        (
            "ensure_fields",
            {
                "key": KEY,
                "duedate": "2026-10-01",
                "summary": "a",
                "labels_remove": ["x"],
                "labels_add": ["y", "z"],
                "if_unchanged": {"duedate": "2026-11-01", "summary": "b"},
            },
        )
    ]


def test_sprints_walk_back_per_issue_and_step_by_step() -> None:
    """Two issues moved alike go back each on its own; one issue moved twice goes back through the sprint between;
    a sprint a person changed is kept with what Jira holds."""
    S3 = {"id": 3, "name": "Спринт 3"}
    other = "AURORA-1446"
    moved = [
        _done("ensure_sprint", {"sprint": "Спринт 2"}, {"from": S1, "to": S2}),
        _done("ensure_sprint", {"key": other, "sprint": "Спринт 2"}, {"from": S1, "to": S2}, id=2, seq=2),
    ]
    plan = plan_undo(
        moved,
        mirror={KEY: _in_sprint("Спринт 2"), other: attrs.evolve(_in_sprint("Спринт 2"), key=other)},
        journal={},
        settings=Settings(),
    )
    assert [(c["params"]["key"], c["params"]["sprint"]) for c in plan.commands] == [
        (other, "Спринт 1"),
        (KEY, "Спринт 1"),
    ]
    twice = [
        _done("ensure_sprint", {"sprint": "Спринт 2"}, {"from": S1, "to": S2}),
        _done("ensure_sprint", {"sprint": "Спринт 3"}, {"from": S2, "to": S3}, id=2, seq=2),
    ]
    plan = plan_undo(twice, mirror={KEY: _in_sprint("Спринт 3")}, journal={}, settings=Settings())
    assert [(c["params"]["sprint"], c["params"]["if_unchanged"]) for c in plan.commands] == [
        ("Спринт 2", {"sprint": "Спринт 3"}),
        ("Спринт 1", {"sprint": "Спринт 2"}),
    ]
    plan = plan_undo(twice[:1], mirror={KEY: _in_sprint("Спринт 3")}, journal={}, settings=Settings())
    assert [(k.command_id, k.key, k.aspect, k.now) for k in plan.kept] == [(1, KEY, "sprint", "Спринт 3")]
    assert [i.text for i in plan.items] == [f"{KEY}: спринт изменил человек — не возвращается"]


def test_each_item_names_its_command_and_the_positions_of_its_inverse_in_the_undo_batch() -> None:
    """Newest first; an aspect set twice (the status) goes back through the value between; another issue's field
    is its own; a link replaced is two commands; kept aspects of one command are named one after another."""
    other = "AURORA-1446"
    old = {"id": "4", "type": "Связанные", "source": KEY, "target": "AURORA-3"}
    new = {"id": "5", "type": "Связанные", "source": KEY, "target": "AURORA-2"}
    three = {
        "duedate": {"from": "2026-10-01", "to": "2026-11-01"},
        "summary": {"from": "a", "to": "b"},
        "description": {"from": "было", "to": "стало"},
    }
    commands = [
        _done("ensure_status", {"target": "Ревью"}, {"from": "Разработка", "to": "Ревью", "path": ["Ревью"]}),
        _done(
            "ensure_status", {"target": "Готово"}, {"from": "Ревью", "to": "Готово", "path": ["Готово"]}, id=2, seq=2
        ),
        _done("ensure_link", {}, {"replaced": {"old": old, "new": new}, "removed": [old]}, id=3, seq=3),
        _done("ensure_fields", {"key": other}, {"changed": {"duedate": three["duedate"]}}, id=4, seq=4),
        _done("ensure_fields", {}, {"changed": three}, id=5, seq=5),
    ]
    mirror = {
        KEY: MirrorIssue(key=KEY, status="Готово", duedate="2026-12-01", summary="в", description="стало"),
        other: MirrorIssue(key=other, duedate="2026-11-01"),
    }
    plan = plan_undo(commands, mirror=mirror, journal={}, settings=Settings())
    assert [(c["type"], c["params"].get("key"), c["params"].get("target")) for c in plan.commands] == [
        ("ensure_fields", KEY, None),
        ("ensure_fields", other, None),
        ("ensure_link", None, "AURORA-2"),
        ("ensure_link", None, "AURORA-3"),
        ("ensure_status", KEY, "Ревью"),
        ("ensure_status", KEY, "Разработка"),
    ]
    assert plan.commands[-1]["params"]["if_unchanged"] == {"status": "Ревью"}
    assert [(i.command_id, i.seq, i.type, i.outcome, i.commands) for i in plan.items] == [
        (5, 5, "ensure_fields", "undone", (1,)),
        (4, 4, "ensure_fields", "undone", (2,)),
        (3, 3, "ensure_link", "undone", (3, 4)),
        (2, 2, "ensure_status", "undone", (5,)),
        (1, 1, "ensure_status", "undone", (6,)),
    ]
    assert plan.items[0].text == (
        f"{KEY}: срок изменил человек — не возвращается; {KEY}: тема изменил человек — не возвращается"
    )


def test_times_in_words_do_not_depend_on_the_machines_zone(monkeypatch: pytest.MonkeyPatch) -> None:
    """A time without an offset is UTC and a zone no database knows is UTC, whatever zone the hub runs in."""
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    try:
        naive = Kept(
            command_id=1, key=KEY, aspect="duedate", now=None, changed_by="ivanov", changed_at="2026-12-02T10:14:00"
        )
        assert naive.text(None) == f"{KEY}: срок изменил ivanov 02.12 10:14 — не возвращается"
        assert naive.text("Nowhere/City") == f"{KEY}: срок изменил ivanov 02.12 10:14 — не возвращается"
    finally:
        monkeypatch.undo()
        time.tzset()


def test_statuses_of_two_issues_walk_back_each_on_its_own() -> None:
    other = "AURORA-1446"
    moved = [
        _done("ensure_status", {"target": "Готово"}, STATUS),
        _done("ensure_status", {"key": other, "target": "Готово"}, STATUS, id=2, seq=2),
    ]
    mirror = {KEY: MirrorIssue(key=KEY, status="Готово"), other: MirrorIssue(key=other, status="Готово")}
    plan = plan_undo(moved, mirror=mirror, journal={}, settings=Settings())
    assert [(c["params"]["key"], c["params"]["target"]) for c in plan.commands] == [
        (other, ["Ревью", "Разработка"]),
        (KEY, ["Ревью", "Разработка"]),
    ]
    assert plan.kept == ()
