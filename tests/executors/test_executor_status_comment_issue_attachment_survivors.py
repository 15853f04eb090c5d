"""Rules of ``ensure_status``, ``ensure_comment``, ``ensure_issue`` and ``ensure_attachment`` that only the
mutation run showed unpinned: the key and place named when Jira's answer cannot be read, which of several
equals is kept, and what a missing name or text reads as."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from executors_support import calls, ok, play

from reconcile.executors import JiraCall

KEY = "AURORA-1537"
ISSUE = f"/rest/api/2/issue/{KEY}"
WHEN = "2026-10-22T12:00:00.000+0300"


def _issue(**fields: Any) -> dict[str, Any]:
    return {"key": KEY, "fields": fields}


# --- ensure_status ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answers", "error"),
    [
        ([ok({"key": KEY, "fields": 5})], "fields — ожидается объект, получено: число"),
        ([ok(_issue(status=[]))], "status — ожидается объект, получено: список"),
        ([ok(_issue(status={"name": 5}))], "status.name — ожидается строка или null, получено: число"),
        (
            [ok(_issue(status={"name": "Анализ"})), ok({"transitions": 5})],
            "transitions — ожидается список, получено: число",
        ),
        (
            [ok(_issue(status={"name": "Анализ"})), ok({"transitions": [{"id": "1", "name": "x"}, 5]})],
            "transitions[1] — ожидается объект, получено: число",
        ),
    ],
)
def test_status_answers_that_cannot_be_read_name_the_issue_and_the_place(answers: list[Any], error: str) -> None:
    """The issue's status, its name and the transitions list are read strictly; the error names key and place."""
    report, _ = play("ensure_status", {"key": KEY, "target": "Готово"}, answers)
    assert (report.status, report.error) == ("failed", f"ответ Jira по {KEY}: {error}")


def test_an_issue_without_status_starts_from_an_empty_name() -> None:
    """No status (null) reads as the empty name: the walk starts at the path's first step and says «из «»»;
    no transition at all reads as «доступны: нет»."""
    report, _ = play(
        "ensure_status", {"key": KEY, "target": "Готово"}, [ok(_issue(status=None)), ok({"transitions": []})]
    )
    assert (report.status, report.error) == ("failed", "нет перехода в «Готово» из «»; доступны: нет")
    assert report.result == {"status": "", "transitions": []}


def test_the_transitions_offered_are_listed_by_target_status_else_by_their_own_name() -> None:
    """A transition without ``to`` (or with ``to.name`` null) is listed by its own name, once each."""
    transitions = [
        {"id": "1", "name": "Закрыть"},
        {"id": "2", "name": "Отложить", "to": {"name": None}},
        {"id": "3", "name": "В работу", "to": {"name": "Разработка"}},
        {"id": "4", "to": {"name": "Разработка"}},
        {"id": "5", "name": "Закрыть", "to": "Закрыта"},
    ]
    report, _ = play(
        "ensure_status",
        {"key": KEY, "target": "Готово"},
        [ok(_issue(status={"name": "Анализ"})), ok({"transitions": transitions})],
    )
    assert report.error == "нет перехода в «Готово» из «Анализ»; доступны: Закрыть, Отложить, Разработка"


def test_a_transition_without_any_name_offers_nothing() -> None:
    """A transition with neither ``to.name`` nor ``name`` has no name to show: «доступны: нет»."""
    report, _ = play(
        "ensure_status",
        {"key": KEY, "target": "Готово"},
        [ok(_issue(status={"name": "Анализ"})), ok({"transitions": [{"id": "5"}]})],
    )
    assert report.error == "нет перехода в «Готово» из «Анализ»; доступны: нет"


def test_a_transition_without_any_name_is_left_out_beside_named_ones() -> None:
    """The list names what a person could ask for: no empty entry between the named transitions."""
    transitions = [{"id": "1", "name": "Закрыть"}, {"id": "5"}, {"id": "6", "to": {"name": "Разработка"}}]
    report, _ = play(
        "ensure_status",
        {"key": KEY, "target": "Готово"},
        [ok(_issue(status={"name": "Анализ"})), ok({"transitions": transitions})],
    )
    assert report.error == "нет перехода в «Готово» из «Анализ»; доступны: Закрыть, Разработка"


