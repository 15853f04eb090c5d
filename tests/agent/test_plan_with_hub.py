"""A batch's plan against what the agent then writes: the real hub in-process (SQLite), the simulator, a
person's approval in between; the plan's writes are the simulator's, up to what the plan marks unknown."""

from __future__ import annotations

import hashlib
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from hub_app.app import create_app
from hub_app.bodies.admin import ProjectIn, TokenIn
from hub_app.operations import admin
from hub_app.runtime.hub import open_hub
from tests.hub.support import decision
from tests.support import cmd

from .test_with_hub import HubRig

pytestmark = pytest.mark.anyio

MIRRORED = ["AURORA-1533", "AURORA-1537", "AURORA-1538", "AURORA-1540", "AURORA-1541"]
CONTENT = b"report bytes"
SHA = hashlib.sha256(CONTENT).hexdigest()


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[tuple[HubRig, str]]:
    """The hub with approval required at the HTTP door, the project AWPCA on board 4216, and a second person."""
    hub = await open_hub(data_dir=tmp_path / "hub")
    tokens = {}
    async with hub.unit() as unit:
        for role in ("agent", "interface", "admin"):
            tokens[role] = (await admin.add_token(unit, TokenIn(name=f"t-{role}", role=role))).secret
        await admin.create_project(unit, ProjectIn(name="AWPCA", board_id=4216))
        await admin.patch_settings(unit, {"approval": {"http": True}})
    result = HubRig(tmp_path, create_app(hub), tokens)
    yield result, tokens["admin"]
    await result.close()
    await hub.close()


BATCH = {
    "author": "планировщик",
    "title": "всё сразу",
    "commands": [
        cmd("ensure_issue", temp_key="new:1", summary="План: сверка ОСВ", labels=["AWPCA"]),
        cmd("ensure_fields", key="AURORA-1533", duedate="2026-11-01", labels_add=["plan"]),
        cmd("ensure_comment", key="new:1", marker="[план]", body="Согласовано"),
        cmd("ensure_status", key="AURORA-1538", target=["Разработка", "Тестирование"]),
        cmd("ensure_link", source="AURORA-1537", target="AURORA-1538", link_type="связанные", replace=True),
        cmd("ensure_sprint", key="AURORA-1538", sprint="Спринт 3"),
        cmd("ensure_attachment", key="AURORA-1540", file=SHA, filename="ОСВ.xlsx"),
        cmd("ensure_fields", key="AURORA-1541", summary="Справочник счетов"),
    ],
}

_SPRINT = re.compile(r"/sprint/\d+/")


def _comparable(method: str, path: str, created: dict[str, str]) -> tuple[str, str]:
    """A write with the temp keys the plan could not know replaced by the created keys, and the sprint id (only
    the agent resolves it on the board) left out."""
    for temp_key, key in created.items():
        path = path.replace(f"/{temp_key}/", f"/{key}/")
    return method, _SPRINT.sub("/sprint/…/", path)


async def test_plan_is_what_the_agent_writes_after_approval(rig: tuple[HubRig, str]) -> None:
    """Pending: nothing is written; the plan's writes, in order, are the simulator's writes after approval."""
    hub, approver = rig
    response = await hub.interface.post("/files", params={"filename": "ОСВ.xlsx"}, content=CONTENT)
    assert response.status_code == 201, response.text
    agent = hub.agent()
    loaded = (await hub.interface.post("/refresh", json={"keys": MIRRORED})).json()
    assert loaded["approval"] is None  # a refresh only reads Jira: it never waits
    await hub.drain(agent, loaded["id"])

    batch = await hub.batch(BATCH)
    assert decision(batch["approval"]) == {"state": "pending", "by": None, "at": None, "reason": None}
    ctx = await agent.context()
    for _ in range(3):  # the auto refresh may come, the batch never does
        await agent.step(ctx)
    assert hub.jira_writes() == []
    assert {c["status"] for c in (await hub.get(f"/batches/{batch['id']}"))["commands"]} == {"queued"}

    plan = await hub.get(f"/batches/{batch['id']}/plan")
    assert [(c["seq"], c["status"]) for c in plan["commands"]] == [(n, "queued") for n in range(1, 10)]
    assert plan["totals"] == {"+": 4, "~": 4, "-": 1}
    lines = {c["seq"]: [(x["sign"], x["text"], x["unknown"]) for x in c["lines"]] for c in plan["commands"]}
    assert lines[2] == [
        ("~", "срок: 23.10 → 01.11", False),
        ("~", "метки: AWPCA → AWPCA, plan", False),
    ]
    assert lines[4] == [("~", "статус: «Ожидание разработки» → «Разработка» → «Тестирование»", True)]
    assert lines[5][0][0] == "-" and lines[5][0][1].startswith("связь «Блокирует начало» AURORA-1537 → AURORA-1538")
    assert lines[5][1] == ("+", "связь «Связанные» AURORA-1537 → AURORA-1538", False)
    assert lines[6] == [("~", "спринт: бэклог → «Спринт 3»", True)]
    assert lines[8] == [("=", "нет изменений", False)]
    assert lines[9] == [("=", "нет изменений: только чтение Jira в зеркало", False)]
    planned = [(w["method"], w["path"]) for c in plan["commands"] for w in c["writes"]]

    approved = await hub.interface.post(
        f"/batches/{batch['id']}/approve",
        json={"plan": plan["digest"]},
        headers={"Authorization": f"Bearer {approver}"},
    )
    assert approved.status_code == 200, approved.text
    hub.sim.clear_calls()
    final = await hub.drain(agent, batch["id"])
    assert {c["status"] for c in final["commands"]} == {"done"}
    created = {"new:1": final["commands"][0]["result"]["key"]}
    written = [
        (c["method"], c["path"]) for c in hub.sim.calls if c["method"] != "GET" and not c["path"].endswith("/search")
    ]
    assert [_comparable(m, p, created) for m, p in planned] == [_comparable(m, p, created) for m, p in written]
    assert len(written) == 9
    assert final["approval"]["stale"] is None  # every write was among the approved lines
