"""Jira's issue JSON read into mirror records: sprints in both forms, links, times, dates, epics, changelogs."""

from __future__ import annotations

import time
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reconcile.config.settings import EpicLink, Settings
from reconcile.jira.model import (
    SprintInfo,
    epic_key_of,
    histories_from_jira,
    issue_fields,
    issue_from_jira,
    links_from_jira,
    mirror_fields,
    parse_sprint_string,
    sprint_infos,
    sprint_of,
    to_utc_z,
)
from reconcile.vocabulary.errors import JiraAnswerError
from reconcile.vocabulary.records import HistoryEntry, HistoryItem, MirrorIssue, MirrorLink, SprintRef

SETTINGS = Settings()
PARENT = attrs.evolve(SETTINGS, epic_link=EpicLink(mode="parent", field_id=None))
PREFIX = "com.atlassian.greenhopper.service.sprint.Sprint@1a2b"


def _greenhopper(**props: str) -> str:
    return PREFIX + "[" + ",".join(f"{k}={v}" for k, v in props.items()) + "]"


def _refused(call: Any) -> str:
    with pytest.raises(JiraAnswerError) as info:
        call()
    return info.value.message


# --- the sprint field -------------------------------------------------------------------------------------


def test_a_greenhopper_string_is_read_with_null_as_none() -> None:
    """The old string form: every property, ``<null>`` read as None."""
    text = _greenhopper(id="7", rapidViewId="4216", state="ACTIVE", name="Спринт 2", goal="<null>", sequence="7")
    assert parse_sprint_string(text) == {
        "id": "7",
        "rapidViewId": "4216",
        "state": "ACTIVE",
        "name": "Спринт 2",
        "goal": None,
        "sequence": "7",
    }


def test_names_and_goals_may_hold_commas_brackets_and_equals() -> None:
    """Only ``,<known key>=`` can end a value, and a value must fit its key: a name holding «,state=x» that
    would leave state twice is read as part of the name."""
    text = _greenhopper(id="7", name="A, b=[c],state=ok", state="FUTURE", goal="g, id=8")
    assert parse_sprint_string(text) == {"id": "7", "name": "A, b=[c],state=ok", "state": "FUTURE", "goal": "g, id=8"}
    assert parse_sprint_string("id=3,name=x") == {"id": "3", "name": "x"}


def test_a_key_already_read_inside_a_name_does_not_end_the_search_for_the_next_boundary() -> None:
    """A name holding «,id=8» after the id was read: that place is passed over, and the real boundary after it
    (``,state=``) still ends the name."""
    assert parse_sprint_string("id=7,name=a,id=8,state=ACTIVE") == {"id": "7", "name": "a,id=8", "state": "ACTIVE"}


def test_a_value_of_the_wrong_shape_moves_the_boundary() -> None:
    """An id must be digits, a state letters, a flag true/false, a date without commas: a split that breaks
    this is not taken."""
    text = _greenhopper(id="7", name="a,id=x", state="CLOSED", synced="false", startDate="2026-10-01T10:00")
    assert parse_sprint_string(text) == {
        "id": "7",
        "name": "a,id=x",
        "state": "CLOSED",
        "synced": "false",
        "startDate": "2026-10-01T10:00",
    }


def test_what_is_no_sprint_string_raises() -> None:
    """No ``key=`` at the start, or no split where each value fits: ValueError naming the text."""
    with pytest.raises(ValueError, match="не строка спринта: 'Спринт 2'"):
        parse_sprint_string("Спринт 2")
    with pytest.raises(ValueError, match="не разобрать строку спринта"):
        parse_sprint_string(PREFIX + "[id=x7]")
    with pytest.raises(ValueError, match="не разобрать строку спринта"):
        parse_sprint_string("[synced=maybe]")
    with pytest.raises(ValueError, match="не разобрать строку спринта"):
        parse_sprint_string(_greenhopper(id="7", state="A B", name="n"))


free_text = st.text(alphabet=st.sampled_from("аb ,=[]<>"), max_size=12)


