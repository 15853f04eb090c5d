"""``ensure_link`` fed Jira's answers as values (no I/O): conflicts, replacement, symmetric types, link types and
the read-back, in the messages a person reads."""

from __future__ import annotations

from typing import Any

from reconcile.executors import ExecContext, JiraCall
from tests.support import seed_result

from .executors_support import BLOCKS_1538, issue, kinds, ok, play

LINK = {"source": "AURORA-1537", "target": "AURORA-1538", "link_type": "связанные"}
KNOWS_OTHER = ExecContext(symmetric_link_types=frozenset({"Связанные"}), link_types=frozenset({"Дубликат"}))


def links(*entries: dict[str, Any]) -> dict[str, Any]:
    return issue("AURORA-1537", issuelinks=list(entries))


def test_link_type_missing_from_the_settings_fails_naming_the_logical_name() -> None:
    """A logical link type the settings do not map fails with «нет настройки link_types.<name>», no call."""
    report, steps = play("ensure_link", {**LINK, "link_type": "дублирует"}, [])
    assert (report.status, report.error, steps) == ("failed", "нет настройки link_types.дублирует", [])


def test_link_types_answer_that_cannot_be_read_names_the_call_and_the_place() -> None:
    """GET /issueLinkType answering something other than an object, or ``issueLinkTypes`` not a list, fails
    naming the call and the place."""
    report, _ = play("ensure_link", LINK, [ok([])], ctx=KNOWS_OTHER)
    assert report.error == "ответ Jira по GET /rest/api/2/issueLinkType: ответ — ожидается объект, получено: список"
    report, _ = play("ensure_link", LINK, [ok({"issueLinkTypes": "x"})], ctx=KNOWS_OTHER)
    assert report.error == (
        "ответ Jira по GET /rest/api/2/issueLinkType: issueLinkTypes — ожидается список, получено: строка"
    )


def test_link_types_of_jira_only_named_objects_count_and_none_is_said_as_net() -> None:
    """Only entries that are objects with a text ``name`` are Jira's link types (others are skipped, never a
    crash); when none is left the failure says «есть: нет»."""
    answer = {"issueLinkTypes": ["Связанные", {"name": 5}, {"id": "1"}, {"name": "Блокирует начало"}]}
    report, _ = play("ensure_link", LINK, [ok(answer)], ctx=KNOWS_OTHER)
    assert report.error == "в Jira нет типа связи «Связанные»; есть: Блокирует начало"
    report, _ = play("ensure_link", LINK, [ok({"issueLinkTypes": []})], ctx=KNOWS_OTHER)
    assert report.error == "в Jira нет типа связи «Связанные»; есть: нет"


def test_link_unreadable_source_issue_names_it() -> None:
    """The source issue's answer that is not an object fails naming the source key; so does its read-back
    after a POST without a Location."""
    report, _ = play("ensure_link", LINK, [ok([])])
    assert report.error == "ответ Jira по AURORA-1537: ответ — ожидается объект, получено: список"
    report, _ = play("ensure_link", LINK, [ok(links()), ok(status=201), ok([])])
    assert report.error == "ответ Jira по AURORA-1537: ответ — ожидается объект, получено: список"


def test_link_conflicts_are_listed_with_a_comma() -> None:
    """Several conflicting links are named one after another, separated by «, »."""
    blocks = {"id": "10007", "type": {"name": "Блокирует начало"}, "outwardIssue": {"key": "AURORA-1538"}}
    blocked = {"id": "10008", "type": {"name": "Блокирует начало"}, "inwardIssue": {"key": "AURORA-1538"}}
    report, _ = play("ensure_link", LINK, [ok(links(blocks, blocked))])
    assert report.error == (
        "конфликт: связь «Блокирует начало» AURORA-1537 → AURORA-1538 (id 10007), "
        "«Блокирует начало» AURORA-1538 → AURORA-1537 (id 10008); нужна «Связанные»; replace не задан"
    )


def test_link_read_back_takes_the_new_link_of_the_wanted_type_only() -> None:
    """Read back after a POST without a Location: the id is that of the wanted type's link source → target,
    not of another type's link between the same two issues listed before it."""
    other = {"id": "10001", "type": {"name": "Дубликат"}, "outwardIssue": {"key": "AURORA-1538"}}
    new = {"id": "10011", "type": {"name": "Связанные"}, "outwardIssue": {"key": "AURORA-1538"}}
    report, _ = play("ensure_link", LINK, [ok(links(other)), ok(status=201), ok(links(other, new))])
    assert (report.status, seed_result(report.result)) == (
        "done",
        {"existed": False, "link_id": "10011", "removed": []},
    )


