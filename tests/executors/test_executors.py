"""The eight executors driven with Jira's answers fed in as values: calls, writes, pauses, reports."""

from __future__ import annotations

import hashlib
from typing import Any

from reconcile.executors import ExecContext, JiraCall, Operation, Page, Pause
from reconcile.executors._run import Run
from reconcile.executors.fields import fields_diff
from reconcile.jira_model import issue_from_jira
from tests.support import SHA

from .executors_support import SYMMETRIC, delivery, issue, kinds, ok, play, search

PREFIX = "com.atlassian.greenhopper.service.sprint.Sprint"
SPRINT_2 = PREFIX + "@1a2b[id=7,rapidViewId=4216,state=ACTIVE,name=Спринт 2,goal=<null>,sequence=7]"
SPRINT_1 = PREFIX + "@1a2c[id=6,rapidViewId=4216,state=CLOSED,name=Спринт 1,goal=<null>,sequence=6]"


# --- ensure_fields -----------------------------------------------------------------------------------


def test_fields_same_duedate_reads_once_and_writes_nothing() -> None:
    """A repeat of a done ensure_fields makes one GET and no PUT (seed: «Повтор уже выполненной команды»)."""
    report, steps = play(
        "ensure_fields",
        {"key": "AURORA-1533", "duedate": "2026-10-23"},
        [ok(issue("AURORA-1533", duedate="2026-10-23"))],
    )
    assert kinds(steps) == ["GET /rest/api/2/issue/AURORA-1533"]
    assert (report.status, dict(report.result), report.operations) == ("done", {"changed": []}, ())


def test_fields_crlf_description_is_the_same_text() -> None:
    """ "а\\nб" against Jira's "а\\r\\nб" is no change (seed: «Описание отличается только переводами строк»)."""
    report, steps = play(
        "ensure_fields", {"key": "X-1", "description": "а\nб"}, [ok(issue("X-1", description="а\r\nб"))]
    )
    assert len(steps) == 1
    assert dict(report.result) == {"changed": []}


def test_fields_put_carries_only_the_differences() -> None:
    """Only differing fields go into the PUT; labels change through add/remove verbs; null clears."""
    current = issue(
        "AURORA-1533",
        summary="Старое",
        duedate="2026-10-23",
        labels=["AWPCA", "old"],
        priority={"name": "High"},
        assignee={"name": "ivanov"},
    )
    params = {
        "key": "AURORA-1533",
        "summary": "Новое",
        "duedate": "2026-10-23",
        "priority": "High",
        "labels_add": ["AWPCA", "kind-dev"],
        "labels_remove": ["old", "absent"],
        "assignee": None,
        "planned_start": "2026-11-01",
        "epic_key": "AURORA-1500",
    }
    report, steps = play("ensure_fields", params, [ok(current), ok(status=204)])
    put = steps[1]
    assert isinstance(put, JiraCall)
    assert (put.method, put.path) == ("PUT", "/rest/api/2/issue/AURORA-1533")
    assert put.json == {
        "fields": {
            "summary": "Новое",
            "customfield_11200": "2026-11-01",
            "customfield_10100": "AURORA-1500",
            "assignee": None,
        },
        "update": {"labels": [{"add": "kind-dev"}, {"remove": "old"}]},
    }
    assert dict(report.result) == {
        "changed": ["summary", "planned_start", "labels_add", "labels_remove", "epic_key", "assignee"]
    }
    assert report.operations == (Operation(method="PUT", path="/rest/api/2/issue/AURORA-1533", status=204),)


def test_fields_epic_by_parent_mode() -> None:
    """With epic_link.mode = parent the epic goes into fields.parent."""
    context = {"epic_link": {"mode": "parent", "field_id": None}}
    report, steps = play(
        "ensure_fields",
        {"key": "X-1", "epic_key": "X-9"},
        [ok(issue("X-1", parent={"key": "X-8"})), ok(status=204)],
        context=context,
    )
    assert isinstance(steps[1], JiraCall)
    assert steps[1].json == {"fields": {"parent": {"key": "X-9"}}}
    assert dict(report.result) == {"changed": ["epic_key"]}


def test_fields_jira_error_fails_with_its_messages() -> None:
    """A 400 from the PUT fails the command with «HTTP 400: …» and the write in operations."""
    body = {"errorMessages": ["Плохо"], "errors": {"duedate": "Неверная дата"}}
    report, _ = play("ensure_fields", {"key": "X-1", "duedate": "2026-13-01"}, [ok(issue("X-1")), ok(body, status=400)])
    assert report.status == "failed"
    assert report.error == "HTTP 400: Плохо; duedate: Неверная дата"
    assert report.operations == (Operation(method="PUT", path="/rest/api/2/issue/X-1", status=400),)


def test_fields_missing_issue_fails_on_the_read() -> None:
    """A 404 on the read fails the command without writes."""
    report, _ = play(
        "ensure_fields",
        {"key": "X-404", "summary": "a"},
        [ok({"errorMessages": ["Issue Does Not Exist"], "errors": {}}, status=404)],
    )
    assert (report.status, report.error, report.operations) == ("failed", "HTTP 404: Issue Does Not Exist", ())


# --- ensure_issue ------------------------------------------------------------------------------------


