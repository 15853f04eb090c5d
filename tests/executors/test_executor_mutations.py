"""Property: whatever Jira answers, the agent ends with a record or the project's own error.

The recorded Jira answers under ``tests/cassettes`` are mutated one place at a time — a value dropped, nulled,
retyped, made huge, or replaced by hostile Unicode — and replayed in order to the executors through the real
httpx driver. Every command ends with a report (never «внутренняя ошибка агента»), every page and report it
sends is one the hub accepts, and the Jira model returns a record or raises :class:`JiraAnswerError`.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import httpx
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters.clock import FakeClock
from adapters.hub_client import page_to_wire, report_to_wire
from adapters.jira_http import JiraError, JiraHttp
from agent_app.drive import Alone, drive
from hub_app.bodies.agent import PagesIn, ReportIn
from hub_app.bodies.parsing import parse
from reconcile.config.settings import Settings
from reconcile.executors import Delivery, ExecContext, FetchFile, Page
from reconcile.jira.model import histories_from_jira, issue_from_jira
from reconcile.types.binding import executor_for
from reconcile.vocabulary.errors import JiraAnswerError
from reconcile.vocabulary.text import check_request_json

CASSETTES = Path(__file__).parent.parent / "cassettes"
CTX = ExecContext(
    jira_user="bridge-user",
    jira_time_zone="Europe/Moscow",
    symmetric_link_types=frozenset({"Связанные"}),
    link_types=frozenset({"Связанные", "Блокирует начало"}),
)
CONTENT = b"schet 62: 18 bytes"
SHA = hashlib.sha256(CONTENT).hexdigest()

#: cassette → (command type, params) as the cassette tests drive them; ``None``: read by the model directly.
CASES: dict[str, tuple[str, dict[str, Any]] | None] = {
    "ensure_fields": ("ensure_fields", {"key": "AURORA-1537", "summary": "x", "labels_add": ["STOCKS_DRRK"]}),
    "ensure_fields_rejected": ("ensure_fields", {"key": "AURORA-1537", "planned_start": "2026-10-21"}),
    "ensure_issue": ("ensure_issue", {"temp_key": "new:1", "summary": "Сверка ОСВ 62", "labels": ["AWPCA"]}),
    "ensure_comment_create": ("ensure_comment", {"key": "AURORA-1537", "marker": "[план]", "body": "Стенд"}),
    "ensure_comment_update": ("ensure_comment", {"key": "AURORA-1533", "marker": "[план]", "body": "Срок"}),
    "ensure_status": ("ensure_status", {"key": "AURORA-1537", "target": ["Разработка", "Тестирование", "Готово"]}),
    "ensure_link_replace": (
        "ensure_link",
        {"source": "AURORA-1537", "target": "AURORA-1538", "link_type": "связанные", "replace": True},
    ),
    "ensure_sprint": ("ensure_sprint", {"key": "AURORA-1537", "sprint": "Спринт 3", "board_id": 4216}),
    "ensure_sprint_backlog": ("ensure_sprint", {"key": "AURORA-1540", "sprint": "backlog"}),
    "ensure_attachment": (
        "ensure_attachment",
        {"key": "AURORA-1540", "file": SHA, "filename": "ОСВ 62.xlsx", "size": len(CONTENT)},
    ),
    "refresh": (
        "refresh",
        {
            "jql": 'project = AURORA AND labels in ("AWPCA")',
            "boards": [{"id": 5120, "type": None}],
            "history": {"since": "2026-10-21T00:00:00Z"},
        },
    ),
    "rate_limited": (
        "ensure_link",
        {"source": "AURORA-1537", "target": "AURORA-1538", "link_type": "блокирует начало"},
    ),
    "not_found": ("ensure_fields", {"key": "AURORA-9999", "summary": "x"}),
    "issue_changelog": None,
    "agent_start": None,
}


def _load(name: str) -> list[tuple[int, dict[str, str], Any]]:
    """(status, headers, body: parsed JSON, or the raw text) of each recorded answer, in order."""
    data = yaml.safe_load((CASSETTES / f"{name}.yaml").read_text(encoding="utf-8"))
    answers = []
    for interaction in data["interactions"]:
        response = interaction["response"]
        headers = {k: v[0] for k, v in (response.get("headers") or {}).items()}
        text = response["body"]["string"]
        try:
            body: Any = json.loads(text) if text else None
        except ValueError:
            body = text
        answers.append((response["status"]["code"], headers, body))
    return answers


RECORDED = {name: _load(name) for name in CASES}


def _places(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path]
    if isinstance(value, dict):
        for key, child in value.items():
            found += _places(child, (*path, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found += _places(child, (*path, index))
    return found


_DROP = object()
HOSTILE = ["\udfff", "a\x00b", "\u202eлевый", "🦀" * 3, "\ufeff", "x" * 100_000, "9" * 5000]
REPLACEMENTS = st.sampled_from(
    [_DROP, None, "x", 7, -1, 1.5, True, [], {}, [1], {"a": 1}, 10**40, -(10**40), 1e308, *HOSTILE]
)


def _mutated(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return None if new is _DROP else new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        copy = dict(value)
        if not rest and new is _DROP:
            copy.pop(head, None)
        else:
            copy[head] = _mutated(value[head], rest, new)
        return copy
    copy_list = list(value)
    if not rest and new is _DROP:
        copy_list.pop(head)
    else:
        copy_list[head] = _mutated(value[head], rest, new)
    return copy_list


@st.composite
def mutations(draw: st.DrawFn) -> tuple[str, list[tuple[int, dict[str, str], Any]]]:
    """A cassette with one place of one JSON answer mutated."""
    name = draw(st.sampled_from(sorted(CASES)))
    answers = list(RECORDED[name])
    index = draw(st.sampled_from([i for i, (_, _, body) in enumerate(answers) if not isinstance(body, str)]))
    status, headers, body = answers[index]
    path = draw(st.sampled_from(_places(body)))
    answers[index] = (status, headers, _mutated(body, path, draw(REPLACEMENTS)))
    return name, answers


def _transport(answers: list[tuple[int, dict[str, str], Any]]) -> httpx.MockTransport:
    """Answers in the recorded order, whatever is asked (a mutated key changes later paths); then 404."""
    pending = list(answers)

    def handle(_: httpx.Request) -> httpx.Response:
        if not pending:
            return httpx.Response(404, json={"errorMessages": ["нет записанного ответа"], "errors": {}})
        status, headers, body = pending.pop(0)
        content = body if isinstance(body, str) else json.dumps(body)
        kept = {k: v for k, v in headers.items() if k.lower() in ("retry-after", "location")}
        return httpx.Response(status, content=content.encode("utf-8", "surrogatepass"), headers=kept)

    return httpx.MockTransport(handle)


def _hub_accepts_page(page: Page) -> None:
    wire = json.loads(json.dumps(page_to_wire(page)))
    check_request_json(wire)
    parse(PagesIn, wire)


async def _drive(name: str, answers: list[tuple[int, dict[str, str], Any]]) -> None:
    jira = JiraHttp.connect("http://jira.test", token="secret", clock=FakeClock(), transport=_transport(answers))
    try:
        case = CASES[name]
        if case is None:
            with contextlib.suppress(JiraError):
                await jira.exec_context()
            return
        command_type, params = case
        pages: list[Page] = []

        async def fetch_file(file: FetchFile) -> bytes | None:
            return CONTENT

        async def on_page(page: Page) -> None:
            pages.append(page)

        delivery = Delivery(id=1, type=command_type, params=params, pause_seconds=30)
        watch = Alone(jira=jira, on_file=fetch_file, on_page=on_page)
        outcome = await drive(executor_for(delivery, CTX), jira, watch)
        report = outcome.report
        assert not (report.error or "").startswith("внутренняя ошибка агента"), report.error
        wire = json.loads(json.dumps(report_to_wire(report, outcome.jira_calls)))
        check_request_json(wire)
        parse(ReportIn, wire)
        for page in pages:
            _hub_accepts_page(page)
    finally:
        await jira.aclose()


def _model(answers: list[tuple[int, dict[str, str], Any]]) -> None:
    """Every JSON answer that looks like an issue gives a record or JiraAnswerError."""
    for _, _, body in answers:
        if not isinstance(body, Mapping) or "fields" not in body:
            continue
        try:
            issue_from_jira(body, Settings())
            histories_from_jira("AURORA-1533", body.get("changelog"))
        except JiraAnswerError:
            pass


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutations())
def test_a_mutated_answer_gives_a_record_or_our_error(mutation: tuple[str, list[Any]]) -> None:
    """One mutated place anywhere in a recorded answer: a report the hub accepts, never another exception."""
    name, answers = mutation
    _model(answers)
    asyncio.run(_drive(name, answers))


def test_every_cassette_unmutated_is_clean() -> None:
    """The recorded answers themselves end in reports without internal errors (the property's baseline)."""
    for name in CASES:
        _model(RECORDED[name])
        asyncio.run(_drive(name, RECORDED[name]))
