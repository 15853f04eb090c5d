"""Search (JQL subset, paging, fields, changelog) and agile 1.0 (boards, sprints, backlog) of the simulator."""

from __future__ import annotations

import base64
from datetime import UTC, datetime

import httpx
import pytest

from jira_sim import Simulator, load_sample

pytestmark = pytest.mark.anyio

AWPCA_OPEN = 'project = AURORA AND labels in ("AWPCA") AND sprint in openSprints() AND statusCategory != Done'


async def keys(jira: httpx.AsyncClient, jql: str, **extra: object) -> list[str]:
    r = await jira.post("/rest/api/2/search", json={"jql": jql, "maxResults": 100, "fields": ["summary"], **extra})
    assert r.status_code == 200, r.text
    return [i["key"] for i in r.json()["issues"]]


@pytest.mark.parametrize(
    ("jql", "expected"),
    [
        ("project = AURORA AND reporter = currentUser() AND created >= -7d", ["AURORA-1542", "AURORA-1551"]),
        ("key in (AURORA-1538, aurora-1)", ["AURORA-1", "AURORA-1538"]),
        ('labels in ("STOCKS_DRRK")', ["AURORA-1", "AURORA-1550", "AURORA-1551"]),
        ("labels = awpca AND statusCategory = Done", ["AURORA-1541"]),
        (AWPCA_OPEN, ["AURORA-1445", "AURORA-1446", "AURORA-1533", "AURORA-1537", "AURORA-1540", "AURORA-1542"]),
        ("created >= -2d", ["AURORA-1542", "AURORA-1551"]),
        ("created >= -2d OR (labels is EMPTY)", ["AURORA-1542", "AURORA-1551", "AURORA-1560", "HR-1", "HR-2"]),
        ("sprint = 'Спринт 3'", ["AURORA-1542"]),
        ("project = HR", ["HR-1", "HR-2"]),
        ("sprint in closedSprints() AND NOT sprint in openSprints()", ["AURORA-1541"]),
        ('status = "Тестирование"', ["AURORA-1540"]),
        ("issuetype = Эпик", ["AURORA-1500"]),
        ("assignee = petrova ORDER BY key DESC", ["HR-1", "AURORA-1540", "AURORA-1445"]),
        ('"Epic Link" = AURORA-1500', ["AURORA-1533", "AURORA-1537"]),
        ("summary ~ шахматка ORDER BY created DESC", ["AURORA-1542", "AURORA-1533"]),
        ("duedate <= 2026-10-23", ["AURORA-1533"]),
        ("created > '2026/10/21 10:59' ORDER BY created", ["AURORA-1551"]),
    ],
)
async def test_jql_subset(jira: httpx.AsyncClient, jql: str, expected: list[str]) -> None:
    """Each supported JQL form selects the sample issues Jira would, ordered by key unless ORDER BY."""
    assert await keys(jira, jql) == expected


#: Issue 31's finding: a client's JQL whose unquoted word ends in ``\"`` (Jira's escape of a quote in a word).
ESCAPE = 'summary ~ x\\" ) OR project = HR OR ( summary ~ "a\\"b"'


async def test_an_escaped_quote_in_an_unquoted_word_is_read_as_jira_reads_it(jira: httpx.AsyncClient) -> None:
    """The simulator reads ``x\\"`` as one word, as Jira does: the text the old agent pasted into its wrapper
    reads HR's issues (the finding, now visible to the tests), the canonical text the agent sends reads none."""
    pasted = f"project in (AURORA) AND ({ESCAPE})"
    assert await keys(jira, pasted) == ["HR-1", "HR-2"]
    canonical = 'project in (AURORA) AND (summary ~ "x\\"" OR project = HR OR summary ~ "a\\"b")'
    assert await keys(jira, canonical) == []
    assert await keys(jira, 'summary ~ x\\u0022 OR key = AURORA-1 OR summary ~ "a\\\\b"') == ["AURORA-1"]