@given(
    sprint_id=st.integers(min_value=1, max_value=10**9),
    name=free_text,
    goal=free_text,
    state=st.sampled_from(["ACTIVE", "FUTURE", "CLOSED"]),
    sequence=st.integers(min_value=1, max_value=10**6),
)
def test_any_rendered_sprint_reads_back(sprint_id: int, name: str, goal: str, state: str, sequence: int) -> None:
    """Whatever the name and goal hold, a rendered sprint string reads back property by property."""
    props = {"id": str(sprint_id), "rapidViewId": "4216", "state": state, "name": name, "goal": goal}
    props["sequence"] = str(sequence)
    parsed = parse_sprint_string(_greenhopper(**props))
    assert parsed == {k: (None if v == "<null>" else v) for k, v in props.items()}


def test_sprint_infos_read_both_forms_and_leave_out_what_they_cannot() -> None:
    """Objects and strings, in the field's order; an id of another shape, a bool or nothing drops the entry;
    the state is lower case; a lone value is a list of one."""
    field = [
        {"id": 6, "name": "Спринт 1", "state": "CLOSED", "sequence": 6},
        _greenhopper(id="7", state="ACTIVE", name="Спринт 2", sequence="<null>"),
        {"id": "8", "name": "Спринт 3", "state": "future", "sequence": "9"},
        {"id": True, "name": "x"},
        {"id": "x8", "name": "x"},
        {"name": "без id"},
        "мусор",
        5,
    ]
    assert sprint_infos(field) == [
        SprintInfo(id=6, name="Спринт 1", state="closed", sequence=6),
        SprintInfo(id=7, name="Спринт 2", state="active", sequence=None),
        SprintInfo(id=8, name="Спринт 3", state="future", sequence=9),
    ]
    assert sprint_infos({"id": 9}) == [SprintInfo(id=9, name="", state="", sequence=None)]
    assert sprint_infos(None) == []
    assert [info.is_open for info in sprint_infos(field)] == [False, True, True]


def test_the_mirror_keeps_the_active_sprint_else_the_latest_future_one() -> None:
    """Active wins; among future sprints the highest sequence, then id (an id stands in for a missing
    sequence); closed ones never."""
    active = {"id": 7, "name": "A", "state": "active"}
    early = {"id": 9, "name": "F1", "state": "future", "sequence": 1}
    late = {"id": 8, "name": "F2", "state": "future", "sequence": 2}
    assert sprint_of([early, active, late]) == SprintRef(id=7, name="A", state="active")
    assert sprint_of([early, late]) == SprintRef(id=8, name="F2", state="future")
    assert sprint_of([{"id": 3, "name": "a", "state": "future"}, {"id": 2, "name": "b", "state": "future"}]) == (
        SprintRef(id=3, name="a", state="future")
    )
    tie = [
        {"id": 4, "name": "a", "state": "future", "sequence": 5},
        {"id": 5, "name": "b", "state": "future", "sequence": 5},
    ]
    assert sprint_of(tie) == SprintRef(id=5, name="b", state="future")
    assert sprint_of([{"id": 1, "name": "c", "state": "closed"}]) is None
    assert sprint_of(None) is None


# --- links, times, dates, epics ---------------------------------------------------------------------------


def test_links_are_read_as_inward_to_outward() -> None:
    """Seen from X, ``outwardIssue: Y`` is X → Y and ``inwardIssue: Y`` is Y → X; ids become strings."""
    raw = [
        {"id": 10, "type": {"name": "Блокирует"}, "outwardIssue": {"key": "X-2"}},
        {"id": "11", "type": {"name": "Связанные"}, "inwardIssue": {"key": "X-3"}},
    ]
    assert links_from_jira("X-1", raw) == (
        MirrorLink(id="10", type="Блокирует", source="X-1", target="X-2"),
        MirrorLink(id="11", type="Связанные", source="X-3", target="X-1"),
    )
    assert links_from_jira("X-1", None) == ()


