"""Executors fed malformed Jira answers end ``failed`` with the project's message (key and field), never an
internal error; a refresh keeps every readable issue and lists the others as unreadable."""

from __future__ import annotations

import hashlib
from typing import Any

import attrs
import pytest

from reconcile.executors import Page

from .executors_support import SYMMETRIC, calls, kinds, ok, play
from .sim_support import make_bench

GOOD = {
    "key": "AURORA-1537",
    "fields": {
        "summary": "Интеграция с АБС",
        "status": {"name": "Разработка", "statusCategory": {"key": "indeterminate"}},
        "labels": ["AWPCA"],
        "created": "2026-10-22T12:00:00.000+0300",
        "updated": "2026-10-22T12:00:00.000+0300",
        "issuelinks": [],
    },
}


def _with(**fields: Any) -> dict[str, Any]:
    return {**GOOD, "key": "AURORA-1538", "fields": {**GOOD["fields"], **fields}}


@pytest.mark.parametrize(
    ("type_", "params", "answers", "error"),
    [
        (
            "ensure_fields",
            {"key": "AURORA-1537", "summary": "x"},
            [ok({"key": "AURORA-1537", "fields": []})],
            "ответ Jira по AURORA-1537: fields — ожидается объект, получено: список",
        ),
        (
            "ensure_status",
            {"key": "AURORA-1537", "target": "Готово"},
            [ok(GOOD), ok(["На тестирование"])],
            "ответ Jira по AURORA-1537: transitions: ответ — ожидается объект, получено: список",
        ),
        (
            "ensure_status",
            {"key": "AURORA-1537", "target": "Готово"},
            [ok(GOOD), ok({"transitions": [{"name": "Готово", "to": {"name": "Готово"}}]})],
            "ответ Jira по AURORA-1537: переход «Готово»: id — ожидается идентификатор Jira, получено: null",
        ),
        (
            "ensure_fields",
            {"key": "AURORA-1537", "summary": "x"},
            [ok(GOOD), ok({"errorMessages": 5, "errors": {"summary": "нельзя"}}, status=400)],
            "HTTP 400: 5; summary: нельзя",
        ),
        (
            "ensure_comment",
            {"key": "AURORA-1537", "marker": "[m]", "body": "b"},
            [ok({"startAt": 0, "total": 0, "comments": []}), ok({"body": "[m]\nb"}, status=201)],
            "ответ Jira по POST /rest/api/2/issue/AURORA-1537/comment: id — ожидается идентификатор Jira, "
            "получено: null",
        ),
        (
            "ensure_comment",
            {"key": "AURORA-1537", "marker": "[m]", "body": "b"},
            [ok({"startAt": 0, "total": 1, "comments": 7})],
            "ответ Jira по AURORA-1537: comments — ожидается список, получено: число",
        ),
        (
            "ensure_issue",
            {"temp_key": "new:1", "summary": "Сверка"},
            [ok({"startAt": 0, "total": 0, "issues": []}), ok({"id": "31590"}, status=201)],
            "ответ Jira по POST /rest/api/2/issue: key — ожидается непустая строка, получено: null",
        ),
        (
            "ensure_sprint",
            {"key": "AURORA-1537", "sprint": "Спринт 3", "board_id": 4216},
            [
                ok(GOOD),
                ok({"id": 4216, "type": "scrum"}),
                ok({"isLast": True, "values": [{"id": "восемь", "name": "Спринт 3", "state": "future"}]}),
            ],
            "ответ Jira по доска 4216: спринт «Спринт 3»: id — ожидается число, получено: строка",
        ),
    ],
)
def test_a_malformed_answer_fails_with_the_key_and_field(
    type_: str, params: dict[str, Any], answers: list[Any], error: str
) -> None:
    """The command fails with the project's message (never «внутренняя ошибка агента»)."""
    report, _ = play(type_, params, answers)
    assert (report.status, report.error) == ("failed", error)


def test_an_attachment_answer_without_id_is_not_none() -> None:
    """An upload answered without the attachment's id fails naming it; ``"None"`` is never an id."""
    content = b"schet"
    sha = hashlib.sha256(content).hexdigest()
    params = {"key": "AURORA-1540", "file": sha, "filename": "a.xlsx", "size": len(content)}
    issue = {"key": "AURORA-1540", "fields": {"attachment": []}}
    report, _ = play("ensure_attachment", params, [ok(issue), ok([{"filename": "a.xlsx"}])], files={sha: content})
    assert report.status == "failed"
    assert report.error == (
        "ответ Jira по POST /rest/api/2/issue/AURORA-1540/attachments: [0].id — ожидается идентификатор Jira, "
        "получено: null"
    )
    assert "None" not in str(report.result)
    assert [op.method for op in report.operations] == ["POST"]


def test_an_existing_attachment_without_id_is_not_none() -> None:
    """The same name and size already there but without an id: failed naming it, nothing uploaded."""
    params = {"key": "AURORA-1540", "file": "a" * 64, "filename": "a.xlsx", "size": 5}
    issue = {"key": "AURORA-1540", "fields": {"attachment": [{"filename": "a.xlsx", "size": 5}]}}
    report, steps = play("ensure_attachment", params, [ok(issue)])
    assert report.error == "ответ Jira по AURORA-1540: attachment[0].id — ожидается идентификатор Jira, получено: null"
    assert calls(steps) == [("GET", "/rest/api/2/issue/AURORA-1540")]


