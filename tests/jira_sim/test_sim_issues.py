"""REST v2 issue endpoints of the simulator through the real httpx client: shapes, status codes, changelog."""

from __future__ import annotations

import base64
import re

import httpx
import pytest

from jira_sim import Simulator

pytestmark = pytest.mark.anyio

SPRINT_RE = re.compile(
    r"^com\.atlassian\.greenhopper\.service\.sprint\.Sprint@[0-9a-f]{8}\[id=(\d+),rapidViewId=(\d+),"
    r"state=(ACTIVE|CLOSED|FUTURE),name=([^,]*),startDate=([^,]*),endDate=([^,]*),completeDate=([^,]*),"
    r"activatedDate=([^,]*),sequence=(\d+),goal=([^,]*),autoStartStop=false,synced=false,"
    r"incompleteIssuesDestinationId=<null>\]$"
)


def basic(user: str, password: str = "any") -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


async def test_myself_answers_the_seeded_agent_user(jira: httpx.AsyncClient) -> None:
    """GET myself answers bridge-user with its time zone."""
    r = await jira.get("/rest/api/2/myself")
    assert r.status_code == 200
    body = r.json()
    assert (body["name"], body["key"], body["displayName"], body["emailAddress"], body["timeZone"]) == (
        "bridge-user",
        "JIRAUSER10100",
        "Мост планирования",
        "bridge-user@bank.example",
        "Europe/Moscow",
    )
    assert r.headers["content-type"] == "application/json;charset=UTF-8"
    assert r.headers["x-ausername"] == "bridge-user"


async def test_link_types_include_the_symmetric_one(jira: httpx.AsyncClient) -> None:
    """issueLinkType lists both types; «Связанные» has inward == outward."""
    r = await jira.get("/rest/api/2/issueLinkType")
    assert r.status_code == 200
    assert r.json() == {
        "issueLinkTypes": [
            {
                "id": "10300",
                "name": "Блокирует начало",
                "inward": "начало блокируется",
                "outward": "блокирует начало",
                "self": "http://jira.test/rest/api/2/issueLinkType/10300",
            },
            {
                "id": "10301",
                "name": "Связанные",
                "inward": "связана с",
                "outward": "связана с",
                "self": "http://jira.test/rest/api/2/issueLinkType/10301",
            },
        ]
    }


async def test_get_issue_with_fields_returns_only_those(jira: httpx.AsyncClient) -> None:
    """fields= limits the answer; duedate, labels and Jira's time format come through."""
    r = await jira.get("/rest/api/2/issue/AURORA-1533", params={"fields": "summary,duedate,labels,created"})
    assert r.status_code == 200
    body = r.json()
    assert body["key"] == "AURORA-1533"
    assert body["self"] == f"http://jira.test/rest/api/2/issue/{body['id']}"
    assert body["fields"] == {
        "summary": "Шахматка: отчёт по срокам",
        "duedate": "2026-10-23",
        "labels": ["AWPCA"],
        "created": "2026-10-12T14:00:00.000+0300",
    }
    assert "changelog" not in body


async def test_get_issue_all_fields_has_custom_fields(jira: httpx.AsyncClient) -> None:
    """Without fields= every field is there: epic link, planned dates, CRLF description, status category."""
    fields = (await jira.get("/rest/api/2/issue/AURORA-1537")).json()["fields"]
    assert fields["customfield_10100"] == "AURORA-1500"
    assert (fields["customfield_11200"], fields["customfield_11201"]) == ("2026-10-20", "2026-10-30")
    assert fields["status"]["name"] == "Разработка"
    assert fields["status"]["statusCategory"]["key"] == "indeterminate"
    assert fields["reporter"]["name"] == "petrova"
    assert fields["assignee"]["name"] == "ivanov"
    epic = (await jira.get("/rest/api/2/issue/AURORA-1500")).json()["fields"]
    assert epic["customfield_10102"] == "Автоматизация сверки"
    assert epic["issuetype"]["name"] == "Эпик"
    crlf = (await jira.get("/rest/api/2/issue/AURORA-1538", params={"fields": "description"})).json()
    assert crlf["fields"]["description"] == "Первая строка\r\nВторая строка"