@pytest.mark.parametrize(
    ("jql", "message"),
    [
        ("foo = bar", "Field 'foo' does not exist or you do not have permission to view it."),
        ("project = NOPE", "The value 'NOPE' does not exist for the field 'project'."),
        ("key in (AURORA-9999)", "An issue with key 'AURORA-9999' does not exist for field 'key'."),
        ("labels > B", "The operator '>' is not supported by the 'labels' field."),
        ("sprint in someSprints()", "Unable to find JQL function 'someSprints()'."),
        (
            "created >= yesterday",
            "Date value 'yesterday' for field 'created' is invalid. Valid formats include: "
            "'yyyy/MM/dd HH:mm', 'yyyy-MM-dd HH:mm', 'yyyy/MM/dd', 'yyyy-MM-dd', "
            "or a period format e.g. '-5d', '4w 2d'.",
        ),
        (
            "project = AURORA labels = B",
            "Error in the JQL Query: Expecting either 'OR' or 'AND' but got 'labels'. (line 1, character 18)",
        ),
        (
            'labels = "AWPCA',
            "Error in the JQL Query: The quoted string 'AWPCA' has not been completed. (line 1, character 10)",
        ),
        ("(project = AURORA", "Error in the JQL Query: Expecting ')' but got end of query."),
    ],
)
async def test_bad_jql_is_400_with_jira_message(jira: httpx.AsyncClient, jql: str, message: str) -> None:
    """Unknown fields, values, functions and syntax errors answer 400 with Jira's wording."""
    r = await jira.get("/rest/api/2/search", params={"jql": jql})
    assert r.status_code == 400
    assert r.json() == {"errorMessages": [message], "errors": {}}


async def test_validate_query_false_turns_missing_keys_into_warnings(jira: httpx.AsyncClient) -> None:
    """validateQuery=false skips unknown keys with a warning instead of failing."""
    r = await jira.post(
        "/rest/api/2/search", json={"jql": "key in (AURORA-1, AURORA-9999)", "validateQuery": False, "fields": ["key"]}
    )
    assert r.status_code == 200
    body = r.json()
    assert [i["key"] for i in body["issues"]] == ["AURORA-1"]
    assert body["warningMessages"] == ["An issue with key 'AURORA-9999' does not exist for field 'key'."]


async def test_search_pages_and_caps_max_results(clock) -> None:
    """startAt/maxResults page the result; maxResults above 100 is capped to 100."""
    seed = load_sample()
    seed["issues"] += [
        {
            "key": f"AURORA-{2000 + n}",
            "summary": f"Массовая {n}",
            "labels": ["BULK"],
            "created": "2026-10-10T10:00:00+03:00",
        }
        for n in range(130)
    ]
    sim = Simulator(seed, clock=clock)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=sim.asgi), base_url="http://jira.test", headers={"Authorization": "Bearer t"}
    ) as jira:
        first = (
            await jira.get("/rest/api/2/search", params={"jql": "labels = BULK", "maxResults": 500, "fields": "key"})
        ).json()
        assert (first["startAt"], first["maxResults"], first["total"], len(first["issues"])) == (0, 100, 130, 100)
        assert first["expand"] == "schema,names"
        rest = (
            await jira.post(
                "/rest/api/2/search",
                json={"jql": "labels = BULK", "startAt": 100, "maxResults": 100, "fields": ["key"]},
            )
        ).json()
        assert (rest["startAt"], rest["total"], len(rest["issues"])) == (100, 130, 30)
        assert rest["issues"][-1]["key"] == "AURORA-2129"
        small = (
            await jira.get("/rest/api/2/search", params={"jql": "labels = BULK", "startAt": 5, "maxResults": 2})
        ).json()
        assert [i["key"] for i in small["issues"]] == ["AURORA-2005", "AURORA-2006"]
        # new issues are numbered above the highest seeded one
        created = await jira.post(
            "/rest/api/2/issue",
            json={"fields": {"project": {"key": "AURORA"}, "issuetype": {"id": "3"}, "summary": "x"}},
        )
        assert created.json()["key"] == "AURORA-2130"


async def test_search_fields_and_changelog(jira: httpx.AsyncClient) -> None:
    """fields limits each issue; expand=changelog adds histories; the default leaves out comments."""
    r = await jira.get(
        "/rest/api/2/search", params={"jql": "key = AURORA-1445", "fields": "summary,status", "expand": "changelog"}
    )
    (issue,) = r.json()["issues"]
    assert set(issue["fields"]) == {"summary", "status"}
    assert issue["changelog"]["total"] == 1
    assert issue["changelog"]["histories"][0]["items"][0]["toString"] == "Разработка"
    default = (await jira.get("/rest/api/2/search", params={"jql": "key = AURORA-1533"})).json()["issues"][0]
    assert "comment" not in default["fields"]
    assert default["fields"]["customfield_10100"] == "AURORA-1500"


