"""The executors through the real driver and httpx, against recorded Jira DC answers (vcrpy, playback only).

Requests are matched on method, URL (path and query) and body: JSON bodies as parsed JSON, multipart uploads
by each part's filename and bytes (the boundary is random). A request the cassette does not hold fails the
test (``record_mode="none"``); where a scenario must read every answer, the test checks ``all_played``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

import attrs
import httpx
import pytest
import vcr

from adapters.clock import FakeClock
from adapters.jira_http import JiraAuthError, JiraHttp
from agent_app.drive import Alone, DriveOutcome, drive
from reconcile.config.settings import Settings, settings_to_json
from reconcile.executors import Delivery, ExecContext, FetchFile, Operation, Page
from reconcile.jira.model import histories_from_jira, issue_from_jira, mirror_fields
from reconcile.types.binding import executor_for
from reconcile.vocabulary.records import HistoryEntry, HistoryItem, MirrorIssue, MirrorLink, SprintRef
from tests.support import seed_result

from .jira_contract import CASSETTES

BASE = "http://jira.test"
CTX = ExecContext(
    jira_user="bridge-user", jira_time_zone="Europe/Moscow", symmetric_link_types=frozenset({"Связанные"})
)
SETTINGS = Settings()
_PART = re.compile(r'filename="([^"]*)"\r\n(?:[^\r\n]+\r\n)*\r\n(.*?)\r\n--', re.DOTALL)


def _raw(body: Any) -> bytes:
    if body is None:
        return b""
    if isinstance(body, str):
        return body.encode("utf-8")
    return bytes(body)


def jira_body(live: Any, recorded: Any) -> None:
    """vcrpy matcher: JSON bodies compared parsed, multipart bodies by (filename, bytes) of each part."""
    a, b = _raw(live.body), _raw(recorded.body)
    if b'filename="' in a or b'filename="' in b:
        parts_a = _PART.findall(a.decode("utf-8", "replace"))
        parts_b = _PART.findall(b.decode("utf-8", "replace"))
        if parts_a != parts_b:
            raise AssertionError(f"multipart parts differ: {parts_a} != {parts_b}")
        return
    if not a and not b:
        return
    try:
        same = json.loads(a) == json.loads(b)
    except ValueError:
        same = a == b
    if not same:
        raise AssertionError(f"bodies differ: {a[:300]!r} != {b[:300]!r}")


PLAYBACK = vcr.VCR(
    cassette_library_dir=str(CASSETTES),
    record_mode="none",
    match_on=["method", "scheme", "host", "port", "path", "query", "jira_body"],
)
PLAYBACK.register_matcher("jira_body", jira_body)


@attrs.define
class Played:
    """What one executor run produced, and how the cassette was used."""

    outcome: DriveOutcome
    clock: FakeClock
    pages: list[Page]
    fetched: list[str]
    all_played: bool


@asynccontextmanager
async def connected(cassette: str, clock: FakeClock) -> AsyncIterator[tuple[JiraHttp, Any]]:
    with PLAYBACK.use_cassette(cassette) as recorded:
        jira = JiraHttp.connect(BASE, token="personal-access-token", clock=clock)
        try:
            yield jira, recorded
        finally:
            await jira.aclose()


async def run(
    cassette: str,
    type_: str,
    params: Mapping[str, Any],
    *,
    pause: float = 30,
    files: Mapping[str, bytes] | None = None,
) -> Played:
    clock = FakeClock()
    pages: list[Page] = []
    fetched: list[str] = []

    async def fetch_file(file: FetchFile) -> bytes | None:
        fetched.append(file.sha256)
        return (files or {}).get(file.sha256)

    async def on_page(page: Page) -> None:
        pages.append(page)

    delivery = Delivery(id=7, type=type_, params=params, pause_seconds=pause, context=settings_to_json(SETTINGS))
    async with connected(cassette, clock) as (jira, recorded):
        watch = Alone(jira=jira, on_file=fetch_file, on_page=on_page)
        outcome = await drive(executor_for(delivery, CTX), jira, watch)
        return Played(outcome=outcome, clock=clock, pages=pages, fetched=fetched, all_played=recorded.all_played)


def op(method: str, path: str, status: int) -> Operation:
    return Operation(method=method, path=path, status=status)


ISSUE_1537 = MirrorIssue(
    key="AURORA-1537",
    summary="Интеграция с АБС",
    description="Обмен платёжными документами с АБС.\r\nФормат — по регламенту.",
    status="Разработка",
    status_category="indeterminate",
    priority="Medium",
    planned_start="2026-10-20",
    planned_end="2026-10-30",
    labels=("AWPCA",),
    epic_key="AURORA-1500",
    reporter="petrova",
    created="2026-10-14T06:00:00Z",
    updated="2026-10-21T13:41:09Z",
    sprint=SprintRef(id=7, name="Спринт 2", state="active"),
    links=(
        MirrorLink(id="10400", type="Блокирует начало", source="AURORA-1537", target="AURORA-1538"),
        MirrorLink(id="10401", type="Связанные", source="AURORA-1533", target="AURORA-1537"),
    ),
)


# ----------------------------------------------------------------------------------------------- agent start


@pytest.mark.anyio
async def test_the_agent_reads_its_user_and_the_symmetric_link_types() -> None:
    """``myself`` gives jira_user and time zone, ``serverInfo`` Jira's address; «Связанные» (inward == outward) is
    the one symmetric type."""
    async with connected("agent_start.yaml", FakeClock()) as (jira, recorded):
        ctx = await jira.exec_context()
        known = frozenset({"Связанные", "Блокирует начало", "Blocks", "Cloners"})
        assert ctx == attrs.evolve(CTX, link_types=known, jira_base_url="https://jira.bank.example/jira")
        assert recorded.all_played


@pytest.mark.anyio
async def test_a_401_at_start_is_an_auth_error_with_jiras_message() -> None:
    """Jira's 401 body becomes the JiraAuthError's message."""
    async with connected("unauthorized.yaml", FakeClock()) as (jira, _):
        with pytest.raises(JiraAuthError) as caught:
            await jira.myself()
    assert (
        str(caught.value) == "HTTP 401: You are not authenticated. Authentication required to perform this operation."
    )


# ----------------------------------------------------------------------------------------------- the model


@pytest.mark.anyio
async def test_a_recorded_issue_becomes_its_mirror_record() -> None:
    """Old sprint strings, links in both directions, CRLF text and +0300 times map onto MirrorIssue."""
    async with connected("ensure_fields.yaml", FakeClock()), httpx.AsyncClient(base_url=BASE) as client:
        fields = ",".join(mirror_fields(SETTINGS))
        response = await client.get("/rest/api/2/issue/AURORA-1537", params={"fields": fields})
    assert issue_from_jira(response.json(), SETTINGS) == ISSUE_1537


@pytest.mark.anyio
async def test_an_issue_read_with_its_changelog_gives_its_history() -> None:
    """``expand=changelog`` on GET issue yields the mirror record and the history entries in UTC."""
    fields = ",".join(mirror_fields(SETTINGS))
    async with connected("issue_changelog.yaml", FakeClock()), httpx.AsyncClient(base_url=BASE) as client:
        response = await client.get("/rest/api/2/issue/AURORA-1533", params={"fields": fields, "expand": "changelog"})
        board = await client.get("/rest/agile/1.0/board/4216")
    raw = response.json()
    assert issue_from_jira(raw, SETTINGS) == MirrorIssue(
        key="AURORA-1533",
        summary="Шахматка: отчёт по срокам",
        description="Строка 1\r\nСтрока 2",
        status="Разработка",
        status_category="indeterminate",
        priority="High",
        duedate="2026-10-23",
        labels=("AWPCA",),
        epic_key="AURORA-1500",
        assignee="ivanov",
        reporter="ivanov",
        created="2026-10-12T11:00:00Z",
        updated="2026-10-20T09:00:00Z",
        sprint=SprintRef(id=7, name="Спринт 2", state="active"),
        links=(MirrorLink(id="10401", type="Связанные", source="AURORA-1533", target="AURORA-1537"),),
    )
    assert histories_from_jira("AURORA-1533", raw["changelog"]) == (
        HistoryEntry(
            key="AURORA-1533",
            id="19877",
            created="2026-10-20T09:00:00Z",
            author="ivanov",
            items=(
                HistoryItem(
                    field="duedate",
                    from_="2026-10-20",
                    from_string="2026-10-20 00:00:00.0",
                    to="2026-10-23",
                    to_string="2026-10-23 00:00:00.0",
                ),
                HistoryItem(field="Sprint", from_="6", from_string="Спринт 1", to="7", to_string="Спринт 2"),
            ),
        ),
    )
    assert board.json()["type"] == "scrum"


# ----------------------------------------------------------------------------------------------- ensure_fields


@pytest.mark.anyio
async def test_ensure_fields_writes_only_what_differs_in_one_put() -> None:
    """Summary, due date and label verbs go in one PUT; CRLF-equal description and same planned start do not."""
    played = await run(
        "ensure_fields.yaml",
        "ensure_fields",
        {
            "key": "AURORA-1537",
            "summary": "Интеграция с АБС: платёжные документы",
            "description": "Обмен платёжными документами с АБС.\nФормат — по регламенту.",
            "duedate": "2026-10-30",
            "planned_start": "2026-10-20",
            "labels_add": ["STOCKS_DRRK"],
            "labels_remove": ["AWPCA"],
        },
    )
    report = played.outcome.report
    assert (report.status, report.error) == ("done", None)
    assert seed_result(report.result) == {"changed": ["summary", "duedate", "labels_add", "labels_remove"]}
    assert report.operations == (op("PUT", "/rest/api/2/issue/AURORA-1537", 204),)
    assert played.outcome.jira_calls == 2
    assert played.all_played


@pytest.mark.anyio
async def test_ensure_fields_reports_jiras_field_error() -> None:
    """A 400 on the PUT fails the command with Jira's field error, the write still listed."""
    played = await run(
        "ensure_fields_rejected.yaml", "ensure_fields", {"key": "AURORA-1537", "planned_start": "2026-10-21"}
    )
    report = played.outcome.report
    assert report.status == "failed"
    assert report.error == (
        "HTTP 400: customfield_11200: Field 'customfield_11200' cannot be set. "
        "It is not on the appropriate screen, or unknown."
    )
    assert report.operations == (op("PUT", "/rest/api/2/issue/AURORA-1537", 400),)
    assert played.outcome.jira_calls == 2