async def test_unknown_issue_is_404_with_jira_body(jira: httpx.AsyncClient) -> None:
    """A missing key answers 404 «Issue Does Not Exist»."""
    r = await jira.get("/rest/api/2/issue/AURORA-9999")
    assert r.status_code == 404
    assert r.json() == {"errorMessages": ["Issue Does Not Exist"], "errors": {}}


async def test_sprint_field_uses_the_old_string_form(jira: httpx.AsyncClient) -> None:
    """The sprint field is a list of Sprint@…[…] strings, closed and active; null without sprints."""
    fields = (await jira.get("/rest/api/2/issue/AURORA-1445", params={"fields": "customfield_10104"})).json()["fields"]
    parsed = [SPRINT_RE.match(s) for s in fields["customfield_10104"]]
    assert all(parsed)
    assert [(m[1], m[2], m[3], m[4], m[6], m[7]) for m in parsed if m] == [
        ("6", "4216", "CLOSED", "Спринт 1", "2026-10-20T09:00:00.000+03:00", "2026-10-20T10:00:00.000+03:00"),
        ("7", "4216", "ACTIVE", "Спринт 2", "2026-11-03T09:00:00.000+03:00", "<null>"),
    ]
    empty = (await jira.get("/rest/api/2/issue/AURORA-1538", params={"fields": "customfield_10104"})).json()
    assert empty["fields"]["customfield_10104"] is None


async def test_issue_links_are_seen_from_both_sides(jira: httpx.AsyncClient) -> None:
    """Link 1446(inward)→1445(outward): 1446 shows outwardIssue 1445, 1445 shows inwardIssue 1446."""
    on_1446 = (await jira.get("/rest/api/2/issue/AURORA-1446", params={"fields": "issuelinks"})).json()
    on_1445 = (await jira.get("/rest/api/2/issue/AURORA-1445", params={"fields": "issuelinks"})).json()
    (a,) = on_1446["fields"]["issuelinks"]
    (b,) = on_1445["fields"]["issuelinks"]
    assert a["id"] == b["id"]
    assert a["type"]["name"] == "Связанные"
    assert "inwardIssue" not in a
    assert a["outwardIssue"]["key"] == "AURORA-1445"
    assert set(a["outwardIssue"]["fields"]) == {"summary", "status", "priority", "issuetype"}
    assert "outwardIssue" not in b
    assert b["inwardIssue"]["key"] == "AURORA-1446"


async def test_expand_changelog_has_jira_shape(jira: httpx.AsyncClient) -> None:
    """expand=changelog adds {startAt,maxResults,total,histories} with author and items."""
    r = await jira.get("/rest/api/2/issue/AURORA-1533", params={"fields": "duedate", "expand": "changelog"})
    changelog = r.json()["changelog"]
    assert (changelog["startAt"], changelog["maxResults"], changelog["total"]) == (0, 1, 1)
    (history,) = changelog["histories"]
    assert history["author"]["name"] == "ivanov"
    assert history["created"] == "2026-10-20T12:00:00.000+0300"
    assert history["items"] == [
        {
            "field": "duedate",
            "fieldtype": "jira",
            "from": "2026-10-20",
            "fromString": "2026-10-20 00:00:00.0",
            "to": "2026-10-23",
            "toString": "2026-10-23 00:00:00.0",
        }
    ]


async def test_edit_labels_with_update_verbs_records_changelog(jira: httpx.AsyncClient, clock) -> None:
    """update add/remove of labels answers 204, bumps updated and writes one labels history item."""
    clock.advance(hours=1)
    r = await jira.put(
        "/rest/api/2/issue/AURORA-1551",
        json={"update": {"labels": [{"add": "AWPCA"}, {"remove": "kind-dev"}]}},
    )
    assert r.status_code == 204
    assert r.content == b""
    body = (await jira.get("/rest/api/2/issue/AURORA-1551", params={"expand": "changelog"})).json()
    assert body["fields"]["labels"] == ["STOCKS_DRRK", "AWPCA"]
    assert body["fields"]["updated"] == "2026-10-22T13:00:00.000+0300"
    (history,) = body["changelog"]["histories"]
    assert history["author"]["name"] == "bridge-user"
    assert history["created"] == "2026-10-22T13:00:00.000+0300"
    assert history["items"] == [
        {
            "field": "labels",
            "fieldtype": "jira",
            "from": None,
            "fromString": "STOCKS_DRRK kind-dev",
            "to": None,
            "toString": "STOCKS_DRRK AWPCA",
        }
    ]


