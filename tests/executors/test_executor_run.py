"""What every executor shares, fed values with no I/O: a bug inside a body and a bad file end as failed reports
that carry the writes made so far (``Run.call`` is the one log of writes)."""

from __future__ import annotations

import hashlib
import json

import pytest

from reconcile.executors import Dropped, ExecContext, JiraCall, JiraResponse, Operation, Pause, Report
from reconcile.executors._run import (
    Body,
    CommandFailed,
    Run,
    context_settings,
    http_error,
    next_start,
    run_body,
    search_call,
)
from reconcile.executors.drive import Ended, drive
from reconcile.vocabulary.errors import JiraAnswerError
from tests.support import seed_result

from .executors_support import SHA_ABC, SYMMETRIC, delivery, issue, kinds, ok, play

ATTACHMENT = {"key": "X-1", "file": SHA_ABC, "filename": "a.txt", "size": 3}
NO_ATTACHMENTS = [ok({"fields": {"attachment": []}})]


def statuses(body: Body, answers: list[int]) -> Report:
    """Feed ``body`` one answer (a status) per Jira call until it returns its report."""
    pending = list(answers)
    return drive(body, lambda step: ok(status=pending.pop(0)) if isinstance(step, JiraCall) else None)


def test_a_bug_inside_a_body_fails_the_command_with_the_writes_so_far() -> None:
    """An exception the body did not mean to raise becomes «внутренняя ошибка агента: …» with its operations."""

    def broken(run: Run) -> Body:
        yield from run.call(JiraCall(method="POST", path="/rest/api/2/issue/X-1/comment", json={"body": "x"}))
        run.result["comment_id"] = "10"
        raise KeyError("key")

    report = statuses(run_body(broken, delivery("ensure_comment", {}), ExecContext()), [201])
    assert report == Report(
        status="failed",
        result={"comment_id": "10"},
        error="внутренняя ошибка агента: KeyError: 'key'",
        operations=(Operation(method="POST", path="/rest/api/2/issue/X-1/comment", status=201),),
    )


def test_a_write_dropped_by_the_driver_fails_with_its_message_and_the_writes_so_far() -> None:
    """The driver throws :class:`Dropped` at a write the hub no longer allows: the executor ends failed with the
    drop's message (not an internal error) and the writes made before it, the dropped one not among them."""

    def two_writes(run: Run) -> Body:
        yield from run.call(JiraCall(method="PUT", path="/rest/api/2/issue/X-1", json={"fields": {}}))
        yield from run.call(JiraCall(method="POST", path="/rest/api/2/issue/X-1/comment", json={"body": "x"}))
        return run.done()

    body = run_body(two_writes, delivery("ensure_fields", {}), ExecContext())
    first = body.send(None)
    second = body.send(ok(status=204))
    assert (first.method, second.method) == ("PUT", "POST")
    dropped = Dropped("команда отменена принудительно")
    assert dropped.message == "команда отменена принудительно" == str(dropped)
    try:
        body.throw(dropped)
    except StopIteration as stop:
        report: Report = stop.value
    assert report == Report(
        status="failed",
        error="команда отменена принудительно",
        operations=(Operation(method="PUT", path="/rest/api/2/issue/X-1", status=204),),
    )


def test_an_answer_can_end_the_drive_with_its_own_report_and_the_executor_is_closed_there() -> None:
    """The synchronous driver returns the report an answer ends it with (:class:`Ended`, the dry run's predicted
    upload) and closes the executor at that step: nothing after it runs."""
    reached: list[str] = []

    def two_calls(run: Run) -> Body:
        try:
            yield from run.call(JiraCall(method="GET", path="/rest/api/2/issue/X-1"))
            reached.append("after the first call")
            return run.done()
        finally:
            reached.append("closed")

    def answer(step: object) -> JiraResponse:
        raise Ended(Report(status="done", result={"predicted": True}))

    report = drive(run_body(two_calls, delivery("ensure_fields", {}), ExecContext()), answer)
    assert (report, reached) == (Report(status="done", result={"predicted": True}), ["closed"])