async def test_updated_since_is_read_in_the_callers_time_zone(jira: httpx.AsyncClient, make_client, clock) -> None:
    """updated >= "yyyy/MM/dd HH:mm" is local time of the requesting user (Moscow vs Novosibirsk)."""
    clock.now = datetime(2026, 10, 22, 10, 0, tzinfo=UTC)  # 13:00 Moscow, 17:00 Novosibirsk
    await jira.put("/rest/api/2/issue/AURORA-1560", json={"fields": {"summary": "Обновить регламент 2"}})
    jql = 'updated >= "2026/10/22 13:00"'
    assert await keys(jira, jql) == ["AURORA-1560"]
    assert await keys(jira, 'updated >= "2026/10/22 13:01"') == []
    petrova = "Basic " + base64.b64encode(b"petrova:x").decode()
    async with make_client(Authorization=petrova) as client:
        r = await client.get("/rest/api/2/search", params={"jql": jql, "fields": "key"})
        assert [i["key"] for i in r.json()["issues"]] == ["AURORA-1560"]
        r = await client.get("/rest/api/2/search", params={"jql": 'updated >= "2026/10/22 17:01"', "fields": "key"})
        assert r.json()["issues"] == []


async def test_created_relative_periods_follow_the_clock(jira: httpx.AsyncClient, clock) -> None:
    """-Nd, -Nh and -Nm are counted back from the simulator clock."""
    clock.advance(days=5)  # 2026-10-27 12:00 Moscow: -7d is exactly AURORA-1542's creation
    assert await keys(jira, "created >= -7d") == ["AURORA-1542", "AURORA-1551"]
    assert await keys(jira, "created > -7d") == ["AURORA-1551"]
    assert await keys(jira, 'created >= "-1w 4d"') == ["AURORA-1540", "AURORA-1542", "AURORA-1551"]
    clock.now = datetime(2026, 10, 21, 8, 30, tzinfo=UTC)  # 11:30 Moscow
    assert await keys(jira, "created >= -30m") == ["AURORA-1551"]
    assert await keys(jira, "created >= -1h AND created <= -29m") == ["AURORA-1551"]
    assert await keys(jira, "created >= -29m") == []


async def test_board_types(jira: httpx.AsyncClient) -> None:
    """Board 4216 is scrum, 5120 kanban; an unknown board is 404."""
    scrum = (await jira.get("/rest/agile/1.0/board/4216")).json()
    assert {k: scrum[k] for k in ("id", "self", "name", "type")} == {
        "id": 4216,
        "self": "http://jira.test/rest/agile/1.0/board/4216",
        "name": "AWPCA доска",
        "type": "scrum",
    }
    assert (await jira.get("/rest/agile/1.0/board/5120")).json()["type"] == "kanban"
    missing = await jira.get("/rest/agile/1.0/board/1")
    assert missing.status_code == 404
    assert missing.json() == {
        "errorMessages": ["Board does not exist or you do not have permission to see it."],
        "errors": {},
    }


async def test_board_sprints_filter_and_page(jira: httpx.AsyncClient) -> None:
    """state=active,future lists Спринт 2 and 3, a page at a time with isLast."""
    r = await jira.get("/rest/agile/1.0/board/4216/sprint", params={"state": "active,future", "maxResults": 1})
    assert r.json() == {
        "maxResults": 1,
        "startAt": 0,
        "isLast": False,
        "values": [
            {
                "id": 7,
                "self": "http://jira.test/rest/agile/1.0/sprint/7",
                "state": "active",
                "name": "Спринт 2",
                "startDate": "2026-10-20T09:00:00.000+03:00",
                "endDate": "2026-11-03T09:00:00.000+03:00",
                "activatedDate": "2026-10-20T09:00:00.000+03:00",
                "originBoardId": 4216,
                "goal": "",
                "autoStartStop": False,
                "synced": False,
            }
        ],
    }
    second = (
        await jira.get(
            "/rest/agile/1.0/board/4216/sprint", params={"state": "active,future", "startAt": 1, "maxResults": 1}
        )
    ).json()
    assert (second["isLast"], [s["name"] for s in second["values"]]) == (True, ["Спринт 3"])
    every = (await jira.get("/rest/agile/1.0/board/4216/sprint")).json()
    assert [(s["name"], s["state"]) for s in every["values"]] == [
        ("Спринт 1", "closed"),
        ("Спринт 2", "active"),
        ("Спринт 3", "future"),
    ]