async def test_edit_fields_store_text_as_sent(jira: httpx.AsyncClient, sim: Simulator) -> None:
    """fields set description (CRLF kept), duedate, priority, assignee, planned dates and epic link."""
    r = await jira.put(
        "/rest/api/2/issue/AURORA-1446",
        json={
            "fields": {
                "description": "а\r\nб",
                "duedate": "2026-10-30",
                "priority": {"name": "High"},
                "assignee": {"name": "petrova"},
                "customfield_11200": "2026-10-25",
                "customfield_10100": "AURORA-1500",
            }
        },
    )
    assert r.status_code == 204
    raw = sim.raw_issue("AURORA-1446")
    assert (raw["description"], raw["duedate"], raw["priority"], raw["assignee"], raw["epic"]) == (
        "а\r\nб",
        "2026-10-30",
        "High",
        "petrova",
        "AURORA-1500",
    )
    assert raw["custom"] == {"customfield_11200": "2026-10-25"}
    fields = [i["field"] for i in raw["changelog"][-1]["items"]]
    assert fields == ["description", "duedate", "priority", "assignee", "Плановое начало", "Epic Link"]
    epic_items = sim.raw_issue("AURORA-1500")["changelog"][-1]["items"]
    assert epic_items[0]["field"] == "Epic Child"
    assert epic_items[0]["toString"] == "AURORA-1446"


async def test_edit_with_null_clears_and_same_value_writes_nothing(jira: httpx.AsyncClient, sim: Simulator) -> None:
    """null clears a field; a PUT that changes nothing adds no history and keeps updated."""
    before = sim.raw_issue("AURORA-1533")
    r = await jira.put("/rest/api/2/issue/AURORA-1533", json={"fields": {"duedate": "2026-10-23"}})
    assert r.status_code == 204
    assert sim.raw_issue("AURORA-1533") == before
    await jira.put("/rest/api/2/issue/AURORA-1533", json={"fields": {"duedate": None}})
    after = sim.raw_issue("AURORA-1533")
    assert after["duedate"] is None
    assert after["changelog"][-1]["items"][0]["to"] is None


@pytest.mark.parametrize(
    ("body", "errors"),
    [
        ({"fields": {"duedate": "2026-13-45"}}, {"duedate": "Error parsing date string: 2026-13-45"}),
        (
            {"fields": {"customfield_99999": "x"}},
            {
                "customfield_99999": "Field 'customfield_99999' cannot be set. It is not on the appropriate screen, "
                "or unknown."
            },
        ),
        ({"fields": {"priority": {"name": "Срочно"}}}, {"priority": "The priority selected is invalid."}),
        ({"fields": {"assignee": {"name": "nobody"}}}, {"assignee": "User 'nobody' does not exist."}),
        ({"fields": {"summary": ""}}, {"summary": "You must specify a summary of the issue."}),
        (
            {"fields": {"customfield_10100": "AURORA-1533"}},
            {"customfield_10100": "Issue 'AURORA-1533' is not an epic."},
        ),
    ],
)
async def test_bad_edit_is_400_and_changes_nothing(
    jira: httpx.AsyncClient, sim: Simulator, body: dict, errors: dict
) -> None:
    """An invalid PUT answers 400 with per-field errors and leaves the issue as it was."""
    before = sim.raw_issue("AURORA-1537")
    r = await jira.put("/rest/api/2/issue/AURORA-1537", json=body)
    assert r.status_code == 400
    assert r.json() == {"errorMessages": [], "errors": errors}
    assert sim.raw_issue("AURORA-1537") == before


