"""Jira JSON → mirror records: links, sprint field in both forms, epic link modes, dates, changelog."""

from __future__ import annotations

from typing import Any

from hypothesis import assume, given
from hypothesis import strategies as st

from reconcile.config.settings import EpicLink, Settings
from reconcile.jira.model import (
    SPRINT_KEYS,
    histories_from_jira,
    issue_from_jira,
    links_from_jira,
    mirror_fields,
    parse_sprint_string,
    sprint_of,
    to_utc_z,
)
from reconcile.vocabulary.records import HistoryEntry, HistoryItem, MirrorLink, SprintRef

PREFIX = "com.atlassian.greenhopper.service.sprint.Sprint@"

REAL_ACTIVE = (
    PREFIX + "5d3c2f7[id=7,rapidViewId=4216,state=ACTIVE,name=Спринт 2,"
    "startDate=2026-10-20T09:00:00.000+03:00,endDate=2026-11-03T09:00:00.000+03:00,completeDate=<null>,"
    "activatedDate=2026-10-20T09:05:00.000+03:00,sequence=7,goal=<null>,autoStartStop=false,synced=false,"
    "incompleteIssuesDestinationId=<null>]"
)


def test_real_sprint_string_is_parsed() -> None:
    """A full greenhopper string from Jira DC 9/10 gives every property, <null> as None."""
    props = parse_sprint_string(REAL_ACTIVE)
    assert props["id"] == "7"
    assert props["state"] == "ACTIVE"
    assert props["name"] == "Спринт 2"
    assert props["goal"] is None
    assert props["completeDate"] is None
    assert props["startDate"] == "2026-10-20T09:00:00.000+03:00"
    assert props["autoStartStop"] == "false"
    assert len(props) == 13


def test_name_and_goal_with_commas_brackets_and_equals() -> None:
    """Commas, brackets and = inside name and goal do not split them."""
    text = PREFIX + "1a2b[id=9,rapidViewId=4216,state=FUTURE,name=Релиз [2], часть=1,goal=a,b]c=d,sequence=12]"
    props = parse_sprint_string(text)
    assert props["name"] == "Релиз [2], часть=1"
    assert props["goal"] == "a,b]c=d"
    assert props["sequence"] == "12"


def test_keys_in_any_order() -> None:
    """The parser does not depend on Jira's key order."""
    props = parse_sprint_string(PREFIX + "1[name=X, y,state=CLOSED,id=3]")
    assert props == {"name": "X, y", "state": "CLOSED", "id": "3"}


def test_unparseable_string_raises() -> None:
    """A string without known keys is a ValueError, and the sprint field then yields no sprint."""
    try:
        parse_sprint_string("garbage")
    except ValueError as error:
        assert "garbage" in str(error)
    else:  # pragma: no cover
        raise AssertionError("no error")
    assert sprint_of(["garbage"]) is None


free_text = st.text(
    alphabet=st.sampled_from(list("абвгдеёжзАБВ СПРИНТ abcdegilmnorstuyDIV019,[]=<>-_.:")),
    min_size=0,
    max_size=30,
)


def _safe(text: str) -> bool:
    return not any(f",{key}=" in text for key in SPRINT_KEYS) and text != "<null>"


@given(
    sprint_id=st.integers(min_value=1, max_value=10**6),
    name=free_text,
    goal=st.one_of(st.none(), free_text),
    state=st.sampled_from(["ACTIVE", "FUTURE", "CLOSED"]),
    sequence=st.one_of(st.none(), st.integers(min_value=1, max_value=10**6)),
    order=st.permutations(["id", "rapidViewId", "state", "name", "startDate", "sequence", "goal", "synced"]),
)
def test_render_then_parse_is_identity(
    *, sprint_id: int, name: str, goal: str | None, state: str, sequence: int | None, order: list[str]
) -> None:
    """Whatever the name and goal (commas, brackets, =, Cyrillic) and key order, parse(render(s)) == s."""
    assume(_safe(name) and (goal is None or _safe(goal)))
    values: dict[str, str | None] = {
        "id": str(sprint_id),
        "rapidViewId": "4216",
        "state": state,
        "name": name,
        "startDate": None,
        "sequence": None if sequence is None else str(sequence),
        "goal": goal,
        "synced": "false",
    }
    rendered = ",".join(f"{k}={'<null>' if values[k] is None else values[k]}" for k in order)
    assert parse_sprint_string(f"{PREFIX}77aa[{rendered}]") == values


def test_sprint_of_prefers_active_then_latest_future() -> None:
    """Active wins; without one the future sprint with the highest sequence; closed only → None."""
    closed = PREFIX + "1[id=6,rapidViewId=4216,state=CLOSED,name=Спринт 1,sequence=6]"
    future_8 = PREFIX + "2[id=8,rapidViewId=4216,state=FUTURE,name=Спринт 3,sequence=8]"
    future_9 = {"id": 9, "name": "Спринт 4", "state": "future", "boardId": 4216, "sequence": 9}
    assert sprint_of([closed, REAL_ACTIVE, future_8]) == SprintRef(id=7, name="Спринт 2", state="active")
    assert sprint_of([closed, future_9, future_8]) == SprintRef(id=9, name="Спринт 4", state="future")
    assert sprint_of([closed]) is None
    assert sprint_of(None) is None


