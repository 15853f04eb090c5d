"""Webhooks in the simulator: registration on Jira ≤ 9's and Jira 10's resources, delivery, filters, signing,
and the injected delivery faults."""

from __future__ import annotations

import asyncio
import hashlib
import hmac

import httpx
import pytest

from adapters.clock import FakeClock
from jira_sim import Simulator

pytestmark = pytest.mark.anyio

LEGACY = "/rest/webhooks/1.0/webhook"
V10 = "/rest/jira-webhook/1.0/webhooks"
ALL_EVENTS = [
    "jira:issue_created",
    "jira:issue_updated",
    "jira:issue_deleted",
    "comment_created",
    "comment_updated",
    "issuelink_created",
    "issuelink_deleted",
]
CREATED_MS = 1792659600000  # the sample's reference time, 2026-10-22T09:00:00Z
EDIT = {"fields": {"summary": "Шахматка: отчёт по срокам (v2)"}}


@pytest.fixture
def sim(hooked: Simulator) -> Simulator:
    return hooked


async def register(jira: httpx.AsyncClient, **body: object) -> dict:
    """A Jira 10 webhook for every event, to http://agent.bank/jira/webhook, changed by ``body``."""
    full = {"name": "sdlc-agent", "url": "http://agent.bank/jira/webhook", "events": ALL_EVENTS, **body}
    response = await jira.post(V10, json=full)
    assert response.status_code == 201, response.text
    return response.json()


async def test_legacy_registration_answers_as_jira_9(jira: httpx.AsyncClient) -> None:
    """POST /rest/webhooks/1.0/webhook is 201 with self, filters, enabled and lastUpdated…; the secret is not shown;
    GET lists and reads it."""
    body = {
        "name": "sdlc-agent",
        "url": "https://agent.bank/jira/webhook",
        "events": ["jira:issue_updated", "jira:issue_updated", "comment_created"],
        "filters": {"issue-related-events-section": "project = AURORA"},
        "excludeBody": False,
        "secret": "s3cret",
    }
    response = await jira.post(LEGACY, json=body)
    expected = {
        "self": "http://jira.test/rest/webhooks/1.0/webhook/1",
        "name": "sdlc-agent",
        "url": "https://agent.bank/jira/webhook",
        "events": ["jira:issue_updated", "comment_created"],
        "filters": {"issue-related-events-section": "project = AURORA"},
        "excludeBody": False,
        "enabled": True,
        "lastUpdated": CREATED_MS,
        "lastUpdatedUser": "bridge-user",
        "lastUpdatedDisplayName": "Мост планирования",
    }
    assert (response.status_code, response.json()) == (201, expected)
    assert (await jira.get(LEGACY)).json() == [expected]
    assert (await jira.get(f"{LEGACY}/1")).json() == expected


async def test_v10_registration_answers_as_jira_10(jira: httpx.AsyncClient) -> None:
    """POST /rest/jira-webhook/1.0/webhooks is 201 with a numeric id and string configuration, SECRET left out;
    both resources list the same webhooks."""
    created = await register(
        jira,
        active=True,
        configuration={"FILTERS": "project = AURORA", "EXCLUDE_BODY": "true", "SECRET": "s3cret"},
    )
    expected = {
        "id": 1,
        "name": "sdlc-agent",
        "createdDate": CREATED_MS,
        "updatedDate": CREATED_MS,
        "events": ALL_EVENTS,
        "configuration": {"EXCLUDE_BODY": "true", "FILTERS": "project = AURORA"},
        "url": "http://agent.bank/jira/webhook",
        "active": True,
        "scopeType": "global",
        "sslVerificationRequired": True,
    }
    assert created == expected
    assert (await jira.get(V10)).json() == [expected]
    legacy = (await jira.get(LEGACY)).json()
    assert [(w["self"], w["excludeBody"], w["filters"]) for w in legacy] == [
        ("http://jira.test/rest/webhooks/1.0/webhook/1", True, {"issue-related-events-section": "project = AURORA"})
    ]