async def test_create_issue_numbers_from_1590_and_sets_reporter(jira: httpx.AsyncClient, sim: Simulator) -> None:
    """POST issue answers 201 {id,key,self}: AURORA-1590 first, reporter and creator the caller."""
    r = await jira.post(
        "/rest/api/2/issue",
        json={
            "fields": {
                "project": {"key": "AURORA"},
                "issuetype": {"name": "Ошибка"},
                "summary": "ОСВ 60 не распознана",
                "description": "строка\r\nстрока",
                "labels": ["AWPCA"],
                "duedate": "2026-10-30",
            }
        },
    )
    assert r.status_code == 201
    body = r.json()
    assert set(body) == {"id", "key", "self"}
    assert body["key"] == "AURORA-1590"
    assert body["self"] == f"http://jira.test/rest/api/2/issue/{body['id']}"
    raw = sim.raw_issue("AURORA-1590")
    assert (raw["issuetype"], raw["reporter"], raw["creator"], raw["status"], raw["labels"]) == (
        "Ошибка",
        "bridge-user",
        "bridge-user",
        "Ожидание разработки",
        ["AWPCA"],
    )
    assert raw["created"] == raw["updated"] == "2026-10-22T12:00:00.000+0300"
    assert raw["description"] == "строка\r\nстрока"
    assert raw["changelog"] == []
    second = await jira.post(
        "/rest/api/2/issue",
        json={"fields": {"project": {"id": "10200"}, "issuetype": {"id": "3"}, "summary": "Вторая"}},
    )
    assert second.json()["key"] == "AURORA-1591"


async def test_create_epic_needs_epic_name(jira: httpx.AsyncClient) -> None:
    """An epic without customfield_10102 is refused; with it, created."""
    fields = {"project": {"key": "AURORA"}, "issuetype": {"name": "Эпик"}, "summary": "Новый эпик"}
    r = await jira.post("/rest/api/2/issue", json={"fields": fields})
    assert r.status_code == 400
    assert r.json() == {"errorMessages": [], "errors": {"customfield_10102": "Epic Name is required."}}
    ok = await jira.post("/rest/api/2/issue", json={"fields": {**fields, "customfield_10102": "Новый эпик"}})
    assert ok.status_code == 201


async def test_create_refuses_unknown_type_missing_summary_and_unknown_field(jira: httpx.AsyncClient) -> None:
    """Create answers 400 naming each bad field, and no key is used up."""
    r = await jira.post(
        "/rest/api/2/issue", json={"fields": {"project": {"key": "AURORA"}, "issuetype": {"name": "Story"}}}
    )
    assert r.status_code == 400
    assert r.json()["errors"] == {
        "issuetype": "The issue type selected is invalid.",
        "summary": "You must specify a summary of the issue.",
    }
    r = await jira.post(
        "/rest/api/2/issue",
        json={"fields": {"project": {"key": "AURORA"}, "issuetype": {"id": "3"}, "summary": "x", "parent": {}}},
    )
    assert r.json()["errors"] == {
        "parent": "Field 'parent' cannot be set. It is not on the appropriate screen, or unknown."
    }
    ok = await jira.post(
        "/rest/api/2/issue", json={"fields": {"project": {"key": "AURORA"}, "issuetype": {"id": "3"}, "summary": "x"}}
    )
    assert ok.json()["key"] == "AURORA-1590"


async def test_basic_auth_user_is_the_reporter(make_client) -> None:
    """Basic auth as a seeded user (any password) acts as that user."""
    async with make_client(Authorization=basic("petrova", "whatever")) as client:
        me = (await client.get("/rest/api/2/myself")).json()
        assert (me["name"], me["timeZone"]) == ("petrova", "Asia/Novosibirsk")
        r = await client.post(
            "/rest/api/2/issue",
            json={"fields": {"project": {"key": "AURORA"}, "issuetype": {"id": "3"}, "summary": "От Петровой"}},
        )
        issue = (await client.get(f"/rest/api/2/issue/{r.json()['key']}", params={"fields": "reporter"})).json()
        assert issue["fields"]["reporter"]["name"] == "petrova"


async def test_transitions_follow_the_path_and_back(jira: httpx.AsyncClient, sim: Simulator) -> None:
    """Only transitions from the current status are offered; taking one writes a status history item."""
    r = await jira.get("/rest/api/2/issue/AURORA-1538/transitions")
    assert r.status_code == 200
    body = r.json()
    assert body["expand"] == "transitions"
    assert [(t["id"], t["name"], t["to"]["name"]) for t in body["transitions"]] == [
        ("11", "В разработку", "Разработка")
    ]
    assert body["transitions"][0]["to"]["statusCategory"] == {
        "self": "http://jira.test/rest/api/2/statuscategory/4",
        "id": 4,
        "key": "indeterminate",
        "colorName": "yellow",
        "name": "In Progress",
    }
    assert (
        await jira.post("/rest/api/2/issue/AURORA-1538/transitions", json={"transition": {"id": "11"}})
    ).status_code == 204
    names = [
        t["to"]["name"] for t in (await jira.get("/rest/api/2/issue/AURORA-1538/transitions")).json()["transitions"]
    ]
    assert names == ["Тестирование", "Ожидание разработки"]
    item = sim.raw_issue("AURORA-1538")["changelog"][-1]["items"][0]
    assert item == {
        "field": "status",
        "fieldtype": "jira",
        "from": "10100",
        "fromString": "Ожидание разработки",
        "to": "10101",
        "toString": "Разработка",
    }


