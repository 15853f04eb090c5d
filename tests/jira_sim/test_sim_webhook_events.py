"""What each change tells the webhooks: Jira DC's payload of every event the simulator delivers."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from jira_sim import Simulator
from jira_sim.webhooks import WEBHOOK_EVENTS

pytestmark = pytest.mark.anyio

NOW_MS = 1792659600000  # 2026-10-22T09:00:00Z, the clock of these tests


@pytest.fixture
def sim(hooked: Simulator) -> Simulator:
    return hooked


@pytest.fixture
async def jira(sim: Simulator) -> Any:
    """A client with a webhook for every event registered."""
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=sim.asgi), base_url="http://jira.test", headers={"Authorization": "Bearer t"}
    ) as client:
        body = {"name": "all", "url": "http://agent.bank/jira/webhook", "events": list(WEBHOOK_EVENTS)}
        assert (await client.post("/rest/jira-webhook/1.0/webhooks", json=body)).status_code == 201
        yield client


async def delivered(sim: Simulator, receiver) -> dict[str, list[dict[str, Any]]]:
    """The bodies the receiver got, by webhookEvent."""
    await sim.settle_webhooks()
    out: dict[str, list[dict[str, Any]]] = {}
    for r in receiver.received:
        out.setdefault(r.json()["webhookEvent"], []).append(r.json())
    return out


async def rest_issue(jira: httpx.AsyncClient, key: str) -> dict[str, Any]:
    """GET /issue/{key} as a webhook carries it (no ``expand``)."""
    body = (await jira.get(f"/rest/api/2/issue/{key}")).json()
    del body["expand"]
    return body


async def test_create_is_issue_created_with_the_issue_as_get_renders_it(
    jira: httpx.AsyncClient, sim: Simulator, receiver
) -> None:
    """jira:issue_created: timestamp (ms), issue_event_type_name issue_created, the user, the REST v2 issue."""
    fields = {"project": {"key": "AURORA"}, "issuetype": {"name": "Задача"}, "summary": "Новая"}
    key = (await jira.post("/rest/api/2/issue", json={"fields": fields})).json()["key"]
    bodies = await delivered(sim, receiver)
    assert bodies == {
        "jira:issue_created": [
            {
                "timestamp": NOW_MS,
                "webhookEvent": "jira:issue_created",
                "issue_event_type_name": "issue_created",
                "user": (await rest_issue(jira, key))["fields"]["reporter"],
                "issue": await rest_issue(jira, key),
            }
        ]
    }
    assert bodies["jira:issue_created"][0]["user"]["name"] == "bridge-user"


async def test_edit_is_issue_updated_with_the_changelog(jira: httpx.AsyncClient, sim: Simulator, receiver) -> None:
    """An edit of two fields is one jira:issue_updated (issue_updated) with the history's id and both items."""
    edit = {"fields": {"summary": "Шахматка v2"}, "update": {"labels": [{"add": "kind-dev"}]}}
    await jira.put("/rest/api/2/issue/AURORA-1533", json=edit)
    [body] = (await delivered(sim, receiver))["jira:issue_updated"]
    history = sim.raw_issue("AURORA-1533")["changelog"][-1]
    assert body["issue_event_type_name"] == "issue_updated"
    assert body["changelog"] == {
        "id": history["id"],
        "items": [
            {
                "field": "summary",
                "fieldtype": "jira",
                "from": None,
                "fromString": "Шахматка: отчёт по срокам",
                "to": None,
                "toString": "Шахматка v2",
            },
            {
                "field": "labels",
                "fieldtype": "jira",
                "from": None,
                "fromString": "AWPCA",
                "to": None,
                "toString": "AWPCA kind-dev",
            },
        ],
    }
    assert body["issue"] == await rest_issue(jira, "AURORA-1533")
    assert list(body) == ["timestamp", "webhookEvent", "issue_event_type_name", "user", "issue", "changelog"]


async def test_assignee_only_is_issue_assigned(jira: httpx.AsyncClient, sim: Simulator, receiver) -> None:
    """Changing only the assignee is issue_assigned."""
    await jira.put("/rest/api/2/issue/AURORA-1538", json={"fields": {"assignee": {"name": "ivanov"}}})
    [body] = (await delivered(sim, receiver))["jira:issue_updated"]
    assert (body["issue_event_type_name"], [i["field"] for i in body["changelog"]["items"]]) == (
        "issue_assigned",
        ["assignee"],
    )


async def test_a_noop_edit_tells_nothing(jira: httpx.AsyncClient, sim: Simulator, receiver) -> None:
    """An edit that changes nothing writes no history and delivers nothing."""
    await jira.put("/rest/api/2/issue/AURORA-1533", json={"fields": {"summary": "Шахматка: отчёт по срокам"}})
    assert await delivered(sim, receiver) == {}


async def test_transition_with_a_comment_is_one_generic_event_and_comment_created(
    jira: httpx.AsyncClient, sim: Simulator, receiver
) -> None:
    """A transition to Готово with a comment: one issue_generic event (status and resolution, the comment),
    then comment_created with the comment alone."""
    body = {"transition": {"id": "31"}, "update": {"comment": [{"add": {"body": "Проверено"}}]}}
    assert (await jira.post("/rest/api/2/issue/AURORA-1540/transitions", json=body)).status_code == 204
    bodies = await delivered(sim, receiver)
    [updated] = bodies["jira:issue_updated"]
    [created] = bodies["comment_created"]
    assert updated["issue_event_type_name"] == "issue_generic"
    assert [(i["field"], i["fromString"], i["toString"]) for i in updated["changelog"]["items"]] == [
        ("status", "Тестирование", "Готово"),
        ("resolution", None, "Готово"),
    ]
    comment = (await jira.get("/rest/api/2/issue/AURORA-1540/comment")).json()["comments"][-1]
    assert (updated["comment"], created) == (
        comment,
        {"timestamp": NOW_MS, "webhookEvent": "comment_created", "comment": comment},
    )


