"""An approval that means the plan (DESIGN.md 6.5) through the HTTP API: approve by digest, 409 with the plan now,
each delivery's approved lines, the agent's stale_plan report sending the batch back, and approvals that lapse."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support import cmd

from .conftest import Api, Clock
from .support import approve, claim_none, claim_ok, create_ok, done, issue, run_refresh, seed_mirror

pytestmark = pytest.mark.anyio

SUMMARY = cmd("ensure_fields", key="AURORA-1", summary="Сверка v2")


async def held_batch(api: Api, *commands: dict[str, Any]) -> dict[str, Any]:
    """A batch waiting for approval, with AURORA-1 «Сверка» in the mirror."""
    await seed_mirror(api, [issue("AURORA-1", summary="Сверка"), issue("AURORA-2")])
    response = await api.patch("/settings", {"approval": {"http": True}})
    assert response.status_code == 200, response.text
    return await create_ok(api, list(commands or [SUMMARY]))


async def test_a_waiting_batch_keeps_its_plan_and_the_plan_shows_its_digest(api: Api) -> None:
    """The batch waits with {digest, lines, at}; GET /plan answers the same digest beside its lines."""
    held = await held_batch(api)
    plan = held["approval"]["plan"]
    assert plan["lines"] == [{"seq": 1, "key": "AURORA-1", "aspect": "summary", "from": "Сверка", "to": "Сверка v2"}]
    assert plan["at"] == "2026-10-22T09:00:00.000000Z"
    assert len(plan["digest"]) == 64
    assert (await api.get(f"/batches/{held['id']}/plan")).json()["digest"] == plan["digest"]


async def test_approve_without_a_plan_is_refused(api: Api) -> None:
    """No plan → 422 naming where the digest comes from; the batch still waits."""
    held = await held_batch(api)
    for body in ({}, None, []):
        response = await api.post(f"/batches/{held['id']}/approve", body, role="admin")
        assert response.json() == {
            "status_code": 422,
            "detail": "plan — ожидается дайджест одобряемого плана (digest из GET /batches/{id}/plan)",
        }
    assert (await api.get(f"/batches/{held['id']}")).json()["approval"]["state"] == "pending"


async def test_a_plan_that_moved_since_it_was_read_is_refused_with_the_plan_now(api: Api, clock: Clock) -> None:
    """The person reads the plan, the mirror moves (someone renamed AURORA-1), approve → 409 with the new plan;
    approving that one works and records it."""
    held = await held_batch(api)
    read = (await api.get(f"/batches/{held['id']}/plan", role="admin")).json()["digest"]
    await seed_mirror(api, [issue("AURORA-1", summary="Сверка (человек)")])
    clock.advance(minutes=1)
    refused = await api.post(f"/batches/{held['id']}/approve", {"plan": read}, role="admin")
    assert refused.status_code == 409
    body = refused.json()
    assert body["detail"] == "план изменился — посмотрите и одобрите заново"
    assert body["plan"]["lines"] == [
        {"seq": 1, "key": "AURORA-1", "aspect": "summary", "from": "Сверка (человек)", "to": "Сверка v2"}
    ]
    assert body["plan"]["digest"] != read
    await claim_none(api)
    approved = await api.post(f"/batches/{held['id']}/approve", {"plan": body["plan"]["digest"]}, role="admin")
    assert approved.status_code == 200, approved.text
    assert approved.json()["approval"]["plan"] == body["plan"]


async def test_each_delivery_carries_its_commands_approved_lines(api: Api) -> None:
    """context.approved: the lines of that command only, a created temp key replaced by its key; the tail refresh
    (it only reads) carries none."""
    held = await held_batch(
        api,
        cmd("ensure_issue", temp_key="new:1", summary="Новая"),
        cmd("ensure_link", source="new:1", target="AURORA-2", link_type="связанные"),
    )
    assert (await approve(api, held["id"])).status_code == 200
    creation = await claim_ok(api)
    assert creation["context"]["approved"] == [{"key": "new:1", "aspect": "issue", "from": None, "to": "Новая"}]
    await done(api, creation["id"], {"key": "AURORA-9", "created": True})
    link = await claim_ok(api)
    link_line = {"type": "Связанные", "source": "AURORA-9", "target": "AURORA-2"}
    # It named an issue yet to be created when approved: it vouches for what it writes, not for what was there.
    assert link["context"]["approved"] == [{"key": "AURORA-9", "aspect": "link", "to": link_line}]
    await done(api, link["id"], {"existed": False, "link_id": "1", "removed": []})
    assert "approved" not in (await claim_ok(api))["context"]


def stale_report(found: str) -> dict[str, Any]:
    """What an agent that found AURORA-1 renamed to ``found`` reports before writing."""
    now = {"key": "AURORA-1", "aspect": "summary", "from": found, "to": "Сверка v2"}
    approved = {"key": "AURORA-1", "aspect": "summary", "from": "Сверка", "to": "Сверка v2"}
    return {
        "status": "failed",
        "error": "план изменился после одобрения",
        "jira_calls": 1,
        "operations": [],
        "outcome": "stale_plan",
        "difference": [{"now": now, "approved": approved, "text": "agent's words are not kept"}],
    }


async def test_a_stale_plan_sends_the_batch_back_and_the_command_waits_unspent(api: Api, clock: Clock) -> None:
    """stale_plan: the command is queued again (its delivery does not count), the batch waits for a person with a
    fresh plan and the difference in the hub's words, and nothing is issued until someone approves again."""
    held = await held_batch(api, SUMMARY, cmd("ensure_fields", key="AURORA-2", duedate="2026-12-01"))
    assert (await approve(api, held["id"])).status_code == 200
    first = await claim_ok(api)
    await done(api, first["id"], {"changed": ["summary"]})
    second = await claim_ok(api)
    clock.advance(minutes=1)
    body = stale_report("x")
    body["difference"][0]["now"] = {"key": "AURORA-2", "aspect": "duedate", "from": "2026-11-11", "to": "2026-12-01"}
    body["difference"][0]["approved"] = {"key": "AURORA-2", "aspect": "duedate", "from": None, "to": "2026-12-01"}
    ack = await api.report(second["id"], body)
    assert ack.json() == {"accepted": True, "status": "queued"}
    stored = (await api.get(f"/batches/{held['id']}")).json()
    assert [(c["status"], c["deliveries"]) for c in stored["commands"]] == [
        ("done", 1),
        ("queued", 0),
        ("queued", 0),
    ]
    approval = stored["approval"]
    assert (approval["state"], approval["by"], approval["stale"]["at"]) == (
        "pending",
        None,
        "2026-10-22T09:01:00.000000Z",
    )
    assert [d["text"] for d in approval["stale"]["difference"]] == [
        "AURORA-2: duedate изменилась в Jira после одобрения"
    ]
    assert [line["seq"] for line in approval["plan"]["lines"]] == [2]  # the commands still to run
    refresh = await claim_ok(api)  # the hub reads what moved, so that the next plan is Jira's
    assert (refresh["type"], refresh["params"]["keys"]) == ("refresh", ["AURORA-2"])
    await run_refresh(api, refresh, [issue("AURORA-2", duedate="2026-11-11")])
    await claim_none(api)
    plan = (await api.get(f"/batches/{held['id']}/plan")).json()
    assert [c["lines"][0]["text"] for c in plan["commands"][:1]] == ["срок: 11.11 → 01.12"]
    assert (await approve(api, held["id"])).status_code == 200
    again = await claim_ok(api)
    assert (again["id"], again["deliveries"]) == (second["id"], 1)
    assert again["context"]["approved"] == [
        {"key": "AURORA-2", "aspect": "duedate", "from": "2026-11-11", "to": "2026-12-01"}
    ]


async def test_an_approval_lapses_when_nothing_was_delivered_in_time(api: Api, clock: Clock) -> None:
    """approval_ttl_hours: an approved batch none of whose commands was delivered since waits again, with a fresh
    plan; delivered in time, it keeps its approval."""
    await api.patch("/settings", {"approval_ttl_hours": 2})
    held = await held_batch(api)
    assert (await approve(api, held["id"])).status_code == 200
    clock.advance(hours=2)
    await claim_none(api)
    lapsed = (await api.get(f"/batches/{held['id']}")).json()["approval"]
    assert (lapsed["state"], lapsed["expired_at"]) == ("pending", "2026-10-22T11:00:00Z")
    assert (await approve(api, held["id"])).status_code == 200
    clock.advance(hours=1, minutes=59)
    first = await claim_ok(api)
    assert first["id"] == held["commands"][0]["id"]
    await done(api, first["id"], {"changed": ["summary"]})
    clock.advance(hours=5)
    assert (await claim_ok(api))["type"] == "refresh"  # delivered in time: its approval holds
    assert (await api.get(f"/batches/{held['id']}")).json()["approval"]["state"] == "approved"