def test_a_link_that_cannot_be_read_names_its_place() -> None:
    """Each unreadable part of a link is named by its index and field."""
    ok = {"id": "1", "type": {"name": "T"}, "outwardIssue": {"key": "X-2"}}
    assert _refused(lambda: links_from_jira("X-1", [ok, {"id": "2", "type": {"name": "T"}}])) == (
        "ответ Jira по X-1: issuelinks[1] — нет ни outwardIssue, ни inwardIssue"
    )
    assert _refused(lambda: links_from_jira("X-1", [{**ok, "type": {"name": ""}}])) == (
        "ответ Jira по X-1: issuelinks[0].type.name — ожидается непустая строка, получено: строка"
    )
    assert _refused(lambda: links_from_jira("X-1", [{**ok, "outwardIssue": {"key": 5}}])).startswith(
        "ответ Jira по X-1: issuelinks[0].outwardIssue.key — "
    )
    assert _refused(lambda: links_from_jira("X-1", [{**ok, "outwardIssue": None, "inwardIssue": {}}])).startswith(
        "ответ Jira по X-1: issuelinks[0].inwardIssue.key — "
    )
    assert _refused(lambda: links_from_jira("X-1", [{**ok, "type": None}])).startswith(
        "ответ Jira по X-1: issuelinks[0].type — "
    )
    assert _refused(lambda: links_from_jira("X-1", [{**ok, "id": None}])).startswith(
        "ответ Jira по X-1: issuelinks[0].id — "
    )
    assert _refused(lambda: links_from_jira("X-1", ["x"])).startswith("ответ Jira по X-1: issuelinks[0] — ")


def test_times_become_utc_with_z() -> None:
    """Jira's offsets are applied; a time without one is UTC; what is no time comes back as it is."""
    assert to_utc_z("2026-10-22T12:00:00.000+0300") == "2026-10-22T09:00:00Z"
    assert to_utc_z("2026-10-22T12:00:00") == "2026-10-22T12:00:00Z"
    assert to_utc_z("вчера") == "вчера"
    assert (to_utc_z(""), to_utc_z(None), to_utc_z(5)) == (None, None, None)


def _issue(**fields: Any) -> dict[str, Any]:
    return {"key": "X-1", "fields": fields}


def test_a_whole_issue_is_read_into_its_record() -> None:
    """Every mirror field from its Jira field: names of objects, dates, the custom fields of the settings."""
    raw = _issue(
        summary="Сверка",
        description="а\r\nб",
        status={"name": "Разработка", "statusCategory": {"key": "indeterminate"}},
        priority={"name": "High"},
        duedate="2026-10-23",
        labels=["AWPCA", "kind-dev"],
        assignee={"name": "ivanov"},
        reporter={"name": "bridge-user"},
        created="2026-10-20T12:00:00.000+0300",
        updated="2026-10-21T12:00:00.000+0000",
        issuelinks=[{"id": "1", "type": {"name": "T"}, "inwardIssue": {"key": "X-2"}}],
        customfield_11200="2026-10-01T00:00:00.000+0300",
        customfield_11201="2026-10-31",
        customfield_10100="X-100",
        customfield_10104=[{"id": 7, "name": "Спринт 2", "state": "ACTIVE"}],
    )
    assert issue_from_jira(raw, SETTINGS) == MirrorIssue(
        key="X-1",
        summary="Сверка",
        description="а\r\nб",
        status="Разработка",
        status_category="indeterminate",
        priority="High",
        duedate="2026-10-23",
        planned_start="2026-10-01",
        planned_end="2026-10-31",
        labels=("AWPCA", "kind-dev"),
        epic_key="X-100",
        assignee="ivanov",
        reporter="bridge-user",
        created="2026-10-20T09:00:00Z",
        updated="2026-10-21T12:00:00Z",
        sprint=SprintRef(id=7, name="Спринт 2", state="active"),
        links=(MirrorLink(id="1", type="T", source="X-2", target="X-1"),),
    )
    assert issue_from_jira({"key": "X-1", "fields": None}, SETTINGS) == MirrorIssue(key="X-1")
    assert issue_from_jira(_issue(status={"name": "Новая"}), SETTINGS).status_category is None


def test_what_cannot_be_read_in_an_issue_is_named() -> None:
    """A due date that is no date, a label of another type, a missing key: the issue and the field named."""
    assert _refused(lambda: issue_from_jira(_issue(duedate="2026-13-01"), SETTINGS)) == (
        "ответ Jira по X-1: duedate — не дата: '2026-13-01'"
    )
    assert _refused(lambda: issue_from_jira(_issue(duedate="2026-1-1"), SETTINGS)) == (
        "ответ Jira по X-1: duedate — не дата: '2026-1-1'"
    )
    assert _refused(lambda: issue_from_jira(_issue(labels=["a", 5]), SETTINGS)).startswith(
        "ответ Jira по X-1: labels[1] — "
    )
    assert _refused(lambda: issue_from_jira(_issue(priority="High"), SETTINGS)).startswith(
        "ответ Jira по X-1: priority — "
    )
    assert _refused(lambda: issue_from_jira(_issue(status={"name": 5}), SETTINGS)).startswith(
        "ответ Jira по X-1: status.name — "
    )
    assert _refused(lambda: issue_from_jira(_issue(status={"name": "a", "statusCategory": "x"}), SETTINGS)).startswith(
        "ответ Jira по X-1: status.statusCategory — "
    )
    assert _refused(lambda: issue_from_jira({"fields": {}}, SETTINGS)).startswith("ответ Jira по ?: key — ")
    assert _refused(lambda: issue_from_jira(_issue(customfield_10100="X-" + "1" * 60), SETTINGS)) == (
        "ответ Jira по X-1: epic_key — длиннее 60 символов"
    )
    assert _refused(lambda: issue_from_jira(_issue(description="a\x00b"), SETTINGS)).startswith(
        "ответ Jira по X-1: description — "
    )


