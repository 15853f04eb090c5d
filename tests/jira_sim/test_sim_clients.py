"""What third-party Jira clients call first and expect (DESIGN 9, "As real clients see it"), through httpx."""

from __future__ import annotations

import httpx
import pytest

from jira_sim import Simulator

pytestmark = pytest.mark.anyio

CREATE = {"project": {"key": "AURORA"}, "issuetype": {"name": "Задача"}}


async def test_server_info_is_a_data_center_10_3(jira: httpx.AsyncClient) -> None:
    """serverInfo answers a 10.3 «Server» deployment with its build numbers and the server's time."""
    r = await jira.get("/rest/api/2/serverInfo")
    assert r.status_code == 200
    assert r.json() == {
        "baseUrl": "http://jira.test",
        "version": "10.3.19",
        "versionNumbers": [10, 3, 19],
        "deploymentType": "Server",
        "buildNumber": 10030019,
        "buildDate": "2026-04-03T00:00:00.000+0300",
        "databaseBuildNumber": 10030019,
        "serverTime": "2026-10-22T12:00:00.000+0300",
        "scmInfo": "3c6f9a2e5b1d4f8a7e0c2b9d6a1f5e3c8b7d4a20",
        "serverTitle": "Jira",
    }


async def test_server_info_needs_no_credentials_but_refuses_bad_ones(make_client) -> None:
    """Without credentials serverInfo still answers (as Jira does); unknown basic credentials are 401."""
    async with make_client() as anonymous:
        r = await anonymous.get("/rest/api/2/serverInfo")
        assert (r.status_code, r.headers["x-ausername"]) == (200, "anonymous")
        assert (await anonymous.get("/rest/api/2/myself")).status_code == 401
    async with make_client(Authorization="Basic bm9ib2R5Ong=") as stranger:  # nobody:x
        assert (await stranger.get("/rest/api/2/serverInfo")).status_code == 401


async def test_field_list_has_system_and_custom_fields_with_schemas(jira: httpx.AsyncClient) -> None:
    """The field list names every system field the simulator renders and each custom field with its schema."""
    fields = {f["id"]: f for f in (await jira.get("/rest/api/2/field")).json()}
    assert {
        "summary",
        "description",
        "issuetype",
        "project",
        "status",
        "priority",
        "labels",
        "duedate",
        "assignee",
        "reporter",
        "creator",
        "created",
        "updated",
        "resolution",
        "resolutiondate",
        "issuelinks",
        "attachment",
        "subtasks",
        "comment",
        "issuekey",
    } <= set(fields)
    assert fields["duedate"] == {
        "id": "duedate",
        "name": "Due Date",
        "custom": False,
        "orderable": True,
        "navigable": True,
        "searchable": True,
        "clauseNames": ["due", "duedate"],
        "schema": {"type": "date", "system": "duedate"},
    }
    assert fields["customfield_10100"] == {
        "id": "customfield_10100",
        "name": "Epic Link",
        "custom": True,
        "orderable": True,
        "navigable": True,
        "searchable": True,
        "clauseNames": ["cf[10100]", "Epic Link"],
        "schema": {"type": "any", "custom": "com.pyxis.greenhopper.jira:gh-epic-link", "customId": 10100},
    }
    assert fields["customfield_11200"]["schema"]["type"] == "date"
    assert fields["comment"]["navigable"] is False


async def test_projects_and_issue_types(jira: httpx.AsyncClient) -> None:
    """A project reads by key or id with its issue types; the lists answer; an unknown key is 404."""
    by_key = (await jira.get("/rest/api/2/project/AURORA")).json()
    by_id = (await jira.get("/rest/api/2/project/10200")).json()
    assert by_key == by_id
    assert (by_key["key"], by_key["name"], by_key["lead"]["name"]) == ("AURORA", "Аврора", "ivanov")
    assert [t["name"] for t in by_key["issueTypes"]] == ["Задача", "Эпик", "Ошибка"]
    assert [p["key"] for p in (await jira.get("/rest/api/2/project")).json()] == ["AURORA", "HR"]
    assert [t["id"] for t in (await jira.get("/rest/api/2/issuetype")).json()] == ["3", "10000", "1"]
    missing = await jira.get("/rest/api/2/project/NOPE")
    assert (missing.status_code, missing.json()) == (
        404,
        {"errorMessages": ["No project could be found with key 'NOPE'."], "errors": {}},
    )


async def test_summary_is_trimmed_on_create_and_edit(jira: httpx.AsyncClient, sim: Simulator) -> None:
    """Jira stores the summary trimmed; re-sending it with spaces around changes nothing and writes no history."""
    created = await jira.post("/rest/api/2/issue", json={"fields": {**CREATE, "summary": "  Сверка \t"}})
    key = created.json()["key"]
    assert sim.raw_issue(key)["summary"] == "Сверка"
    assert (await jira.put(f"/rest/api/2/issue/{key}", json={"fields": {"summary": " Сверка  "}})).status_code == 204
    assert sim.raw_issue(key)["changelog"] == []
    await jira.put(f"/rest/api/2/issue/{key}", json={"fields": {"summary": "Сверка ОСВ "}})
    assert [(i["fromString"], i["toString"]) for i in sim.raw_issue(key)["changelog"][0]["items"]] == [
        ("Сверка", "Сверка ОСВ")
    ]


