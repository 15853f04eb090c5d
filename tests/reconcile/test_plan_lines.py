"""Plan lines: each command's predicted writes as a person reads them (+ create, ~ old → new, - delete,
= no changes, ! fails or is skipped), and what the plan cannot know yet marked unknown."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reconcile.batches.validation import BatchContext, NewCommand, ProjectInfo, validate_batch
from reconcile.config.settings import Settings
from reconcile.outlook.dryrun import Prediction, predict_commands, with_issues_to_be_created
from reconcile.outlook.plan_lines import CommandPlan, PlanLine, plan_command, plan_commands, temp_key_unknown, totals
from reconcile.vocabulary.records import MirrorIssue, MirrorLink
from tests.support import cmd

from .test_dryrun import MIRROR, NOW, SETTINGS

SPRINTS_UNKNOWN = "спринты доски зеркалу не известны: спринт считается существующим"


def plans_of(*commands: dict[str, Any]) -> tuple[CommandPlan, ...]:
    """The plans of a batch's commands, its tail refresh included."""
    ctx = BatchContext(
        settings=SETTINGS,
        projects={"AWPCA": ProjectInfo(name="AWPCA", board_id=4216, board_type="scrum")},
        mirror_labels={k: v.labels for k, v in MIRROR.items()},
        files={"a" * 64: 10},
    )
    valid = validate_batch({"author": "a", "title": "t", "commands": list(commands)}, ctx).commands
    predictions = predict_commands(
        valid,
        mirror=MIRROR,
        settings=SETTINGS,
        jira_user="bridge-user",
        symmetric_link_types=frozenset({"Связанные"}),
        now=NOW,
    )
    issues = with_issues_to_be_created(valid, MIRROR, jira_user="bridge-user", now=NOW)
    return plan_commands(valid, predictions, issues=issues, settings=SETTINGS)


def plan(*commands: dict[str, Any]) -> list[tuple[int, list[tuple[str, str, bool]], list[str]]]:
    """(seq, lines, unknown) of each command but the tail refresh."""
    plans = plans_of(*commands)
    return [(p.seq, [(x.sign, x.text, x.unknown) for x in p.lines], list(p.unknown)) for p in plans[:-1]]


def test_nothing_to_do_reads_as_no_changes() -> None:
    """Our issue found by its summary, fields equal (CRLF too), status reached, link there, sprint set."""
    assert plan(
        cmd("ensure_issue", temp_key="new:1", summary="Отчёт"),
        cmd("ensure_fields", key="AURORA-1533", description="а\nб"),
        cmd("ensure_status", key="AURORA-1533", target="Разработка"),
        cmd("ensure_link", source="AURORA-1537", target="AURORA-1538", link_type="блокирует начало"),
        cmd("ensure_sprint", key="AURORA-1538", sprint="Спринт 2"),
    ) == [
        (1, [("=", "нет изменений: задача «Отчёт» уже есть — AURORA-1600", False)], []),
        (2, [("=", "нет изменений", False)], []),
        (3, [("=", "нет изменений: статус уже «Разработка»", False)], []),
        (4, [("=", "нет изменений: связь «Блокирует начало» AURORA-1537 → AURORA-1538 есть", False)], []),
        (
            5,
            [("=", "нет изменений: спринт «Спринт 2»", False)],
            ["спринты доски зеркалу не известны: спринт считается существующим"],
        ),
    ]


def test_changes_read_old_to_new_and_long_texts_are_cut() -> None:
    """~ field: old → new; a long description is cut with …, line breaks shown; clearing reads «пусто»."""
    long = "строка\n" + "х" * 100
    [(seq, lines, unknown)] = plan(cmd("ensure_fields", key="AURORA-1533", description=long, summary=None))
    assert (seq, unknown) == (1, [])
    assert lines == [
        ("~", "тема: «Сверка» → пусто", False),
        ("~", f"описание: «а ⏎ б» → «строка ⏎ {'х' * 70}…»", False),
    ]


def test_conflict_without_replace_and_unknown_issue_fail() -> None:
    """A conflicting link without replace fails for sure; an issue the mirror never saw fails as unknown."""
    assert plan(
        cmd("ensure_link", source="AURORA-1537", target="AURORA-1538", link_type="связанные"),
        cmd("ensure_status", key="AURORA-9", target="Готово"),
    ) == [
        (
            1,
            [
                (
                    "!",
                    "ошибка: конфликт: связь «Блокирует начало» AURORA-1537 → AURORA-1538 (id 10007); "
                    "нужна «Связанные»; replace не задан",
                    False,
                )
            ],
            [],
        ),
        (
            2,
            [("!", "ошибка: HTTP 404: задачи AURORA-9 нет в зеркале — прогноз невозможен", True)],
            ["задачи AURORA-9 нет в зеркале — обновите зеркало (refresh), чтобы увидеть план"],
        ),
    ]