async def test_delete_a_webhook_on_either_resource(jira: httpx.AsyncClient, sim: Simulator) -> None:
    """DELETE answers 204, the webhook is gone from both lists (404 after), and nothing is noted for it."""
    await register(jira)
    await register(jira, name="second")
    assert (await jira.delete(f"{V10}/1")).status_code == 204
    assert (await jira.delete(f"{LEGACY}/2")).status_code == 204
    missing = await jira.get(f"{V10}/1")
    assert (missing.status_code, missing.json()) == (
        404,
        {"errorMessages": ["Webhook with id 1 does not exist."], "errors": {}},
    )
    assert (await jira.get(V10)).json() == []
    await jira.put("/rest/api/2/issue/AURORA-1533", json=EDIT)
    assert (sim.store.listening, sim.store.changes, sim.webhook_deliveries) == (False, [], [])


async def test_update_a_webhook_on_either_resource(jira: httpx.AsyncClient, sim: Simulator) -> None:
    """PUT …/{id} replaces the webhook with the body (its id kept, one webhook still): Jira 10's configuration or
    Jira ≤ 9's filters and secret; an unknown id is 404 and a bad body 400, nothing changed."""
    await register(jira, configuration={"SECRET": "old", "FILTERS": "project = AURORA"})
    updated = await jira.put(
        f"{V10}/1",
        json={
            "name": "sdlc",
            "url": "http://agent.bank/new",
            "events": ALL_EVENTS[:2],
            "configuration": {"SECRET": "s2"},
        },
    )
    assert (updated.status_code, updated.json()["id"], updated.json()["configuration"]) == (
        200,
        1,
        {"EXCLUDE_BODY": "false"},
    )
    legacy = await jira.put(
        f"{LEGACY}/1",
        json={
            "name": "sdlc",
            "url": "http://agent.bank/new",
            "events": ALL_EVENTS,
            "filters": {"issue-related-events-section": "project = HR"},
            "secret": "s3",
        },
    )
    assert (legacy.status_code, legacy.json()["filters"]) == (200, {"issue-related-events-section": "project = HR"})
    hooks = list(sim.store.webhooks.values())
    assert [(w.id, w.url, w.secret, w.jql, len(w.events)) for w in hooks] == [
        (1, "http://agent.bank/new", "s3", "project = HR", len(ALL_EVENTS))
    ]
    missing = await jira.put(f"{V10}/9", json={"name": "x", "url": "http://a/"})
    assert (missing.status_code, missing.json()["errorMessages"]) == (404, ["Webhook with id 9 does not exist."])
    bad = await jira.put(f"{V10}/1", json={"name": "", "url": "http://a/"})
    assert (bad.status_code, [w.url for w in sim.store.webhooks.values()]) == (400, ["http://agent.bank/new"])


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"url": "http://agent.bank/hook"}, "The webhook name must not be empty."),
        ({"name": "x", "url": "agent.bank/hook"}, "The webhook URL is not valid: 'agent.bank/hook'."),
        ({"name": "x", "url": "http://a/", "events": ["sprint_started"]}, "Unknown webhook event: sprint_started."),
        (
            {"name": "x", "url": "http://a/", "configuration": {"FILTERS": "project = NOPE"}},
            "The value 'NOPE' does not exist for the field 'project'.",
        ),
        ({"name": "x", "url": "http://a/", "active": "yes"}, "active must be true or false, not 'yes'."),
        (
            {"name": "x", "url": "http://a/", "configuration": {"SECRET": ""}},
            "The webhook secret must be a non-empty string.",
        ),
    ],
)
async def test_registration_refuses_bad_bodies(jira: httpx.AsyncClient, body: dict, message: str) -> None:
    """A bad registration is 400 with Jira's error body naming the problem, and nothing is registered."""
    response = await jira.post(V10, json=body)
    assert (response.status_code, response.json()) == (400, {"errorMessages": [message], "errors": {}})
    assert (await jira.get(V10)).json() == []


