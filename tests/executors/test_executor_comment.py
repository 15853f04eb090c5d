"""``ensure_comment`` fed Jira's answers as values (no I/O): left alone, updated or posted by its marker, which
of several marked comments is kept, and the call named when Jira's answer cannot be read."""

from __future__ import annotations

from typing import Any

import pytest

from reconcile.executors import JiraCall
from reconcile.executors.comment import comment_author
from tests.support import seed_result

from .executors_support import ISSUE, KEY, kinds, ok, play

WHEN = "2026-10-22T12:00:00.000+0300"


TEXT = "[m]\nтекст"


def _comments(*comments: dict[str, Any]) -> Any:
    return ok({"startAt": 0, "total": len(comments), "comments": list(comments)})


def _keep(*comments: dict[str, Any]) -> Any:
    report, _ = play("ensure_comment", {"key": KEY, "marker": "[m]", "body": "текст"}, [_comments(*comments)])
    return report


@pytest.mark.parametrize(
    ("ids", "kept"),
    [
        ([10, 9], "9"),  # ids Jira gives as numbers compare as numbers
        (["10", "9"], "9"),  # and so do ids of digits
        (["1", "x"], "x"),  # an id that is not a number orders as 0
        (["5", "100000000000000000"], "5"),  # 18 digits are still a number
        (["5", "1000000000000000000"], "1000000000000000000"),  # 19 are not: it orders as 0
    ],
)
def test_of_marked_comments_of_one_time_the_lowest_numbered_id_is_kept(ids: list[Any], kept: str) -> None:
    """Among marked comments created at the same time the one whose id is the lowest number is kept; an id
    that is not a number of at most 18 digits orders as 0."""
    report = _keep(*({"id": i, "created": WHEN, "body": TEXT} for i in ids))
    assert (report.status, report.result) == ("done", {"comment_id": kept, "action": "none"})


def test_a_marked_comment_without_created_is_the_oldest() -> None:
    """A missing ``created`` orders before every time."""
    report = _keep({"id": "1", "created": WHEN, "body": TEXT}, {"id": "2", "body": TEXT})
    assert seed_result(report.result) == {"comment_id": "2", "action": "none"}


def test_the_kept_comment_without_id_fails_naming_it() -> None:
    """The kept marked comment (one without id orders first among its time) has no id: failed, naming the
    issue and ``comments[].id``; the next comment is not taken instead."""
    report = _keep({"id": "3", "created": WHEN, "body": TEXT}, {"created": WHEN, "body": TEXT})
    assert (report.status, report.error) == (
        "failed",
        f"ответ Jira по {KEY}: comments[].id — ожидается идентификатор Jira, получено: null",
    )


def test_an_empty_body_is_the_marker_alone() -> None:
    """``body`` is required but may be empty: the comment is the marker and a newline."""
    report, steps = play(
        "ensure_comment",
        {"key": KEY, "marker": "[m]", "body": ""},
        [_comments(), ok({"id": "5"}, status=201)],
    )
    posts = [s for s in steps if isinstance(s, JiraCall) and s.method == "POST"]
    assert [p.json for p in posts] == [{"body": "[m]\n"}]
    assert seed_result(report.result) == {"comment_id": "5", "action": "created"}


def test_a_created_comment_answer_that_is_not_an_object_names_the_call() -> None:
    report, _ = play("ensure_comment", {"key": KEY, "marker": "[m]", "body": "b"}, [_comments(), ok([], status=201)])
    assert report.error == f"ответ Jira по POST {ISSUE}/comment: ответ — ожидается объект, получено: список"


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
    assert seed_result(report.result) == {"comment_id": "10001", "action": "none"}