def test_issue_found_by_duplicate_search_is_not_created_again() -> None:
    """Our issue with the same summary in the last 7 days is the result, without a POST."""
    hits = search(
        issue("AURORA-1542", summary="Шахматка: комментарии", created="2026-10-20T12:00:00.000+0300"),
        issue("AURORA-1551", summary="Другое"),
    )
    report, steps = play("ensure_issue", {"temp_key": "new:1", "summary": "Шахматка: комментарии"}, [ok(hits)])
    assert kinds(steps) == ["POST /rest/api/2/search"]
    call = steps[0]
    assert isinstance(call, JiraCall)
    assert call.json["jql"] == "project = AURORA AND reporter = currentUser() AND created >= -7d"
    assert (report.status, dict(report.result)) == ("done", {"key": "AURORA-1542", "created": False})


def test_issue_search_reads_every_page() -> None:
    """The duplicate search follows startAt/total to the last page."""
    first = search(issue("A-1", summary="x"), total=2)
    second = search(issue("A-2", summary="Отчёт"), total=2, start=1)
    report, steps = play("ensure_issue", {"temp_key": "new:1", "summary": "Отчёт"}, [ok(first), ok(second)])
    assert [s.json["startAt"] for s in steps if isinstance(s, JiraCall)] == [0, 1]
    assert dict(report.result) == {"key": "A-2", "created": False}


def test_bug_is_created_with_the_issue_type_name() -> None:
    """issue_types.bug = {name: "Ошибка"} gives issuetype {name}, labels and the key in the result."""
    params = {"temp_key": "new:1", "issue_type": "bug", "summary": "ОСВ 60 не распознана", "labels": ["AWPCA"]}
    report, steps = play("ensure_issue", params, [ok(search()), ok({"id": "20000", "key": "AURORA-1590"}, status=201)])
    post = steps[1]
    assert isinstance(post, JiraCall)
    assert (post.method, post.path) == ("POST", "/rest/api/2/issue")
    assert post.json == {
        "fields": {
            "project": {"key": "AURORA"},
            "summary": "ОСВ 60 не распознана",
            "issuetype": {"name": "Ошибка"},
            "labels": ["AWPCA"],
        }
    }
    assert (report.status, dict(report.result)) == ("done", {"key": "AURORA-1590", "created": True})
    assert report.operations == (Operation(method="POST", path="/rest/api/2/issue", status=201),)


def test_epic_gets_its_name_field_and_type_id() -> None:
    """An epic carries the epic name field = summary; an issue type with an id is sent by id."""
    context = {"issue_types": {"task": {"name": "Задача"}, "epic": {"id": "10000", "name": "Эпик"}}}
    params = {
        "temp_key": "new:2",
        "issue_type": "epic",
        "summary": "Сверка",
        "description": "a\nb",
        "priority": "High",
        "duedate": "2026-10-30",
        "planned_end": "2026-10-29",
        "assignee": "ivanov",
    }
    _, steps = play("ensure_issue", params, [ok(search()), ok({"key": "AURORA-1591"}, status=201)], context=context)
    assert isinstance(steps[1], JiraCall)
    assert steps[1].json["fields"] == {
        "project": {"key": "AURORA"},
        "summary": "Сверка",
        "issuetype": {"id": "10000"},
        "description": "a\nb",
        "duedate": "2026-10-30",
        "priority": {"name": "High"},
        "customfield_11201": "2026-10-29",
        "assignee": {"name": "ivanov"},
        "customfield_10102": "Сверка",
    }


def test_issue_without_type_setting_fails_before_any_call() -> None:
    """A bug without issue_types.bug fails with the seed's words and no call."""
    context = {"issue_types": {"task": {"name": "Задача"}}}
    report, steps = play(
        "ensure_issue", {"temp_key": "new:1", "issue_type": "bug", "summary": "x"}, [], context=context
    )
    assert (report.status, report.error, steps) == ("failed", "нет настройки issue_types.bug", [])


# --- ensure_comment ----------------------------------------------------------------------------------


def comments(*items: tuple[str, str], total: int | None = None, start: int = 0) -> dict[str, Any]:
    return {
        "startAt": start,
        "maxResults": 100,
        "total": len(items) if total is None else total,
        "comments": [
            {"id": cid, "body": body, "created": f"2026-10-1{cid[-1]}T10:00:00.000+0300"} for cid, body in items
        ],
    }


def test_comment_in_step_is_left_alone() -> None:
    """The oldest comment starting with the marker and equal up to CRLF means no write."""
    answer = comments(("10001", "[план] Срок согласован\r\nс заказчиком"), ("10002", "[план] позже"))
    report, steps = play(
        "ensure_comment",
        {"key": "AURORA-1533", "marker": "[план]", "body": "[план] Срок согласован\nс заказчиком"},
        [ok(answer)],
    )
    assert len(steps) == 1
    assert dict(report.result) == {"comment_id": "10001", "action": "none"}


def test_comment_differing_is_updated_with_the_marker_prefixed() -> None:
    """A body without the marker is written as marker + newline + body into the oldest marked comment."""
    answer = comments(("10003", "другое"), ("10004", "[план] старое"))
    report, steps = play(
        "ensure_comment", {"key": "X-1", "marker": "[план]", "body": "новое"}, [ok(answer), ok({"id": "10004"})]
    )
    put = steps[1]
    assert isinstance(put, JiraCall)
    assert (put.method, put.path, put.json) == ("PUT", "/rest/api/2/issue/X-1/comment/10004", {"body": "[план]\nновое"})
    assert dict(report.result) == {"comment_id": "10004", "action": "updated"}


