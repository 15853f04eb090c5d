"""``POST /agent/events`` (DESIGN.md 6.2): Jira's webhook events as hints — newer issues into the mirror, the
confirmation by state, one refresh of the hub's for what they cannot bring — and the mirror's freshness shown."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support import BASE_AWPCA, cmd

from .conftest import Api, Clock
from .support import claim_ok, create_ok, done, issue, link, run_refresh, seed_mirror

pytestmark = pytest.mark.anyio

JOURNAL = {"history": {"entries": 0}}


def updated(key: str, at: str, **fields: Any) -> dict[str, Any]:
    """A ``jira:issue_updated`` event carrying the issue as it was at ``at``."""
    return {"event": "jira:issue_updated", "key": key, "at": at, "issue": issue(key, updated=at, **fields)}


async def send(api: Api, *events: dict[str, Any]) -> Any:
    return await api.post("/agent/events", {"events": list(events)}, role="agent")


async def sent(api: Api, *events: dict[str, Any]) -> dict[str, Any]:
    response = await send(api, *events)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


async def summary(api: Api, key: str) -> str:
    response = await api.get(f"/issues/{key}")
    assert response.status_code == 200, response.text
    return str(response.json()["summary"])


async def batches(api: Api) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = (await api.get("/batches")).json()["items"]
    return [(await api.get(f"/batches/{b['id']}")).json() for b in items]


async def marked(api: Api) -> None:
    """AWPCA, and the first automatic refresh done with its journal: a journal mark by the base JQL."""
    assert (await api.post("/projects", {"name": "AWPCA"}, role="admin")).status_code == 201
    await run_refresh(api, await claim_ok(api), [], JOURNAL)


async def test_a_newer_event_is_applied(api: Api) -> None:
    """An event whose issue is newer than the mirror's row replaces it, with 0 Jira calls."""
    await seed_mirror(api, [issue("AURORA-7", summary="было")])
    ack = await sent(api, updated("AURORA-7", "2026-10-22T09:02:00Z", summary="стало"))
    assert ack == {"applied": 1, "duplicate": 0, "stale": 0, "refresh_command_id": None}
    assert await summary(api, "AURORA-7") == "стало"


async def test_an_older_event_leaves_the_row_and_a_repeat_changes_nothing(api: Api) -> None:
    """An event older than the row is stale and written nowhere; the same event twice is a duplicate."""
    await seed_mirror(api, [issue("AURORA-7", summary="свежее", updated="2026-10-22T09:02:00Z")])
    old = updated("AURORA-7", "2026-10-22T09:01:00Z", summary="старое")
    assert (await sent(api, old))["stale"] == 1
    assert await summary(api, "AURORA-7") == "свежее"
    same = updated("AURORA-7", "2026-10-22T09:02:00Z", summary="свежее")
    assert await sent(api, same, same) == {"applied": 0, "duplicate": 2, "stale": 0, "refresh_command_id": None}
    assert await summary(api, "AURORA-7") == "свежее"


async def test_an_event_of_a_new_issue_makes_its_row(api: Api) -> None:
    """An issue the mirror never held gets its row from the event (created by a person in Jira)."""
    ack = await sent(api, {**updated("AURORA-9", "2026-10-22T09:02:00Z"), "event": "jira:issue_created"})
    assert ack["applied"] == 1
    assert await summary(api, "AURORA-9") == "Задача AURORA-9"


async def test_an_event_never_confirms_the_command_in_flight(api: Api) -> None:
    """The event of the agent's own write comes while its command is claimed: it stays claimed for its report."""
    created = await create_ok(api, [cmd("ensure_fields", key="AURORA-7", duedate="2026-10-23")])
    delivery = await claim_ok(api)
    assert delivery["id"] == created["commands"][0]["id"]
    await sent(api, updated("AURORA-7", "2026-10-22T09:02:00Z", duedate="2026-10-23"))
    assert (await api.get(f"/commands/{delivery['id']}")).json()["status"] == "claimed"
    await done(api, delivery["id"], {"changed": ["duedate"]})
    assert (await api.get(f"/commands/{delivery['id']}")).json()["status"] == "done"


async def test_an_event_confirms_the_command_of_an_agent_gone_by_state(api: Api, clock: Clock) -> None:
    """A claimed ``ensure_fields`` of an agent no longer online, whose desired state an event brings, is
    ``confirmed_by_state`` (its report was lost with the agent)."""
    await create_ok(api, [cmd("ensure_fields", key="AURORA-7", duedate="2026-10-23")])
    delivery = await claim_ok(api)
    clock.advance(seconds=60)  # 2 × claim_wait_seconds (25) without a word from the agent
    await sent(api, updated("AURORA-7", "2026-10-22T09:02:00Z", duedate="2026-10-23"))
    assert (await api.get(f"/commands/{delivery['id']}")).json()["status"] == "confirmed_by_state"