def test_a_bug_before_any_call_fails_with_no_operations() -> None:
    """A body that crashes at once reports failed with no operations and no result."""

    def broken(run: Run) -> Body:
        raise ZeroDivisionError("division by zero")
        yield  # pragma: no cover - makes this a generator

    report = statuses(run_body(broken, delivery("ensure_fields", {}), ExecContext()), [])
    assert (report.status, report.error, report.operations) == (
        "failed",
        "внутренняя ошибка агента: ZeroDivisionError: division by zero",
        (),
    )


def test_file_of_another_size_is_not_uploaded() -> None:
    """The hub's bytes are 4 long where the command says 3: failed before any upload, naming both sizes."""
    report, steps = play("ensure_attachment", ATTACHMENT, NO_ATTACHMENTS, files={SHA_ABC: b"abcd"})
    assert kinds(steps) == ["GET /rest/api/2/issue/X-1", "fetch"]
    assert (report.status, report.error, report.operations) == (
        "failed",
        f"файл {SHA_ABC} у хаба другого размера: 4 байт вместо 3",
        (),
    )


def test_file_with_another_sha256_is_not_uploaded() -> None:
    """The hub's bytes hash to another sha256: failed before any upload, naming the digest found."""
    report, steps = play("ensure_attachment", ATTACHMENT, NO_ATTACHMENTS, files={SHA_ABC: b"abd"})
    assert kinds(steps) == ["GET /rest/api/2/issue/X-1", "fetch"]
    assert (report.status, report.error) == (
        "failed",
        f"файл {SHA_ABC} у хаба с другим sha256: {hashlib.sha256(b'abd').hexdigest()}",
    )


def test_file_sha256_compares_without_case() -> None:
    """A command naming the sha256 in capitals accepts the same bytes (hex case is not a difference)."""
    params = {**ATTACHMENT, "file": SHA_ABC.upper()}
    answers = [ok({"fields": {"attachment": []}}), ok([{"id": "10501"}])]
    report, _ = play("ensure_attachment", params, answers, files={SHA_ABC.upper(): b"abc"})
    assert (report.status, seed_result(report.result)) == ("done", {"attachment_id": "10501", "uploaded": True})


def test_next_start_follows_the_page_jira_says_it_gave() -> None:
    """A page that says it starts later than asked is read from there (Jira moved on); one that says it starts
    earlier, or says nothing readable, is read from where it was asked: the reading never loops back."""
    items = [{"key": "X-1"}, {"key": "X-2"}]
    assert next_start({"startAt": 10, "total": 100, "issues": items}, 4, "issues", key="поиск") == (items, 12)
    assert next_start({"startAt": 1, "total": 100, "issues": items}, 4, "issues", key="поиск") == (items, 6)
    assert next_start({"startAt": "10", "total": 100, "issues": items}, 4, "issues", key="поиск") == (items, 6)
    assert next_start({"startAt": True, "total": 100, "issues": items}, 4, "issues", key="поиск") == (items, 6)
    assert next_start({"startAt": 98, "total": 100, "issues": items}, 4, "issues", key="поиск") == (items, None)
    assert next_start({"isLast": False, "values": items}, 0, "values", key="доска") == (items, 2)
    assert next_start({"isLast": True, "values": items}, 0, "values", key="доска") == (items, None)
    assert next_start({"values": items}, 0, "values", key="доска") == (items, None)
    assert next_start({"total": 100, "issues": []}, 0, "issues", key="поиск") == ([], None)


@pytest.mark.parametrize(
    ("page", "field", "problem"),
    [
        ([], "ответ", "ожидается объект, получено: список"),
        ({"issues": {}}, "issues", "ожидается список, получено: объект"),
        ({"issues": [{"key": "X-1"}, "X-2"]}, "issues[1]", "ожидается объект, получено: строка"),
    ],
)
def test_next_start_names_the_call_and_the_place_of_an_unreadable_page(page: object, field: str, problem: str) -> None:
    with pytest.raises(JiraAnswerError) as info:
        next_start(page, 0, "issues", key="поиск по AWPCA")
    assert (info.value.key, info.value.field, info.value.message) == (
        "поиск по AWPCA",
        field,
        f"ответ Jira по поиск по AWPCA: {field} — {problem}",
    )


def test_http_error_keeps_the_first_thousand_characters_of_jiras_words() -> None:
    words = "ж" * 1500
    assert http_error(JiraResponse(status=400, json={"errorMessages": [words]})) == f"HTTP 400: {'ж' * 1000}"
    assert http_error(JiraResponse(status=502, json="  ")) == "HTTP 502"