def test_comment_absent_is_posted_after_reading_all_pages() -> None:
    """Without a marked comment on any page the comment is created."""
    first = comments(("10001", "a"), total=2)
    second = comments(("10002", "b"), total=2, start=1)
    report, steps = play(
        "ensure_comment",
        {"key": "X-1", "marker": "[m]", "body": "[m] текст"},
        [ok(first), ok(second), ok({"id": "10009"}, status=201)],
    )
    assert kinds(steps) == [
        "GET /rest/api/2/issue/X-1/comment",
        "GET /rest/api/2/issue/X-1/comment",
        "POST /rest/api/2/issue/X-1/comment",
    ]
    assert isinstance(steps[2], JiraCall)
    assert steps[2].json == {"body": "[m] текст"}
    assert dict(report.result) == {"comment_id": "10009", "action": "created"}


# --- ensure_status -----------------------------------------------------------------------------------


def transitions(*pairs: tuple[str, str, str]) -> dict[str, Any]:
    return {"transitions": [{"id": tid, "name": name, "to": {"name": to}} for tid, name, to in pairs]}


def test_status_path_takes_two_transitions_with_a_pause() -> None:
    """Path [Разработка, Готово] from «Ожидание разработки»: POST, pause, POST (seed: «Переход по пути»)."""
    answers = [
        ok(issue("X-1", status={"name": "Ожидание разработки"})),
        ok(transitions(("11", "В разработку", "Разработка"))),
        ok(status=204),
        ok(transitions(("31", "Готово", "Готово"), ("41", "Вернуть в ожидание", "Ожидание разработки"))),
        ok(status=204),
    ]
    report, steps = play("ensure_status", {"key": "X-1", "target": ["Разработка", "Готово"]}, answers, pause=30)
    assert kinds(steps) == [
        "GET /rest/api/2/issue/X-1",
        "GET /rest/api/2/issue/X-1/transitions",
        "POST /rest/api/2/issue/X-1/transitions",
        "pause 30",
        "GET /rest/api/2/issue/X-1/transitions",
        "POST /rest/api/2/issue/X-1/transitions",
    ]
    assert isinstance(steps[2], JiraCall)
    assert steps[2].json == {"transition": {"id": "11"}}
    assert dict(report.result) == {"status": "Готово", "transitions": ["В разработку", "Готово"]}
    assert len(report.operations) == 2


def test_status_already_at_the_end_is_done_without_writes() -> None:
    """If X is already «Готово», the path is done after one read."""
    report, steps = play(
        "ensure_status",
        {"key": "X-1", "target": ["Разработка", "Готово"]},
        [ok(issue("X-1", status={"name": "Готово"}))],
    )
    assert len(steps) == 1
    assert (report.status, dict(report.result)) == ("done", {"status": "Готово", "transitions": []})


def test_status_continues_after_the_current_step() -> None:
    """From a status inside the path only the rest of the path is walked."""
    answers = [
        ok(issue("X-1", status={"name": "Разработка"})),
        ok(transitions(("31", "Готово", "Готово"))),
        ok(status=204),
    ]
    report, _ = play("ensure_status", {"key": "X-1", "target": ["Разработка", "Готово"]}, answers)
    assert dict(report.result) == {"status": "Готово", "transitions": ["Готово"]}


def test_status_missing_transition_lists_the_reachable_statuses() -> None:
    """No transition into the step: failed naming the step, the current status and the reachable ones."""
    answers = [
        ok(issue("X-1", status={"name": "Ожидание разработки"})),
        ok(transitions(("11", "В разработку", "Разработка"))),
    ]
    report, _ = play("ensure_status", {"key": "X-1", "target": "Готово"}, answers)
    assert report.status == "failed"
    assert report.error == "нет перехода в «Готово» из «Ожидание разработки»; доступны: Разработка"
    assert dict(report.result) == {"status": "Ожидание разработки", "transitions": []}


# --- ensure_link -------------------------------------------------------------------------------------


def links(*entries: dict[str, Any]) -> dict[str, Any]:
    return {"key": "AURORA-1537", "fields": {"issuelinks": list(entries)}}


BLOCKS_1538 = {"id": "10007", "type": {"name": "Блокирует начало"}, "outwardIssue": {"key": "AURORA-1538"}}
LINK_PARAMS = {"source": "AURORA-1537", "target": "AURORA-1538", "link_type": "связанные"}


