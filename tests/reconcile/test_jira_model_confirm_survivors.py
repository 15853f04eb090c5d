"""Rules of the Jira model, the answer readers and the confirmation that the mutation run found no test for."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from reconcile.confirm import AgentFacts, confirm
from reconcile.errors import JiraAnswerError
from reconcile.jira_answers import jira_id
from reconcile.jira_model import (
    issue_fields,
    issue_from_jira,
    links_from_jira,
    parse_sprint_string,
    sprint_infos,
    sprint_of,
)
from reconcile.records import MirrorIssue, SprintRef
from reconcile.settings import Settings

SETTINGS = Settings()
NOW = datetime(2026, 10, 22, 12, 0, tzinfo=UTC)


def _message(raw: Any, settings: Settings = SETTINGS) -> str:
    with pytest.raises(JiraAnswerError) as caught:
        issue_from_jira(raw, settings)
    return str(caught.value)


# --- the place an unreadable answer names ---------------------------------------------------------------


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


def test_a_jira_id_with_a_bad_character_names_the_issue_and_the_field() -> None:
    """An id that looks like one (no spaces) but holds a NUL is refused naming the issue and the field."""
    with pytest.raises(JiraAnswerError) as caught:
        jira_id("100\x00", "AURORA-1", "issuelinks[0].id")
    assert str(caught.value) == "ответ Jira по AURORA-1: issuelinks[0].id — недопустимый символ"


# --- sprints ----------------------------------------------------------------------------------------------


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


# --- confirmation ------------------------------------------------------------------------------------------


def _fields_confirmed(wanted: str | None, now: str | None) -> bool:
    issue = MirrorIssue(key="A-1", summary=now)
    found = confirm(
        "ensure_fields",
        {"key": "A-1", "summary": wanted},
        mirror={"A-1": issue},
        facts=AgentFacts(jira_user="bridge-user"),
        link_types={},
        now=NOW,
    )
    return found is not None


def test_a_null_summary_is_the_empty_summary_when_confirming() -> None:
    """A summary of null and an empty (or blank) one are the same; null and a real summary are not."""
    assert _fields_confirmed(None, None)
    assert _fields_confirmed(None, "")
    assert _fields_confirmed(None, "  ")
    assert not _fields_confirmed(None, "Отчёт")
    assert not _fields_confirmed("Отчёт", None)


def _created(issue: MirrorIssue, summary: str, jira_user: str | None = "bridge-user") -> str | None:
    found = confirm(
        "ensure_issue",
        {"temp_key": "new:1", "summary": summary},
        mirror={issue.key: issue},
        facts=AgentFacts(jira_user=jira_user),
        link_types={},
        now=NOW,
    )
    return None if found is None else found.key


def test_an_issue_is_taken_as_created_only_by_a_known_agent_user() -> None:
    """Without the agent's Jira user no issue is taken for the one it created, not even one without a reporter."""
    issue = MirrorIssue(key="A-1", summary="Отчёт", reporter=None, created="2026-10-22T11:00:00Z")
    assert _created(issue, "Отчёт", jira_user=None) is None
    assert _created(issue, "Отчёт", jira_user="") is None
    mine = MirrorIssue(key="A-2", summary="Отчёт", reporter="bridge-user", created="2026-10-22T11:00:00Z")
    assert _created(mine, "Отчёт") == "A-2"


def test_an_issue_without_a_summary_is_never_the_created_one() -> None:
    """An issue whose summary is null matches no command's summary, whatever it is."""
    for summary in ("Отчёт", "XXXX", "?"):
        issue = MirrorIssue(key="A-1", summary=None, reporter="bridge-user", created="2026-10-22T11:00:00Z")
        assert _created(issue, summary) is None


def test_an_issue_whose_key_cannot_be_read_is_named_by_a_question_mark() -> None:
    """An unreadable key is never the issue's name in the message: «?», not the key repeated with its NUL."""
    with pytest.raises(JiraAnswerError) as caught:
        issue_from_jira({"key": "AB\x00-1", "fields": {}}, Settings())
    assert str(caught.value) == "ответ Jira по ?: key — недопустимый символ"