async def test_registration_needs_credentials(make_client) -> None:
    """Without credentials the webhook resources answer 401."""
    async with make_client() as anonymous:
        assert (await anonymous.get(V10)).status_code == 401
        assert (await anonymous.post(LEGACY, json={})).status_code == 401


async def test_an_edit_is_delivered_signed(jira: httpx.AsyncClient, sim: Simulator, receiver) -> None:
    """With a secret the delivery carries X-Hub-Signature: sha256=<HMAC-SHA256 of the body>, JSON of the change;
    the delivery log says where, what and when."""
    await register(jira, configuration={"SECRET": "s3cret"})
    assert (await jira.put("/rest/api/2/issue/AURORA-1533", json=EDIT)).status_code == 204
    await sim.settle_webhooks()
    [delivery] = receiver.received
    expected = "sha256=" + hmac.new(b"s3cret", delivery.body, hashlib.sha256).hexdigest()
    assert (delivery.path, delivery.headers["x-hub-signature"]) == ("/jira/webhook", expected)
    assert delivery.headers["content-type"] == "application/json; charset=UTF-8"
    assert delivery.headers["user-agent"].startswith("Atlassian HttpClient")
    assert (delivery.json()["webhookEvent"], delivery.json()["issue"]["key"]) == ("jira:issue_updated", "AURORA-1533")
    assert sim.webhook_deliveries == [
        {
            "id": 1,
            "url": "http://agent.bank/jira/webhook",
            "event": "jira:issue_updated",
            "key": "AURORA-1533",
            "status": 200,
            "at": "2026-10-22T09:00:00Z",
            "duplicate": False,
        }
    ]


async def test_unsigned_without_a_secret(jira: httpx.AsyncClient, sim: Simulator, receiver) -> None:
    """No secret, no X-Hub-Signature header."""
    await register(jira)
    await jira.put("/rest/api/2/issue/AURORA-1533", json=EDIT)
    await sim.settle_webhooks()
    assert "x-hub-signature" not in receiver.received[0].headers


async def test_the_rest_answer_does_not_wait_for_the_receiver(
    jira: httpx.AsyncClient, sim: Simulator, receiver
) -> None:
    """While the receiver hangs, the edit is answered and its delivery is pending (status None)."""
    await register(jira)
    receiver.gate = asyncio.Event()
    assert (await jira.put("/rest/api/2/issue/AURORA-1533", json=EDIT)).status_code == 204
    assert [d["status"] for d in sim.webhook_deliveries] == [None]
    receiver.gate.set()
    await sim.settle_webhooks()
    assert [d["status"] for d in sim.webhook_deliveries] == [200]


async def test_jql_filter_and_events_choose_what_is_delivered(
    jira: httpx.AsyncClient, sim: Simulator, receiver
) -> None:
    """A webhook hears only its events of issues matching its JQL; link events ignore the JQL, as in Jira."""
    await register(
        jira,
        events=["jira:issue_updated", "issuelink_created"],
        configuration={"FILTERS": 'project = AURORA AND labels = "AWPCA"'},
    )
    await jira.put("/rest/api/2/issue/AURORA-1", json=EDIT)  # STOCKS_DRRK
    await jira.put("/rest/api/2/issue/HR-1", json=EDIT)  # another project
    await jira.post("/rest/api/2/issue/AURORA-1533/comment", json={"body": "видно"})  # issue_commented: heard
    await jira.put("/rest/api/2/issue/AURORA-1537", json=EDIT)
    link = {"type": {"name": "Связанные"}, "inwardIssue": {"key": "HR-1"}, "outwardIssue": {"key": "HR-2"}}
    await jira.post("/rest/api/2/issueLink", json=link)
    await sim.settle_webhooks()
    assert sorted((d["event"], d["key"]) for d in sim.webhook_deliveries) == [
        ("issuelink_created", "HR-1"),
        ("jira:issue_updated", "AURORA-1533"),
        ("jira:issue_updated", "AURORA-1537"),
    ]


