"""The executors driven by the agent's driver over httpx against Jira DC cassettes: the calls, bodies and results
match."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs
import pytest
import vcr
from vcr.request import Request as VcrRequest

from adapters.clock import FakeClock
from adapters.jira_http import JiraAuthError, JiraHttp
from agent_app.drive import Alone, DriveOutcome, drive
from reconcile.executors import Delivery, ExecContext, FetchFile, Page
from reconcile.types.binding import executor_for
from tests.support import seed_result

pytestmark = pytest.mark.anyio

CASSETTES = Path(__file__).parent.parent / "cassettes"
CTX = ExecContext(
    jira_user="bridge-user", jira_time_zone="Europe/Moscow", symmetric_link_types=frozenset({"Связанные"})
)


def _body(request: VcrRequest) -> Any:
    raw = request.body or b""
    if isinstance(raw, str):
        raw = raw.encode()
    content_type = request.headers.get("Content-Type") or request.headers.get("content-type") or ""
    if "multipart/form-data" in content_type:
        # The boundary is random: compare the part's headers and bytes only.
        boundary = content_type.split("boundary=", 1)[1].encode()
        return [part.strip(b"\r\n-") for part in raw.split(b"--" + boundary) if part.strip(b"\r\n-")]
    if not raw:
        return None
    return json.loads(raw)


def _same_body(r1: VcrRequest, r2: VcrRequest) -> None:
    assert _body(r1) == _body(r2)


def _vcr() -> vcr.VCR:
    recorder = vcr.VCR(cassette_library_dir=str(CASSETTES), record_mode="none")
    recorder.register_matcher("json_or_parts", _same_body)
    recorder.match_on = ("method", "scheme", "host", "path", "query", "json_or_parts")
    return recorder


class Replay:
    def __init__(self) -> None:
        self.clock = FakeClock()
        self.jira = JiraHttp.connect("http://jira.test", token="secret", clock=self.clock)
        self.pages: list[Page] = []
        self.fetched: list[tuple[str, int | None]] = []

    async def run(
        self, type_: str, params: Mapping[str, Any], *, files: Mapping[str, bytes] | None = None
    ) -> DriveOutcome:
        async def fetch_file(file: FetchFile) -> bytes | None:
            self.fetched.append((file.sha256, file.size))
            return (files or {}).get(file.sha256)

        async def on_page(page: Page) -> None:
            self.pages.append(page)

        delivery = Delivery(id=1, type=type_, params=params, pause_seconds=30)
        watch = Alone(jira=self.jira, on_file=fetch_file, on_page=on_page)
        return await drive(executor_for(delivery, CTX), self.jira, watch)


async def _replay(name: str, type_: str, params: Mapping[str, Any], **kw: Any) -> tuple[DriveOutcome, Replay]:
    replay = Replay()
    with _vcr().use_cassette(f"{name}.yaml") as cassette:
        outcome = await replay.run(type_, params, **kw)
        assert cassette.all_played, f"{name}: not every recorded call was made"
    await replay.jira.aclose()
    return outcome, replay


async def test_ensure_fields_cassette() -> None:
    """ensure_fields: the mirror-field GET, then one PUT with the differing fields and label verbs."""
    params = {
        "key": "AURORA-1537",
        "summary": "Интеграция с АБС: платёжные документы",
        "description": "Обмен платёжными документами с АБС.\nФормат — по регламенту.",
        "duedate": "2026-10-30",
        "labels_add": ["STOCKS_DRRK"],
        "labels_remove": ["AWPCA"],
    }
    outcome, _ = await _replay("ensure_fields", "ensure_fields", params)
    assert (outcome.report.status, outcome.jira_calls) == ("done", 2)
    assert seed_result(outcome.report.result) == {"changed": ["summary", "duedate", "labels_add", "labels_remove"]}


async def test_ensure_fields_rejected_cassette() -> None:
    """A 400 with field errors fails the command with Jira's words and the PUT in operations."""
    outcome, _ = await _replay(
        "ensure_fields_rejected", "ensure_fields", {"key": "AURORA-1537", "planned_start": "2026-10-21"}
    )
    report = outcome.report
    assert report.status == "failed"
    assert report.error is not None and report.error.startswith("HTTP 400: customfield_11200: ")
    assert [op.to_json() for op in report.operations] == [
        {"method": "PUT", "path": "/rest/api/2/issue/AURORA-1537", "status": 400}
    ]


async def test_ensure_issue_cassette() -> None:
    """ensure_issue: the duplicate search finds nothing with that summary, so the issue is created."""
    params = {"temp_key": "new:1", "summary": "Сверка ОСВ 62", "labels": ["AWPCA"]}
    outcome, _ = await _replay("ensure_issue", "ensure_issue", params)
    assert seed_result(outcome.report.result) == {"key": "AURORA-1590", "created": True}