async def test_unavailable_transition_is_400(jira: httpx.AsyncClient) -> None:
    """A transition not valid from the current status answers 400 and the status stays."""
    r = await jira.post("/rest/api/2/issue/AURORA-1538/transitions", json={"transition": {"id": "31"}})
    assert r.status_code == 400
    assert r.json() == {"errorMessages": ["Transition id '31' is not valid for this issue."], "errors": {}}
    status = (await jira.get("/rest/api/2/issue/AURORA-1538", params={"fields": "status"})).json()
    assert status["fields"]["status"]["name"] == "Ожидание разработки"


async def test_done_status_sets_resolution(jira: httpx.AsyncClient) -> None:
    """Reaching Готово (done category) sets resolution; statusCategory key is done."""
    for tid in ("21", "31"):
        assert (
            await jira.post("/rest/api/2/issue/AURORA-1445/transitions", json={"transition": {"id": tid}})
        ).status_code == 204
    fields = (await jira.get("/rest/api/2/issue/AURORA-1445", params={"fields": "status,resolution"})).json()["fields"]
    assert fields["status"]["statusCategory"]["key"] == "done"
    assert fields["resolution"]["name"] == "Готово"


async def test_comments_page_and_keep_crlf(jira: httpx.AsyncClient, clock) -> None:
    """Comments page by startAt/maxResults; POST 201 and PUT 200 store the body exactly."""
    r = await jira.get("/rest/api/2/issue/AURORA-1533/comment", params={"startAt": 1, "maxResults": 1})
    assert r.status_code == 200
    page = r.json()
    assert (page["startAt"], page["maxResults"], page["total"]) == (1, 1, 2)
    assert [c["body"] for c in page["comments"]] == ["Проверю после выгрузки"]
    full = (await jira.get("/rest/api/2/issue/AURORA-1533/comment")).json()
    assert (full["maxResults"], full["total"], full["comments"][0]["body"]) == (
        2,
        2,
        "[план] Срок согласован\r\nс заказчиком",
    )
    clock.advance(minutes=5)
    posted = await jira.post("/rest/api/2/issue/AURORA-1533/comment", json={"body": "[бот] раз\r\nдва"})
    assert posted.status_code == 201
    comment = posted.json()
    assert comment["body"] == "[бот] раз\r\nдва"
    assert comment["author"]["name"] == "bridge-user"
    assert comment["created"] == "2026-10-22T12:05:00.000+0300"
    clock.advance(minutes=5)
    put = await jira.put(f"/rest/api/2/issue/AURORA-1533/comment/{comment['id']}", json={"body": "[бот] три"})
    assert put.status_code == 200
    assert (put.json()["body"], put.json()["updated"], put.json()["created"]) == (
        "[бот] три",
        "2026-10-22T12:10:00.000+0300",
        "2026-10-22T12:05:00.000+0300",
    )
    missing = await jira.put("/rest/api/2/issue/AURORA-1533/comment/1", json={"body": "x"})
    assert missing.status_code == 404
    assert missing.json() == {"errorMessages": ["Can not find a comment for the id: 1."], "errors": {}}


