"""Undo end to end (DESIGN.md 6.4): the real hub in process, the real agent, the simulator.

A batch of every writing type changes Jira; a person then changes one field it set; the undo's plan names that
change and keeps it; the undo batch takes everything else back to what it was, writes nothing else, and the two
batches name each other.
"""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from . import test_drift_with_hub
from .test_drift_with_hub import Rig

rig = test_drift_with_hub.rig  # the drift rig: hub, agent, simulator and a person with her own Jira login

pytestmark = pytest.mark.anyio

KEY = "AURORA-1538"
OTHER = "AURORA-1542"
CONTENT = b"undo end to end" * 10
SHA = hashlib.sha256(CONTENT).hexdigest()


def _aspects(sim: Any, key: str) -> dict[str, Any]:
    """What a batch of ours can change on an issue, as the simulator keeps it."""
    raw = sim.raw_issue(key)
    return {
        "summary": raw["summary"],
        "duedate": raw["duedate"],
        "labels": sorted(raw["labels"]),
        "status": raw["status"],
        "sprints": raw["sprints"],
        "links": sorted((link["inward"], link["outward"]) for link in raw["links"]),
        "comments": [c["body"] for c in raw["comments"]],
        "attachments": [a["filename"] for a in raw["attachments"]],
    }


def _batch() -> dict[str, Any]:
    return {
        "author": "planner",
        "title": "неудачный план",
        "commands": [
            {
                "type": "ensure_fields",
                "params": {"key": KEY, "summary": "Выгрузка (новая)", "duedate": "2026-12-15", "labels_add": ["x1"]},
            },
            {"type": "ensure_status", "params": {"key": KEY, "target": "Разработка"}},
            {"type": "ensure_sprint", "params": {"key": KEY, "sprint": "Спринт 3"}},
            {"type": "ensure_link", "params": {"source": OTHER, "target": KEY, "link_type": "связанные"}},
            {"type": "ensure_comment", "params": {"key": KEY, "marker": "[план]", "body": "сдвиг сроков"}},
            {"type": "ensure_attachment", "params": {"key": KEY, "file": SHA, "filename": "план.txt"}},
        ],
    }


async def test_undo_takes_back_every_write_but_keeps_what_a_person_changed(rig: Rig) -> None:
    """Every aspect the batch changed is back after the undo, except the due date a person changed since, which
    the plan names with its author; the undo batch names its original and back; a second undo is refused (409)
    naming the first, its plan takes nothing back."""
    agent = rig.agent()
    await rig.full_refresh(agent)
    uploaded = await rig.interface.post("/files", params={"filename": "план.txt"}, content=CONTENT)
    assert uploaded.status_code == 201, uploaded.text
    before = {key: _aspects(rig.sim, key) for key in (KEY, OTHER)}
    batch = await rig.batch(_batch())
    done = await rig.drain(agent, batch["id"])
    assert [c["status"] for c in done["commands"]] == ["done"] * 7
    response = await rig.petrova.put(f"/rest/api/2/issue/{KEY}", json={"fields": {"duedate": "2027-01-31"}})
    assert response.status_code == 204, response.text
    await rig.full_refresh(agent)

    planned = await rig.interface.post(f"/batches/{batch['id']}/undo", params={"dry_run": "true"})
    assert planned.status_code == 200, planned.text
    plan = planned.json()
    assert plan["title"] == f"Откат пакета {batch['id']}: неудачный план"
    assert [(k["key"], k["aspect"], k["changed_by"]) for k in plan["kept"]] == [(KEY, "duedate", "petrova")]
    assert plan["kept"][0]["text"].startswith(f"{KEY}: срок изменил petrova ")
    assert plan["kept"][0]["text"].endswith(" — не возвращается")
    assert [i["type"] for i in plan["items"]] == [c["type"] for c in _batch()["commands"]][::-1]

    created = await rig.interface.post(f"/batches/{batch['id']}/undo")
    assert created.status_code == 201, created.text
    undo = created.json()["batch"]
    assert undo["undo_of"] == batch["id"]
    assert (await rig.get(f"/batches/{batch['id']}"))["undone_by"] == [undo["id"]]
    rig.sim.clear_calls()
    final = await rig.drain(agent, undo["id"])
    assert {c["status"] for c in final["commands"]} == {"done"}
    after = {key: _aspects(rig.sim, key) for key in (KEY, OTHER)}
    assert after[OTHER] == before[OTHER]
    assert {**after[KEY], "duedate": None} == {**before[KEY], "duedate": None}
    assert after[KEY]["duedate"] == "2027-01-31"
    again = await rig.interface.post(f"/batches/{batch['id']}/undo", params={"dry_run": "true"})
    assert again.status_code == 200
    assert (again.json()["plan"], {i["text"] for i in again.json()["items"]}) == (
        None,
        {f"откат уже в пакете {undo['id']}"},
    )
    twice = await rig.interface.post(f"/batches/{batch['id']}/undo")
    assert (twice.status_code, twice.json()["detail"]) == (
        409,
        f"у пакета {batch['id']} уже есть откат — пакет {undo['id']}; неудавшиеся команды отката повторяйте в нём",
    )


async def test_an_undo_of_a_batch_still_running_is_refused(rig: Rig) -> None:
    """A batch with a command not yet done is not undone: 409, nothing created."""
    batch = await rig.batch({"author": "a", "title": "t", "commands": [_batch()["commands"][0]]})
    response = await rig.interface.post(f"/batches/{batch['id']}/undo")
    assert (response.status_code, response.json()["detail"]) == (
        409,
        f"пакет {batch['id']} ещё выполняется — дождитесь его или отмените, затем откатывайте",
    )