def test_links_are_normalised_inward_to_outward() -> None:
    """Seen from X: outwardIssue Y is X→Y, inwardIssue Y is Y→X."""
    raw = [
        {"id": "10007", "type": {"name": "Блокирует начало"}, "outwardIssue": {"key": "AURORA-1538"}},
        {"id": "10005", "type": {"name": "Связанные"}, "inwardIssue": {"key": "AURORA-1446"}},
    ]
    assert links_from_jira("AURORA-1537", raw) == (
        MirrorLink(id="10007", type="Блокирует начало", source="AURORA-1537", target="AURORA-1538"),
        MirrorLink(id="10005", type="Связанные", source="AURORA-1446", target="AURORA-1537"),
    )


def _raw_issue(**extra: Any) -> dict[str, Any]:
    fields = {
        "summary": "Сверка",
        "description": "а\r\nб",
        "status": {"name": "Разработка", "statusCategory": {"key": "indeterminate"}},
        "priority": {"name": "Major"},
        "duedate": "2026-10-23",
        "labels": ["AWPCA"],
        "assignee": {"name": "ivanov"},
        "reporter": {"name": "bridge-user"},
        "created": "2026-10-22T12:00:00.000+0300",
        "updated": "2026-10-22T13:00:00.000+0300",
        "customfield_10104": [REAL_ACTIVE],
        "customfield_11200": "2026-10-20",
        "customfield_10100": "AURORA-1500",
        "issuelinks": [],
        **extra,
    }
    return {"id": "10010", "key": "AURORA-1538", "fields": fields}


def test_issue_fields_become_the_wire_record() -> None:
    """Names, category key, dates in UTC with Z, CRLF kept as is, epic from the custom field."""
    issue = issue_from_jira(_raw_issue(), Settings())
    assert issue.summary == "Сверка"
    assert issue.description == "а\r\nб"
    assert (issue.status, issue.status_category, issue.priority) == ("Разработка", "indeterminate", "Major")
    assert (issue.duedate, issue.planned_start, issue.planned_end) == ("2026-10-23", "2026-10-20", None)
    assert issue.labels == ("AWPCA",)
    assert (issue.assignee, issue.reporter, issue.epic_key) == ("ivanov", "bridge-user", "AURORA-1500")
    assert (issue.created, issue.updated) == ("2026-10-22T09:00:00Z", "2026-10-22T10:00:00Z")
    assert issue.sprint == SprintRef(id=7, name="Спринт 2", state="active")


def test_epic_by_parent_mode() -> None:
    """epic_link.mode = parent reads fields.parent.key and asks for the parent field."""
    settings = Settings(epic_link=EpicLink(mode="parent", field_id=None))
    issue = issue_from_jira(_raw_issue(parent={"key": "AURORA-1501"}), settings)
    assert issue.epic_key == "AURORA-1501"
    assert "parent" in mirror_fields(settings)
    assert "customfield_10100" not in mirror_fields(settings)


def test_to_utc_z_forms() -> None:
    """Jira's +0300 offsets, Z and missing values."""
    assert to_utc_z("2026-10-22T00:30:00.000+0300") == "2026-10-21T21:30:00Z"
    assert to_utc_z("2026-10-22T08:45:00Z") == "2026-10-22T08:45:00Z"
    assert to_utc_z(None) is None


def test_histories_with_since_filter() -> None:
    """Changelog histories become entries; since keeps those created at or after it."""
    changelog = {
        "histories": [
            {"id": "1", "created": "2026-10-22T11:44:59.000+0300", "author": {"name": "a"}, "items": []},
            {
                "id": "2",
                "created": "2026-10-22T11:45:00.000+0300",
                "author": {"name": "ivanov"},
                "items": [
                    {"field": "duedate", "from": "2026-10-20", "fromString": "x", "to": "2026-10-23", "toString": "y"}
                ],
            },
        ]
    }
    assert histories_from_jira("X-1", changelog, since="2026-10-22T08:45:00Z") == (
        HistoryEntry(
            key="X-1",
            id="2",
            created="2026-10-22T08:45:00Z",
            author="ivanov",
            items=(HistoryItem(field="duedate", from_="2026-10-20", from_string="x", to="2026-10-23", to_string="y"),),
        ),
    )
    assert len(histories_from_jira("X-1", changelog)) == 2


def test_sample_with_an_empty_goal_from_the_cassettes() -> None:
    """The string recorded in tests/cassettes (goal empty, not <null>) parses with goal ""."""
    text = (
        PREFIX + "5f0e91a7[id=7,rapidViewId=4216,state=ACTIVE,name=Спринт 2,startDate=2026-10-20T09:00:00.000+03:00,"
        "endDate=2026-11-03T09:00:00.000+03:00,completeDate=<null>,activatedDate=2026-10-20T09:01:11.417+03:00,"
        "sequence=7,goal=,autoStartStop=false,synced=false,incompleteIssuesDestinationId=<null>]"
    )
    props = parse_sprint_string(text)
    assert (props["goal"], props["incompleteIssuesDestinationId"], props["sequence"]) == ("", None, "7")
    assert sprint_of([text]) == SprintRef(id=7, name="Спринт 2", state="active")


def test_a_name_repeating_a_key_is_split_by_the_value_shapes() -> None:
    """A name containing «,state=…» is kept whole because state already appeared and id must be a number."""
    text = PREFIX + "1[id=5,rapidViewId=4216,state=FUTURE,name=a,state=b,id=c,startDate=<null>,sequence=5]"
    props = parse_sprint_string(text)
    assert props["name"] == "a,state=b,id=c"
    assert props["state"] == "FUTURE"