async def test_issue_link_create_and_delete(jira: httpx.AsyncClient, sim: Simulator) -> None:
    """POST issueLink answers 201 with no body and shows on both issues; DELETE answers 204 and removes it."""
    r = await jira.post(
        "/rest/api/2/issueLink",
        json={
            "type": {"name": "Связанные"},
            "inwardIssue": {"key": "AURORA-1537"},
            "outwardIssue": {"key": "AURORA-1538"},
        },
    )
    assert r.status_code == 201
    assert r.content == b""
    links = (await jira.get("/rest/api/2/issue/AURORA-1537", params={"fields": "issuelinks"})).json()["fields"][
        "issuelinks"
    ]
    assert sorted((link["type"]["name"], link["outwardIssue"]["key"]) for link in links) == [
        ("Блокирует начало", "AURORA-1538"),
        ("Связанные", "AURORA-1538"),
    ]
    assert sim.raw_issue("AURORA-1538")["changelog"][-1]["items"][0] == {
        "field": "Link",
        "fieldtype": "jira",
        "from": None,
        "fromString": None,
        "to": "AURORA-1537",
        "toString": "This issue связана с AURORA-1537",
    }
    blocking = next(link for link in links if link["type"]["name"] == "Блокирует начало")
    assert (await jira.delete(f"/rest/api/2/issueLink/{blocking['id']}")).status_code == 204
    again = await jira.delete(f"/rest/api/2/issueLink/{blocking['id']}")
    assert again.status_code == 404
    assert again.json() == {"errorMessages": [f"No issue link with id '{blocking['id']}' exists."], "errors": {}}
    assert sim.raw_issue("AURORA-1537")["changelog"][-1]["items"][0]["fromString"] == (
        "This issue блокирует начало AURORA-1538"
    )


async def test_issue_link_unknown_type_is_404(jira: httpx.AsyncClient) -> None:
    """A link type that does not exist answers 404 naming it."""
    r = await jira.post(
        "/rest/api/2/issueLink",
        json={"type": {"name": "Дубль"}, "inwardIssue": {"key": "AURORA-1"}, "outwardIssue": {"key": "AURORA-1538"}},
    )
    assert r.status_code == 404
    assert r.json() == {"errorMessages": ["No issue link type with name 'Дубль' found."], "errors": {}}


async def test_sample_attachment_is_listed(jira: httpx.AsyncClient, sim: Simulator) -> None:
    """AURORA-1540 carries «ОСВ 60.xlsx» of 2048 bytes; its content is served (and not counted as a REST call)."""
    fields = (await jira.get("/rest/api/2/issue/AURORA-1540", params={"fields": "attachment"})).json()["fields"]
    (a,) = fields["attachment"]
    assert set(a) == {"self", "id", "filename", "author", "created", "size", "mimeType", "content"}
    assert (a["filename"], a["size"], a["author"]["name"]) == ("ОСВ 60.xlsx", 2048, "petrova")
    content = await jira.get(a["content"])
    assert content.content == b"\0" * 2048
    assert [c["path"] for c in sim.calls] == ["/rest/api/2/issue/AURORA-1540"]


async def test_attachment_upload_needs_xsrf_header(jira: httpx.AsyncClient, sim: Simulator) -> None:
    """Without X-Atlassian-Token: no-check the upload is 403 and nothing is stored."""
    r = await jira.post("/rest/api/2/issue/AURORA-1540/attachments", files={"file": ("a.txt", b"abc")})
    assert r.status_code == 403
    assert r.json() == {"errorMessages": ["XSRF check failed"], "errors": {}}
    assert len(sim.raw_issue("AURORA-1540")["attachments"]) == 1


async def test_attachment_upload_answers_an_array_and_allows_same_name(jira: httpx.AsyncClient, sim: Simulator) -> None:
    """Multipart upload answers 200 with a JSON array; the same filename may be uploaded again."""
    data = b"PK\x03\x04\r\n\r\nbinary\r\n--not-a-boundary"
    r = await jira.post(
        "/rest/api/2/issue/AURORA-1540/attachments",
        files={"file": ("ОСВ 60.xlsx", data, "application/vnd.ms-excel")},
        headers={"X-Atlassian-Token": "no-check"},
    )
    assert r.status_code == 200
    (a,) = r.json()
    assert (a["filename"], a["size"], a["mimeType"], a["author"]["name"]) == (
        "ОСВ 60.xlsx",
        len(data),
        "application/vnd.ms-excel",
        "bridge-user",
    )
    assert (await jira.get(a["content"])).content == data
    raw = sim.raw_issue("AURORA-1540")
    assert [x["filename"] for x in raw["attachments"]] == ["ОСВ 60.xlsx", "ОСВ 60.xlsx"]
    assert raw["changelog"][-1]["items"] == [
        {
            "field": "Attachment",
            "fieldtype": "jira",
            "from": None,
            "fromString": None,
            "to": a["id"],
            "toString": "ОСВ 60.xlsx",
        }
    ]


