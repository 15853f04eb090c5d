"""``GET /drift`` and ``POST /drift/reapply`` over HTTP, on SQLite and PostgreSQL, with the agent driven by hand."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support import cmd

from .conftest import Api, Clock
from .support import claim_ok, create_ok, decision, done, issue, link, run_refresh, seed_mirror

pytestmark = pytest.mark.anyio

LINKED = link("10007", "Связанные", "AURORA-1", "AURORA-2")


def made_true() -> list[dict[str, Any]]:
    """The mirror as the batch of :func:`run_batch` leaves it."""
    return [
        issue("AURORA-1", labels=["AWPCA"], duedate="2026-10-23", links=[LINKED]),
        issue("AURORA-2", labels=["AWPCA"], status="Готово", links=[LINKED]),
        issue("AURORA-10", labels=["AWPCA"], priority="High"),
    ]


async def run_batch(api: Api) -> dict[str, Any]:
    """Project AWPCA, its issues in the mirror, and a done batch that set a field, a status, a link, a priority."""
    response = await api.post("/projects", {"name": "AWPCA", "board_id": 4216, "board_type": "scrum"}, role="admin")
    assert response.status_code == 201, response.text
    await seed_mirror(api, [issue(key, labels=["AWPCA"]) for key in ("AURORA-1", "AURORA-2", "AURORA-10")])
    batch = await create_ok(
        api,
        [
            cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23"),
            cmd("ensure_status", key="AURORA-2", target=["Разработка", "Готово"]),
            cmd("ensure_link", source="AURORA-1", target="AURORA-2", link_type="связанные"),
            cmd("ensure_fields", key="AURORA-10", priority="High"),
        ],
        project="AWPCA",
    )
    for _ in range(4):
        await done(api, (await claim_ok(api))["id"])
    await run_refresh(api, await claim_ok(api), made_true())
    return batch


async def full_refresh(api: Api, issues: list[dict[str, Any]], history: list[dict[str, Any]]) -> None:
    """A full refresh (``POST /refresh {}``) that reads ``issues`` and the journal ``history``."""
    assert (await api.post("/refresh", {})).status_code == 201
    delivery = await claim_ok(api, jira_user="bridge-user", symmetric_link_types=["Связанные"])
    page = {"page": 2, "kind": "history", "issues": [], "history": history}
    assert (await api.pages(delivery["id"], page)).status_code == 200
    await run_refresh(api, delivery, issues, {"history": {"entries": len(history)}})


def entry(key: str, jira_id: str, created: str, field: str, **values: str | None) -> dict[str, Any]:
    item = {"field": field, "from": None, "from_string": None, "to": None, "to_string": None, **values}
    return {"key": key, "id": jira_id, "created": created, "author": "petrova", "items": [item]}


HAND_EDITS = [
    issue("AURORA-1", labels=["AWPCA"], duedate="2026-11-30"),
    issue("AURORA-2", labels=["AWPCA"], status="Разработка"),
    issue("AURORA-10", labels=["AWPCA"], priority="High"),
]
JOURNAL = [
    entry("AURORA-1", "501", "2026-10-22T09:10:00Z", "duedate", to="2026-11-30"),
    entry("AURORA-2", "502", "2026-10-22T09:11:00Z", "status", to_string="Разработка"),
    entry("AURORA-2", "503", "2026-10-22T09:12:00Z", "Link", **{"from": "AURORA-1"}),
]


async def test_nothing_drifts_while_jira_shows_what_the_batch_made_true(api: Api) -> None:
    """Right after the batch and its tail refresh: no drift, and no full refresh yet."""
    await run_batch(api)
    response = await api.get("/drift", params={"project": "AWPCA"})
    assert response.status_code == 200, response.text
    assert response.json() == {"items": [], "total": 0, "last_full_refresh_at": None}


async def test_hand_edits_drift_with_who_and_when(api: Api, clock: Clock) -> None:
    """A field, a status and a link changed by hand: exactly those three, by petrova, in natural key order."""
    batch = await run_batch(api)
    ids = [c["id"] for c in batch["commands"]]
    started = clock.advance(minutes=30)
    await full_refresh(api, HAND_EDITS, JOURNAL)
    response = await api.get("/drift", params={"project": "AWPCA"})
    assert response.status_code == 200, response.text
    assert response.json() == {
        "items": [
            {
                "command_id": ids[0],
                "batch_id": batch["id"],
                "key": "AURORA-1",
                "type": "ensure_fields",
                "aspect": "duedate",
                "wanted": "2026-10-23",
                "now": "2026-11-30",
                "changed_by": "petrova",
                "changed_at": "2026-10-22T09:10:00Z",
            },
            {
                "command_id": ids[2],
                "batch_id": batch["id"],
                "key": "AURORA-1",
                "type": "ensure_link",
                "aspect": "link",
                "wanted": {"source": "AURORA-1", "target": "AURORA-2", "type": "Связанные"},
                "now": [],
                "changed_by": "petrova",
                "changed_at": "2026-10-22T09:12:00Z",
            },
            {
                "command_id": ids[1],
                "batch_id": batch["id"],
                "key": "AURORA-2",
                "type": "ensure_status",
                "aspect": "status",
                "wanted": "Готово",
                "now": "Разработка",
                "changed_by": "petrova",
                "changed_at": "2026-10-22T09:11:00Z",
            },
        ],
        "total": 3,
        "last_full_refresh_at": started.isoformat().replace("+00:00", "Z"),
    }
    second = (await api.get("/drift", params={"project": "AWPCA", "limit": 1, "offset": 1})).json()
    assert ([i["aspect"] for i in second["items"]], second["total"]) == (["link"], 3)
    assert (await api.get("/drift")).json()["total"] == 3


async def test_reapply_makes_one_batch_of_the_drifted_aspects(api: Api) -> None:
    """The chosen commands come back as one batch (drifted aspects only, tail refresh), validated as new."""
    batch = await run_batch(api)
    ids = [c["id"] for c in batch["commands"]]
    await full_refresh(api, HAND_EDITS, JOURNAL)
    response = await api.post("/drift/reapply", {"command_ids": [ids[2], ids[0], ids[1], ids[0]]})
    assert response.status_code == 201, response.text
    created = response.json()
    assert (created["author"], created["title"], created["project"]) == (
        "interface-token",
        f"возврат расхождений: команды {ids[0]}, {ids[1]}, {ids[2]}",
        "AWPCA",
    )
    assert [(c["type"], c["params"], c["status"]) for c in created["commands"]] == [
        ("ensure_fields", {"key": "AURORA-1", "duedate": "2026-10-23"}, "queued"),
        ("ensure_status", {"key": "AURORA-2", "target": ["Разработка", "Готово"]}, "queued"),
        ("ensure_link", {"source": "AURORA-1", "target": "AURORA-2", "link_type": "связанные"}, "queued"),
        ("refresh", {"keys": ["AURORA-1", "AURORA-2"]}, "queued"),
    ]


async def test_reapply_waits_for_approval_like_any_http_batch(api: Api) -> None:
    """With approval.http on, the batch that puts drift back is pending until a person approves it."""
    batch = await run_batch(api)
    await full_refresh(api, HAND_EDITS, JOURNAL)
    assert (await api.patch("/settings", {"approval": {"http": True}})).status_code == 200
    response = await api.post("/drift/reapply", {"command_ids": [batch["commands"][0]["id"]]})
    assert response.status_code == 201, response.text
    assert decision(response.json()["approval"]) == {"state": "pending", "by": None, "at": None, "reason": None}


async def test_reapply_refusals(api: Api) -> None:
    """Empty or malformed ids → 422; an unknown command → 404; a command without drift → 409; nothing written."""
    batch = await run_batch(api)
    await full_refresh(api, HAND_EDITS, JOURNAL)
    before = (await api.get("/batches")).json()["total"]
    no_drift = batch["commands"][3]["id"]
    cases = [
        ({"command_ids": []}, 422, "command_ids — ожидается непустой список номеров команд"),
        ({"command_ids": ["1"]}, 422, "command_ids[0] — ожидается номер команды"),
        ({"command_ids": [0]}, 422, "command_ids[0] — ожидается номер команды"),
        ({}, 422, "нет command_ids; ожидаются command_ids"),
        ({"command_ids": [99999]}, 404, "команды 99999 нет"),
        (
            {"command_ids": [no_drift]},
            409,
            f"команда {no_drift}: Jira показывает то, что она задала, — возвращать нечего",
        ),
    ]
    for body, status, detail in cases:
        response = await api.post("/drift/reapply", body)
        assert response.json() == {"status_code": status, "detail": detail}, body
    assert (await api.get("/batches")).json()["total"] == before


async def test_drift_of_an_unknown_project_and_roles(api: Api) -> None:
    """An unknown project is 404; no token 401; the agent's token 403; the routes are in the OpenAPI document."""
    assert (await api.get("/drift", params={"project": "NOPE"})).json() == {
        "status_code": 404,
        "detail": "нет проекта NOPE",
    }
    assert (await api.client.get("/drift")).status_code == 401
    assert (await api.get("/drift", role="agent")).status_code == 403
    assert (await api.post("/drift/reapply", {"command_ids": [1]}, role="agent")).status_code == 403
    paths = (await api.client.get("/schema/openapi.json")).json()["paths"]
    assert set(paths["/drift"]["get"]["responses"]) == {"200", "400", "401", "403", "404", "422"}
    assert set(paths["/drift/reapply"]["post"]["responses"]) == {"201", "400", "401", "403", "404", "409", "413", "422"}


async def test_a_batch_waiting_for_its_tail_refresh_is_not_drift(api: Api, clock: Clock) -> None:
    """Done, but the mirror has not read the issue since: the old state there is not drift (nor after the read)."""
    response = await api.post("/projects", {"name": "AWPCA", "board_id": 4216, "board_type": "scrum"}, role="admin")
    assert response.status_code == 201, response.text
    await seed_mirror(api, [issue("AURORA-1", labels=["AWPCA"])])
    await create_ok(api, [cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23")], project="AWPCA")
    clock.advance(minutes=2)
    await done(api, (await claim_ok(api))["id"])
    assert (await api.get("/drift")).json()["total"] == 0
    clock.advance(minutes=2)
    await run_refresh(api, await claim_ok(api), [issue("AURORA-1", labels=["AWPCA"], duedate="2026-10-23")])
    assert (await api.get("/drift")).json()["total"] == 0
    clock.advance(minutes=2)
    await seed_mirror(api, [issue("AURORA-1", labels=["AWPCA"])])
    assert [i["aspect"] for i in (await api.get("/drift")).json()["items"]] == ["duedate"]