async def test_exclude_body_posts_nothing_but_still_signs(jira: httpx.AsyncClient, sim: Simulator, receiver) -> None:
    """EXCLUDE_BODY "true": the POST has an empty body, signed as such."""
    await register(jira, configuration={"EXCLUDE_BODY": "true", "SECRET": "k"})
    await jira.put("/rest/api/2/issue/AURORA-1533", json=EDIT)
    await sim.settle_webhooks()
    [delivery] = receiver.received
    assert delivery.body == b""
    assert delivery.headers["x-hub-signature"] == "sha256=" + hmac.new(b"k", b"", hashlib.sha256).hexdigest()


@pytest.mark.parametrize(("path", "flag"), [(V10, {"active": False}), (LEGACY, {"enabled": False})])
async def test_an_inactive_webhook_hears_nothing(
    jira: httpx.AsyncClient, sim: Simulator, path: str, flag: dict
) -> None:
    """active: false (Jira 10) or enabled: false (Jira ≤ 9): no delivery, nothing noted."""
    body = {"name": "off", "url": "http://agent.bank/jira/webhook", "events": ALL_EVENTS, **flag}
    assert (await jira.post(path, json=body)).status_code == 201
    await jira.put("/rest/api/2/issue/AURORA-1533", json=EDIT)
    assert (sim.store.changes, sim.webhook_deliveries) == ([], [])


async def test_nothing_is_noted_without_webhooks(jira: httpx.AsyncClient, sim: Simulator) -> None:
    """With no webhook registered, changes cost nothing: the store notes none."""
    await jira.put("/rest/api/2/issue/AURORA-1533", json=EDIT)
    await jira.post("/rest/api/2/issue/AURORA-1533/comment", json={"body": "x"})
    assert (sim.store.listening, sim.store.changes) == (False, [])


async def test_drop_fault_drops_the_next_deliveries(jira: httpx.AsyncClient, sim: Simulator, receiver) -> None:
    """drop 1: the first delivery is logged with status 0 and never arrives; the next one does."""
    await register(jira)
    response = await jira.post("/_sim/webhook_faults", json={"drop": 1})
    assert (response.status_code, response.json()) == (201, {"drop": 1, "duplicate": 0, "delay_ms": 0.0})
    await jira.put("/rest/api/2/issue/AURORA-1533", json=EDIT)
    await jira.put("/rest/api/2/issue/AURORA-1537", json=EDIT)
    await sim.settle_webhooks()
    assert [(d["key"], d["status"]) for d in sim.webhook_deliveries] == [("AURORA-1533", 0), ("AURORA-1537", 200)]
    assert [r.json()["issue"]["key"] for r in receiver.received] == ["AURORA-1537"]


async def test_duplicate_fault_sends_the_same_body_twice(jira: httpx.AsyncClient, sim: Simulator, receiver) -> None:
    """duplicate 1: the next delivery arrives twice with the same bytes, the copy marked duplicate."""
    await register(jira)
    sim.set_webhook_faults(duplicate=1)
    await jira.put("/rest/api/2/issue/AURORA-1533", json=EDIT)
    await jira.put("/rest/api/2/issue/AURORA-1537", json=EDIT)
    await sim.settle_webhooks()
    assert [(d["id"], d["key"], d["duplicate"]) for d in sim.webhook_deliveries] == [
        (1, "AURORA-1533", False),
        (2, "AURORA-1533", True),
        (3, "AURORA-1537", False),
    ]
    first, copy = (r.body for r in receiver.received if r.json()["issue"]["key"] == "AURORA-1533")
    assert first == copy