async def test_a_deletion_queues_one_refresh_of_the_linked_keys(api: Api) -> None:
    """A deleted issue's mirror neighbours are read by one hub refresh; a second deletion while it is queued adds
    its keys to it; once it was delivered, the next deletion queues another."""
    linked = [link("10001", "Связанные", "AURORA-1", "AURORA-2"), link("10002", "Связанные", "AURORA-3", "AURORA-4")]
    await seed_mirror(api, [issue("AURORA-1", links=linked[:1]), issue("AURORA-3", links=linked[1:])])
    gone = {"event": "jira:issue_deleted", "key": "AURORA-1", "at": "2026-10-22T09:02:00Z"}
    first = await sent(api, gone)
    count = len(await batches(api))
    refresh = (await batches(api))[0]
    assert (refresh["author"], refresh["title"]) == ("hub", "обновление по событиям Jira")
    assert refresh["commands"][0]["params"] == {"keys": ["AURORA-2"]}
    assert first["refresh_command_id"] == refresh["commands"][0]["id"]
    await sent(api, {**gone, "key": "AURORA-3"}, gone)
    again = await batches(api)
    assert len(again) == count and again[0]["id"] == refresh["id"]
    assert again[0]["commands"][0]["params"] == {"keys": ["AURORA-2", "AURORA-4"]}
    delivery = await claim_ok(api)
    assert delivery["params"]["keys"] == ["AURORA-2", "AURORA-4"]
    await sent(api, gone)
    latest = (await batches(api))[0]
    assert latest["id"] != refresh["id"] and latest["commands"][0]["params"] == {"keys": ["AURORA-2"]}


async def test_link_events_queue_one_change_only_refresh(api: Api) -> None:
    """A link event (no key) queues the hub's change-only refresh once a journal mark exists; more link events
    while it is queued queue nothing more."""
    await marked(api)
    before = len(await batches(api))
    link_event = {"event": "issuelink_created", "key": None, "at": "2026-10-22T09:02:00Z"}
    ack = await sent(api, link_event)
    queued = await batches(api)
    assert len(queued) == before + 1
    assert (queued[0]["title"], queued[0]["commands"][0]["params"]) == (
        "автообновление (изменения)",
        {"jql": BASE_AWPCA, "changes": True},
    )
    assert ack["refresh_command_id"] == queued[0]["commands"][0]["id"]
    assert (await sent(api, link_event, {**link_event, "event": None}))["refresh_command_id"] is None
    assert len(await batches(api)) == before + 1


async def test_without_a_journal_mark_a_link_event_queues_nothing(api: Api) -> None:
    """Without a mark there is no ``since`` to read changes from: the automatic full refresh is due anyway."""
    ack = await sent(api, {"event": "issuelink_deleted", "key": None, "at": "2026-10-22T09:02:00Z"})
    assert ack["refresh_command_id"] is None
    assert await batches(api) == []


async def test_a_bad_event_is_422_and_writes_nothing(api: Api) -> None:
    """One event the hub cannot read refuses the request, naming it; the good one before it is not applied."""
    good = updated("AURORA-7", "2026-10-22T09:02:00Z")
    response = await send(api, good, {**good, "at": "вчера"})
    assert response.status_code == 422
    assert response.json()["detail"] == "events[1]: at — ожидается время ISO-8601"
    assert (await api.get("/issues/AURORA-7")).status_code == 404
    mismatch = await send(api, {**good, "key": "AURORA-8"})
    assert mismatch.json()["detail"] == "events[0]: issue.key — не тот ключ, что key"


async def test_only_the_agent_may_send_events(api: Api) -> None:
    """An interface token is refused (403)."""
    response = await api.post("/agent/events", {"events": []}, role="interface")
    assert response.status_code == 403


async def test_freshness_in_agent_status(api: Api, clock: Clock) -> None:
    """``/agent-status`` shows the latest full and change-only refreshes, the last event, and the staleness since
    the later refresh's start."""
    await marked(api)
    status = (await api.get("/agent-status")).json()
    assert status["mirror"] == {
        "last_full_refresh_at": "2026-10-22T09:00:00Z",
        "last_changes_refresh_at": None,
        "last_webhook_event_at": None,
        "staleness_seconds": 0.0,
    }
    clock.advance(minutes=16)
    changes = await claim_ok(api)
    assert changes["params"]["changes"] is True
    await done(api, changes["id"], {"issues": 0, "neighbours": 0, "boards": {}, **JOURNAL, "changes": True})
    clock.advance(seconds=30)
    await sent(api, updated("AURORA-7", "2026-10-22T09:16:20Z"))
    clock.advance(seconds=12)
    status = (await api.get("/agent-status")).json()
    assert status["mirror"] == {
        "last_full_refresh_at": "2026-10-22T09:00:00Z",
        "last_changes_refresh_at": "2026-10-22T09:16:00Z",
        "last_webhook_event_at": "2026-10-22T09:16:30Z",
        "staleness_seconds": 42.0,
    }


async def test_metrics_count_events_and_show_staleness(api: Api, clock: Clock) -> None:
    """``/metrics``: events by outcome (a refused request counts its events) and the mirror's staleness."""
    await marked(api)
    await seed_mirror(api, [issue("AURORA-7", updated="2026-10-22T09:02:00Z")])
    await sent(api, updated("AURORA-7", "2026-10-22T09:03:00Z"), updated("AURORA-7", "2026-10-22T09:00:00Z"))
    await send(api, {"event": "x", "key": None, "at": 5}, {})
    clock.advance(seconds=90)
    text = (await api.get("/metrics")).text
    assert 'sdlc_hub_webhook_events_total{outcome="applied"} 1.0' in text
    assert 'sdlc_hub_webhook_events_total{outcome="stale"} 1.0' in text
    assert 'sdlc_hub_webhook_events_total{outcome="refused"} 2.0' in text
    assert "sdlc_hub_mirror_staleness_seconds 90.0" in text
