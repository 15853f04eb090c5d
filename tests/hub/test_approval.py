"""A person's approval (DESIGN.md 3 and 6): pending batches are never issued, approve takes four eyes, reject
cancels; the plan of a stored batch; the queue as the agent sees it. With approval off nothing changes."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from hub_app.runtime.hub import Hub
from tests.hub.support import FIELDS, PENDING, approve, decision
from tests.support import cmd

from .conftest import Api, Clock
from .support import claim_none, claim_ok, create_ok, done, issue, seed_mirror
from .test_longpoll import _claim_while

pytestmark = pytest.mark.anyio


async def approval_on(api: Api, **doors: bool) -> None:
    response = await api.patch("/settings", {"approval": doors or {"http": True}})
    assert response.status_code == 200, response.text


async def test_approval_is_off_by_default(api: Api) -> None:
    """Defaults: approval.mcp and approval.http off; a batch has approval null and is issued at once."""
    settings = (await api.get("/settings")).json()
    assert settings["approval"] == {"mcp": False, "http": False}
    batch = await create_ok(api, [FIELDS])
    assert batch["approval"] is None
    stored = (await api.get(f"/batches/{batch['id']}")).json()
    assert (stored["door"], stored["approval"]) == ("http", None)
    assert (await claim_ok(api))["id"] == batch["commands"][0]["id"]


async def test_settings_turn_one_door_on_without_touching_the_other(api: Api) -> None:
    """PATCH approval.mcp keeps approval.http; a non-boolean or unknown door is refused with 422."""
    await approval_on(api, http=True)
    await approval_on(api, mcp=True)
    assert (await api.get("/settings")).json()["approval"] == {"mcp": True, "http": True}
    bad = await api.patch("/settings", {"approval": {"http": "yes"}})
    assert bad.json() == {"status_code": 422, "detail": "настройки: approval.http — логическое значение true/false"}
    unknown = await api.patch("/settings", {"approval": {"web": True}})
    assert unknown.json() == {"status_code": 422, "detail": "настройки: approval — объект {mcp?, http?}"}


async def test_pending_batch_is_never_claimed_while_later_ones_are(api: Api) -> None:
    """A pending batch stays queued; a later batch (created after approval is turned off) is issued past it."""
    await approval_on(api)
    held = await create_ok(api, [FIELDS])
    assert decision(held["approval"]) == PENDING
    assert [c["status"] for c in held["commands"]] == ["queued", "queued"]
    await claim_none(api)
    await approval_on(api, http=False)
    later = await create_ok(api, [cmd("ensure_comment", key="AURORA-2", marker="m", body="b")])
    first = await claim_ok(api)
    assert first["id"] == later["commands"][0]["id"]
    await done(api, first["id"], {"comment_id": "1", "action": "created"})
    tail = await claim_ok(api)
    assert tail["id"] == later["commands"][1]["id"]
    await done(api, tail["id"], {"issues": 1, "neighbours": 0})
    await claim_none(api)
    listed = (await api.get("/batches")).json()
    assert [(b["id"], decision(b["approval"])) for b in listed["items"]] == [
        (later["id"], None),
        (held["id"], PENDING),
    ]


async def test_approve_issues_the_batch_in_order(api: Api, clock: Clock) -> None:
    """Approved by another token (by = its name, at = now), the batch takes its place by created_at: after the
    command in flight, its commands in seq order, then the rest of the later batch."""
    await approval_on(api)
    held = await create_ok(api, [FIELDS, cmd("ensure_comment", key="AURORA-1", marker="m", body="b")])
    await approval_on(api, http=False)
    clock.advance(seconds=1)
    later = await create_ok(api, [cmd("ensure_status", key="AURORA-2", target="Готово")])
    in_flight = await claim_ok(api)
    assert in_flight["id"] == later["commands"][0]["id"]
    clock.advance(minutes=5)
    response = await approve(api, held["id"])
    assert response.status_code == 200, response.text
    assert decision(response.json()["approval"]) == {
        "state": "approved",
        "by": "admin-token",
        "at": "2026-10-22T09:05:01Z",
        "reason": None,
    }
    await done(api, in_flight["id"], {"status": "Готово", "transitions": []})
    order = [*[c["id"] for c in held["commands"]], later["commands"][1]["id"]]
    for command_id in order:
        delivery = await claim_ok(api)
        assert delivery["id"] == command_id
        await done(api, command_id, {})
    await claim_none(api)
    assert (await api.get(f"/batches/{held['id']}")).json()["approval"]["state"] == "approved"


async def test_own_batch_cannot_be_approved(api: Api) -> None:
    """The creator's token → 403 «нельзя одобрить свой пакет»; the batch keeps waiting."""
    await approval_on(api)
    held = await create_ok(api, [FIELDS])
    response = await approve(api, held["id"], role="interface")
    assert response.status_code == 403
    assert response.json() == {"status_code": 403, "detail": "нельзя одобрить свой пакет"}
    assert decision((await api.get(f"/batches/{held['id']}")).json()["approval"]) == PENDING
    await claim_none(api)