def test_the_epic_comes_from_the_epic_field_or_the_parent() -> None:
    """mode field: the configured field, as a key or an object with one; mode parent: fields.parent.key."""
    assert epic_key_of({"customfield_10100": "X-9"}, SETTINGS) == "X-9"
    assert epic_key_of({"customfield_10100": {"key": "X-8"}}, SETTINGS) == "X-8"
    assert epic_key_of({"customfield_10100": "", "parent": {"key": "X-7"}}, SETTINGS) is None
    assert epic_key_of({"customfield_10100": {"key": ""}}, SETTINGS) is None
    assert epic_key_of({"parent": {"key": "X-7"}, "customfield_10100": "X-9"}, PARENT) == "X-7"
    assert epic_key_of({"parent": {"key": ""}}, PARENT) is None
    assert epic_key_of({"parent": "X-7"}, PARENT) is None


def test_the_fields_read_follow_the_settings() -> None:
    """The standard fields, then the configured custom ones and the epic's; each once."""
    standard = [
        "summary",
        "description",
        "status",
        "priority",
        "duedate",
        "labels",
        "assignee",
        "reporter",
        "created",
        "updated",
        "issuelinks",
    ]
    assert mirror_fields(SETTINGS) == [
        *standard,
        "customfield_10104",
        "customfield_11200",
        "customfield_11201",
        "customfield_10100",
    ]
    assert mirror_fields(attrs.evolve(PARENT, fields={"sprint": "customfield_1"})) == [
        *standard,
        "customfield_1",
        "parent",
    ]
    same = attrs.evolve(SETTINGS, fields={"sprint": "customfield_10100"})
    assert mirror_fields(same) == [*standard, "customfield_10100"]
    none = attrs.evolve(SETTINGS, fields={}, epic_link=EpicLink(mode="field", field_id=None))
    assert mirror_fields(none) == standard


# --- the changelog ----------------------------------------------------------------------------------------


def _history(history_id: Any, created: Any, *items: dict[str, Any], author: Any = None) -> dict[str, Any]:
    return {"id": history_id, "created": created, "author": author, "items": list(items)}


def test_histories_are_read_with_their_items() -> None:
    """Each history: id as a string, created in UTC, the author's name, items with from/to as strings."""
    log = {
        "histories": [
            _history(
                100,
                "2026-10-22T12:00:00.000+0300",
                {"field": "status", "from": 1, "fromString": "Новая", "to": "3", "toString": "Готово"},
                {"field": None},
                author={"name": "ivanov"},
            )
        ]
    }
    assert histories_from_jira("X-1", log) == (
        HistoryEntry(
            key="X-1",
            id="100",
            created="2026-10-22T09:00:00Z",
            author="ivanov",
            items=(
                HistoryItem(field="status", from_="1", from_string="Новая", to="3", to_string="Готово"),
                HistoryItem(field="", from_=None, from_string=None, to=None, to_string=None),
            ),
        ),
    )
    assert histories_from_jira("X-1", None) == ()


def test_histories_since_keep_those_at_or_after_it() -> None:
    """``since`` in any offset: a history at that instant is kept, one a second earlier is not."""
    log = {
        "histories": [
            _history("1", "2026-10-22T08:59:59.000+0000"),
            _history("2", "2026-10-22T12:00:00.000+0300"),
            _history("3", "2026-10-22T10:00:00.000+0000"),
        ]
    }
    assert [h.id for h in histories_from_jira("X-1", log, since="2026-10-22T09:00:00Z")] == ["2", "3"]
    assert [h.id for h in histories_from_jira("X-1", log, since="2026-10-22T12:00:00+03:00")] == ["2", "3"]
    assert [h.id for h in histories_from_jira("X-1", log, since=None)] == ["1", "2", "3"]