def test_search_call_body() -> None:
    """The search's body as Jira reads it: ``validateQuery: false`` only when asked (the JSON ``false``)."""
    call = search_call("project = X", ["summary"], 200, expand=["changelog"], page_size=50, validate=False)
    assert (call.method, call.path) == ("POST", "/rest/api/2/search")
    assert json.dumps(call.json) == json.dumps(
        {
            "jql": "project = X",
            "startAt": 200,
            "maxResults": 50,
            "fields": ["summary"],
            "expand": ["changelog"],
            "validateQuery": False,
        }
    )
    assert search_call("project = X", ["summary"], 0).json == {
        "jql": "project = X",
        "startAt": 0,
        "maxResults": 100,
        "fields": ["summary"],
    }


def test_a_required_text_parameter_missing_or_empty_fails_naming_it() -> None:
    """The executor fails a delivery whose required text is missing or empty, naming it, before any call."""
    for params in ({"key": "X-1"}, {"key": "X-1", "marker": ""}):
        report, steps = play("ensure_comment", {**params, "body": "текст"}, [])
        assert (report.status, report.error, steps) == ("failed", "нет параметра marker", [])


def test_the_first_run_of_a_process_reads_its_settings() -> None:
    """With nothing read before (a fresh agent), a run reads the settings of its delivery's context, and the
    next run with another context reads that one."""
    first = Run(delivery("ensure_fields", {"key": "X-1"}, context={"jira_project": "ONE"}), SYMMETRIC)
    second = Run(delivery("ensure_fields", {"key": "X-1"}, context={"jira_project": "TWO"}), SYMMETRIC)
    assert (first.settings.jira_project, second.settings.jira_project) == ("ONE", "TWO")


def test_a_run_given_its_settings_does_not_read_the_context_again() -> None:
    """Settings read once for a batch (the dry run) are the run's settings: the context is not read again, so
    even a context that would fail the command does not."""
    read = context_settings({"jira_project": "ONE", "unknown_key": 1})
    run = Run(delivery("ensure_fields", {"key": "X-1"}, context={"jira_project": 5}), SYMMETRIC, read)
    assert (run.settings.jira_project, run.settings) == ("ONE", read)
    with pytest.raises(CommandFailed) as caught:
        Run(delivery("ensure_fields", {"key": "X-1"}, context={"jira_project": 5}), SYMMETRIC)
    assert caught.value.message == "настройки: jira_project — непустая строка"


def test_unknown_type_fails() -> None:
    """A command type the agent does not know fails without calls."""
    report, steps = play("ensure_everything", {}, [])
    assert (report.status, report.error, steps) == ("failed", "неизвестный тип команды ensure_everything", [])


def test_pause_is_never_yielded_before_the_first_write() -> None:
    """A single-write command yields no Pause at all."""
    _, steps = play("ensure_fields", {"key": "X-1", "summary": "b"}, [ok(issue("X-1", summary="a")), ok(status=204)])
    assert not any(isinstance(s, Pause) for s in steps)


def test_http_error_names_an_html_page_by_its_title_without_the_code_it_repeats() -> None:
    page = "<html><head><title>503 Service Unavailable</title></head><body>…</body></html>"
    assert http_error(JiraResponse(status=503, json=page)) == "HTTP 503: Service Unavailable"


def test_a_key_outside_the_allowed_projects_fails_naming_the_key_and_the_projects() -> None:
    """A key of a project the agent may not touch fails before any call, naming the key and the allowed projects
    joined by «, »; a key of an allowed project is read."""
    ctx = ExecContext(allowed_projects=("AURORA", "DEV"))
    report, steps = play("ensure_fields", {"key": "OTHER-1", "summary": "Отчёт"}, [], ctx=ctx)
    assert (report.status, report.error, steps) == (
        "failed",
        "ключ OTHER-1 не в разрешённых проектах (AURORA, DEV)",
        [],
    )
    answers = [ok(issue("DEV-1", summary="Отчёт"))]
    report, steps = play("ensure_fields", {"key": "DEV-1", "summary": "Отчёт"}, answers, ctx=ctx)
    assert (report.status, kinds(steps)) == ("done", ["GET /rest/api/2/issue/DEV-1"])