async def test_reject_cancels_with_the_reason(api: Api, clock: Clock) -> None:
    """Reject → every command cancelled with «пакет отклонён: <reason>»; the creator may withdraw its own batch."""
    await approval_on(api)
    held = await create_ok(api, [FIELDS])
    clock.advance(seconds=30)
    response = await api.post(f"/batches/{held['id']}/reject", {"reason": "не тот срок"})
    assert response.status_code == 200, response.text
    rejected = response.json()
    assert decision(rejected["approval"]) == {
        "state": "rejected",
        "by": "interface-token",
        "at": "2026-10-22T09:00:30Z",
        "reason": "не тот срок",
    }
    assert [(c["status"], c["error"], c["finished_at"]) for c in rejected["commands"]] == [
        ("cancelled", "пакет отклонён: не тот срок", "2026-10-22T09:00:30Z")
    ] * 2
    await claim_none(api)


async def test_not_pending_answers_409(api: Api) -> None:
    """Approve or reject a batch that does not wait (never needed it, approved, rejected) → 409, nothing changes."""
    plain = await create_ok(api, [FIELDS])
    await approval_on(api)
    first = await create_ok(api, [FIELDS])
    second = await create_ok(api, [FIELDS])
    assert (await approve(api, first["id"])).status_code == 200
    assert (await api.post(f"/batches/{second['id']}/reject", {"reason": "нет"})).status_code == 200
    cases = [
        (plain["id"], "одобрение ему не требовалось"),
        (first["id"], "уже одобрен (admin-token)"),
        (second["id"], "уже отклонён (interface-token)"),
    ]
    for batch_id, why in cases:
        detail = f"пакет {batch_id} не ждёт одобрения: {why}"
        assert (await approve(api, batch_id)).json() == {"status_code": 409, "detail": detail}
        rejected = await api.post(f"/batches/{batch_id}/reject", {"reason": "x"})
        assert rejected.json() == {"status_code": 409, "detail": detail}
    assert (await api.get(f"/batches/{first['id']}")).json()["approval"]["state"] == "approved"


async def test_reject_needs_a_reason_and_unknown_batches_are_404(api: Api) -> None:
    """reject without reason → 422; approve, reject and plan of a missing batch → 404."""
    await approval_on(api)
    held = await create_ok(api, [FIELDS])
    missing = await api.post(f"/batches/{held['id']}/reject", {})
    assert missing.json() == {"status_code": 422, "detail": "нет reason; ожидаются reason"}
    missing_batch = await api.post("/batches/999/approve", {"plan": "0" * 64}, role="admin")
    assert missing_batch.json() == {"status_code": 404, "detail": "пакета 999 нет"}
    assert (await api.post("/batches/999/reject", {"reason": "x"})).status_code == 404
    assert (await api.get("/batches/999/plan")).json() == {"status_code": 404, "detail": "пакета 999 нет"}


async def test_refresh_never_waits_and_retry_does(api: Api) -> None:
    """A refresh only reads Jira: never pending. A retry is a new batch through its door: pending."""
    await approval_on(api)
    refresh = await api.post("/refresh", {"keys": ["AURORA-1"]})
    assert refresh.json()["approval"] is None
    held = await create_ok(api, [FIELDS])
    await api.post(f"/batches/{held['id']}/reject", {"reason": "нет"})
    retried = await api.post(f"/commands/{held['commands'][0]['id']}/retry", {})
    assert retried.status_code == 201, retried.text
    assert decision(retried.json()["approval"]) == PENDING


async def test_agent_status_counts_only_what_can_be_issued(api: Api) -> None:
    """queue.depth and its ETA leave pending batches out; awaiting_* count them."""
    await approval_on(api)
    await create_ok(api, [FIELDS, cmd("ensure_comment", key="AURORA-1", marker="m", body="b")])
    await approval_on(api, http=False)
    await create_ok(api, [cmd("ensure_status", key="AURORA-2", target="Готово")])
    status = (await api.get("/agent-status")).json()
    eta = status["queue"].pop("eta_seconds")
    assert status["queue"] == {"depth": 2, "awaiting_approval": 1, "awaiting_commands": 3}
    assert eta == 32


