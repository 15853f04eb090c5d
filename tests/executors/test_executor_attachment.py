"""``ensure_attachment`` fed values with no I/O: the issue or upload named when Jira's answer cannot be read."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from .executors_support import ISSUE, KEY, issue, ok, play

CONTENT = b"schet"


SHA = hashlib.sha256(CONTENT).hexdigest()


UPLOAD = f"POST {ISSUE}/attachments"


def _attach(*answers: Any) -> Any:
    params = {"key": KEY, "file": SHA, "filename": "a.xlsx", "size": len(CONTENT)}
    report, _ = play("ensure_attachment", params, list(answers), files={SHA: CONTENT})
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