@pytest.mark.anyio
async def test_an_absent_issue_fails_with_jiras_404_message() -> None:
    """GET of an absent issue: failed «HTTP 404: Issue Does Not Exist», nothing written."""
    played = await run("not_found.yaml", "ensure_fields", {"key": "AURORA-9999", "summary": "x"})
    report = played.outcome.report
    assert (report.status, report.error, report.operations) == ("failed", "HTTP 404: Issue Does Not Exist", ())
    assert played.outcome.jira_calls == 1


# ----------------------------------------------------------------------------------------------- ensure_issue


@pytest.mark.anyio
async def test_ensure_issue_creates_when_the_search_finds_no_twin() -> None:
    """Our recent issues have other summaries, so the issue is created: 201 gives its key."""
    played = await run("ensure_issue.yaml", "ensure_issue", {"summary": "Сверка ОСВ 62", "labels": ["AWPCA"]})
    report = played.outcome.report
    assert (report.status, seed_result(report.result)) == ("done", {"key": "AURORA-1590", "created": True})
    assert report.operations == (op("POST", "/rest/api/2/issue", 201),)
    assert played.outcome.jira_calls == 2
    assert played.all_played


@pytest.mark.anyio
async def test_ensure_issue_finds_its_twin_and_writes_nothing() -> None:
    """The search returns our issue with the same summary: done, created false, one call."""
    played = await run("ensure_issue.yaml", "ensure_issue", {"summary": "Остатки: выгрузка"})
    report = played.outcome.report
    assert (report.status, seed_result(report.result), report.operations) == (
        "done",
        {"key": "AURORA-1551", "created": False},
        (),
    )
    assert played.outcome.jira_calls == 1


