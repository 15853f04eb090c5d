"""Approval follows the token (DESIGN.md 6) over HTTP, on SQLite and PostgreSQL: a ``needs_approval`` token's
batches wait through every door with the doors' switches off, a retry or reapply of a command whose batch waited
waits again whoever asks, a rejected batch cannot come back unapproved, and such a token approves nothing."""

from __future__ import annotations

from typing import Any

import pytest

from tests.hub.support import FIELDS, PENDING, approve, decision

from .conftest import Api
from .support import claim_none, claim_ok, done, issue, run_refresh, seed_mirror

pytestmark = pytest.mark.anyio

ASSISTANT = "assistant"


@pytest.fixture
async def assistant(api: Api) -> Api:
    """``api`` with one more role: an interface token added with needs_approval (an AI assistant's own)."""
    response = await api.post("/tokens", {"name": "claude", "role": "interface", "needs_approval": True}, role="admin")
    assert response.status_code == 201, response.text
    assert (response.json()["name"], response.json()["needs_approval"]) == ("claude", True)
    api.tokens[ASSISTANT] = response.json()["secret"]
    return api


async def new_batch(api: Api, role: str, *commands: dict[str, Any]) -> dict[str, Any]:
    body = {"author": "кто-то", "title": "план", "commands": list(commands or [FIELDS])}
    response = await api.post("/batches", body, role=role)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


async def approval_of(api: Api, batch_id: int) -> Any:
    return decision((await api.get(f"/batches/{batch_id}")).json()["approval"])


async def test_tokens_show_whether_they_need_approval(assistant: Api) -> None:
    """GET /tokens: needs_approval per token; only an interface token may need approval (422 for the others)."""
    listed = (await assistant.get("/tokens", role="admin")).json()["items"]
    assert [(t["name"], t["needs_approval"]) for t in listed] == [
        ("agent-token", False),
        ("interface-token", False),
        ("admin-token", False),
        ("claude", True),
    ]
    for role in ("admin", "agent"):
        refused = await assistant.post(
            "/tokens", {"name": f"x-{role}", "role": role, "needs_approval": True}, role="admin"
        )
        assert refused.json() == {"status_code": 422, "detail": "needs_approval — только для токена роли interface"}
    assert len((await assistant.get("/tokens", role="admin")).json()["items"]) == 4


async def test_every_batch_of_the_token_waits_with_the_doors_off(assistant: Api) -> None:
    """approval.http off: the token's batch is pending and never issued; another person approves, then it runs.
    Its refresh-only batches only read Jira and never wait."""
    held = await new_batch(assistant, ASSISTANT)
    assert decision(held["approval"]) == PENDING
    await claim_none(assistant)
    refresh = await assistant.post("/refresh", {"keys": ["AURORA-1"]}, role=ASSISTANT)
    assert refresh.json()["approval"] is None
    assert (await claim_ok(assistant))["id"] == refresh.json()["commands"][0]["id"]
    approved = await approve(assistant, held["id"], role="interface")
    assert approved.json()["approval"]["by"] == "interface-token"


async def test_a_token_that_needs_approval_approves_nothing(assistant: Api) -> None:
    """403 naming the token, on another's pending batch too; the batch keeps waiting."""
    await assistant.patch("/settings", {"approval": {"http": True}})
    held = await new_batch(assistant, "interface")
    response = await approve(assistant, held["id"], role=ASSISTANT)
    assert response.json() == {
        "status_code": 403,
        "detail": "токен claude сам требует одобрения своих пакетов и одобрять пакеты не может",
    }
    assert await approval_of(assistant, held["id"]) == PENDING
    await claim_none(assistant)


