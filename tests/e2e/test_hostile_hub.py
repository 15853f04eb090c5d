"""The bank's guard end to end (DESIGN.md 5.5, issue 24 "How it is checked"): a hostile hub — a peer speaking the
agent protocol over loopback HTTP, which hands out whatever it likes — against the real ``sdlc-agent run`` and a
real ``jira-sim``. Whatever the hub sends, the simulator's call log shows no call that can touch the project HR,
the hub receives none of HR's issues, writes keep the bank's floor, and each refusal comes back in its words."""

from __future__ import annotations

import itertools
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
import uvicorn

from loopback.processes import Proc
from loopback.stack import start_agent, start_sim
from reconcile.vocabulary.catalogue import CATALOGUE
from tests.agent.agent_fakes import FakeHub, command  # the agent tests' hub, served here over real HTTP

from .e2e_support import agent_events, at, is_write, wait_until

pytestmark = pytest.mark.e2e

TOKEN = "agent-secret"  # the token FakeHub takes
HR_REFUSED = "проект HR не разрешён агенту (разрешены: AURORA)"


class Served:
    """A :class:`FakeHub` over real HTTP (uvicorn in a thread): an empty claim is held a little, as a long poll."""

    def __init__(self, hub: FakeHub) -> None:
        self.hub = hub

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        query = scope.get("query_string", b"").decode()
        url = f"http://hub{scope['path']}" + (f"?{query}" if query else "")
        headers = [(k.decode(), v.decode()) for k, v in scope["headers"]]
        answer = await self.hub.handle(httpx.Request(scope["method"], url, headers=headers, content=body))
        if scope["path"] == "/agent/claim" and answer.status_code == 204:
            await anyio.sleep(0.2)
        await send(
            {
                "type": "http.response.start",
                "status": answer.status_code,
                "headers": [(k.encode(), v.encode()) for k, v in answer.headers.items()],
            }
        )
        await send({"type": "http.response.body", "body": answer.content})