# ----------------------------------------------------------------------------------------------- ensure_comment


@pytest.mark.anyio
async def test_ensure_comment_updates_the_oldest_marked_comment() -> None:
    """The marked comment's text differs, so it is PUT with marker + newline + body."""
    played = await run(
        "ensure_comment_update.yaml",
        "ensure_comment",
        {"key": "AURORA-1533", "marker": "[план]", "body": "Срок согласован с заказчиком и ИТ"},
    )
    report = played.outcome.report
    assert (report.status, seed_result(report.result)) == ("done", {"comment_id": "10700", "action": "updated"})
    assert report.operations == (op("PUT", "/rest/api/2/issue/AURORA-1533/comment/10700", 200),)
    assert played.all_played


@pytest.mark.anyio
async def test_ensure_comment_posts_when_no_comment_has_the_marker() -> None:
    """No marked comment: POST, and the new comment's id comes from Jira's 201 body."""
    played = await run(
        "ensure_comment_create.yaml",
        "ensure_comment",
        {"key": "AURORA-1537", "marker": "[план]", "body": "Стенд АБС готов"},
    )
    report = played.outcome.report
    assert (report.status, seed_result(report.result)) == ("done", {"comment_id": "10702", "action": "created"})
    assert report.operations == (op("POST", "/rest/api/2/issue/AURORA-1537/comment", 201),)
    assert played.all_played