async def test_delay_fault_waits_on_the_injected_clock(
    jira: httpx.AsyncClient, sim: Simulator, receiver, timer: FakeClock
) -> None:
    """delay_ms 1500: each delivery sleeps 1.5 s on the simulator's timer (a fake clock: no real wait)."""
    await register(jira)
    sim.set_webhook_faults(delay_ms=1500)
    await jira.put("/rest/api/2/issue/AURORA-1533", json=EDIT)
    await jira.post("/rest/api/2/issue/AURORA-1533/comment", json={"body": "x"})
    await sim.settle_webhooks()
    assert (timer.sleeps, len(receiver.received)) == ([1.5, 1.5, 1.5], 3)


async def test_webhook_fault_control_api(jira: httpx.AsyncClient, sim: Simulator) -> None:
    """POST replaces the values given, DELETE clears them; a bad value or key is 400; deliveries can be cleared."""
    await jira.post("/_sim/webhook_faults", json={"drop": 2, "delay_ms": 10})
    kept = await jira.post("/_sim/webhook_faults", json={"duplicate": 1})
    assert kept.json() == {"drop": 2, "duplicate": 1, "delay_ms": 10.0}
    bad = await jira.post("/_sim/webhook_faults", json={"drop": -1})
    assert (bad.status_code, bad.json()["errorMessages"]) == (
        400,
        ["webhook fault drop must be a non-negative integer, not -1"],
    )
    unknown = await jira.post("/_sim/webhook_faults", json={"lose": 1})
    assert unknown.json()["errorMessages"] == ["unknown webhook fault keys: lose"]
    assert (await jira.delete("/_sim/webhook_faults")).status_code == 204
    assert sim.controls.webhooks.faults.as_json() == {"drop": 0, "duplicate": 0, "delay_ms": 0.0}
    await register(jira)
    await jira.put("/rest/api/2/issue/AURORA-1533", json=EDIT)
    await sim.settle_webhooks()
    assert len((await jira.get("/_sim/webhook_deliveries")).json()) == 1
    assert (await jira.delete("/_sim/webhook_deliveries")).status_code == 204
    assert (await jira.get("/_sim/webhook_deliveries")).json() == []


async def test_a_failing_receiver_is_logged_not_retried(jira: httpx.AsyncClient, sim: Simulator, receiver) -> None:
    """A 500 from the receiver is logged as 500 and not sent again (Jira delivers at most once)."""
    await register(jira)
    receiver.status = 500
    await jira.put("/rest/api/2/issue/AURORA-1533", json=EDIT)
    await sim.settle_webhooks()
    assert ([d["status"] for d in sim.webhook_deliveries], len(receiver.received)) == ([500], 1)


async def test_an_unreachable_receiver_is_status_0(clock) -> None:
    """Over the network, a receiver that refuses the connection is logged with status 0."""
    sim = Simulator(clock=clock, timer=FakeClock())
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=sim.asgi), base_url="http://jira.test", headers={"Authorization": "Bearer t"}
    ) as jira:
        await register(jira, url="http://127.0.0.1:9/jira/webhook")
        await jira.put("/rest/api/2/issue/AURORA-1533", json=EDIT)
        await sim.settle_webhooks()
    await sim.aclose()
    assert [d["status"] for d in sim.webhook_deliveries] == [0]


async def test_reset_forgets_webhooks_deliveries_and_faults(jira: httpx.AsyncClient, sim: Simulator) -> None:
    """POST /_sim/reset: no webhooks, no deliveries, no webhook faults."""
    await register(jira)
    sim.set_webhook_faults(drop=3)
    await jira.put("/rest/api/2/issue/AURORA-1533", json=EDIT)
    assert (await jira.post("/_sim/reset")).status_code == 204
    assert ((await jira.get(V10)).json(), sim.webhook_deliveries, sim.store.listening) == ([], [], False)
    assert sim.controls.webhooks.faults.as_json() == {"drop": 0, "duplicate": 0, "delay_ms": 0.0}