def test_comment_differing_is_updated_with_the_marker_prefixed() -> None:
    """A body without the marker is written as marker + newline + body into the oldest marked comment."""
    answer = comments(("10003", "другое"), ("10004", "[план] старое"))
    report, steps = play(
        "ensure_comment", {"key": "X-1", "marker": "[план]", "body": "новое"}, [ok(answer), ok({"id": "10004"})]
    )
    put = steps[1]
    assert isinstance(put, JiraCall)
    assert (put.method, put.path, put.json) == ("PUT", "/rest/api/2/issue/X-1/comment/10004", {"body": "[план]\nновое"})
    assert seed_result(report.result) == {"comment_id": "10004", "action": "updated"}


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
    assert seed_result(report.result) == {"comment_id": "10009", "action": "created"}


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
    assert (len(steps), seed_result(report.result)) == (1, {"comment_id": "9", "action": "none"})


def _removal(*found: dict[str, Any], deletes: int = 0) -> tuple[Any, list[str]]:
    page = {"startAt": 0, "total": len(found), "comments": list(found)}
    report, steps = play(
        "ensure_comment", {"key": "X-1", "marker": "[m]", "absent": True}, [ok(page), *[ok(None, 204)] * deletes]
    )
    return report, kinds(steps)


AGENT, PERSON = {"name": "bridge-user"}, {"name": "ivanov"}
OLDER = {"id": "10", "body": "[m] a", "created": "2026-10-11T10:00:00.000+0300", "author": AGENT}
NEWER = {"id": "9", "body": "[m] b", "created": "2026-10-12T10:00:00.000+0300", "author": AGENT}


def test_comment_absent_deletes_every_marked_comment_of_the_agent_oldest_first() -> None:
    """A pause between the deletes, the undo growing with each; a comment without the marker is not touched;
    with no marked comment there is nothing to do."""
    unmarked = {"id": "8", "body": "другое", "author": PERSON}
    report, trace = _removal(NEWER, unmarked, OLDER, deletes=2)
    assert trace == [
        "GET /rest/api/2/issue/X-1/comment",
        "DELETE /rest/api/2/issue/X-1/comment/10",
        "pause 30",
        "DELETE /rest/api/2/issue/X-1/comment/9",
    ]
    assert report.result == {
        "undo": {"deleted": [{"id": "10", "body": "[m] a"}, {"id": "9", "body": "[m] b"}]},
        "comment_id": "10",
        "action": "deleted",
    }
    report, trace = _removal(unmarked)
    assert (report.status, report.result, trace) == (
        "done",
        {"comment_id": None, "action": "none"},
        ["GET /rest/api/2/issue/X-1/comment"],
    )


@pytest.mark.parametrize("author", [PERSON, None, {"name": 5}])
def test_comment_absent_deletes_nothing_when_a_marked_comment_is_not_the_agents(author: Any) -> None:
    """Another author's, or one whose author is not said: all or nothing."""
    theirs = {"id": "7", "body": "[m] d", **({} if author is None else {"author": author})}
    report, trace = _removal(OLDER, theirs)
    assert (report.status, report.error, trace) == (
        "failed",
        "комментарий написан не агентом",
        ["GET /rest/api/2/issue/X-1/comment"],
    )


@pytest.mark.parametrize(
    ("comment_id", "error"),
    [
        (None, "ответ Jira по X-1: comments[].id — ожидается идентификатор Jira, получено: null"),
        ("x", 'недопустимый id комментария: "x"'),
        ("0", 'недопустимый id комментария: "0"'),
    ],
)
def test_comment_absent_names_a_comment_id_it_cannot_delete_by(comment_id: Any, error: str) -> None:
    report, trace = _removal({"id": comment_id, "body": "[m] a", "author": AGENT})
    assert (report.status, report.error, trace) == ("failed", error, ["GET /rest/api/2/issue/X-1/comment"])


def test_comment_author_is_the_users_name_only_when_it_is_text() -> None:
    """The author of a comment is Jira's ``author.name`` when that is text; a number, an author that is no object,
    or none at all is no author (``None``), never a value compared with the agent's user."""
    assert comment_author({"author": {"name": "bridge-user"}}) == "bridge-user"
    assert comment_author({"author": {"name": 42}}) is None
    assert comment_author({"author": "bridge-user"}) is None
    assert comment_author({}) is None