# ----------------------------------------------------------------------------------------------- ensure_status


@pytest.mark.anyio
async def test_ensure_status_walks_the_path_with_a_pause_between_transitions() -> None:
    """From «Разработка»: «На тестирование», pause, «Готово»; five calls, one pause of the command's gap."""
    played = await run(
        "ensure_status.yaml",
        "ensure_status",
        {"key": "AURORA-1537", "target": ["Разработка", "Тестирование", "Готово"]},
        pause=30,
    )
    report = played.outcome.report
    assert (report.status, seed_result(report.result)) == (
        "done",
        {"status": "Готово", "transitions": ["На тестирование", "Готово"]},
    )
    transitions = "/rest/api/2/issue/AURORA-1537/transitions"
    assert report.operations == (op("POST", transitions, 204), op("POST", transitions, 204))
    assert played.outcome.jira_calls == 5
    assert played.clock.sleeps == [30.0]
    assert played.all_played


@pytest.mark.anyio
async def test_ensure_status_without_the_transition_names_the_ones_available() -> None:
    """No transition into «Готово» from «Разработка»: failed with the seed's message listing the targets."""
    played = await run("ensure_status.yaml", "ensure_status", {"key": "AURORA-1537", "target": "Готово"})
    report = played.outcome.report
    assert report.status == "failed"
    assert report.error == "нет перехода в «Готово» из «Разработка»; доступны: Тестирование, Ожидание разработки"
    assert played.outcome.jira_calls == 2


# ----------------------------------------------------------------------------------------------- ensure_link


@pytest.mark.anyio
async def test_ensure_link_replaces_the_conflicting_link() -> None:
    """With replace: DELETE the «Блокирует начало» link, pause, POST «Связанные», read the new id back."""
    played = await run(
        "ensure_link_replace.yaml",
        "ensure_link",
        {"source": "AURORA-1537", "target": "AURORA-1538", "link_type": "связанные", "replace": True},
    )
    report = played.outcome.report
    assert (report.status, seed_result(report.result)) == (
        "done",
        {"existed": False, "link_id": "10402", "removed": ["10400"]},
    )
    assert report.operations == (
        op("DELETE", "/rest/api/2/issueLink/10400", 204),
        op("POST", "/rest/api/2/issueLink", 201),
    )
    assert played.outcome.jira_calls == 4
    assert played.clock.sleeps == [30.0]
    assert played.all_played


@pytest.mark.anyio
async def test_ensure_link_without_replace_reports_the_conflict() -> None:
    """Without replace the conflicting link is named and nothing is written."""
    played = await run(
        "ensure_link_replace.yaml",
        "ensure_link",
        {"source": "AURORA-1537", "target": "AURORA-1538", "link_type": "связанные"},
    )
    report = played.outcome.report
    assert report.status == "failed"
    assert report.error == (
        "конфликт: связь «Блокирует начало» AURORA-1537 → AURORA-1538 (id 10400); нужна «Связанные»; replace не задан"
    )
    assert (report.operations, played.outcome.jira_calls) == ((), 1)


@pytest.mark.anyio
async def test_a_429_is_waited_out_by_retry_after_and_counted() -> None:
    """Jira DC's 429 with Retry-After 7: the driver sleeps 7 s on the fake clock, retries, counts both tries."""
    played = await run(
        "rate_limited.yaml",
        "ensure_link",
        {"source": "AURORA-1537", "target": "AURORA-1538", "link_type": "блокирует начало"},
    )
    report = played.outcome.report
    assert (report.status, seed_result(report.result)) == ("done", {"existed": True, "link_id": "10400", "removed": []})
    assert played.outcome.jira_calls == 2
    assert played.clock.sleeps == [7.0]
    assert played.all_played


# ----------------------------------------------------------------------------------------------- ensure_sprint


@pytest.mark.anyio
async def test_ensure_sprint_pages_the_board_and_moves_the_issue() -> None:
    """The board is read first, then its open sprints in two pages (isLast); the issue moves to «Спринт 3» (id 8)."""
    played = await run(
        "ensure_sprint.yaml", "ensure_sprint", {"key": "AURORA-1537", "sprint": "Спринт 3", "board_id": 4216}
    )
    report = played.outcome.report
    assert (report.status, seed_result(report.result)) == ("done", {"sprint_id": 8, "moved": True})
    assert report.operations == (op("POST", "/rest/agile/1.0/sprint/8/issue", 204),)
    assert played.outcome.jira_calls == 5
    assert played.all_played