async def test_cancel_then_retry_with_the_same_token_still_waits(assistant: Api) -> None:
    """The issue's attack over HTTP: the token's pending batch cancelled and its command retried with the same
    token, then by a person's token: every retry is pending; nothing is issued until someone approves."""
    held = await new_batch(assistant, ASSISTANT)
    command_id = held["commands"][0]["id"]
    assert (await assistant.post(f"/batches/{held['id']}/cancel", {}, role=ASSISTANT)).status_code == 200
    again = await assistant.post(f"/commands/{command_id}/retry", {}, role=ASSISTANT)
    assert (again.status_code, decision(again.json()["approval"])) == (201, PENDING)
    by_person = await assistant.post(f"/commands/{command_id}/retry", {}, role="interface")
    assert (by_person.status_code, decision(by_person.json()["approval"])) == (201, PENDING)
    await claim_none(assistant)


async def test_a_rejected_batch_cannot_come_back_unapproved(assistant: Api) -> None:
    """Rejected by a person, retried by that person (approval.http off): pending again; it waits for another's yes."""
    held = await new_batch(assistant, ASSISTANT)
    rejected = await assistant.post(f"/batches/{held['id']}/reject", {"reason": "нет"}, role="interface")
    assert rejected.json()["approval"]["state"] == "rejected"
    retried = await assistant.post(f"/commands/{held['commands'][0]['id']}/retry", {}, role="interface")
    assert decision(retried.json()["approval"]) == PENDING
    await claim_none(assistant)
    own = await approve(assistant, retried.json()["id"], role="interface")
    assert own.json() == {"status_code": 403, "detail": "нельзя одобрить свой пакет"}
    assert (await approve(assistant, retried.json()["id"], role="admin")).status_code == 200
    assert (await claim_ok(assistant))["id"] == retried.json()["commands"][0]["id"]


async def test_a_retry_of_a_batch_that_never_waited_does_not_wait(assistant: Api) -> None:
    """Doors off, a person's batch that never waited: its retry by a person is issued at once (as before)."""
    plain = await new_batch(assistant, "interface")
    await assistant.post(f"/batches/{plain['id']}/cancel", {})
    retried = await assistant.post(f"/commands/{plain['commands'][0]['id']}/retry", {})
    assert retried.json()["approval"] is None


async def drifted(api: Api, role: str) -> int:
    """A done ensure_fields by ``role`` (approved by a person when it waited) whose duedate Jira then lost."""
    await seed_mirror(api, [issue("AURORA-1")])
    batch = await new_batch(api, role)
    if batch["approval"] is not None:
        assert (await approve(api, batch["id"], role="admin")).status_code == 200
    await done(api, (await claim_ok(api))["id"])
    await run_refresh(api, await claim_ok(api), [issue("AURORA-1", duedate="2026-10-23")])
    assert (await api.post("/refresh", {"keys": ["AURORA-1"]})).status_code == 201
    await run_refresh(api, await claim_ok(api), [issue("AURORA-1", duedate="2026-11-30")])
    [drift] = (await api.get("/drift")).json()["items"]
    command_id: int = drift["command_id"]
    return command_id


async def test_a_reapply_waits_for_the_token_and_for_a_batch_that_waited(assistant: Api) -> None:
    """POST /drift/reapply: by the token → pending; by a person, of a command whose batch waited → pending."""
    command_id = await drifted(assistant, ASSISTANT)
    for role in (ASSISTANT, "interface"):
        response = await assistant.post("/drift/reapply", {"command_ids": [command_id]}, role=role)
        assert (response.status_code, decision(response.json()["approval"])) == (201, PENDING)
    await claim_none(assistant)


async def test_a_reapply_of_a_person_batch_by_the_token_waits(assistant: Api) -> None:
    """The person's batch never waited; the token's reapply of it does."""
    command_id = await drifted(assistant, "interface")
    response = await assistant.post("/drift/reapply", {"command_ids": [command_id]}, role=ASSISTANT)
    assert decision(response.json()["approval"]) == PENDING
    person = await assistant.post("/drift/reapply", {"command_ids": [command_id]}, role="interface")
    assert person.json()["approval"] is None