def test_what_the_mirror_cannot_know_is_unknown() -> None:
    """Created keys, comments, transitions, sprint ids and attachments are marked unknown with the reason."""
    result = plan(
        cmd("ensure_issue", temp_key="new:1", summary="Новая", labels=["AWPCA"], description="d"),
        cmd("ensure_comment", key="new:1", marker="[m]", body="[m] текст"),
        cmd("ensure_status", key="AURORA-1538", target="Готово"),
        cmd("ensure_sprint", key="AURORA-1533", sprint="Спринт 3"),
        cmd("ensure_sprint", key="AURORA-1538", sprint="backlog"),
        cmd("ensure_attachment", key="AURORA-1533", file="a" * 64, filename="f.xlsx"),
    )
    assert result == [
        (
            1,
            [("+", "задача «Новая» в AURORA: тип «Задача»; описание «d»; метки AWPCA", True)],
            ["ключ задачи new:1 станет известен только после её создания"],
        ),
        (
            2,
            [("+", "комментарий «[m] текст»", True)],
            [
                "ключ задачи new:1 станет известен только после её создания",
                "комментарии зеркалу не известны: предсказана запись, если комментария с маркером нет",
            ],
        ),
        (
            3,
            [("~", "статус: пусто → «Готово»", True)],
            ["переходы рабочего процесса зеркалу не известны: путь считается проходимым"],
        ),
        (
            4,
            [("~", "спринт: бэклог → «Спринт 3»", True)],
            [SPRINTS_UNKNOWN, "id спринта агент найдёт по имени на доске проекта"],
        ),
        (5, [("~", "спринт: «Спринт 2» → бэклог", False)], []),
        (6, [("+", "вложение «f.xlsx»", True)], ["вложения зеркалу не известны: предсказана загрузка"]),
    ]


def test_a_skipped_command_says_why() -> None:
    """A command whose temp key will never exist is planned as skipped with the seed's message, no writes."""
    command = NewCommand(seq=2, type="ensure_comment", params={"key": "new:9", "marker": "m", "body": "b"})
    planned = plan_command(command, None, issues={}, settings=SETTINGS, skip="создание задачи new:9 отменено")
    assert planned.lines == (PlanLine(sign="!", text="пропуск: создание задачи new:9 отменено"),)
    assert planned.writes == ()


@given(st.lists(st.sampled_from(["AURORA-1600", "AURORA-1537", "AURORA-1538"]), min_size=1, max_size=4))
def test_every_predicted_write_has_its_line_and_totals_count_them(keys: list[str]) -> None:
    """Each differing field is one ~ line old → new; the tail refresh reads only; totals count the lines."""
    commands = [cmd("ensure_fields", key=key, duedate=f"2026-11-{n + 10}") for n, key in enumerate(keys)]
    plans = plans_of(*commands)
    assert [[(x.sign, x.text) for x in p.lines] for p in plans[:-1]] == [
        [("~", f"срок: пусто → {n + 10}.11.2026")] for n in range(len(keys))
    ]
    assert [len(p.writes) for p in plans] == [1] * len(keys) + [0]
    assert totals(plans) == {"+": 0, "~": len(keys), "-": 0}


def predicted(command: NewCommand, *writes: dict[str, Any], **result: Any) -> Prediction:
    return Prediction(seq=command.seq, type=command.type, writes=writes, status="done", result=result)


def test_a_refresh_plan_reads_every_key_of_its_list_once() -> None:
    """A refresh's ``keys`` are each looked at: one still to be created and one the mirror lacks are unknown, once."""
    refresh = NewCommand(seq=3, type="refresh", params={"keys": ["new:1", "AURORA-9", "AURORA-9", "new:1"]})
    plan = plan_command(refresh, predicted(refresh), issues={}, settings=Settings(), created=["new:1"])
    assert plan.unknown == (
        temp_key_unknown("new:1"),
        "задачи AURORA-9 ещё нет в зеркале — этот refresh прочтёт её из Jira, если она там есть",
    )


def test_only_temp_keys_still_to_be_created_make_a_plan_unknown() -> None:
    """A temp key the batch no longer has to create adds no «станет известен» reason."""
    fields = NewCommand(seq=2, type="ensure_fields", params={"key": "new:1", "duedate": "2026-10-23"})
    issues = {"new:1": MirrorIssue(key="new:1")}
    plan = plan_command(fields, predicted(fields, changed=["duedate"]), issues=issues, settings=Settings(), created=())
    assert plan.unknown == ()
    assert plan.lines == (PlanLine(sign="~", text="срок: пусто → 23.10.2026"),)