async def test_plan_of_a_stored_batch(api: Api) -> None:
    """The plan: lines per unfinished command from the mirror now; a finished creation's key is substituted."""
    await seed_mirror(api, [issue("AURORA-1", duedate="2026-10-20", labels=["AWPCA"]), issue("AURORA-2")])
    await approval_on(api)
    held = await create_ok(
        api,
        [
            cmd("ensure_issue", temp_key="new:1", summary="Новая"),
            cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23", labels_remove=["AWPCA"]),
            cmd("ensure_link", source="new:1", target="AURORA-2", link_type="связанные"),
            cmd("ensure_fields", key="AURORA-2", summary="Задача AURORA-2"),
        ],
    )
    plan = (await api.get(f"/batches/{held['id']}/plan")).json()
    assert plan["batch_id"] == held["id"]
    assert decision(plan["approval"]) == PENDING
    assert plan["computed_at"] == "2026-10-22T09:00:00Z"
    assert plan["totals"] == {"+": 2, "~": 2, "-": 0}
    assert [
        (c["seq"], c["subject"], [(x["sign"], x["text"], x["unknown"]) for x in c["lines"]]) for c in plan["commands"]
    ] == [
        (1, "new:1 «Новая»", [("+", "задача «Новая» в AURORA: тип «Задача»", True)]),
        (
            2,
            "AURORA-1",
            [("~", "срок: 20.10 → 23.10", False), ("~", "метки: AWPCA → пусто", False)],
        ),
        (3, "new:1 → AURORA-2", [("+", "связь «Связанные» new:1 → AURORA-2", True)]),
        (4, "AURORA-2", [("=", "нет изменений", False)]),
        (5, "new:1, AURORA-1, AURORA-2", [("=", "нет изменений: только чтение Jira в зеркало", False)]),
    ]
    assert plan["commands"][2]["unknown"] == ["ключ задачи new:1 станет известен только после её создания"]
    assert plan["commands"][1]["writes"] == [
        {
            "method": "PUT",
            "path": "/rest/api/2/issue/AURORA-1",
            "json": {"fields": {"duedate": "2026-10-23"}, "update": {"labels": [{"remove": "AWPCA"}]}},
        }
    ]

    assert (await approve(api, held["id"])).status_code == 200
    creation = await claim_ok(api)
    await done(api, creation["id"], {"key": "AURORA-9", "created": True})
    after = (await api.get(f"/batches/{held['id']}/plan")).json()
    assert [c["seq"] for c in after["commands"]] == [2, 3, 4, 5]
    assert after["commands"][1]["subject"] == "AURORA-9 → AURORA-2"
    assert after["commands"][3]["subject"] == "AURORA-9, AURORA-1, AURORA-2"


async def test_plan_says_when_a_dependent_will_be_skipped(api: Api) -> None:
    """A creation cancelled: its dependent is planned as skipped with the seed's message."""
    batch = await create_ok(
        api,
        [
            cmd("ensure_issue", temp_key="new:901", summary="А"),
            cmd("ensure_comment", key="new:901", marker="m", body="b"),
        ],
    )
    await api.post(f"/commands/{batch['commands'][0]['id']}/cancel", {})
    plan = (await api.get(f"/batches/{batch['id']}/plan")).json()
    assert plan["approval"] is None
    assert [(c["seq"], c["lines"]) for c in plan["commands"]] == [
        (2, [{"sign": "!", "text": "пропуск: создание задачи new:901 отменено", "unknown": False}]),
        (3, [{"sign": "!", "text": "пропуск: нет ключей для обновления", "unknown": False}]),
    ]


async def test_answers_are_the_documented_ones(api: Api) -> None:
    """The OpenAPI document tells the truth: plan, approve, reject, the batch and agent-status answer its schemas,
    and it lists the 403 and 409 of approve."""
    doc = (await api.client.get("/schema/openapi.json")).json()

    def check(path: str, method: str, status: int, value: Any) -> None:
        response = doc["paths"][path][method]["responses"][str(status)]
        schema = response["content"]["application/json"]["schema"]
        jsonschema.Draft202012Validator({**schema, "components": doc["components"]}).validate(value)

    await seed_mirror(api, [issue("AURORA-1")])
    await approval_on(api)
    first = await create_ok(api, [FIELDS])
    second = await create_ok(api, [cmd("ensure_issue", temp_key="new:1", summary="Новая")])
    check("/batches/{batch_id}/plan", "get", 200, (await api.get(f"/batches/{first['id']}/plan")).json())
    check("/batches/{batch_id}", "get", 200, (await api.get(f"/batches/{first['id']}")).json())
    check("/batches", "post", 201, first)
    check("/batches/{batch_id}/approve", "post", 200, (await approve(api, first["id"])).json())
    own = await approve(api, second["id"], role="interface")
    check("/batches/{batch_id}/approve", "post", 403, own.json())
    rejected = await api.post(f"/batches/{second['id']}/reject", {"reason": "нет"})
    check("/batches/{batch_id}/reject", "post", 200, rejected.json())
    check(
        "/batches/{batch_id}/reject",
        "post",
        409,
        (await api.post(f"/batches/{second['id']}/reject", {"reason": "x"})).json(),
    )
    check("/agent-status", "get", 200, (await api.get("/agent-status")).json())
    check("/batches", "get", 200, (await api.get("/batches")).json())


async def test_approval_wakes_a_waiting_claim(api: Api, hub: Hub, monkeypatch: pytest.MonkeyPatch) -> None:
    """A claim waiting (wait = 20) while only a pending batch is queued gets its command as soon as it is approved:
    woken, not by a re-poll (none comes within the wait here)."""
    monkeypatch.setattr("hub_app.runtime.longpoll.REPOLL_SECONDS", 3600.0)
    await approval_on(api)
    held = await create_ok(api, [FIELDS])

    async def approve_it() -> None:
        assert (await approve(api, held["id"])).status_code == 200

    response = await _claim_while(api, hub, approve_it)
    assert response.status_code == 200
    assert response.json()["id"] == held["commands"][0]["id"]