def test_a_history_that_cannot_be_read_is_named() -> None:
    """No created, an item that is no object, a bad id, a NUL in a value: the place is named."""
    assert _refused(lambda: histories_from_jira("X-1", {"histories": [_history("1", None)]})) == (
        "ответ Jira по X-1: changelog.histories[0].created — нет значения"
    )
    bad_item = {
        "histories": [_history("1", "2026-10-22T12:00:00Z"), {**_history("2", "2026-10-22T12:00:00Z"), "items": [5]}]
    }
    assert _refused(lambda: histories_from_jira("X-1", bad_item)).startswith(
        "ответ Jira по X-1: changelog.histories[1].items[0] — "
    )
    assert _refused(
        lambda: histories_from_jira("X-1", {"histories": [_history(None, "2026-10-22T12:00:00Z")]})
    ).startswith("ответ Jira по X-1: changelog.histories[0].id — ")
    nul = {"histories": [_history("1", "2026-10-22T12:00:00Z", {"field": "summary", "toString": "a\x00"})]}
    assert _refused(lambda: histories_from_jira("X-1", nul)).startswith("ответ Jira по X-1: changelog.histories[0].")
    assert _refused(lambda: histories_from_jira("X-1", {"histories": "x"})).startswith(
        "ответ Jira по X-1: changelog.histories — "
    )


def test_flags_read_true_and_false_and_a_date_never_holds_a_comma() -> None:
    """``true`` fits a flag as well as ``false``; a date holding a comma is no date, so a name that spells
    «,startDate=a, b» keeps it even where the string has no start date of its own."""
    assert parse_sprint_string(_greenhopper(id="7", name="n", autoStartStop="true", synced="true")) == {
        "id": "7",
        "name": "n",
        "autoStartStop": "true",
        "synced": "true",
    }
    text = _greenhopper(id="7", name="Спринт,startDate=a, b", state="ACTIVE")
    assert parse_sprint_string(text) == {"id": "7", "name": "Спринт,startDate=a, b", "state": "ACTIVE"}
    assert parse_sprint_string(_greenhopper(id="7", name="x", goal="цель, endDate=потом")) == {
        "id": "7",
        "name": "x",
        "goal": "цель, endDate=потом",
    }


def test_times_without_an_offset_are_utc_whatever_the_machines_zone(monkeypatch: pytest.MonkeyPatch) -> None:
    """The agent's machine may run in Moscow time: a time without an offset is still UTC, and the answer is UTC."""
    monkeypatch.setenv("TZ", "Europe/Moscow")
    time.tzset()
    try:
        assert to_utc_z("2026-10-22T12:00:00") == "2026-10-22T12:00:00Z"
        assert to_utc_z("2026-10-22T12:00:00.000+0300") == "2026-10-22T09:00:00Z"
        assert [
            h.created for h in histories_from_jira("X-1", {"histories": [_history("1", "2026-10-22T12:00:00")]})
        ] == ["2026-10-22T12:00:00Z"]
    finally:
        monkeypatch.undo()
        time.tzset()


@pytest.mark.parametrize(
    ("log", "field"),
    [
        ({"histories": ["x"]}, "changelog.histories[0]"),
        ({"histories": [_history("1", 5)]}, "changelog.histories[0].created"),
        (
            {"histories": [{**_history("1", "2026-10-22T12:00:00Z"), "author": "ivanov"}]},
            "changelog.histories[0].author",
        ),
        (
            {"histories": [_history("1", "2026-10-22T12:00:00Z", author={"name": 5})]},
            "changelog.histories[0].author.name",
        ),
    ],
)
def test_a_history_names_the_issue_and_the_place_it_cannot_read(log: dict[str, Any], field: str) -> None:
    with pytest.raises(JiraAnswerError) as info:
        histories_from_jira("X-1", log)
    assert (info.value.key, info.value.field) == ("X-1", field)


# --- rules the mutation run found unstated (issue 16) ---


def _message(raw: Any, settings: Settings = SETTINGS) -> str:
    with pytest.raises(JiraAnswerError) as caught:
        issue_from_jira(raw, settings)
    return str(caught.value)