async def test_summary_with_a_line_break_is_refused(jira: httpx.AsyncClient, sim: Simulator) -> None:
    """A summary with a line break inside is 400 with Jira's message; surrounding ones are trimmed away."""
    r = await jira.put("/rest/api/2/issue/AURORA-1538", json={"fields": {"summary": "Две\nстроки"}})
    assert (r.status_code, r.json()) == (
        400,
        {"errorMessages": [], "errors": {"summary": "The summary is invalid because it contains newline characters."}},
    )
    assert (
        await jira.put("/rest/api/2/issue/AURORA-1538", json={"fields": {"summary": "Одна\r\n"}})
    ).status_code == 204
    assert sim.raw_issue("AURORA-1538")["summary"] == "Одна"


async def test_comment_in_the_update_of_an_edit_and_a_transition(jira: httpx.AsyncClient, sim: Simulator) -> None:
    """update.comment add writes a comment with the edit or the transition; an empty one is 400 and changes nothing."""
    edit = {"fields": {"duedate": "2026-11-02"}, "update": {"comment": [{"add": {"body": "Срок сдвинут"}}]}}
    assert (await jira.put("/rest/api/2/issue/AURORA-1538", json=edit)).status_code == 204
    move = {"transition": {"id": "11"}, "update": {"comment": [{"add": {"body": "Начали"}}]}}
    assert (await jira.post("/rest/api/2/issue/AURORA-1538/transitions", json=move)).status_code == 204
    stored = sim.raw_issue("AURORA-1538")
    assert [c["body"] for c in stored["comments"]] == ["Срок сдвинут", "Начали"]
    assert (stored["duedate"], stored["status"]) == ("2026-11-02", "Разработка")
    empty = {"fields": {"duedate": "2026-11-03"}, "update": {"comment": [{"add": {"body": " "}}]}}
    r = await jira.put("/rest/api/2/issue/AURORA-1538", json=empty)
    assert (r.status_code, r.json()) == (
        400,
        {"errorMessages": [], "errors": {"comment": "Comment body can not be empty!"}},
    )
    assert sim.raw_issue("AURORA-1538")["duedate"] == "2026-11-02"


@pytest.mark.parametrize(
    ("state", "expected"),
    [
        ("closed", ["Спринт 1"]),
        ("active", ["Спринт 2"]),
        ("future", ["Спринт 3"]),
        ("future,closed", ["Спринт 1", "Спринт 3"]),
        ("", ["Спринт 1", "Спринт 2", "Спринт 3"]),
    ],
)
async def test_board_sprints_filter_by_state(jira: httpx.AsyncClient, state: str, expected: list[str]) -> None:
    """state= keeps only sprints in the listed states, in the board's order; empty keeps all."""
    r = await jira.get("/rest/agile/1.0/board/4216/sprint", params={"state": state})
    assert [s["name"] for s in r.json()["values"]] == expected


async def test_board_sprints_refuse_an_unknown_state(jira: httpx.AsyncClient) -> None:
    """An unknown state is 400 with Jira Software's list of valid states."""
    r = await jira.get("/rest/agile/1.0/board/4216/sprint", params={"state": "active,open"})
    assert (r.status_code, r.json()) == (
        400,
        {"errorMessages": ["The state 'open' is not valid. Valid states are: future, active, closed"], "errors": {}},
    )


async def test_board_list_pages_and_filters_by_type(jira: httpx.AsyncClient) -> None:
    """GET board lists the boards a page at a time; type= keeps one kind."""
    every = (await jira.get("/rest/agile/1.0/board")).json()
    assert ([b["id"] for b in every["values"]], every["isLast"]) == ([4216, 5120, 9001], True)
    first = (await jira.get("/rest/agile/1.0/board", params={"maxResults": 1})).json()
    assert ([b["id"] for b in first["values"]], first["isLast"]) == ([4216], False)
    kanban = (await jira.get("/rest/agile/1.0/board", params={"type": "kanban"})).json()
    assert [b["name"] for b in kanban["values"]] == ["STOCKS_DRRK канбан"]


async def test_search_get_reads_repeated_fields_parameters(jira: httpx.AsyncClient) -> None:
    """GET search takes fields both comma-separated and repeated (fields=a&fields=b), as clients send lists."""
    params = [("jql", "key = AURORA-1533"), ("fields", "summary"), ("fields", "duedate,labels")]
    r = await jira.get("/rest/api/2/search", params=params)
    assert r.json()["issues"][0]["fields"] == {
        "summary": "Шахматка: отчёт по срокам",
        "duedate": "2026-10-23",
        "labels": ["AWPCA"],
    }