async def test_kanban_board_has_no_sprints(jira: httpx.AsyncClient) -> None:
    """Sprints of a kanban board answer 400 «The board does not support sprints»."""
    r = await jira.get("/rest/agile/1.0/board/5120/sprint", params={"state": "active,future"})
    assert r.status_code == 400
    assert r.json() == {"errorMessages": ["The board does not support sprints"], "errors": {}}


async def test_move_to_sprint_and_back_to_backlog(jira: httpx.AsyncClient, sim: Simulator) -> None:
    """sprint/{id}/issue moves out of the open sprint (closed ones stay); backlog removes open sprints."""
    r = await jira.post("/rest/agile/1.0/sprint/8/issue", json={"issues": ["AURORA-1445", "AURORA-1538"]})
    assert r.status_code == 204
    assert [s["name"] for s in sim.raw_issue("AURORA-1445")["sprints"]] == ["Спринт 1", "Спринт 3"]
    assert [s["name"] for s in sim.raw_issue("AURORA-1538")["sprints"]] == ["Спринт 3"]
    assert sim.raw_issue("AURORA-1445")["changelog"][-1]["items"] == [
        {
            "field": "Sprint",
            "fieldtype": "custom",
            "from": "6, 7",
            "fromString": "Спринт 1, Спринт 2",
            "to": "6, 8",
            "toString": "Спринт 1, Спринт 3",
        }
    ]
    assert (await jira.post("/rest/agile/1.0/backlog/issue", json={"issues": ["AURORA-1445"]})).status_code == 204
    assert [s["name"] for s in sim.raw_issue("AURORA-1445")["sprints"]] == ["Спринт 1"]
    history_count = len(sim.raw_issue("AURORA-1445")["changelog"])
    await jira.post("/rest/agile/1.0/backlog/issue", json={"issues": ["AURORA-1445"]})
    assert len(sim.raw_issue("AURORA-1445")["changelog"]) == history_count


async def test_closed_sprint_refuses_issues(jira: httpx.AsyncClient) -> None:
    """Moving issues into a closed sprint answers 400; an unknown sprint 404."""
    r = await jira.post("/rest/agile/1.0/sprint/6/issue", json={"issues": ["AURORA-1538"]})
    assert r.status_code == 400
    assert r.json() == {"errorMessages": ["Issues can only be moved to an active or a future sprint."], "errors": {}}
    missing = await jira.post("/rest/agile/1.0/sprint/999/issue", json={"issues": ["AURORA-1538"]})
    assert missing.status_code == 404


@pytest.mark.parametrize("page", [1, 2, 5, 13, 100])
async def test_pages_concatenate_to_the_whole_result(jira: httpx.AsyncClient, page: int) -> None:
    """Reading a search page by page with any page size yields the unpaged result, each issue once."""
    jql = "project = AURORA ORDER BY created DESC"
    whole = await keys(jira, jql)
    seen: list[str] = []
    start = 0
    while True:
        body = (
            await jira.post(
                "/rest/api/2/search", json={"jql": jql, "startAt": start, "maxResults": page, "fields": ["key"]}
            )
        ).json()
        assert body["total"] == len(whole)
        seen += [i["key"] for i in body["issues"]]
        start += page
        if start >= body["total"]:
            break
    assert seen == whole
    assert len(whole) == 13


async def test_an_issue_id_stands_for_its_key(jira: httpx.AsyncClient, sim: Simulator) -> None:
    """As in Jira, id, issue, key and issuekey take an issue's numeric id (a webhook's issueLink names ids only)."""
    first, second = (sim.raw_issue(key)["id"] for key in ("AURORA-1533", "HR-2"))
    assert [
        await keys(jira, f"id = {first}"),
        await keys(jira, f"issue in ({first}, {second})"),
        await keys(jira, f"key = {first}"),
        await keys(jira, f"issuekey in ({second})"),
    ] == [["AURORA-1533"], ["AURORA-1533", "HR-2"], ["AURORA-1533"], ["HR-2"]]
    missing = await jira.post("/rest/api/2/search", json={"jql": "id = 99999"})
    assert (missing.status_code, missing.json()["errorMessages"]) == (
        400,
        ["An issue with key '99999' does not exist for field 'id'."],
    )