def test_a_refresh_keeps_the_readable_issues_of_a_page() -> None:
    """One unreadable issue on a page: the others go to the hub, it is listed in ``unreadable``; done."""
    page = {"startAt": 0, "total": 3, "issues": [GOOD, _with(labels="AWPCA"), {**GOOD, "key": "AURORA-1540"}]}
    report, steps = play("refresh", {"keys": ["AURORA-1537", "AURORA-1538", "AURORA-1540"]}, [ok(page)])
    pages = [s for s in steps if isinstance(s, Page)]
    assert [[i.key for i in p.issues] for p in pages] == [["AURORA-1537", "AURORA-1540"]]
    assert report.status == "done"
    assert report.result["issues"] == 2
    assert report.result["unreadable"] == [
        {"key": "AURORA-1538", "error": "ответ Jira по AURORA-1538: labels — ожидается список, получено: строка"}
    ]


def test_an_unreadable_neighbour_is_read_once() -> None:
    """A linked issue that cannot be read is listed once and not asked for again."""
    linking = {
        **GOOD,
        "fields": {
            **GOOD["fields"],
            "issuelinks": [{"id": "1", "type": {"name": "Связанные"}, "outwardIssue": {"key": "AURORA-1538"}}],
        },
    }
    bad = _with(created="0001-01-01T00:00:00.000+0100")
    report, steps = play(
        "refresh",
        {"keys": ["AURORA-1537"]},
        [ok({"startAt": 0, "total": 1, "issues": [linking]}), ok({"startAt": 0, "total": 1, "issues": [bad]})],
    )
    assert kinds(steps) == ["POST /rest/api/2/search", "page issues", "POST /rest/api/2/search", "page neighbours"]
    assert report.result["neighbours"] == 0
    assert [u["key"] for u in report.result["unreadable"]] == ["AURORA-1538"]


def test_an_unreadable_changelog_is_listed_and_the_journal_goes_on() -> None:
    """A history page with one malformed changelog: the other issue's entries are sent, that one is listed."""
    good = {
        **GOOD,
        "changelog": {
            "histories": [{"id": "1", "created": "2026-10-22T12:00:00.000+0300", "items": [{"field": "status"}]}]
        },
    }
    bad = {**GOOD, "key": "AURORA-1538", "changelog": {"histories": "x"}}
    report, steps = play(
        "refresh",
        {"keys": ["AURORA-1537"], "history": {"jql": "key = AURORA-1537"}},
        [ok({"startAt": 0, "total": 1, "issues": [GOOD]}), ok({"startAt": 0, "total": 2, "issues": [good, bad]})],
    )
    history = [s for s in steps if isinstance(s, Page) and s.kind == "history"]
    assert [e.key for e in history[0].history] == ["AURORA-1537"]
    assert report.result["history"] == {"entries": 1}
    assert report.result["unreadable"][0]["key"] == "AURORA-1538"


def test_a_page_never_goes_back() -> None:
    """A search answer claiming to start before the page asked for is read as that page: the reading ends."""
    page = {"startAt": 0, "total": 2, "issues": [GOOD]}
    report, steps = play("refresh", {"keys": ["AURORA-1537"]}, [ok(page), ok(page)])
    assert report.status == "done"
    assert calls(steps).count(("POST", "/rest/api/2/search")) == 2


def test_a_link_type_jira_lacks_fails_before_any_write() -> None:
    """A logical type mapped to a name Jira lacks: issueLinkType is read again, then «в Jira нет типа связи»."""
    ctx = attrs.evolve(SYMMETRIC, link_types=frozenset({"Связанные", "Блокирует начало"}))
    params = {"source": "AURORA-1537", "target": "AURORA-1538", "link_type": "дублирует"}
    context = {"link_types": {"дублирует": "Дублирует"}}
    answer = {"issueLinkTypes": [{"name": "Связанные"}, {"name": "Блокирует начало"}]}
    report, steps = play("ensure_link", params, [ok(answer)], ctx=ctx, context=context)
    assert (report.status, report.error) == (
        "failed",
        "в Jira нет типа связи «Дублирует»; есть: Связанные, Блокирует начало",
    )
    assert calls(steps) == [("GET", "/rest/api/2/issueLinkType")]
    assert report.operations == ()


@pytest.mark.anyio
async def test_a_link_type_jira_lacks_against_the_simulator() -> None:
    """Against the simulator (its types read at start): failed with Jira's type names, no write made."""
    bench = make_bench()
    outcome = await bench.run(
        "ensure_link",
        {"source": "AURORA-1537", "target": "AURORA-1538", "link_type": "дублирует"},
        context={"link_types": {"дублирует": "Дублирует"}},
    )
    await bench.jira.aclose()
    assert (outcome.report.status, outcome.report.error) == (
        "failed",
        "в Jira нет типа связи «Дублирует»; есть: Блокирует начало, Связанные",
    )
    assert bench.writes() == []
    assert [c["path"] for c in bench.sim.calls] == ["/rest/api/2/issueLinkType"]