@pytest.mark.anyio
async def test_an_unknown_sprint_name_lists_the_active_and_future_ones() -> None:
    """A sprint name not on the board fails with the names read from every page."""
    played = await run(
        "ensure_sprint.yaml", "ensure_sprint", {"key": "AURORA-1537", "sprint": "Спринт 9", "board_id": 4216}
    )
    report = played.outcome.report
    assert report.status == "failed"
    assert report.error == "нет спринта «Спринт 9» на доске 4216; активные и будущие: Спринт 2, Спринт 3"
    assert (report.operations, played.outcome.jira_calls) == ((), 4)


@pytest.mark.anyio
async def test_ensure_sprint_backlog_moves_an_issue_out_of_its_active_sprint() -> None:
    """The old-form sprint strings show an active sprint, so the issue goes to the backlog."""
    played = await run("ensure_sprint_backlog.yaml", "ensure_sprint", {"key": "AURORA-1540", "sprint": "backlog"})
    report = played.outcome.report
    assert (report.status, seed_result(report.result)) == ("done", {"sprint_id": None, "moved": True})
    assert report.operations == (op("POST", "/rest/agile/1.0/backlog/issue", 204),)
    assert played.all_played


# ----------------------------------------------------------------------------------------------- ensure_attachment

CONTENT = b"schet 62: 18 bytes"
SHA = hashlib.sha256(CONTENT).hexdigest()


@pytest.mark.anyio
async def test_ensure_attachment_uploads_and_reads_the_id_from_the_array() -> None:
    """A new file is fetched from the hub, uploaded as multipart, and its id taken from Jira's array answer."""
    played = await run(
        "ensure_attachment.yaml",
        "ensure_attachment",
        {"key": "AURORA-1540", "file": SHA, "filename": "ОСВ 62.xlsx", "size": 18},
        files={SHA: CONTENT},
    )
    report = played.outcome.report
    assert (report.status, seed_result(report.result)) == ("done", {"attachment_id": "10601", "uploaded": True})
    assert report.operations == (op("POST", "/rest/api/2/issue/AURORA-1540/attachments", 200),)
    assert played.fetched == [SHA]
    assert played.all_played


@pytest.mark.anyio
async def test_ensure_attachment_with_the_same_name_and_size_downloads_nothing() -> None:
    """An attachment of the same filename and size is already there: done without fetching the file."""
    played = await run(
        "ensure_attachment.yaml",
        "ensure_attachment",
        {"key": "AURORA-1540", "file": "0" * 64, "filename": "ОСВ 60.xlsx", "size": 2048},
    )
    report = played.outcome.report
    assert (report.status, seed_result(report.result)) == ("done", {"attachment_id": "10600", "uploaded": False})
    assert (played.fetched, played.outcome.jira_calls) == ([], 1)


# ----------------------------------------------------------------------------------------------- refresh


@pytest.mark.anyio
async def test_refresh_reads_pages_neighbours_boards_and_the_journal() -> None:
    """Two issue pages, the linked neighbour, the board of unknown type, then histories since the moment."""
    played = await run(
        "refresh.yaml",
        "refresh",
        {
            "jql": 'project = AURORA AND labels in ("AWPCA")',
            "boards": [{"id": 5120, "type": None}, {"id": 4216, "type": "scrum"}],
            "history": {"since": "2026-10-21T00:00:00Z"},
        },
        pause=2,
    )
    report = played.outcome.report
    assert (report.status, seed_result(report.result)) == (
        "done",
        {"issues": 3, "neighbours": 1, "boards": {"5120": "kanban"}, "history": {"entries": 1}},
    )
    assert [(p.page, p.kind, [i.key for i in p.issues]) for p in played.pages] == [
        (1, "issues", ["AURORA-1537", "AURORA-1538"]),
        (2, "issues", ["AURORA-1540"]),
        (3, "neighbours", ["AURORA-1533"]),
        (4, "history", []),
    ]
    assert played.pages[0].issues[0] == ISSUE_1537
    assert played.pages[3].history == (
        HistoryEntry(
            key="AURORA-1540",
            id="20014",
            created="2026-10-21T07:30:00Z",
            author="ivanov",
            items=(
                HistoryItem(
                    field="status", from_="10101", from_string="Разработка", to="10102", to_string="Тестирование"
                ),
                HistoryItem(field="assignee", to="petrova", to_string="Петрова Анна"),
            ),
        ),
    )
    assert (report.operations, played.outcome.jira_calls) == ((), 5)
    assert played.all_played
