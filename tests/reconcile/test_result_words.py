"""Results, parameters and plan values in words (issue 27): each type's report read as a person reads it, with
the catalogue's Russian names of fields; dates as dates."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reconcile.outlook.readable import (
    aspect_label,
    drift_value,
    journal_field,
    journal_value,
    params_in_words,
    result_in_words,
    sprint_state,
)
from reconcile.types.result_words import (
    attachment_words,
    comment_words,
    fields_words,
    link_words,
    refresh_words,
    sprint_words,
    status_words,
)
from reconcile.vocabulary.catalogue import CATALOGUE
from reconcile.vocabulary.wording import field_change, field_name, field_value


@pytest.mark.parametrize(
    ("command_type", "params", "result", "words"),
    [
        ("ensure_issue", {"summary": "s"}, {"key": "AURORA-1590", "created": True}, ["создана AURORA-1590"]),
        ("ensure_issue", {"summary": "s"}, {"key": "AURORA-7", "created": False}, ["уже была: AURORA-7"]),
        (
            "ensure_fields",
            {"key": "A-1", "duedate": "2026-12-15", "labels_add": ["x", "y"], "priority": "High"},
            {"changed": ["duedate", "priority", "labels_add"]},
            ["приоритет → «High»", "срок → 15.12.2026", "добавить метки: x, y"],
        ),
        ("ensure_fields", {"key": "A-1", "duedate": None}, {"changed": ["duedate"]}, ["срок → пусто"]),
        ("ensure_fields", {"key": "A-1"}, {"changed": []}, ["поля уже такие: без изменений"]),
        ("ensure_comment", {}, {"comment_id": "1", "action": "created"}, ["комментарий добавлен"]),
        ("ensure_comment", {}, {"comment_id": "1", "action": "updated"}, ["комментарий изменён"]),
        ("ensure_comment", {}, {"comment_id": "1", "action": "none"}, ["комментарий уже такой"]),
        (
            "ensure_status",
            {},
            {"status": "Готово", "transitions": ["Разработка", "Готово"]},
            ["переходы: «Разработка» → «Готово»", "статус: «Готово»"],
        ),
        ("ensure_status", {}, {"status": "Готово", "transitions": []}, ["статус уже «Готово»"]),
        (
            "ensure_link",
            {"source": "A-1", "target": "A-2"},
            {"existed": False, "link_id": "10", "removed": ["7"]},
            ["удалены конфликтующие связи: 7", "связь A-1 → A-2 создана"],
        ),
        (
            "ensure_link",
            {"source": "A-1", "target": "A-2"},
            {"existed": True, "link_id": "3"},
            ["связь A-1 → A-2 уже была"],
        ),
        ("ensure_sprint", {"sprint": "Спринт 2"}, {"sprint_id": 5, "moved": True}, ["перенесена в спринт «Спринт 2»"]),
        ("ensure_sprint", {"sprint": "backlog"}, {"sprint_id": None, "moved": False}, ["уже в: бэклог"]),
        ("ensure_attachment", {"filename": "ОСВ.xlsx"}, {"uploaded": True}, ["вложение «ОСВ.xlsx» загружено"]),
        ("ensure_attachment", {"filename": "ОСВ.xlsx"}, {"uploaded": False}, ["вложение «ОСВ.xlsx» уже было"]),
        (
            "refresh",
            {"jql": "labels = AWPCA"},
            {"issues": 12, "neighbours": 3, "history": {"entries": 5}, "unreadable": [{"key": "A-9", "error": "e"}]},
            ["прочитано задач: 12, связанных: 3", "записей журнала: 5", "не прочитаны: A-9"],
        ),
        (
            "refresh",
            {"jql": "x"},
            {"issues": 2, "changes": True, "history": {"error": "HTTP 503: Service Unavailable"}},
            ["прочитано задач: 2 (только изменения)", "журнал не прочитан: HTTP 503: Service Unavailable"],
        ),
        (
            "refresh",
            {"keys": ["A-1"]},
            {"issues": 1, "boards": {"9001": None}, "refused_boards": [{"id": "9001", "error": "доска 9001 не в …"}]},
            ["прочитано задач: 1", "доска 9001 не в …"],
        ),
    ],
)
def test_each_types_result_in_words(
    command_type: str, params: dict[str, Any], result: dict[str, Any], words: list[str]
) -> None:
    """What the agent reported, in the words the page shows."""
    assert result_in_words(command_type, params, result) == words


def test_no_result_or_an_unknown_type_says_nothing() -> None:
    """Nothing to say: no words (the page shows the JSON, if any)."""
    assert result_in_words("ensure_issue", {}, None) == []
    assert result_in_words("ensure_nothing", {}, {"key": "A-1"}) == []
    assert result_in_words("ensure_issue", {}, {"key": 5}) == []


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
_keys = st.sampled_from(
    [
        "key",
        "created",
        "changed",
        "action",
        "status",
        "transitions",
        "existed",
        "link_id",
        "removed",
        "moved",
        "uploaded",
        "issues",
        "neighbours",
        "history",
        "unreadable",
        "refused_boards",
        "changes",
    ]
)


@given(
    command_type=st.sampled_from(sorted(CATALOGUE)),
    result=st.dictionaries(_keys, _json, max_size=6),
    params=st.dictionaries(st.sampled_from(["duedate", "labels_add", "sprint", "filename", "source"]), _json),
)
def test_any_result_shape_gives_words_never_an_error(
    command_type: str, result: dict[str, Any], params: dict[str, Any]
) -> None:
    """A partial, older or odd result gives fewer words, never an error: the page always renders."""
    words = result_in_words(command_type, params, result)
    assert all(isinstance(word, str) and word for word in words)


def test_parameters_by_their_labels_in_the_catalogues_order() -> None:
    """Each parameter given, named as the editor names it (``target`` is the status path of ensure_status and the
    issue linked to of ensure_link); one the type does not name (the hub's own) by its name."""
    assert params_in_words("ensure_fields", {"duedate": "2026-10-23", "key": "A-1", "boards": [1]}) == [
        ("Задача", "«A-1»"),
        ("Срок", "23.10.2026"),
        ("boards", "1"),
    ]
    assert params_in_words("ensure_status", {"key": "A-1", "target": ["В работе", "Готово"]})[1] == (
        "Статус или путь",
        "В работе, Готово",
    )
    assert params_in_words("ensure_link", {"source": "A-1", "target": "A-2", "link_type": "блокирует"})[1] == (
        "Куда",
        "«A-2»",
    )
    # A stored command of a type the hub no longer knows: each parameter by its name, never an error.
    assert params_in_words("ensure_nothing", {"key": "A-1", "duedate": "2026-10-23"}) == [
        ("key", "«A-1»"),
        ("duedate", "23.10.2026"),
    ]


def test_fields_are_named_and_dated_as_a_person_reads_them() -> None:
    """«срок: 23.10 → 15.12» in one year, with the year across years or from nothing; other values quoted."""
    assert field_name("duedate") == "срок"
    assert field_name("planned_start") == "плановое начало"
    assert field_name("labels") == "метки"
    assert field_name("no_such_field") == "no_such_field"
    assert field_change("duedate", "2026-10-23", "2026-12-15") == "срок: 23.10 → 15.12"
    assert field_change("duedate", "2026-12-23", "2027-01-15") == "срок: 23.12.2026 → 15.01.2027"
    assert field_change("duedate", None, "2026-12-15") == "срок: пусто → 15.12.2026"
    assert field_change("priority", "Low", "High") == "приоритет: «Low» → «High»"
    assert field_value("duedate", "23 октября") == "«23 октября»"


def test_sprint_states_and_journal_fields_in_russian() -> None:
    """active/future/closed in Russian, an unknown state as Jira says it; journal fields and dates for people."""
    assert [sprint_state(s) for s in ("active", "future", "closed", "weird", None)] == [
        "активный",
        "будущий",
        "закрыт",
        "weird",
        "—",
    ]
    assert [journal_field(f) for f in ("duedate", "labels", "status", "Sprint", "customfield_9")] == [
        "Срок",
        "Метки",
        "Статус",
        "Спринт",
        "customfield_9",
    ]
    assert journal_value("duedate", None, "2026-10-20 00:00:00.0") == "20.10.2026"
    assert journal_value("duedate", "2026-10-20", None) == "20.10.2026"
    assert journal_value("duedate", None, None) == "—"
    assert journal_value("status", "3", "Разработка") == "Разработка"
    assert journal_value("summary", "x", None) == "x"


def test_a_links_journal_line_is_in_russian() -> None:
    """Issue 32: Jira writes a link's change as «This issue блокирует начало AURORA-1538»; the page says only the
    link type's words and the other issue — one language — and leaves any other text as Jira wrote it."""
    assert journal_value("Link", "AURORA-1538", "This issue блокирует начало AURORA-1538") == (
        "блокирует начало AURORA-1538"
    )
    assert journal_value("Link", None, None) == "—"
    assert journal_value("Comment", None, "This issue was once resolved") == "This issue was once resolved"


def test_drifted_aspects_in_words() -> None:
    """«Что»: the field's label, a label, the state's part; «Задано»/«Сейчас»: dates, yes/no, links, the backlog."""
    assert [aspect_label(a) for a in ("duedate", "label:AWPCA", "status", "sprint", "link", "issue", "x")] == [
        "Срок",
        "Метка AWPCA",
        "Статус",
        "Спринт",
        "Связь",
        "Задача",
        "x",
    ]
    assert drift_value("2026-10-23", "duedate") == "23.10.2026"
    assert (drift_value(True, "label:AWPCA"), drift_value(False, "label:AWPCA")) == ("есть", "нет")
    link = {"source": "A-1", "target": "A-2", "type": "Блокирует"}
    assert drift_value(link, "link") == "«Блокирует» A-1 → A-2"
    assert drift_value([link, link], "link") == "«Блокирует» A-1 → A-2; «Блокирует» A-1 → A-2"
    assert drift_value([], "link") == "нет связи"
    assert drift_value("backlog", "sprint") == "бэклог"
    assert drift_value("Спринт 2", "sprint") == "«Спринт 2»"
    assert drift_value("backlog", "summary") == "«backlog»"
    assert drift_value(None, "priority") == "пусто"


SHA64 = "ab" * 32
DUE_CONFLICT = {"field": "duedate", "expected": "2026-10-01", "found": "2026-11-01"}


@pytest.mark.parametrize(
    ("rule", "params", "result", "words"),
    [
        (
            fields_words,
            {"key": "A-1", "duedate": "2026-12-15", "summary": "Новая", "labels_add": ["x", "y"]},
            {
                "changed": ["summary", "duedate", "labels_add"],
                "undo": {"changed": {"duedate": {"from": "2026-10-01", "to": "2026-12-15"}}},
            },
            ["тема → «Новая»", "срок: 01.10 → 15.12", "добавить метки: x, y"],
        ),
        (
            fields_words,
            {"key": "A-1", "summary": "Новая", "labels_remove": ["z"]},
            {"changed": ["summary", "labels_remove"], "conflicts": [DUE_CONFLICT]},
            ["тема → «Новая»", "убрать метки: z", "срок не изменён: в Jira 01.11.2026, ожидалось 01.10.2026"],
        ),
        (
            fields_words,
            {"key": "A-1", "duedate": "2026-12-15"},
            {"changed": [], "conflicts": [DUE_CONFLICT]},
            ["срок не изменён: в Jira 01.11.2026, ожидалось 01.10.2026"],
        ),
        (fields_words, {"key": "A-1", "duedate": "2026-12-15"}, {"changed": []}, ["поля уже такие: без изменений"]),
        (fields_words, {"key": "A-1", "duedate": "2026-12-15"}, {}, []),
        (comment_words, {}, {"action": "created"}, ["комментарий добавлен"]),
        (comment_words, {}, {"action": "updated"}, ["комментарий изменён"]),
        (comment_words, {"absent": True}, {"action": "deleted"}, ["комментарий удалён"]),
        (comment_words, {}, {"action": "none"}, ["комментарий уже такой"]),
        (comment_words, {"absent": True}, {"action": "none"}, ["комментария нет"]),
        (comment_words, {}, {"action": "other"}, []),
        (comment_words, {}, {"action": 5}, []),
        (
            link_words,
            {"source": "A-1", "target": "A-2", "present": False},
            {"removed": ["7"]},
            ["связь A-1 → A-2 удалена"],
        ),
        (link_words, {"source": "A-1", "target": "A-2", "present": False}, {"removed": []}, ["связь A-1 → A-2 нет"]),
        (link_words, {"source": "A-1", "target": "A-2", "present": False}, {}, []),
        (
            link_words,
            {"source": "A-1", "target": "A-2"},
            {"removed": ["7", "8"], "existed": False, "link_id": "9"},
            ["удалены конфликтующие связи: 7, 8", "связь A-1 → A-2 создана"],
        ),
        (
            link_words,
            {"source": "A-1", "target": "A-2"},
            {"existed": True, "link_id": "9"},
            ["связь A-1 → A-2 уже была"],
        ),
        (link_words, {"source": "A-1", "target": "A-2"}, {"link_id": "9"}, []),
        (link_words, {"source": "A-1", "target": "A-2"}, {"existed": False, "link_id": None}, []),
        (attachment_words, {"file": SHA64, "filename": "f.txt"}, {"uploaded": True}, ["вложение «f.txt» загружено"]),
        (attachment_words, {"file": SHA64, "filename": "f.txt"}, {"uploaded": False}, ["вложение «f.txt» уже было"]),
        (
            attachment_words,
            {"file": SHA64, "absent": True},
            {"uploaded": False, "deleted": 2},
            ["вложение «abababababab…» удалено"],
        ),
        (
            attachment_words,
            {"file": SHA64, "filename": "f.txt", "absent": True},
            {"uploaded": False, "deleted": 0},
            ["вложения «f.txt» нет"],
        ),
        (attachment_words, {"file": SHA64}, {}, []),
        (
            status_words,
            {},
            {"status": "Готово", "transitions": ["Ревью", "Готово"]},
            ["переходы: «Ревью» → «Готово»", "статус: «Готово»"],
        ),
        (status_words, {}, {"status": "Готово", "transitions": []}, ["статус уже «Готово»"]),
        (
            status_words,
            {},
            {"status": "Ревью", "conflicts": [{"field": "status", "expected": "Разработка", "found": "Ревью"}]},
            ["статус не изменён: в Jira «Ревью», ожидалось «Разработка»"],
        ),
        (
            refresh_words,
            {},
            {
                "issues": 3,
                "neighbours": 2,
                "changes": True,
                "history": {"entries": 4},
                "unreadable": [{"key": "A-1", "error": "x"}, 5],
                "refused_boards": [{"error": "доска 7: нет"}, "x"],
            },
            [
                "прочитано задач: 3, связанных: 2 (только изменения)",
                "записей журнала: 4",
                "не прочитаны: A-1",
                "доска 7: нет",
            ],
        ),
        (
            refresh_words,
            {},
            {"issues": 3, "history": {"error": "HTTP 500"}},
            ["прочитано задач: 3", "журнал не прочитан: HTTP 500"],
        ),
        (refresh_words, {}, {"issues": "3", "history": {"entries": "4"}, "unreadable": [], "refused_boards": []}, []),
        (refresh_words, {}, {"unreadable": 7, "refused_boards": 7}, []),
        (
            refresh_words,
            {},
            {"unreadable": [{"key": "A-1"}, {"key": "A-2"}], "refused_boards": {"error": "x"}},
            ["не прочитаны: A-1, A-2"],
        ),
        (sprint_words, {"sprint": "backlog"}, {"moved": True}, ["перенесена в бэклог"]),
        (sprint_words, {"sprint": None}, {"moved": False}, ["уже в: бэклог"]),
        (sprint_words, {"sprint": "С2"}, {"moved": True}, ["перенесена в спринт «С2»"]),
        (sprint_words, {"sprint": "С2"}, {}, []),
        (
            sprint_words,
            {"sprint": "С2"},
            {"moved": False, "conflicts": [{"field": "sprint", "expected": "С1", "found": "С3"}]},
            ["спринт не изменён: в Jira «С3», ожидалось «С1»"],
        ),
    ],
)
def test_a_result_in_words(rule: Any, params: dict[str, Any], result: dict[str, Any], words: list[str]) -> None:
    """What the report says, in the order a person reads it; what the result does not say gives no words."""
    assert rule(params, result) == words


def test_a_change_of_date_leaves_the_year_out_only_between_two_dates_of_one_year() -> None:
    assert field_change("duedate", "2026-10-01", "2026-12-15") == "срок: 01.10 → 15.12"
    assert field_change("duedate", "2025-10-01", "2026-12-15") == "срок: 01.10.2025 → 15.12.2026"
    assert field_change("duedate", "2026-xx", "2026-12-15") == "срок: «2026-xx» → 15.12.2026"
    assert field_change("duedate", "2026-10-01", None) == "срок: 01.10.2026 → пусто"