async def test_issue_json_matches_the_http_answer(jira: httpx.AsyncClient, sim: Simulator) -> None:
    """sim.issue_json(key) is what GET issue answers."""
    r = await jira.get("/rest/api/2/issue/AURORA-1537")
    assert sim.issue_json("AURORA-1537") == r.json()


@pytest.mark.parametrize(
    ("method", "path", "body", "message"),
    [
        ("PUT", "/rest/api/2/issue/AURORA-1", b"", "No content to map to Object due to end of input"),
        ("PUT", "/rest/api/2/issue/AURORA-1", b"[1]", "Can not deserialize instance of object out of non-object token"),
        ("POST", "/rest/api/2/issueLink", b'{"type": "Related"}', None),
    ],
)
async def test_malformed_bodies_are_400(
    jira: httpx.AsyncClient, method: str, path: str, body: bytes, message: str | None
) -> None:
    """Empty, non-object or wrongly shaped bodies answer 400 with an errorMessages body."""
    r = await jira.request(method, path, content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == 400
    if message is not None:
        assert r.json() == {"errorMessages": [message], "errors": {}}
    else:
        assert r.json()["errorMessages"][0].startswith("Can not deserialize the request body: ")


async def test_update_ops_must_be_objects(jira: httpx.AsyncClient) -> None:
    """An update verb list holding a non-object answers 400 naming the field."""
    r = await jira.put("/rest/api/2/issue/AURORA-1", json={"update": {"labels": ["AWPCA"]}})
    assert r.status_code == 400
    assert r.json() == {"errorMessages": [], "errors": {"labels": "Field 'labels': update operations must be a list."}}


async def test_each_kind_of_field_has_its_changelog_item_in_jira_shape(jira: httpx.AsyncClient) -> None:
    """One edit of every kind of field: one history, an item per changed field in the order sent, texts alone for
    text fields, ids beside the shown values where Jira keeps them (priority, users, dates, the epic's issue id);
    linking and unlinking tell the epic of its child."""
    ids = {}
    for key in ("AURORA-1446", "AURORA-1500"):
        ids[key] = (await jira.get(f"/rest/api/2/issue/{key}", params={"fields": "summary"})).json()["id"]
    fields = {
        "summary": "Сверка ОСВ 60",
        "labels": ["AWPCA", "kind-dev"],
        "duedate": "2026-10-30",
        "priority": {"name": "High"},
        "assignee": {"name": "petrova"},
        "customfield_11200": "2026-10-25",
        "customfield_10100": "AURORA-1500",
    }
    assert (await jira.put("/rest/api/2/issue/AURORA-1446", json={"fields": fields})).status_code == 204
    assert (
        await jira.put("/rest/api/2/issue/AURORA-1446", json={"fields": {"customfield_10100": None}})
    ).status_code == 204

    async def histories(key: str) -> list[list[dict[str, object]]]:
        body = (await jira.get(f"/rest/api/2/issue/{key}", params={"expand": "changelog"})).json()
        return [h["items"] for h in body["changelog"]["histories"]]

    def item(
        field: str, old: object, old_text: object, new: object, new_text: object, *, kind: str = "jira"
    ) -> dict[str, object]:
        return {"field": field, "fieldtype": kind, "from": old, "fromString": old_text, "to": new, "toString": new_text}

    issue, epic = ids["AURORA-1446"], ids["AURORA-1500"]
    assert await histories("AURORA-1446") == [
        [
            item("summary", None, "Проверка ОСВ 60", None, "Сверка ОСВ 60"),
            item("labels", None, "AWPCA", None, "AWPCA kind-dev"),
            item("duedate", None, None, "2026-10-30", "2026-10-30 00:00:00.0"),
            item("priority", "3", "Medium", "2", "High"),
            item("assignee", None, None, "petrova", "Петрова Анна"),
            item("Плановое начало", None, None, "2026-10-25", "2026-10-25", kind="custom"),
            item("Epic Link", None, None, epic, "AURORA-1500", kind="custom"),
        ],
        [item("Epic Link", epic, "AURORA-1500", None, None, kind="custom")],
    ]
    assert await histories("AURORA-1500") == [
        [item("Epic Child", None, None, issue, "AURORA-1446", kind="custom")],
        [item("Epic Child", issue, "AURORA-1446", None, None, kind="custom")],
    ]