@pytest.mark.parametrize(
    ("transition", "status"),
    [
        ({"id": "7", "name": "Готово", "to": {"name": "Закрыта"}}, "Закрыта"),
        ({"id": "7", "name": "Готово"}, "Готово"),
        ({"id": "7", "name": "Готово", "to": {"name": None}}, "Готово"),
    ],
)
def test_after_a_transition_the_status_is_its_target_else_the_step(transition: dict[str, Any], status: str) -> None:
    """A transition found by its own name leads to its ``to.name`` when Jira gives one, else to the step."""
    report, steps = play(
        "ensure_status",
        {"key": KEY, "target": "Готово"},
        [ok(_issue(status={"name": "Анализ"})), ok({"transitions": [transition]}), ok(None, status=204)],
    )
    assert report.status == "done"
    assert report.result == {"status": status, "transitions": ["Готово"]}
    assert calls(steps)[-1] == ("POST", f"{ISSUE}/transitions")


# --- ensure_comment --------------------------------------------------------------------------------------

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
    assert report.result == {"comment_id": "2", "action": "none"}


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
    assert report.result == {"comment_id": "5", "action": "created"}


def test_a_created_comment_answer_that_is_not_an_object_names_the_call() -> None:
    report, _ = play("ensure_comment", {"key": KEY, "marker": "[m]", "body": "b"}, [_comments(), ok([], status=201)])
    assert report.error == f"ответ Jira по POST {ISSUE}/comment: ответ — ожидается объект, получено: список"


# --- ensure_issue ----------------------------------------------------------------------------------------


def _hit(key: str | None, summary: Any = "Сверка", created: str = WHEN) -> dict[str, Any]:
    hit: dict[str, Any] = {"fields": {"summary": summary, "created": created}}
    if key is not None:
        hit["key"] = key
    return hit


def _ensure_issue(summary: str, *answers: Any) -> Any:
    report, _ = play("ensure_issue", {"temp_key": "new:1", "summary": summary}, list(answers))
    return report


def test_a_search_answer_that_cannot_be_read_names_the_search() -> None:
    report = _ensure_issue("Сверка", ok({"issues": 5}))
    assert report.error == "ответ Jira по POST /rest/api/2/search: issues — ожидается список, получено: число"


def test_a_hit_whose_fields_cannot_be_read_names_its_key() -> None:
    report = _ensure_issue("Сверка", ok({"issues": [{"key": "AURORA-7", "fields": []}]}))
    assert report.error == "ответ Jira по AURORA-7: fields — ожидается объект, получено: список"


@pytest.mark.parametrize("summary", ["Сверка", "XXXX", "None"])
def test_a_hit_without_a_summary_is_never_our_issue(summary: str) -> None:
    """A found issue without a summary matches no command's summary: the issue is created."""
    report = _ensure_issue(summary, ok({"issues": [_hit("AURORA-7", None)]}), ok({"key": "AURORA-8"}, status=201))
    assert report.result == {"key": "AURORA-8", "created": True}


def test_our_issue_without_a_readable_key_fails_naming_it() -> None:
    """The oldest match has no key: failed, the hit named «?»; with a key of a bad character, that key."""
    report = _ensure_issue("Сверка", ok({"issues": [_hit(None)]}))
    assert report.error == "ответ Jira по ?: key — ожидается непустая строка, получено: null"
    report = _ensure_issue("Сверка", ok({"issues": [_hit("AURORA-\x007")]}))
    assert report.error == "ответ Jira по AURORA-\ufffd7: key — недопустимый символ"


def test_a_hit_without_a_number_orders_before_the_numbered_ones_of_its_time() -> None:
    """Of two matches created at once, one whose key has no number orders as 0, before ``AURORA-1``."""
    report = _ensure_issue("Сверка", ok({"issues": [_hit("AURORA-1"), _hit(None)]}))
    assert report.error == "ответ Jira по ?: key — ожидается непустая строка, получено: null"


# --- ensure_attachment -----------------------------------------------------------------------------------

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
        (_issue(attachment=5), "attachment — ожидается список, получено: число"),
        (
            _issue(attachment=[{"id": "1", "filename": "b", "size": 1}, 5]),
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
    report = _attach(ok(_issue(attachment=[])), ok(answer))
    assert (report.status, report.error) == ("failed", f"ответ Jira по {UPLOAD}: {error}")