def test_an_issue_to_be_created_names_its_own_key_first_then_its_epic() -> None:
    """An ensure_issue that creates: its own temp key is the first reason, before the temp keys it names."""
    issue = NewCommand(
        seq=2, type="ensure_issue", params={"temp_key": "new:2", "summary": "Б", "epic_key": "new:1"}, temp_key="new:2"
    )
    write = {"method": "POST", "path": "/rest/api/2/issue", "json": {}}
    plan = plan_command(issue, predicted(issue, write), issues={}, settings=Settings(), created=["new:1", "new:2"])
    assert plan.unknown == (temp_key_unknown("new:2"), temp_key_unknown("new:1"))


def test_fields_after_both_label_lists_still_get_their_lines() -> None:
    """labels_add and labels_remove make one labels line; the fields after them in the catalogue follow it."""
    fields = NewCommand(
        seq=1,
        type="ensure_fields",
        params={"key": "A-1", "labels_add": ["b"], "labels_remove": ["a"], "epic_key": "A-9", "assignee": "ivanov"},
    )
    issues = {"A-1": MirrorIssue(key="A-1", labels=("a",))}
    changed = ["labels_add", "labels_remove", "epic_key", "assignee"]
    plan = plan_command(fields, predicted(fields, changed=changed), issues=issues, settings=Settings())
    assert plan.lines == (
        PlanLine(sign="~", text="метки: a → b"),
        PlanLine(sign="~", text="эпик: пусто → «A-9»"),
        PlanLine(sign="~", text="исполнитель: пусто → «ivanov»"),
    )


def test_a_new_link_naming_a_temp_key_at_either_end_is_unknown() -> None:
    """A link to be created between a temp key and a real one rests on the key to come, whichever end it is."""
    for source, target in (("new:1", "A-1"), ("A-1", "new:1")):
        link = NewCommand(
            seq=2, type="ensure_link", params={"source": source, "target": target, "link_type": "связанные"}
        )
        write = {"method": "POST", "path": "/rest/api/2/issueLink", "json": {}}
        plan = plan_command(link, predicted(link, write), issues={}, settings=Settings(), created=())
        assert plan.lines == (PlanLine(sign="+", text=f"связь «Связанные» {source} → {target}", unknown=True),)
    real = NewCommand(seq=2, type="ensure_link", params={"source": "A-1", "target": "A-2", "link_type": "связанные"})
    write = {"method": "POST", "path": "/rest/api/2/issueLink", "json": {}}
    plan = plan_command(real, predicted(real, write), issues={}, settings=Settings())
    assert plan.lines == (PlanLine(sign="+", text="связь «Связанные» A-1 → A-2", unknown=False),)


def test_a_deleted_link_is_named_by_the_last_part_of_its_path() -> None:
    """The id of a DELETE is the path's last segment, and the mirror's link of that id is described."""
    link = NewCommand(seq=1, type="ensure_link", params={"source": "A-1", "target": "A-2", "link_type": "связанные"})
    issues = {
        "A-1": MirrorIssue(key="A-1", links=(MirrorLink(id="501", type="Блокирует", source="A-1", target="A-3"),))
    }
    write = {"method": "DELETE", "path": "/rest/api/2/issueLink/501"}
    plan = plan_command(link, predicted(link, write), issues=issues, settings=Settings())
    assert plan.lines[0] == PlanLine(sign="-", text="связь «Блокирует» A-1 → A-3 (id 501)")


def test_a_skipped_command_keeps_its_seq_type_and_subject() -> None:
    """A skipped command's plan is one «пропуск» line under the command's own seq, type and subject."""
    fields = NewCommand(seq=4, type="ensure_fields", params={"key": "new:1", "duedate": "2026-10-23"})
    plans = plan_commands([fields], [None], issues={}, settings=Settings(), skips={4: "задача new:1 не создана"})
    assert plans == (
        CommandPlan(
            seq=4,
            type="ensure_fields",
            subject="new:1",
            lines=(PlanLine(sign="!", text="пропуск: задача new:1 не создана"),),
        ),
    )


def test_plans_need_one_prediction_per_command() -> None:
    """Predictions pair with commands by position: a list of another length is a caller's error, not a short plan."""
    fields = NewCommand(seq=1, type="ensure_fields", params={"key": "A-1", "duedate": "2026-10-23"})
    with pytest.raises(ValueError):
        plan_commands([fields, fields], [predicted(fields)], issues={}, settings=Settings())