def test_link_read_back_without_the_new_link_is_done_without_an_id() -> None:
    """The read-back does not show the created link yet: done, ``link_id`` null (never a crash)."""
    report, steps = play("ensure_link", LINK, [ok(links()), ok(status=201), ok(links())])
    assert (report.status, seed_result(report.result)) == ("done", {"existed": False, "link_id": None, "removed": []})
    assert [o.method for o in report.operations] == ["POST"]
    assert len(steps) == 3


def test_link_conflict_without_replace_fails_naming_the_link() -> None:
    """«Блокирует начало» 1537→1538 conflicts with «Связанные»: failed, no write (seed scenario)."""
    report, steps = play("ensure_link", {**LINK, "replace": False}, [ok(links(BLOCKS_1538))])
    assert len(steps) == 1
    assert report.status == "failed"
    assert (
        report.error == "конфликт: связь «Блокирует начало» AURORA-1537 → AURORA-1538 (id 10007); нужна «Связанные»; "
        "replace не задан"
    )
    assert report.operations == ()


def test_link_replace_deletes_pauses_and_posts() -> None:
    """With replace: DELETE the conflict, pause, POST source as inwardIssue (seed: «Замена связи»)."""
    new = {"id": "10010", "type": {"name": "Связанные"}, "outwardIssue": {"key": "AURORA-1538"}}
    answers = [ok(links(BLOCKS_1538)), ok(status=204), ok(status=201), ok(links(new))]
    report, steps = play("ensure_link", {**LINK, "replace": True}, answers, pause=30)
    assert kinds(steps) == [
        "GET /rest/api/2/issue/AURORA-1537",
        "DELETE /rest/api/2/issueLink/10007",
        "pause 30",
        "POST /rest/api/2/issueLink",
        "GET /rest/api/2/issue/AURORA-1537",
    ]
    assert isinstance(steps[3], JiraCall)
    assert steps[3].json == {
        "type": {"name": "Связанные"},
        "inwardIssue": {"key": "AURORA-1537"},
        "outwardIssue": {"key": "AURORA-1538"},
    }
    assert (report.status, seed_result(report.result)) == (
        "done",
        {"existed": False, "link_id": "10010", "removed": ["10007"]},
    )
    assert [(o.method, o.status) for o in report.operations] == [("DELETE", 204), ("POST", 201)]


def test_link_symmetric_reverse_counts_as_existing() -> None:
    """«Связанные» 1446→1445 satisfies 1445→1446 when the type is symmetric (change 000)."""
    reverse = {"id": "10005", "type": {"name": "Связанные"}, "inwardIssue": {"key": "AURORA-1446"}}
    params = {"source": "AURORA-1445", "target": "AURORA-1446", "link_type": "связанные"}
    report, steps = play("ensure_link", params, [ok({"key": "AURORA-1445", "fields": {"issuelinks": [reverse]}})])
    assert len(steps) == 1
    assert seed_result(report.result) == {"existed": True, "link_id": "10005", "removed": []}


def test_link_reverse_of_a_non_symmetric_type_is_a_conflict() -> None:
    """Without symmetry the reverse direction is a conflict, not the wanted link."""
    reverse = {"id": "10005", "type": {"name": "Связанные"}, "inwardIssue": {"key": "AURORA-1446"}}
    params = {"source": "AURORA-1445", "target": "AURORA-1446", "link_type": "связанные"}
    report, _ = play("ensure_link", params, [ok({"fields": {"issuelinks": [reverse]}})], ctx=ExecContext())
    assert (
        report.error
        == "конфликт: связь «Связанные» AURORA-1446 → AURORA-1445 (id 10005); нужна «Связанные»; replace не задан"
    )


def test_link_other_types_and_issues_are_ignored() -> None:
    """Links to other issues or of types outside link_types neither satisfy nor conflict."""
    others = [
        {"id": "1", "type": {"name": "Дубликат"}, "outwardIssue": {"key": "AURORA-1538"}},
        {"id": "2", "type": {"name": "Связанные"}, "outwardIssue": {"key": "AURORA-1"}},
    ]
    answers = [ok(links(*others)), ok(status=201, location="http://jira.test/rest/api/2/issueLink/10011")]
    report, steps = play("ensure_link", LINK, answers)
    assert kinds(steps) == ["GET /rest/api/2/issue/AURORA-1537", "POST /rest/api/2/issueLink"]
    assert seed_result(report.result) == {"existed": False, "link_id": "10011", "removed": []}


