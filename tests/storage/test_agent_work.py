"""What the batch's live figures read of the agent, on SQLite and PostgreSQL: its reported pace kept with its
status, and its recent work (holding a command, its last command's end, its writes of the last hour)."""

from __future__ import annotations

from datetime import timedelta

import attrs
import pytest
from sqlalchemy import update

from adapters.storage.database import Database
from adapters.storage.models import CommandRow, table_of
from adapters.storage.records import AgentStatusRecord
from reconcile.outlook.eta import AgentPace
from tests.support import T0

from .test_drift_reads import batch

pytestmark = pytest.mark.anyio

WRITE = {"method": "POST", "path": "/rest/api/2/issue/A-1/comment", "status": 201}


async def test_the_reported_pace_is_kept_with_the_agents_status(db: Database) -> None:
    """A pace with floors and a budget reads back as written; none reads back as none."""
    pace = AgentPace(min_gap={"*": 12.0, "ensure_issue": 120.0}, max_writes_per_hour=30)
    status = AgentStatusRecord(agent_id="agent-1", last_seen_at=T0, policy=pace)
    async with db.unit() as unit:
        await unit.admin.save_agent_status(status)
    async with db.unit() as unit:
        assert await unit.admin.agent_status() == status
        await unit.admin.save_agent_status(attrs.evolve(status, policy=None))
    async with db.unit() as unit:
        found = await unit.admin.agent_status()
    assert found is not None and found.policy is None


async def test_the_agents_recent_work(db: Database) -> None:
    """A done command with two writes (10 min), a cancelled one never delivered (20 min), a claimed one: the agent
    holds a command, its last command ended at 10 min (the undelivered one is not its work), two writes since 0;
    none since 15 min. Once the claimed one is done at 30 min without writes, it holds none and last ended then."""
    async with db.unit() as unit:
        _, commands = await unit.queue.add_batch(
            batch(*(("ensure_comment", {"key": "A-1", "marker": f"m{n}", "body": "b"}) for n in range(3))),
            token_name=None,
            retry_of=None,
            now=T0,
        )
        table = table_of(CommandRow)
        ten = T0 + timedelta(minutes=10)
        rows = {
            0: {"status": "done", "deliveries": 1, "finished_at": ten, "operations": [WRITE] * 2},
            1: {"status": "cancelled", "deliveries": 0, "finished_at": T0 + timedelta(minutes=20)},
            2: {"status": "claimed", "deliveries": 1, "claimed_at": T0 + timedelta(minutes=25)},
        }
        for index, values in rows.items():
            await unit.session.execute(update(table).where(table.c.id == commands[index].id).values(**values))
    async with db.unit() as unit:
        assert await unit.queue.agent_work(T0) == (True, T0 + timedelta(minutes=10), [T0 + timedelta(minutes=10)] * 2)
        assert await unit.queue.agent_work(T0 + timedelta(minutes=15)) == (True, T0 + timedelta(minutes=10), [])
        done = {"status": "done", "finished_at": T0 + timedelta(minutes=30), "operations": []}
        await unit.session.execute(update(table).where(table.c.id == commands[2].id).values(**done))
    async with db.unit() as unit:
        assert await unit.queue.agent_work(T0 + timedelta(minutes=15)) == (False, T0 + timedelta(minutes=30), [])
