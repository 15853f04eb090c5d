"""``ensure_attachment`` fed Jira's answers as values (no I/O): uploaded only when missing or of another size,
and the issue or upload named when Jira's answer cannot be read."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from reconcile.executors import JiraCall
from tests.support import SHA, seed_result

from .executors_support import ISSUE, KEY, SHA_ABC, issue, kinds, ok, play

CONTENT = b"schet"


SCHET_SHA = hashlib.sha256(CONTENT).hexdigest()


UPLOAD = f"POST {ISSUE}/attachments"


def _attach(*answers: Any) -> Any:
    params = {"key": KEY, "file": SCHET_SHA, "filename": "a.xlsx", "size": len(CONTENT)}
    report, _ = play("ensure_attachment", params, list(answers), files={SCHET_SHA: CONTENT})
    return report


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        ({"key": KEY, "fields": []}, "fields — ожидается объект, получено: список"),
        (issue(KEY, attachment=5), "attachment — ожидается список, получено: число"),
        (
            issue(KEY, attachment=[{"id": "1", "filename": "b", "size": 1}, 5]),
            "attachment[1] — ожидается объект, получено: число",
        ),
    ],
)
def test_an_issue_answer_that_cannot_be_read_names_the_issue_and_the_place(answer: Any, error: str) -> None:
    report = _attach(ok(answer))
    assert (report.status, report.error) == ("failed", f"ответ Jira по {KEY}: {error}")


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        ({"id": "10"}, "ответ — ожидается список, получено: объект"),
        ([], "ответ — пустой список вместо созданного вложения"),
        ([5], "[0] — ожидается объект, получено: число"),
    ],
)
def test_an_upload_answer_that_cannot_be_read_names_the_call(answer: Any, error: str) -> None:
    report = _attach(ok(issue(KEY, attachment=[])), ok(answer))
    assert (report.status, report.error) == ("failed", f"ответ Jira по {UPLOAD}: {error}")


def attachments(*items: tuple[str, str, int]) -> dict[str, Any]:
    return {"key": "X-1", "fields": {"attachment": [{"id": i, "filename": n, "size": s} for i, n, s in items]}}


def test_attachment_present_is_not_fetched() -> None:
    """Same filename and size: done with its id, no file fetched (seed: «Вложение уже есть»)."""
    params = {"key": "X-1", "file": SHA, "filename": "ОСВ 60.xlsx", "size": 2048}
    report, steps = play("ensure_attachment", params, [ok(attachments(("10500", "ОСВ 60.xlsx", 2048)))])
    assert kinds(steps) == ["GET /rest/api/2/issue/X-1"]
    assert seed_result(report.result) == {"attachment_id": "10500", "uploaded": False}


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
    assert seed_result(report.result) == {"attachment_id": "10501", "uploaded": True}


def test_attachment_gone_from_the_hub_fails() -> None:
    """The hub no longer has the file: failed with the seed-style message."""
    params = {"key": "X-1", "file": SHA, "filename": "a.xlsx", "size": None}
    report, _ = play("ensure_attachment", params, [ok(attachments())])
    assert (report.status, report.error) == ("failed", f"файл {SHA} больше нет у хаба")


MINE, THEIRS = {"name": "bridge-user"}, {"name": "ivanov"}
ON_THE_ISSUE = [
    {"id": "11", "filename": "a.txt", "size": 3, "author": MINE},
    {"id": "12", "filename": "a.txt", "size": 5, "author": MINE},
    {"id": "13", "filename": "b.txt", "size": 3, "author": THEIRS},
    5,
]


def _remove(deletes: int, **params: Any) -> tuple[Any, list[str]]:
    answers = [ok(issue(KEY, attachment=ON_THE_ISSUE)), *[ok(None, 204)] * deletes]
    report, steps = play("ensure_attachment", {"key": KEY, "file": SHA_ABC, "absent": True, **params}, answers)
    return report, kinds(steps)


def _deleted(*ids: str) -> dict[str, Any]:
    return {"deleted": [{"id": i, "sha256": SHA_ABC, "filename": "a.txt"} for i in ids]}


def test_absent_deletes_the_agents_attachments_of_that_name_and_size() -> None:
    """By name, by size, or both (the hub completes the size at delivery); each DELETE a pause after the last,
    the undo growing with each; another author's of the same size is left; none of them is nothing to do."""
    report, trace = _remove(2, filename="a.txt")
    assert trace == [f"GET {ISSUE}", "DELETE /rest/api/2/attachment/11", "pause 30", "DELETE /rest/api/2/attachment/12"]
    assert report.result == {"undo": _deleted("11", "12"), "attachment_id": "11", "uploaded": False, "deleted": 2}
    report, trace = _remove(1, size=3)
    assert trace == [f"GET {ISSUE}", "DELETE /rest/api/2/attachment/11"]
    assert report.result["undo"] == _deleted("11")
    report, trace = _remove(1, filename="a.txt", size=5)
    assert (report.result["attachment_id"], report.result["deleted"]) == ("12", 1)
    report, trace = _remove(0, filename="c.txt")
    assert (report.status, report.result, trace) == (
        "done",
        {"attachment_id": None, "uploaded": False, "deleted": 0},
        [f"GET {ISSUE}"],
    )


def test_absent_fails_for_another_authors_attachment_or_a_file_the_hub_no_longer_has() -> None:
    report, trace = _remove(0, filename="b.txt")
    assert (report.status, report.error, trace) == ("failed", "вложение добавлено не агентом", [f"GET {ISSUE}"])
    report, _ = _remove(0)
    assert (report.status, report.error) == ("failed", f"файл {SHA_ABC} больше нет у хаба")


@pytest.mark.parametrize(
    ("attachment_id", "error"),
    [
        (None, f"ответ Jira по {KEY}: attachment[].id — ожидается идентификатор Jira, получено: null"),
        ("x", 'недопустимый id вложения: "x"'),
        ("0", 'недопустимый id вложения: "0"'),
    ],
)
def test_absent_names_an_attachment_id_it_cannot_delete_by(attachment_id: Any, error: str) -> None:
    on_the_issue = [{"id": attachment_id, "filename": "a.txt", "size": 3, "author": MINE}]
    params = {"key": KEY, "file": SHA_ABC, "absent": True, "filename": "a.txt"}
    report, steps = play("ensure_attachment", params, [ok(issue(KEY, attachment=on_the_issue))])
    assert (report.status, report.error, kinds(steps)) == ("failed", error, [f"GET {ISSUE}"])


def test_absent_that_fails_at_its_first_delete_says_it_may_have_deleted_only_that_one() -> None:
    params = {"key": KEY, "file": SHA_ABC, "absent": True, "filename": "a.txt"}
    answers = [ok(issue(KEY, attachment=ON_THE_ISSUE)), ok({"errorMessages": ["нет"]}, 500)]
    report, _ = play("ensure_attachment", params, answers)
    assert (report.status, report.error) == ("failed", "HTTP 500: нет")
    assert report.result == {"undo": _deleted("11")}