def test_link_conflict_without_replace_fails_naming_the_link() -> None:
    """«Блокирует начало» 1537→1538 conflicts with «Связанные»: failed, no write (seed scenario)."""
    report, steps = play("ensure_link", {**LINK_PARAMS, "replace": False}, [ok(links(BLOCKS_1538))])
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
    report, steps = play("ensure_link", {**LINK_PARAMS, "replace": True}, answers, pause=30)
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
    assert (report.status, dict(report.result)) == (
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
    assert dict(report.result) == {"existed": True, "link_id": "10005", "removed": []}


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
    report, steps = play("ensure_link", LINK_PARAMS, answers)
    assert kinds(steps) == ["GET /rest/api/2/issue/AURORA-1537", "POST /rest/api/2/issueLink"]
    assert dict(report.result) == {"existed": False, "link_id": "10011", "removed": []}


# --- ensure_sprint -----------------------------------------------------------------------------------

BOARD = {
    "maxResults": 50,
    "startAt": 0,
    "isLast": True,
    "values": [
        {"id": 7, "name": "Спринт 2", "state": "active"},
        {"id": 8, "name": "Спринт 3", "state": "future"},
    ],
}


def test_sprint_move_into_a_named_sprint() -> None:
    """An issue outside the sprint is moved with POST /sprint/{id}/issue."""
    answers = [ok(issue("AURORA-1538", customfield_10104=None)), ok(BOARD), ok(status=204)]
    report, steps = play("ensure_sprint", {"key": "AURORA-1538", "sprint": "Спринт 2", "board_id": 4216}, answers)
    assert kinds(steps)[1:] == ["GET /rest/agile/1.0/board/4216/sprint", "POST /rest/agile/1.0/sprint/7/issue"]
    assert isinstance(steps[1], JiraCall)
    assert steps[1].params == {"state": "active,future", "startAt": "0", "maxResults": "50"}
    assert isinstance(steps[2], JiraCall)
    assert steps[2].json == {"issues": ["AURORA-1538"]}
    assert dict(report.result) == {"sprint_id": 7, "moved": True}


def test_sprint_already_in_it_writes_nothing() -> None:
    """Already in «Спринт 2» (old string form, active, the same board): done, moved false, the board not read."""
    answers = [ok(issue("X-1", customfield_10104=[SPRINT_1, SPRINT_2]))]
    report, _ = play("ensure_sprint", {"key": "X-1", "sprint": "Спринт 2", "board_id": 4216}, answers)
    assert (report.status, dict(report.result), report.operations) == ("done", {"sprint_id": 7, "moved": False}, ())


def test_sprint_unknown_name_lists_active_and_future() -> None:
    """An unknown sprint name fails listing the board's active and future sprints."""
    report, _ = play(
        "ensure_sprint", {"key": "X-1", "sprint": "Спринт 9", "board_id": 4216}, [ok(issue("X-1")), ok(BOARD)]
    )
    assert report.error == "нет спринта «Спринт 9» на доске 4216; активные и будущие: Спринт 2, Спринт 3"


def test_backlog_moves_only_from_an_open_sprint() -> None:
    """backlog: POST /backlog/issue from an open sprint; from a closed one only, nothing."""
    report, steps = play(
        "ensure_sprint",
        {"key": "X-1", "sprint": "backlog"},
        [ok(issue("X-1", customfield_10104=[SPRINT_2])), ok(status=204)],
    )
    assert kinds(steps)[1:] == ["POST /rest/agile/1.0/backlog/issue"]
    assert dict(report.result) == {"sprint_id": None, "moved": True}
    report, steps = play(
        "ensure_sprint", {"key": "X-1", "sprint": "backlog"}, [ok(issue("X-1", customfield_10104=[SPRINT_1]))]
    )
    assert (len(steps), dict(report.result)) == (1, {"sprint_id": None, "moved": False})


# --- ensure_attachment -------------------------------------------------------------------------------

SHA_ABC = hashlib.sha256(b"abc").hexdigest()


def attachments(*items: tuple[str, str, int]) -> dict[str, Any]:
    return {"key": "X-1", "fields": {"attachment": [{"id": i, "filename": n, "size": s} for i, n, s in items]}}


def test_attachment_present_is_not_fetched() -> None:
    """Same filename and size: done with its id, no file fetched (seed: «Вложение уже есть»)."""
    params = {"key": "X-1", "file": SHA, "filename": "ОСВ 60.xlsx", "size": 2048}
    report, steps = play("ensure_attachment", params, [ok(attachments(("10500", "ОСВ 60.xlsx", 2048)))])
    assert kinds(steps) == ["GET /rest/api/2/issue/X-1"]
    assert dict(report.result) == {"attachment_id": "10500", "uploaded": False}


def test_attachment_other_size_is_uploaded_again() -> None:
    """Same name, other size: the hub's file is fetched and uploaded as a second attachment."""
    params = {"key": "X-1", "file": SHA_ABC, "filename": "ОСВ 60.xlsx", "size": 3}
    answers = [
        ok(attachments(("10500", "ОСВ 60.xlsx", 2048))),
        ok([{"id": "10501", "filename": "ОСВ 60.xlsx", "size": 3}]),
    ]
    report, steps = play("ensure_attachment", params, answers, files={SHA_ABC: b"abc"})
    assert kinds(steps) == ["GET /rest/api/2/issue/X-1", "fetch", "POST /rest/api/2/issue/X-1/attachments"]
    upload = steps[2]
    assert isinstance(upload, JiraCall) and upload.upload is not None
    assert (upload.upload.filename, upload.upload.content) == ("ОСВ 60.xlsx", b"abc")
    assert dict(report.result) == {"attachment_id": "10501", "uploaded": True}


def test_attachment_gone_from_the_hub_fails() -> None:
    """The hub no longer has the file: failed with the seed-style message."""
    params = {"key": "X-1", "file": SHA, "filename": "a.xlsx", "size": None}
    report, _ = play("ensure_attachment", params, [ok(attachments())])
    assert (report.status, report.error) == ("failed", f"файл {SHA} больше нет у хаба")


# --- refresh -----------------------------------------------------------------------------------------


def test_refresh_pages_neighbours_boards_and_journal() -> None:
    """Issues page, neighbours page, board type, journal since: the result counts them all."""
    hit = issue(
        "AURORA-1537",
        summary="Интеграция",
        status={"name": "Разработка", "statusCategory": {"key": "indeterminate"}},
        issuelinks=[BLOCKS_1538],
    )
    neighbour = issue("AURORA-1538", summary="Выгрузка")
    history = {
        "key": "AURORA-1537",
        "changelog": {
            "histories": [
                {"id": "1", "created": "2026-10-22T11:40:00.000+0300", "author": {"name": "ivanov"}, "items": []},
                {
                    "id": "2",
                    "created": "2026-10-22T11:50:00.000+0300",
                    "author": {"name": "ivanov"},
                    "items": [{"field": "status", "from": "1", "fromString": "A", "to": "2", "toString": "B"}],
                },
            ]
        },
    }
    params = {
        "keys": ["AURORA-1537"],
        "boards": [{"id": 5120, "type": None}, {"id": 4216, "type": "scrum"}],
        "history": {"since": "2026-10-22T08:45:00Z"},
    }
    answers = [ok(search(hit)), ok(search(neighbour)), ok({"id": 5120, "type": "kanban"}), ok(search(history))]
    report, steps = play("refresh", params, answers)
    assert kinds(steps) == [
        "POST /rest/api/2/search",
        "page issues",
        "POST /rest/api/2/search",
        "page neighbours",
        "GET /rest/agile/1.0/board/5120",
        "POST /rest/api/2/search",
        "page history",
    ]
    searches = [s for s in steps if isinstance(s, JiraCall) and s.method == "POST"]
    assert searches[0].json["jql"] == "key in (AURORA-1537)"
    assert searches[0].json["maxResults"] == 100
    assert searches[1].json["jql"] == "key in (AURORA-1538)"
    assert searches[2].json["jql"] == '(key in (AURORA-1537)) AND updated >= "2026/10/22 11:45"'
    assert searches[2].json["expand"] == ["changelog"]
    history_page = steps[6]
    assert [entry.id for entry in history_page.history] == ["2"]  # type: ignore[union-attr]
    assert history_page.history[0].created == "2026-10-22T08:50:00Z"  # type: ignore[union-attr]
    assert dict(report.result) == {
        "issues": 1,
        "neighbours": 1,
        "boards": {"5120": "kanban"},
        "history": {"entries": 1},
    }
    assert report.operations == ()


def test_refresh_reads_no_neighbour_outside_the_allowed_projects() -> None:
    """An issue linked to HR-1 and AURORA-1538, refreshed by an agent allowed AURORA only: the neighbours' query
    names AURORA-1538 alone, and the link to HR-1 stays on the issue's page (DESIGN.md 5.5)."""
    to_hr = {"id": "10100", "type": {"name": "Связанные"}, "outwardIssue": {"key": "HR-1"}}
    hit = issue("AURORA-1537", summary="Интеграция", issuelinks=[BLOCKS_1538, to_hr])
    aurora_only = ExecContext(allowed_projects=("AURORA",))
    report, steps = play(
        "refresh", {"keys": ["AURORA-1537"]}, [ok(search(hit)), ok(search(issue("AURORA-1538")))], ctx=aurora_only
    )
    searches = [s.json["jql"] for s in steps if isinstance(s, JiraCall)]
    assert searches == ["key in (AURORA-1537)", "key in (AURORA-1538)"]
    first_page = steps[1]
    assert isinstance(first_page, Page)
    assert sorted(link.target for link in first_page.issues[0].links) == ["AURORA-1538", "HR-1"]
    assert (report.result["issues"], report.result["neighbours"]) == (1, 1)


def test_refresh_of_an_issue_linked_only_outside_reads_no_neighbour() -> None:
    """Every link of the issue leads to HR: no neighbours' query at all."""
    to_hr = {"id": "10100", "type": {"name": "Связанные"}, "outwardIssue": {"key": "HR-2"}}
    hit = issue("AURORA-1537", summary="Интеграция", issuelinks=[to_hr])
    aurora_only = ExecContext(allowed_projects=("AURORA",))
    report, steps = play("refresh", {"keys": ["AURORA-1537"]}, [ok(search(hit))], ctx=aurora_only)
    assert kinds(steps) == ["POST /rest/api/2/search", "page issues"]
    assert report.result["neighbours"] == 0


def test_refresh_journal_failure_keeps_the_refresh_done() -> None:
    """A failing journal query gives result.history.error, the refresh stays done."""
    params = {"jql": "project = AURORA", "history": {"jql": "project = AURORA AND sprint in openSprints()"}}
    answers = [ok(search()), ok({"errorMessages": ["Поле sprint недоступно"], "errors": {}}, status=400)]
    report, _ = play("refresh", params, answers)
    assert report.status == "done"
    assert dict(report.result) == {
        "issues": 0,
        "neighbours": 0,
        "boards": {},
        "history": {"error": "HTTP 400: Поле sprint недоступно"},
    }


def test_refresh_failure_of_the_main_query_fails() -> None:
    """An error on the issues query fails the refresh."""
    report, _ = play("refresh", {"jql": "bad"}, [ok({"errorMessages": ["Ошибка в JQL"]}, status=400)])
    assert (report.status, report.error) == ("failed", "HTTP 400: Ошибка в JQL")


def test_unknown_type_fails() -> None:
    """A command type the agent does not know fails without calls."""
    report, steps = play("ensure_everything", {}, [])
    assert (report.status, report.error, steps) == ("failed", "неизвестный тип команды ensure_everything", [])


def test_pause_is_never_yielded_before_the_first_write() -> None:
    """A single-write command yields no Pause at all."""
    _, steps = play("ensure_fields", {"key": "X-1", "summary": "b"}, [ok(issue("X-1", summary="a")), ok(status=204)])
    assert not any(isinstance(s, Pause) for s in steps)


def test_link_wanted_present_with_a_conflict_and_replace_only_deletes() -> None:
    """The wanted link exists next to a conflicting one: with replace only the conflict is deleted."""
    wanted = {"id": "10010", "type": {"name": "Связанные"}, "outwardIssue": {"key": "AURORA-1538"}}
    answers = [ok(links(BLOCKS_1538, wanted)), ok(status=204)]
    report, steps = play("ensure_link", {**LINK_PARAMS, "replace": True}, answers)
    assert kinds(steps) == ["GET /rest/api/2/issue/AURORA-1537", "DELETE /rest/api/2/issueLink/10007"]
    assert dict(report.result) == {"existed": True, "link_id": "10010", "removed": ["10007"]}


def test_refresh_journal_since_and_jql_are_read_once_each_entry() -> None:
    """history with since and jql: two journal queries; an entry seen twice is sent once."""
    changelog = {
        "key": "X-1",
        "changelog": {"histories": [{"id": "5", "created": "2026-10-22T12:00:00.000+0300", "items": []}]},
    }
    params = {"jql": "project = AURORA", "history": {"since": "2026-10-22T08:45:00Z", "jql": "project = AURORA"}}
    answers = [ok(search()), ok(search(changelog)), ok(search(changelog))]
    report, steps = play("refresh", params, answers, ctx=ExecContext(jira_time_zone="Nowhere/Unknown"))
    searches = [s for s in steps if isinstance(s, JiraCall)]
    assert searches[1].json["jql"] == '(project = AURORA) AND updated >= "2026/10/22 08:45"'
    assert searches[2].json["jql"] == "project = AURORA"
    assert kinds(steps).count("page history") == 1
    assert report.result["history"] == {"entries": 1}


def test_refresh_keeps_order_by_at_the_end() -> None:
    """A JQL with ORDER BY keeps it after the added updated clause."""
    from reconcile.executors.refresh import with_updated_since

    assert with_updated_since("project = A ORDER BY key", "2026/10/22 11:45") == (
        '(project = A) AND updated >= "2026/10/22 11:45" ORDER BY key'
    )


# --- rules pinned one by one ---------------------------------------------------------------------------


def _put(params: dict[str, Any], current: dict[str, Any], context: dict[str, Any] | None = None) -> Any:
    """The body of the PUT an ensure_fields makes against ``current`` (None when it writes nothing)."""
    run = Run(delivery("ensure_fields", {"key": "X-1", **params}, context=context), SYMMETRIC)
    changed, fields, verbs = fields_diff(run, issue_from_jira(issue("X-1", **current), run.settings))
    body = ({"fields": fields} if fields else {}) | ({"update": {"labels": verbs}} if verbs else {})
    assert bool(changed) == bool(body)
    return body or None


def test_fields_summary_differing_only_by_spaces_around_it_is_no_change() -> None:
    """Jira stores the summary trimmed: spaces around the wanted one are no difference; a real difference is
    written as given."""
    assert _put({"summary": "  Отчёт "}, {"summary": "Отчёт"}) is None
    assert _put({"summary": "Отчёт"}, {"summary": " Отчёт  "}) is None
    assert _put({"summary": " Отчёт 2 "}, {"summary": "Отчёт"}) == {"fields": {"summary": " Отчёт 2 "}}


def test_fields_named_values_and_clearing() -> None:
    """Priority and assignee are written as {name}; null or "" clears a field (Jira's null), and a cleared
    field that is already empty is no change."""
    assert _put({"assignee": "petrov"}, {"assignee": {"name": "ivanov"}}) == {
        "fields": {"assignee": {"name": "petrov"}}
    }
    assert _put({"priority": "Low"}, {}) == {"fields": {"priority": {"name": "Low"}}}
    assert _put({"priority": ""}, {"priority": {"name": "High"}}) == {"fields": {"priority": None}}
    assert _put({"duedate": None}, {"duedate": "2026-10-23"}) == {"fields": {"duedate": None}}
    assert _put({"duedate": ""}, {"duedate": "2026-10-23"}) == {"fields": {"duedate": None}}
    assert _put({"planned_end": None}, {"customfield_11201": "2026-10-29"}) == {"fields": {"customfield_11201": None}}
    assert _put({"epic_key": None}, {"customfield_10100": "X-9"}) == {"fields": {"customfield_10100": None}}
    assert _put({"description": None}, {"description": "текст"}) == {"fields": {"description": None}}
    assert _put({"duedate": None, "description": ""}, {}) is None


def test_fields_epic_in_parent_mode_is_set_and_cleared_through_parent() -> None:
    """With epic_link.mode = parent the epic is fields.parent = {key}, cleared with null."""
    context = {"epic_link": {"mode": "parent", "field_id": None}}
    assert _put({"epic_key": "X-9"}, {}, context) == {"fields": {"parent": {"key": "X-9"}}}
    assert _put({"epic_key": None}, {"parent": {"key": "X-8"}}, context) == {"fields": {"parent": None}}
    assert _put({"epic_key": "X-8"}, {"parent": {"key": "X-8"}}, context) is None


def test_fields_labels_named_twice_are_written_once() -> None:
    """A label repeated in labels_add or labels_remove makes one verb."""
    body = _put({"labels_add": ["a", "a", "b"], "labels_remove": ["c", "c"]}, {"labels": ["b", "c"]})
    assert body == {"update": {"labels": [{"add": "a"}, {"remove": "c"}]}}


def test_a_delivery_whose_settings_cannot_be_read_fails_without_a_call() -> None:
    """The delivery's settings are checked first: a bad one is the command's error, with nothing called."""
    report, steps = play(
        "ensure_fields", {"key": "X-1", "duedate": "2026-10-01"}, [], context={"epic_link": {"mode": "epic"}}
    )
    assert (report.status, report.error, dict(report.result), report.operations, steps) == (
        "failed",
        "настройки: epic_link.mode — field или parent",
        {},
        (),
        [],
    )


def test_issue_duplicate_search_keeps_the_oldest_then_the_lowest_number() -> None:
    """Of several of our issues with the summary, the oldest by ``created`` wins; on a tie, the lower issue
    number (9 before 10, as numbers)."""
    hits = search(
        issue("A-12", summary="Отчёт", created="2026-10-21T10:00:00.000+0300"),
        issue("A-11", summary="Отчёт", created="2026-10-20T10:00:00.000+0300"),
        issue("A-10", summary="Отчёт", created="2026-10-22T10:00:00.000+0300"),
    )
    report, _ = play("ensure_issue", {"temp_key": "new:1", "summary": "Отчёт"}, [ok(hits)])
    assert dict(report.result) == {"key": "A-11", "created": False}
    tie = search(
        issue("A-10", summary=" Отчёт", created="2026-10-20T10:00:00.000+0300"),
        issue("A-9", summary="Отчёт ", created="2026-10-20T10:00:00.000+0300"),
        issue("A-8", summary="Отчёт 2", created="2026-10-19T10:00:00.000+0300"),
    )
    report, _ = play("ensure_issue", {"temp_key": "new:1", "summary": "Отчёт"}, [ok(tie)])
    assert dict(report.result) == {"key": "A-9", "created": False}


def test_issue_epic_goes_into_the_epic_field_or_parent() -> None:
    """epic_key is the epic link field by default and fields.parent = {key} in parent mode."""
    params = {"temp_key": "new:1", "summary": "Отчёт", "epic_key": "X-9", "planned_start": "2026-11-01"}
    answers = [ok(search()), ok({"key": "X-10"}, status=201)]
    _, steps = play("ensure_issue", params, answers)
    assert isinstance(steps[1], JiraCall)
    assert steps[1].json["fields"] == {
        "project": {"key": "AURORA"},
        "summary": "Отчёт",
        "issuetype": {"name": "Задача"},
        "customfield_11200": "2026-11-01",
        "customfield_10100": "X-9",
    }
    _, steps = play("ensure_issue", params, answers, context={"epic_link": {"mode": "parent", "field_id": None}})
    assert isinstance(steps[1], JiraCall)
    assert steps[1].json["fields"]["parent"] == {"key": "X-9"}
    assert "customfield_10100" not in steps[1].json["fields"]


def test_comment_keeps_the_oldest_marked_comment_then_the_lowest_id() -> None:
    """The oldest comment with the marker is kept in step; on equal ``created``, the lower id (9 before 10)."""
    answer = {
        "startAt": 0,
        "total": 3,
        "comments": [
            {"id": "10", "body": "[m] a", "created": "2026-10-11T10:00:00.000+0300"},
            {"id": "9", "body": "[m] b", "created": "2026-10-11T10:00:00.000+0300"},
            {"id": "8", "body": "[m] c", "created": "2026-10-12T10:00:00.000+0300"},
        ],
    }
    report, steps = play("ensure_comment", {"key": "X-1", "marker": "[m]", "body": "[m] b"}, [ok(answer)])
    assert (len(steps), dict(report.result)) == (1, {"comment_id": "9", "action": "none"})


def test_sprint_of_two_with_one_name_the_active_one_is_chosen() -> None:
    """Two sprints of the wanted name: the active one (Jira may say ACTIVE); of two future ones, the first."""
    board = {
        "isLast": True,
        "values": [
            {"id": 10, "name": "Спринт 4", "state": "future"},
            {"id": 11, "name": "Спринт 4", "state": "ACTIVE"},
            {"id": 12, "name": "Спринт 5", "state": "future"},
            {"id": 13, "name": "Спринт 5", "state": "future"},
        ],
    }
    for name, sprint_id in (("Спринт 4", 11), ("Спринт 5", 12)):
        answers = [ok(issue("X-1", customfield_10104=None)), ok(board), ok(status=204)]
        report, steps = play("ensure_sprint", {"key": "X-1", "sprint": name, "board_id": 4216}, answers)
        assert kinds(steps)[-1] == f"POST /rest/agile/1.0/sprint/{sprint_id}/issue"
        assert dict(report.result) == {"sprint_id": sprint_id, "moved": True}


def test_link_id_from_the_location_header_in_any_case_and_with_a_slash() -> None:
    """The new link's id is the last segment of Location (any case of the header, a trailing slash); without
    an issueLink Location it is read back from the source issue."""
    new = {"id": "10012", "type": {"name": "Связанные"}, "outwardIssue": {"key": "AURORA-1538"}}
    for headers in ({"Location": "http://jira.test/rest/api/2/issueLink/10011/"}, {"location": "/issueLink/10011"}):
        report, steps = play("ensure_link", LINK_PARAMS, [ok(links()), ok(status=201, **headers)])
        assert (len(steps), report.result["link_id"]) == (2, "10011")
    report, steps = play("ensure_link", LINK_PARAMS, [ok(links()), ok(status=201, Location="/x/10011"), ok(links(new))])
    assert (len(steps), report.result["link_id"]) == (3, "10012")


def test_issue_creation_rules_without_settings_labels_or_an_epic_name() -> None:
    """A planned date without its field setting fails before any call; empty labels are left out, others sent
    as strings; an epic gets no name field when none is configured; a bug gets none at all."""
    report, steps = play(
        "ensure_issue",
        {"temp_key": "new:1", "summary": "x", "planned_end": "2026-10-01"},
        [],
        context={"fields": {"sprint": "customfield_10104"}},
    )
    assert (report.status, report.error, steps) == ("failed", "нет настройки fields.planned_end", [])
    answers = [ok(search()), ok({"key": "X-2"}, status=201)]
    _, steps = play("ensure_issue", {"temp_key": "new:1", "summary": "x", "labels": []}, answers)
    assert isinstance(steps[1], JiraCall)
    assert "labels" not in steps[1].json["fields"]
    _, steps = play("ensure_issue", {"temp_key": "new:1", "summary": "x", "labels": ["a", 5]}, answers)
    assert isinstance(steps[1], JiraCall)
    assert steps[1].json["fields"]["labels"] == ["a", "5"]
    epic = {"temp_key": "new:1", "summary": "Э", "issue_type": "epic"}
    _, steps = play("ensure_issue", epic, answers, context={"epic_name_field_id": None})
    assert isinstance(steps[1], JiraCall)
    assert steps[1].json["fields"] == {"project": {"key": "AURORA"}, "summary": "Э", "issuetype": {"name": "Эпик"}}
    _, steps = play("ensure_issue", {"temp_key": "new:1", "summary": "Б", "issue_type": "bug"}, answers)
    assert isinstance(steps[1], JiraCall)
    assert "customfield_10102" not in steps[1].json["fields"]


def test_issue_answers_that_cannot_be_read() -> None:
    """A created issue without a key, an answer that is no object, a hit whose summary is no text: failed,
    naming the call or the issue, with the POST among the operations when it was made."""
    created = [Operation(method="POST", path="/rest/api/2/issue", status=201)]
    report, _ = play("ensure_issue", {"temp_key": "new:1", "summary": "x"}, [ok(search()), ok({"id": "1"}, status=201)])
    assert (report.error, list(report.operations)) == (
        "ответ Jira по POST /rest/api/2/issue: key — ожидается непустая строка, получено: null",
        created,
    )
    report, _ = play("ensure_issue", {"temp_key": "new:1", "summary": "x"}, [ok(search()), ok([], status=201)])
    assert report.error == "ответ Jira по POST /rest/api/2/issue: ответ — ожидается объект, получено: список"
    report, _ = play("ensure_issue", {"temp_key": "new:1", "summary": "x"}, [ok(search(issue("A-1", summary=5)))])
    assert (report.error, report.operations) == (
        "ответ Jira по A-1: summary — ожидается строка или null, получено: число",
        (),
    )


def test_issue_hits_without_a_number_or_a_created_time_still_order() -> None:
    """A key without an issue number counts as number 0, a hit without ``created`` as the oldest: ordering
    never fails on an odd hit."""
    same = "2026-10-20T10:00:00.000+0300"
    hits = search(issue("A-3", summary="Отчёт", created=same), issue("ODD", summary="Отчёт", created=same))
    report, _ = play("ensure_issue", {"temp_key": "new:1", "summary": "Отчёт"}, [ok(hits)])
    assert dict(report.result) == {"key": "ODD", "created": False}
    hits = search(issue("A-3", summary="Отчёт", created=same), issue("A-4", summary="Отчёт"))
    report, _ = play("ensure_issue", {"temp_key": "new:1", "summary": "Отчёт"}, [ok(hits)])
    assert dict(report.result) == {"key": "A-4", "created": False}