async def test_ensure_comment_cassettes() -> None:
    """ensure_comment: POST when no marked comment; PUT into the oldest marked one when it differs."""
    created, _ = await _replay(
        "ensure_comment_create", "ensure_comment", {"key": "AURORA-1537", "marker": "[план]", "body": "Стенд АБС готов"}
    )
    assert seed_result(created.report.result) == {"comment_id": "10702", "action": "created"}
    params = {"key": "AURORA-1533", "marker": "[план]", "body": "Срок согласован с заказчиком и ИТ"}
    updated, _ = await _replay("ensure_comment_update", "ensure_comment", params)
    assert seed_result(updated.report.result) == {"comment_id": "10700", "action": "updated"}


async def test_ensure_status_cassette() -> None:
    """ensure_status from «Разработка» along the path: two transitions, a pause between them."""
    params = {"key": "AURORA-1537", "target": ["Разработка", "Тестирование", "Готово"]}
    outcome, replay = await _replay("ensure_status", "ensure_status", params)
    assert seed_result(outcome.report.result) == {"status": "Готово", "transitions": ["На тестирование", "Готово"]}
    assert replay.clock.sleeps == [30]


async def test_ensure_link_replace_cassette() -> None:
    """ensure_link with replace: DELETE, pause, POST, and the new id read back."""
    params = {"source": "AURORA-1537", "target": "AURORA-1538", "link_type": "связанные", "replace": True}
    outcome, replay = await _replay("ensure_link_replace", "ensure_link", params)
    assert seed_result(outcome.report.result) == {"existed": False, "link_id": "10402", "removed": ["10400"]}
    assert (outcome.jira_calls, replay.clock.sleeps) == (4, [30])


async def test_ensure_sprint_cassettes() -> None:
    """ensure_sprint reads every page of the board's sprints; backlog from the active sprint."""
    outcome, _ = await _replay(
        "ensure_sprint", "ensure_sprint", {"key": "AURORA-1537", "sprint": "Спринт 3", "board_id": 4216}
    )
    assert seed_result(outcome.report.result) == {"sprint_id": 8, "moved": True}
    backlog, _ = await _replay("ensure_sprint_backlog", "ensure_sprint", {"key": "AURORA-1540", "sprint": "backlog"})
    assert seed_result(backlog.report.result) == {"sprint_id": None, "moved": True}


async def test_ensure_attachment_cassette() -> None:
    """ensure_attachment uploads multipart with no-check and takes the id from the answer's array."""
    content = b"schet 62: 18 bytes"
    sha = hashlib.sha256(content).hexdigest()
    params = {"key": "AURORA-1540", "file": sha, "filename": "ОСВ 62.xlsx", "size": len(content)}
    outcome, replay = await _replay("ensure_attachment", "ensure_attachment", params, files={sha: content})
    assert outcome.report.status == "done", outcome.report.error
    assert outcome.report.result["uploaded"] is True
    assert replay.fetched == [(sha, 18)]


async def test_refresh_cassette() -> None:
    """refresh: two issue pages, the neighbour, the board type and the journal since a moment."""
    params = {
        "jql": 'project = AURORA AND labels in ("AWPCA")',
        "boards": [{"id": 5120, "type": None}],
        "history": {"since": "2026-10-21T00:00:00Z"},
    }
    outcome, replay = await _replay("refresh", "refresh", params)
    assert outcome.report.status == "done"
    assert [(p.page, p.kind) for p in replay.pages] == [(1, "issues"), (2, "issues"), (3, "neighbours"), (4, "history")]
    result = seed_result(outcome.report.result)
    assert result["boards"] == {"5120": "kanban"}
    assert result["neighbours"] == 1
    assert result["history"] == {"entries": len(replay.pages[3].history)}


async def test_rate_limited_cassette() -> None:
    """429 with Retry-After 7 is retried after 7 seconds; both tries count."""
    params = {"source": "AURORA-1537", "target": "AURORA-1538", "link_type": "блокирует начало"}
    outcome, replay = await _replay("rate_limited", "ensure_link", params)
    assert (outcome.jira_calls, replay.clock.sleeps) == (2, [7.0])
    assert outcome.report.result["existed"] is True


async def test_not_found_cassette() -> None:
    """A 404 read fails the command with «HTTP 404: Issue Does Not Exist»."""
    outcome, _ = await _replay("not_found", "ensure_fields", {"key": "AURORA-9999", "summary": "x"})
    assert (outcome.report.status, outcome.report.error) == ("failed", "HTTP 404: Issue Does Not Exist")


async def test_agent_start_and_unauthorized_cassettes() -> None:
    """myself, issueLinkType and serverInfo at start; a 401 raises JiraAuthError."""
    jira = JiraHttp.connect("http://jira.test", token="secret", clock=FakeClock())
    with _vcr().use_cassette("agent_start.yaml"):
        known = frozenset({"Связанные", "Блокирует начало", "Blocks", "Cloners"})
        assert await jira.exec_context() == attrs.evolve(
            CTX, link_types=known, jira_base_url="https://jira.bank.example/jira"
        )
    with _vcr().use_cassette("unauthorized.yaml"), pytest.raises(JiraAuthError):
        await JiraHttp(jira._client, clock=FakeClock()).myself()
    await jira.aclose()