async def test_comment_added_and_edited(jira: httpx.AsyncClient, sim: Simulator, receiver) -> None:
    """POST comment: issue_commented (no changelog) and comment_created; PUT comment: issue_comment_edited and
    comment_updated."""
    added = (await jira.post("/rest/api/2/issue/AURORA-1533/comment", json={"body": "Первый"})).json()
    edited = (await jira.put(f"/rest/api/2/issue/AURORA-1533/comment/{added['id']}", json={"body": "Второй"})).json()
    bodies = await delivered(sim, receiver)
    assert [
        (b["issue_event_type_name"], "changelog" in b, b["comment"]["body"]) for b in bodies["jira:issue_updated"]
    ] == [
        ("issue_commented", False, "Первый"),
        ("issue_comment_edited", False, "Второй"),
    ]
    assert bodies["comment_created"] == [{"timestamp": NOW_MS, "webhookEvent": "comment_created", "comment": added}]
    assert bodies["comment_updated"] == [{"timestamp": NOW_MS, "webhookEvent": "comment_updated", "comment": edited}]


async def test_links_are_issuelink_events_only(jira: httpx.AsyncClient, sim: Simulator, receiver) -> None:
    """Creating and deleting a link delivers issuelink_created/_deleted with numeric ids, and no issue event."""
    link = {
        "type": {"name": "Блокирует начало"},
        "inwardIssue": {"key": "AURORA-1533"},
        "outwardIssue": {"key": "AURORA-1538"},
    }
    await jira.post("/rest/api/2/issueLink", json=link)
    link_id = next(x["id"] for x in sim.raw_issue("AURORA-1533")["links"] if x["outward"] == "AURORA-1538")
    await jira.delete(f"/rest/api/2/issueLink/{link_id}")
    bodies = await delivered(sim, receiver)
    expected_link = {
        "id": int(link_id),
        "sourceIssueId": int(sim.raw_issue("AURORA-1533")["id"]),
        "destinationIssueId": int(sim.raw_issue("AURORA-1538")["id"]),
        "issueLinkType": {
            "id": 10300,
            "name": "Блокирует начало",
            "outwardName": "блокирует начало",
            "inwardName": "начало блокируется",
            "isSubTaskLinkType": False,
            "isSystemLinkType": False,
        },
        "systemLink": False,
    }
    assert bodies == {
        "issuelink_created": [{"timestamp": NOW_MS, "webhookEvent": "issuelink_created", "issueLink": expected_link}],
        "issuelink_deleted": [{"timestamp": NOW_MS, "webhookEvent": "issuelink_deleted", "issueLink": expected_link}],
    }


async def test_sprint_moves_are_issue_updated_with_the_sprint_item(
    jira: httpx.AsyncClient, sim: Simulator, receiver
) -> None:
    """Moving to sprint 8 and back to the backlog: two issue_updated events with the Sprint item."""
    await jira.post("/rest/agile/1.0/sprint/8/issue", json={"issues": ["AURORA-1538"]})
    await jira.post("/rest/agile/1.0/backlog/issue", json={"issues": ["AURORA-1538"]})
    bodies = await delivered(sim, receiver)
    assert [
        (
            b["issue_event_type_name"],
            [(i["field"], i["fieldtype"], i["from"], i["to"]) for i in b["changelog"]["items"]],
        )
        for b in bodies["jira:issue_updated"]
    ] == [
        ("issue_updated", [("Sprint", "custom", None, "8")]),
        ("issue_updated", [("Sprint", "custom", "8", None)]),
    ]


async def test_attachment_is_issue_updated(jira: httpx.AsyncClient, sim: Simulator, receiver) -> None:
    """An upload is issue_updated with the Attachment item."""
    await jira.post(
        "/rest/api/2/issue/AURORA-1540/attachments",
        files={"file": ("план.txt", b"abc")},
        headers={"X-Atlassian-Token": "no-check"},
    )
    [body] = (await delivered(sim, receiver))["jira:issue_updated"]
    assert [(i["field"], i["toString"]) for i in body["changelog"]["items"]] == [("Attachment", "план.txt")]


async def test_delete_is_issue_deleted_with_the_issue_as_it_was(
    jira: httpx.AsyncClient, sim: Simulator, receiver
) -> None:
    """DELETE /issue/{key}: 204, the issue and its links are gone, jira:issue_deleted carries it as it was."""
    before = await rest_issue(jira, "AURORA-1542")
    assert (await jira.delete("/rest/api/2/issue/AURORA-1542")).status_code == 204
    assert (await jira.get("/rest/api/2/issue/AURORA-1542")).status_code == 404
    [body] = (await delivered(sim, receiver))["jira:issue_deleted"]
    assert body == {
        "timestamp": NOW_MS,
        "webhookEvent": "jira:issue_deleted",
        "issue_event_type_name": "issue_deleted",
        "user": before["fields"]["reporter"],  # bridge-user reported it and deletes it
        "issue": before,
    }


async def test_deleting_an_issue_removes_its_links(jira: httpx.AsyncClient, sim: Simulator) -> None:
    """The other side of a deleted issue's link no longer shows it; searches no longer find it."""
    await jira.delete("/rest/api/2/issue/AURORA-1538")
    assert sim.raw_issue("AURORA-1537")["links"] == []
    found = (await jira.get("/rest/api/2/search", params={"jql": "project = AURORA AND key = AURORA-1537"})).json()
    assert found["total"] == 1
    missing = await jira.get("/rest/api/2/search", params={"jql": "key = AURORA-1538"})
    assert missing.status_code == 400