def test_link_wanted_present_with_a_conflict_and_replace_only_deletes() -> None:
    """The wanted link exists next to a conflicting one: with replace only the conflict is deleted."""
    wanted = {"id": "10010", "type": {"name": "Связанные"}, "outwardIssue": {"key": "AURORA-1538"}}
    answers = [ok(links(BLOCKS_1538, wanted)), ok(status=204)]
    report, steps = play("ensure_link", {**LINK, "replace": True}, answers)
    assert kinds(steps) == ["GET /rest/api/2/issue/AURORA-1537", "DELETE /rest/api/2/issueLink/10007"]
    assert seed_result(report.result) == {"existed": True, "link_id": "10010", "removed": ["10007"]}


def test_link_id_from_the_location_header_in_any_case_and_with_a_slash() -> None:
    """The new link's id is the last segment of Location (any case of the header, a trailing slash); without
    an issueLink Location it is read back from the source issue."""
    new = {"id": "10012", "type": {"name": "Связанные"}, "outwardIssue": {"key": "AURORA-1538"}}
    for headers in ({"Location": "http://jira.test/rest/api/2/issueLink/10011/"}, {"location": "/issueLink/10011"}):
        report, steps = play("ensure_link", LINK, [ok(links()), ok(status=201, **headers)])
        assert (len(steps), report.result["link_id"]) == (2, "10011")
    report, steps = play("ensure_link", LINK, [ok(links()), ok(status=201, Location="/x/10011"), ok(links(new))])
    assert (len(steps), report.result["link_id"]) == (3, "10012")


def test_link_removal_deletes_the_wanted_link_and_names_it() -> None:
    """present: false deletes the wanted link with a DELETE Jira logs as a write, and ``removed`` names its id."""
    wanted = {"id": "10010", "type": {"name": "Связанные"}, "outwardIssue": {"key": "AURORA-1538"}}
    report, steps = play("ensure_link", {**LINK, "present": False}, [ok(links(wanted)), ok(status=204)])
    assert kinds(steps) == ["GET /rest/api/2/issue/AURORA-1537", "DELETE /rest/api/2/issueLink/10010"]
    assert [(o.method, o.path, o.status) for o in report.operations] == [("DELETE", "/rest/api/2/issueLink/10010", 204)]
    assert seed_result(report.result) == {"existed": True, "link_id": "10010", "removed": ["10010"]}


def test_link_removal_of_a_link_whose_id_is_no_positive_number_is_refused() -> None:
    """present: false of a link Jira lists with an id that cannot go into a path: failed «недопустимый id связи»,
    nothing deleted."""
    wanted = {"id": "abc", "type": {"name": "Связанные"}, "outwardIssue": {"key": "AURORA-1538"}}
    report, steps = play("ensure_link", {**LINK, "present": False}, [ok(links(wanted))])
    assert (report.status, report.error, len(steps)) == ("failed", 'недопустимый id связи: "abc"', 1)


def test_link_replace_next_to_the_wanted_link_remembers_the_conflict_removed() -> None:
    """The wanted link exists next to a conflicting one: with replace the conflict deleted is the ``undo``."""
    wanted = {"id": "10010", "type": {"name": "Связанные"}, "outwardIssue": {"key": "AURORA-1538"}}
    report, _ = play("ensure_link", {**LINK, "replace": True}, [ok(links(BLOCKS_1538, wanted)), ok(status=204)])
    old = {"id": "10007", "type": "Блокирует начало", "source": "AURORA-1537", "target": "AURORA-1538"}
    assert report.result["undo"] == {"replaced": {"old": old, "new": None}, "removed": [old]}


def test_link_id_is_the_locations_last_segment_as_given() -> None:
    """Only slashes are dropped from the end of Location: the rest of its last segment is the id as Jira gave it."""
    location = "http://jira.test/rest/api/2/issueLink/LNKX"
    report, _ = play("ensure_link", LINK, [ok(links()), ok(status=201, Location=location)])
    assert report.result["link_id"] == "LNKX"


def test_link_created_without_an_id_read_back_is_remembered_with_an_empty_id() -> None:
    """The read-back does not show the created link yet: ``undo`` still names it, its id empty."""
    report, _ = play("ensure_link", LINK, [ok(links()), ok(status=201), ok(links())])
    assert report.result["undo"] == {
        "created": {"id": "", "type": "Связанные", "source": "AURORA-1537", "target": "AURORA-1538"}
    }
