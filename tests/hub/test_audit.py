"""The audit through the API (DESIGN.md 6.6): who asked, who approved which plan, what was delivered and written,
settings and tokens — one chain an admin exports (``GET /audit``, JSON lines or CSV) and ``sdlc-hub audit verify``
checks offline; no secret is ever in it."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from hub_app.client_cli.audit_file import verify_file
from hub_app.runtime.hub import Hub
from reconcile.jira.replaced import FieldChange, FieldsUndo
from tests.support import cmd

from .conftest import Api
from .support import approve, claim_ok, create_ok, done, issue, seed_mirror

pytestmark = pytest.mark.anyio


async def exported(api: Api, query: str = "") -> list[dict[str, Any]]:
    response = await api.get(f"/audit{query}", role="admin")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/x-ndjson")
    return [json.loads(line) for line in response.text.splitlines()]


async def a_day_of_work(api: Api) -> dict[str, Any]:
    """Settings changed, a token added, a batch waiting, approved, delivered, written, reported."""
    await seed_mirror(api, [issue("AURORA-1", summary="Сверка")])
    await api.patch("/settings", {"approval": {"http": True}})
    await api.post("/tokens", {"name": "claude", "role": "interface", "needs_approval": True}, role="admin")
    held = await create_ok(api, [cmd("ensure_fields", key="AURORA-1", summary="Сверка v2")])
    assert (await approve(api, held["id"])).status_code == 200
    delivery = await claim_ok(api)
    operations = [{"method": "PUT", "path": "/rest/api/2/issue/AURORA-1", "status": 204}]
    replaced = FieldsUndo(changed={"summary": FieldChange(before="Сверка", after="Сверка v2")})  # as the agent
    await done(api, delivery["id"], {"changed": ["summary"], "undo": replaced.to_json()}, operations=operations)
    return held


async def test_every_event_is_one_record_of_one_chain(api: Api, tmp_path: Path) -> None:
    """The events of a day in order, each with its actor and door; a Jira write with its method, path, status, key,
    before and after; the export verifies."""
    held = await a_day_of_work(api)
    records = await exported(api)
    agent, person, admin = ("agent:agent-1", "agent"), ("interface-token", "http"), ("admin-token", "http")
    assert [(r["kind"], r["actor"], r["door"]) for r in records] == [
        *[("token_added", "hub", "hub")] * 3,  # the fixture's tokens, added by the hub itself
        ("batch_created", *person),  # the refresh that filled the mirror
        ("delivered", *agent),
        ("reported", *agent),
        ("settings_changed", *admin),
        ("token_added", *admin),
        ("batch_created", *person),
        ("plan_approved", *admin),
        ("delivered", *agent),
        ("reported", *agent),
        ("jira_write", *agent),
    ]
    by_kind = {r["kind"]: r for r in records}
    assert by_kind["plan_approved"]["batch_id"] == held["id"]
    assert by_kind["plan_approved"]["data"]["digest"] == held["approval"]["plan"]["digest"]
    assert by_kind["jira_write"]["data"] == {
        "method": "PUT",
        "path": "/rest/api/2/issue/AURORA-1",
        "status": 204,
        "key": "AURORA-1",
        "before": {"summary": "Сверка"},
        "after": {"summary": "Сверка v2"},
    }
    assert by_kind["settings_changed"]["data"] == {
        "before": {"approval": {"mcp": False, "http": False}},
        "after": {"approval": {"mcp": False, "http": True}},
    }
    assert [r["seq"] for r in records] == list(range(1, len(records) + 1))
    export = tmp_path / "audit.jsonl"
    export.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    out = io.StringIO()
    assert verify_file(export, out=out) == 0
    assert out.getvalue() == f"{len(records)} записей, голова {records[-1]['hash']}\n"


async def test_verify_names_an_edited_a_removed_and_a_moved_record(api: Api, tmp_path: Path) -> None:
    """An export edited by hand (a record's data), cut (a record removed) or shuffled: exit 1 naming the seq."""
    await a_day_of_work(api)
    lines = (await api.get("/audit", role="admin")).text.splitlines()
    edited = [*lines]
    record = json.loads(edited[3])
    record["actor"] = "someone-else"
    edited[3] = json.dumps(record, ensure_ascii=False)
    cases = {
        "edited": (edited, "запись seq 4: хеш не сходится — запись изменена"),
        "removed": ([*lines[:2], *lines[3:]], "запись seq 3: не на своём месте — после seq 2 идёт seq 4"),
        "moved": (
            [lines[0], lines[2], lines[1], *lines[3:]],
            "запись seq 2: не на своём месте — после seq 1 идёт seq 3",
        ),
    }
    for name, (changed, words) in cases.items():
        path = tmp_path / f"{name}.jsonl"
        path.write_text("\n".join(changed) + "\n", encoding="utf-8")
        out = io.StringIO()
        assert verify_file(path, out=out) == 1, name
        assert out.getvalue().startswith(words), out.getvalue()


async def test_filters_csv_and_who_may_read(api: Api, tmp_path: Path) -> None:
    """Filters by kind, actor and batch; the cursor pages; CSV verifies too; only an admin reads the audit, and a
    bad filter is a 422."""
    held = await a_day_of_work(api)
    assert {r["kind"] for r in await exported(api, "?kind=jira_write")} == {"jira_write"}
    assert {r["actor"] for r in await exported(api, "?actor=admin-token")} == {"admin-token"}
    assert {r["batch_id"] for r in await exported(api, f"?batch={held['id']}")} == {held["id"]}
    everything = await exported(api)
    assert [r["seq"] for r in await exported(api, "?cursor=3")] == [r["seq"] for r in everything[3:]]
    csv_text = (await api.get("/audit?format=csv", role="admin")).text
    assert csv_text.splitlines()[0] == "seq,at,kind,actor,door,batch_id,command_id,data,prev,hash"
    path = tmp_path / "audit.csv"
    path.write_text(csv_text, encoding="utf-8")
    assert verify_file(path, out=io.StringIO()) == 0
    assert (await api.get("/audit")).status_code == 403
    bad = await api.get("/audit?kind=nonsense", role="admin")
    assert (bad.status_code, bad.json()["detail"].startswith("kind — ожидается одно из batch_created")) == (422, True)
    assert (await api.get("/audit?since=вчера", role="admin")).status_code == 422


async def test_no_secret_is_ever_recorded(api: Api, hub: Hub) -> None:
    """Tokens' secrets (the API's, a new one's), passwords and webhook secrets never appear in any record."""
    await a_day_of_work(api)
    created = await api.post("/tokens", {"name": "bank-agent", "role": "agent"}, role="admin")
    secrets = [*api.tokens.values(), created.json()["secret"]]
    assert (await api.delete("/tokens/bank-agent")).status_code == 200
    text = (await api.get("/audit", role="admin")).text
    assert "bank-agent" in text
    for secret in secrets:
        assert secret not in text
    async with hub.unit() as unit:
        assert await unit.db.audit.count() == len(text.splitlines())


async def test_the_document_says_the_export_is_json_lines_or_csv(api: Api) -> None:
    """The OpenAPI document gives ``GET /audit``'s 200 the media types it really streams, not JSON."""
    document = (await api.client.get("/schema/openapi.json")).json()
    ok = document["paths"]["/audit"]["get"]["responses"]["200"]
    assert set(ok["content"]) == {"application/x-ndjson", "text/csv"}


async def test_an_id_or_cursor_no_column_could_hold_finds_nothing(api: Api) -> None:
    """A batch id or a cursor past what the database's columns hold (the fuzzer's ``batch=-3608006899``) finds no
    record, on PostgreSQL too, instead of breaking the stream; a cursor below the first record reads them all."""
    await api.patch("/settings", {"approval": {"http": True}})
    everything = await exported(api)
    assert everything
    for query in ("?batch=-3608006899", "?batch=0", f"?batch={2**31}", f"?cursor={2**63 - 1}", f"?cursor={10**30}"):
        assert await exported(api, query) == [], query
    for query in ("?cursor=-1", f"?cursor={-(2**63) - 1}", f"?cursor=-{10**30}"):
        assert await exported(api, query) == everything, query
