"""Laws of the queue under random sequences of batch creations, claims, reports and cancels."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from adapters.storage.engine import truncate_all
from adapters.storage.models import BatchRow, CommandRow
from hub_app.bodies.admin import TokenIn
from hub_app.operations import admin
from hub_app.runtime.hub import Hub
from tests.support import cmd

from .conftest import Api, Clock

pytestmark = pytest.mark.anyio

OPS = st.lists(
    st.one_of(
        st.tuples(st.just("create"), st.integers(1, 3), st.booleans()),
        st.tuples(st.just("claim"), st.just(0), st.just(False)),
        st.tuples(st.just("report"), st.sampled_from([0, 1]), st.booleans()),
        st.tuples(st.just("cancel"), st.integers(0, 5), st.booleans()),
    ),
    min_size=1,
    max_size=14,
)


async def _commands(hub: Hub) -> list[CommandRow]:
    async with hub.unit() as unit:
        query = (
            select(CommandRow)
            .join(BatchRow, BatchRow.id == CommandRow.batch_id)
            .order_by(BatchRow.created_at, BatchRow.id, CommandRow.seq)
        )
        return list((await unit.db.session.scalars(query)).all())


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=OPS)
async def test_one_in_flight_and_queue_order(api: Api, hub: Hub, clock: Clock, ops: list[Any]) -> None:
    """Whatever happens: at most one command claimed, each command first delivered once and in queue order,
    and a delivered command is never one that had already finished."""
    await truncate_all(hub.database.engine)
    await _tokens_again(api, hub)
    batches: list[int] = []
    first_deliveries: list[int] = []
    last: dict[str, Any] | None = None
    n = 0
    for op, arg, flag in ops:
        clock.advance(seconds=1)
        if op == "create":
            commands = []
            if flag:
                n += 1
                commands.append(cmd("ensure_issue", temp_key="new:1", summary=f"З{n}"))
                commands.append(cmd("ensure_comment", key="new:1", marker="m", body="b"))
            for _ in range(arg):
                n += 1
                commands.append(cmd("ensure_fields", key=f"AURORA-{n}", duedate="2026-10-23"))
            response = await api.post("/batches", {"author": "a", "title": "t", "commands": commands})
            assert response.status_code == 201
            batches.append(response.json()["id"])
        elif op == "claim":
            before = {c.id: c.status for c in await _commands(hub)}
            response = await api.claim()
            assert response.status_code in (200, 204)
            if response.status_code == 200:
                last = response.json()
                assert before[last["id"]] in ("queued", "claimed")
                if last["deliveries"] == 1:
                    first_deliveries.append(last["id"])
        elif op == "report" and last is not None:
            status = "done" if arg == 0 else "failed"
            result = {"key": f"AURORA-{9000 + last['id']}"} if last["type"] == "ensure_issue" else {}
            response = await api.report(last["id"], {"status": status, "result": result})
            assert response.status_code == 200
        elif op == "cancel" and batches:
            batch_id = batches[arg % len(batches)]
            response = await api.post(f"/batches/{batch_id}/cancel", {"force": flag})
            assert response.status_code == 200
        rows = await _commands(hub)
        assert sum(1 for c in rows if c.status == "claimed") <= 1
    order = [c.id for c in await _commands(hub)]
    assert len(first_deliveries) == len(set(first_deliveries))
    assert first_deliveries == sorted(first_deliveries, key=order.index)


async def _tokens_again(api: Api, hub: Hub) -> None:
    async with hub.unit() as unit:
        for role in ("agent", "interface", "admin"):
            created = await admin.add_token(unit, TokenIn(name=f"{role}-token", role=role))
            api.tokens[role] = created.secret