@contextmanager
def serve(hub: FakeHub) -> Iterator[str]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    server = uvicorn.Server(uvicorn.Config(Served(hub), log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


@pytest.fixture
def sim(tmp_path: Path) -> Iterator[tuple[Proc, str]]:
    proc, url = start_sim(tmp_path)
    try:
        yield proc, url
    finally:
        proc.stop()


def run_agent(tmp_path: Path, hub: FakeHub, sim_url: str, name: str, policy: list[str]) -> Proc:
    """The real agent against the hostile hub until the hub has a report for each of its commands."""
    expected = len(hub.queue)
    with serve(hub) as served_at:
        agent = start_agent(
            hub_url=served_at,
            hub_token=TOKEN,
            jira_url=sim_url,
            journal=tmp_path / name / "journal.json",
            log_dir=tmp_path,
            name=name,
            allow_projects=("AURORA",),
            policy=policy,
            claim_wait=1.0,
        )
        try:
            wait_until("the agent reports every command", lambda: len(hub.reports) >= expected, timeout=60)
        finally:
            agent.stop()
    return agent


def jira(sim_url: str) -> httpx.Client:
    return httpx.Client(base_url=sim_url, headers={"Authorization": "Bearer bank-pat"}, timeout=30)


def test_whatever_the_hub_sends_the_agent_keeps_the_banks_policy(tmp_path: Path, sim: tuple[Proc, str]) -> None:
    """HR keys, a JQL refresh of HR, a link to HR, an ensure_issue into HR, a forbidden type: each refused with its
    message and no Jira call; a refresh of an issue linked to HR reads HR nothing; three writes sent with
    pause_seconds 0 keep the 1 s floor."""
    _, sim_url = sim
    with jira(sim_url) as client:
        linked = client.post(
            "/rest/api/2/issueLink",
            json={
                "type": {"name": "Связанные"},
                "inwardIssue": {"key": "AURORA-1538"},
                "outwardIssue": {"key": "HR-1"},
            },
        )
        assert linked.status_code == 201, linked.text
        client.delete("/_sim/calls")
    into_hr = command(5, "ensure_issue", {"temp_key": "new:1", "issue_type": "task", "summary": "Премии"})
    into_hr["context"] = {**into_hr["context"], "jira_project": "HR"}
    hub = FakeHub(
        queue=[
            command(1, "ensure_fields", {"key": "HR-1", "summary": "Оклады: опубликовать"}),
            command(2, "ensure_comment", {"key": "HR-2", "marker": "[x]", "body": "утечка"}),
            command(3, "refresh", {"jql": "project = HR", "boards": [], "history": {"jql": "key in (HR-1, HR-2)"}}),
            command(4, "ensure_link", {"source": "AURORA-1537", "target": "HR-1", "link_type": "связанные"}),
            into_hr,
            command(6, "ensure_sprint", {"key": "AURORA-1533", "sprint": "Спринт 2"}),
            command(7, "refresh", {"keys": ["AURORA-1538"], "boards": []}),
            *(
                command(8 + n, "ensure_fields", {"key": "AURORA-1533", "duedate": f"2027-02-0{n + 1}"}, 0)
                for n in range(3)
            ),
        ]
    )
    but_sprint = [t for t in CATALOGUE if t != "ensure_sprint"]
    allowed = [word for t in but_sprint for word in ("--allow-type", t)]
    agent = run_agent(tmp_path, hub, sim_url, "sdlc-agent", ["--min-gap", "*=1", *allowed])

    reports = dict(hub.reports)
    assert {i: reports[i]["error"] for i in (1, 2, 4, 5)} == dict.fromkeys((1, 2, 4, 5), HR_REFUSED)
    assert reports[6]["error"] == (f"тип команды ensure_sprint не разрешён агенту (разрешены: {', '.join(but_sprint)})")
    assert all(reports[i]["jira_calls"] == 0 for i in (1, 2, 4, 5, 6))
    assert [reports[i]["status"] for i in (3, 7, 8, 9, 10)] == ["done"] * 5
    assert (reports[3]["result"]["issues"], reports[3]["result"]["history"]) == (0, {"entries": 0})
    # AURORA-1538's neighbours: AURORA-1537 is read, HR-1 is not.
    assert (reports[7]["result"]["issues"], reports[7]["result"]["neighbours"]) == (1, 1)

    # The hub got no issue of HR, only the link from AURORA-1538 to HR-1 (AURORA-1538's own) …
    keys = {issue["key"] for _, page in hub.pages for issue in page["issues"]}
    assert keys == {"AURORA-1537", "AURORA-1538"}
    links = {(link["source"], link["target"]) for _, page in hub.pages for i in page["issues"] for link in i["links"]}
    assert ("AURORA-1538", "HR-1") in links
    # … and Jira saw no call naming HR: the refresh of HR and its journal (wrapped in AURORA), the refresh of
    # AURORA-1538 and its AURORA neighbour (searches all), then three reads and writes of AURORA-1533.
    with jira(sim_url) as client:
        calls = client.get("/_sim/calls").json()
    calls = calls if isinstance(calls, list) else calls["items"]
    assert [c["path"] for c in calls if "HR" in c["path"]] == []
    assert [
        f"{c['method']} {c['path']}"
        for c in calls
        if not c["path"].endswith(("/myself", "/issueLinkType", "/serverInfo", "/field"))
    ] == [
        *["POST /rest/api/2/search"] * 4,
        *["GET /rest/api/2/issue/AURORA-1533", "PUT /rest/api/2/issue/AURORA-1533"] * 3,
    ]
    writes = [at(c) for c in calls if is_write(c)]
    assert len(writes) == 3
    assert all(b - a >= 1.0 for a, b in itertools.pairwise(writes)), writes
    policy_lines = [e["policy"] for e in agent_events(agent) if e["event"] == "policy"]
    assert policy_lines == [
        f"projects AURORA; types {', '.join(but_sprint)}; read-only no; min gap *=1 s; writes per hour unlimited"
    ]


def test_a_read_only_agent_writes_nothing(tmp_path: Path, sim: tuple[Proc, str]) -> None:
    """``--read-only``: a write is refused with its message and no Jira call; a refresh still runs."""
    _, sim_url = sim
    with jira(sim_url) as client:
        client.delete("/_sim/calls")
    hub = FakeHub(
        queue=[
            command(1, "ensure_fields", {"key": "AURORA-1533", "duedate": "2027-03-01"}, 0),
            command(2, "refresh", {"keys": ["AURORA-1533"], "boards": []}, 0),
        ]
    )
    run_agent(tmp_path, hub, sim_url, "sdlc-agent-ro", ["--read-only"])
    reports = dict(hub.reports)
    assert (reports[1]["status"], reports[1]["error"], reports[1]["jira_calls"]) == (
        "failed",
        "тип команды ensure_fields не разрешён агенту (разрешены: refresh)",
        0,
    )
    assert reports[2]["status"] == "done"
    with jira(sim_url) as client:
        calls = client.get("/_sim/calls").json()
    calls = calls if isinstance(calls, list) else calls["items"]
    assert [c for c in calls if is_write(c)] == []


def test_a_hostile_hubs_boards_and_field_mapping_reach_nothing_of_hr(tmp_path: Path, sim: tuple[Proc, str]) -> None:
    """Issue 31 findings 2 and 3, replayed against the real agent and simulator: HR's board 9001 in a refresh and in
    ensure_sprint, a board id that is a path, planned_start mapped to the Epic Link field. Jira sees one read of
    board 9001 (to learn it is HR's) and nothing else of HR; nothing moves, no epic is written, no report names
    anything of HR's."""
    _, sim_url = sim
    with jira(sim_url) as client:
        epic_before = client.get("/_sim/state/issues/AURORA-1538").json()["epic"]
        client.delete("/_sim/calls")
    hostile_fields = command(4, "ensure_fields", {"key": "AURORA-1538", "planned_start": "HR-3"})
    hostile_fields["context"] = {
        **hostile_fields["context"],
        "fields": {**hostile_fields["context"]["fields"], "planned_start": "customfield_10100"},
    }
    hub = FakeHub(
        queue=[
            command(1, "refresh", {"keys": ["AURORA-1538"], "boards": [{"id": 9001, "type": None}]}),
            command(2, "ensure_sprint", {"key": "AURORA-1538", "sprint": "Кадры: премии", "board_id": 9001}),
            command(3, "ensure_sprint", {"key": "AURORA-1538", "sprint": "x", "board_id": "../../../api/2/issue/HR-1"}),
            hostile_fields,
        ]
    )
    run_agent(tmp_path, hub, sim_url, "sdlc-agent-boards", [])
    reports = dict(hub.reports)
    assert reports[1]["status"] == "done"
    assert (reports[1]["result"]["boards"], reports[1]["result"]["refused_boards"]) == (
        {"9001": None},
        [{"id": "9001", "error": "доска 9001 не в разрешённых проектах"}],
    )
    assert [(reports[i]["status"], reports[i]["error"], reports[i]["operations"]) for i in (2, 3, 4)] == [
        ("failed", "доска 9001 не в разрешённых проектах", []),
        ("failed", 'недопустимый id доски: "../../../api/2/issue/HR-1"', []),
        ("failed", "поле customfield_10100 — не дата (Epic Link)", []),
    ]
    assert (reports[3]["jira_calls"], reports[4]["jira_calls"]) == (0, 0)
    assert "Кадры" not in str(reports)
    with jira(sim_url) as client:
        calls = client.get("/_sim/calls").json()
        epic_after = client.get("/_sim/state/issues/AURORA-1538").json()["epic"]
    calls = calls if isinstance(calls, list) else calls["items"]
    assert [f"{c['method']} {c['path']}" for c in calls if "HR" in c["path"] or "9001" in c["path"]] == [
        "GET /rest/agile/1.0/board/9001"
    ]
    assert [c for c in calls if is_write(c)] == []
    assert epic_after == epic_before


#: Issue 31's finding: an unquoted word ending in ``\"`` (Jira's escape of a quote inside a word).
ESCAPE = 'summary ~ x\\" ) OR project = HR OR ( summary ~ "a\\"b"'


def test_the_jql_escape_of_issue_31_never_reads_hr(tmp_path: Path, sim: tuple[Proc, str]) -> None:
    """The reproduction in ``jql`` and in ``history.jql`` is refused with no Jira call; an escape that parses is sent
    as the parsed tree inside AURORA, which the simulator (reading escapes as Jira does) answers without HR."""
    _, sim_url = sim
    with jira(sim_url) as client:
        client.delete("/_sim/calls")
    refused = "JQL не принят агентом: непарная закрывающая скобка (позиция 15)"
    hub = FakeHub(
        queue=[
            command(1, "refresh", {"jql": ESCAPE, "boards": []}, 0),
            command(2, "refresh", {"keys": ["AURORA-1538"], "boards": [], "history": {"jql": ESCAPE}}, 0),
            command(3, "refresh", {"jql": 'summary ~ x\\" OR project = HR OR key = AURORA-1541', "boards": []}, 0),
            command(4, "refresh", {"keys": ["AURORA-1541"], "boards": [], "history": {"jql": "project = HR"}}, 0),
        ]
    )
    run_agent(tmp_path, hub, sim_url, "sdlc-agent-jql", [])

    reports = dict(hub.reports)
    assert [(reports[i]["status"], reports[i]["error"], reports[i]["jira_calls"]) for i in (1, 2)] == [
        ("failed", refused, 0)
    ] * 2
    assert [reports[i]["status"] for i in (3, 4)] == ["done"] * 2
    assert reports[3]["result"]["issues"] == 1
    assert reports[4]["result"]["history"] == {"entries": 0}
    keys = {issue["key"] for _, page in hub.pages for issue in page["issues"]}
    assert keys == {"AURORA-1541"}
    with jira(sim_url) as client:
        calls = client.get("/_sim/calls").json()
    calls = calls if isinstance(calls, list) else calls["items"]
    searches = [c for c in calls if not c["path"].endswith(("/myself", "/issueLinkType", "/serverInfo", "/field"))]
    assert {f"{c['method']} {c['path']}" for c in searches} == {"POST /rest/api/2/search"}
    assert len(searches) == reports[3]["jira_calls"] + reports[4]["jira_calls"]
    assert [c["path"] for c in calls if "HR" in c["path"]] == []