def test_a_link_end_that_is_no_object_is_named_with_its_place() -> None:
    """An ``outwardIssue`` or ``inwardIssue`` that is not an object names the issue and the link's end."""
    for end in ("outwardIssue", "inwardIssue"):
        link = {"id": "10", "type": {"name": "Blocks"}, end: "AURORA-2"}
        with pytest.raises(JiraAnswerError) as caught:
            links_from_jira("AURORA-1", [link])
        assert str(caught.value) == (
            f"ответ Jira по AURORA-1: issuelinks[0].{end} — ожидается объект, получено: строка"
        )


def test_fields_of_an_issue_answer_name_their_place() -> None:
    """duedate, status.statusCategory.key and reporter of the wrong shape name the issue and the field."""
    cases = [
        ({"duedate": 20261001}, "duedate — ожидается строка или null, получено: число"),
        (
            {"status": {"name": "Open", "statusCategory": {"key": 2}}},
            "status.statusCategory.key — ожидается строка или null, получено: число",
        ),
        ({"reporter": "ivanov"}, "reporter — ожидается объект, получено: строка"),
    ]
    for fields, problem in cases:
        assert _message({"key": "AURORA-7", "fields": fields}) == f"ответ Jira по AURORA-7: {problem}"


def test_an_answer_that_is_no_object_is_named() -> None:
    """An issue answer that is not an object: ``issue_fields`` names the key it was asked for, ``issue_from_jira``
    (which has no key yet) names «?»."""
    with pytest.raises(JiraAnswerError) as caught:
        issue_fields(["AURORA-1"], "AURORA-1")
    assert str(caught.value) == "ответ Jira по AURORA-1: ответ — ожидается объект, получено: список"
    assert _message(["AURORA-1"]) == "ответ Jira по ?: ответ — ожидается объект, получено: список"


def test_a_bad_character_the_readers_do_not_see_is_named_by_its_record_place() -> None:
    """A NUL in a value no reader checks (a sprint's name in the old string form) names its place in the record."""
    sprint = "com.atlassian.greenhopper.service.sprint.Sprint@1[id=5,rapidViewId=1,state=ACTIVE,name=S\x00 1]"
    raw = {"key": "AURORA-7", "fields": {"customfield_10104": [sprint]}}
    assert _message(raw) == "ответ Jira по AURORA-7: sprint.name — недопустимый символ"


def test_an_issue_whose_key_cannot_be_read_is_named_by_a_question_mark() -> None:
    """An unreadable key is never the issue's name in the message: «?», not the key repeated with its NUL."""
    with pytest.raises(JiraAnswerError) as caught:
        issue_from_jira({"key": "AB\x00-1", "fields": {}}, Settings())
    assert str(caught.value) == "ответ Jira по ?: key — недопустимый символ"


def test_the_board_of_a_sprint_is_its_rapid_view_else_board_else_origin_board() -> None:
    """``board_id``: ``rapidViewId``, else ``boardId``, else ``originBoardId`` (the object form's names)."""
    cases = [
        ({"id": 1, "rapidViewId": 6, "boardId": 7, "originBoardId": 8}, 6),
        ({"id": 1, "boardId": 7, "originBoardId": 8}, 7),
        ({"id": 1, "originBoardId": 8}, 8),
        ({"id": 1}, None),
    ]
    assert [info.board_id for case, _ in cases for info in sprint_infos(case)] == [board for _, board in cases]


def test_a_future_sprint_without_a_sequence_is_ordered_by_its_id() -> None:
    """Among future sprints the latest wins: by ``sequence``, and by ``id`` for one without a sequence."""
    sprints = [
        {"id": 3, "name": "S3", "state": "future", "sequence": 10},
        {"id": 12, "name": "S12", "state": "future"},
    ]
    assert sprint_of(sprints) == SprintRef(id=12, name="S12", state="future")
    assert sprint_of([sprints[0], {**sprints[1], "id": 9, "name": "S9"}]) == SprintRef(id=3, name="S3", state="future")


def test_a_sprint_name_may_hold_an_earlier_key() -> None:
    """A key that already has its value is no boundary: ``,id=`` inside a name stays in the name."""
    parsed = parse_sprint_string("Sprint@1[id=1,name=a,id=2,state=ACTIVE]")
    assert parsed == {"id": "1", "name": "a,id=2", "state": "ACTIVE"}
