"""The law of undo (DESIGN.md 6.4), on generated batches through the real path: the hub in process, the real agent
with a fake clock, the simulator.

A generated batch of every writing type runs; a generated person (petrova, with her own Jira login, through
Jira's REST API) may then change some of the aspects it set; after a full refresh the undo is planned and created
through HTTP and run. Jira then equals its state before the batch on every aspect of every issue the batch
touched, except the aspects the person changed, which keep her values and are named in the plan's ``kept``; an
issue the batch created is left (``undo.created_issue`` mode leave) as it was created. A second undo of the
batch is refused, naming the first: nothing is written twice.

The simulator's workflow here has a way back for every transition (:func:`reversible_sample`): the undo takes a
status back along the reverse of its path, and in the sample's workflow a missing transition back fails — the
seed's behaviour, pinned in tests/executors/test_executor_status.py; a status command that failed half-way is
taken back as far as it went (tests/reconcile/test_undo_plan.py).
"""

from __future__ import annotations

import copy
import hashlib
import tempfile
from pathlib import Path
from typing import Any

import anyio
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from jira_sim import Simulator
from jira_sim.seed import load_sample

from .test_drift_with_hub import Rig, open_rig

KEYS = ["AURORA-1445", "AURORA-1446", "AURORA-1533", "AURORA-1537", "AURORA-1538", "AURORA-1542"]
STATUSES = ["Ожидание разработки", "Разработка", "Тестирование", "Готово"]
SPRINTS = {"Спринт 2": 7, "Спринт 3": 8}
#: The fields a person edits here, with the Jira field that holds each.
PERSON_FIELDS = {"summary": "summary", "duedate": "duedate", "planned_end": "customfield_11201"}
NEW = "new:1"

words = st.text(alphabet=st.sampled_from(list("абвгд eёжABC xyz019:,.[]")), min_size=1, max_size=12).filter(
    lambda s: s.strip() != ""
)
multiline = st.lists(words, min_size=1, max_size=3).map("\n".join)
dates = st.integers(min_value=1, max_value=28).map(lambda day: f"2026-11-{day:02d}")


def reversible_sample() -> dict[str, Any]:
    """The simulator's sample with a way back for every transition: Тестирование → Разработка, Готово →
    Тестирование, and from Ожидание разработки (where «Вернуть в ожидание» leads from anywhere) to each status."""
    seed = copy.deepcopy(load_sample())
    back = {"Разработка": ["Тестирование"], "Тестирование": ["Готово", STATUSES[0]], "Готово": [STATUSES[0]]}
    for transition in seed["transitions"]:
        transition["from"] = [*transition["from"], *back.get(transition["to"], [])]
    return seed


def fields_params(key: str) -> st.SearchStrategy[dict[str, Any]]:
    optional: dict[str, st.SearchStrategy[Any]] = {
        "summary": words,
        "description": st.one_of(st.none(), multiline),
        "priority": st.sampled_from(["High", "Low", "Medium"]),
        "duedate": st.one_of(st.none(), dates),
        "planned_start": st.one_of(st.none(), dates),
        "planned_end": st.one_of(st.none(), dates),
        "assignee": st.one_of(st.none(), st.sampled_from(["ivanov", "petrova"])),
        "labels_add": st.lists(st.sampled_from(["x1", "x2"]), min_size=1, max_size=2, unique=True),
        "labels_remove": st.lists(st.sampled_from(["kind-dev", "x3"]), min_size=1, max_size=2, unique=True),
    }
    names = st.sets(st.sampled_from(sorted(optional)), min_size=1, max_size=4)
    return names.flatmap(lambda chosen: st.fixed_dictionaries({"key": st.just(key)} | {n: optional[n] for n in chosen}))


@st.composite
def command(draw: st.DrawFn, keys: list[str], sha: str) -> dict[str, Any]:
    """One command of every writing type but ``ensure_issue``, on one of ``keys``."""
    key = draw(st.sampled_from(keys))
    kind = draw(st.sampled_from(["fields", "status", "sprint", "link", "comment", "attachment"]))
    if kind == "fields":
        return {"type": "ensure_fields", "params": draw(fields_params(key))}
    if kind == "status":
        # «Отложено» is no status of the workflow: a path through it fails there, after the steps before it.
        path = draw(st.lists(st.sampled_from([*STATUSES, "Отложено"]), min_size=1, max_size=3, unique=True))
        return {"type": "ensure_status", "params": {"key": key, "target": path if len(path) > 1 else path[0]}}
    if kind == "sprint":
        return {"type": "ensure_sprint", "params": {"key": key, "sprint": draw(st.sampled_from([*SPRINTS, None]))}}
    if kind == "link":
        source, target = draw(st.lists(st.sampled_from(KEYS), min_size=2, max_size=2, unique=True))
        link_type, replace = draw(st.sampled_from(["связанные", "блокирует начало"])), draw(st.booleans())
        return {
            "type": "ensure_link",
            "params": {"source": source, "target": target, "link_type": link_type, "replace": replace},
        }
    if kind == "comment":
        marker = draw(st.sampled_from(["[план]", "[m]"]))
        return {"type": "ensure_comment", "params": {"key": key, "marker": marker, "body": draw(multiline)}}
    filename = draw(st.sampled_from(["a.txt", "план.txt"]))
    return {"type": "ensure_attachment", "params": {"key": key, "file": sha, "filename": filename}}


@st.composite
def batches(draw: st.DrawFn, sha: str) -> dict[str, Any]:
    """A batch of one to six commands; perhaps an issue created first that some of them then change."""
    creates = draw(st.booleans())
    keys = [*KEYS, NEW] if creates else KEYS
    commands = draw(st.lists(command(keys, sha), min_size=1, max_size=6))
    if creates:
        summary = f"Новая задача {draw(words)}"
        params = {"temp_key": NEW, "summary": summary, "labels": ["AWPCA"], "duedate": "2026-11-30"}
        commands = [{"type": "ensure_issue", "params": params}, *commands]
    return {"author": "planner", "title": "сгенерированный пакет", "commands": commands}


def aspects(sim: Simulator, key: str) -> dict[str, Any]:
    """Everything a batch of ours can change on an issue, as the simulator keeps it, by the names the undo's plan
    gives them."""
    raw = sim.raw_issue(key)
    custom = raw["custom"]
    return {
        "summary": raw["summary"],
        "description": raw["description"],
        "priority": raw["priority"],
        "duedate": raw["duedate"],
        "planned_start": custom.get("customfield_11200"),
        "planned_end": custom.get("customfield_11201"),
        "assignee": raw["assignee"],
        "epic": raw["epic"],
        "labels": sorted(raw["labels"]),
        "status": raw["status"],
        "sprint": [s["name"] for s in raw["sprints"]],
        "links": sorted((link["type"], link["inward"], link["outward"]) for link in raw["links"]),
        "comments": [(c["author"], c["body"]) for c in raw["comments"]],
        "attachments": sorted((a["filename"], a["size"], a["author"]) for a in raw["attachments"]),
    }


def changed_aspects(commands: list[dict[str, Any]]) -> set[tuple[str, str]]:
    """The aspects of the sample's issues the batch's done commands changed that a person may change after it."""
    found: set[tuple[str, str]] = set()
    for command in commands:
        undo = (command["result"] or {}).get("undo") or {}
        key = command["params"].get("key")
        if command["status"] != "done" or key not in KEYS or not undo:
            continue
        if command["type"] == "ensure_fields":
            found |= {(key, name) for name in undo["changed"] if name in PERSON_FIELDS}
        elif command["type"] in ("ensure_status", "ensure_sprint"):
            found.add((key, command["type"].removeprefix("ensure_")))
    return found


async def person_edits(rig: Rig, key: str, aspect: str, data: st.DataObject) -> None:
    """Petrova changes ``aspect`` of ``key`` in Jira to a value it does not hold."""
    now = aspects(rig.sim, key)
    if aspect in PERSON_FIELDS:
        values = words.map(lambda w: f"правка {w}") if aspect == "summary" else dates
        value = data.draw(values.filter(lambda v: v != now[aspect]), label=f"{key} {aspect}")
        response = await rig.petrova.put(f"/rest/api/2/issue/{key}", json={"fields": {PERSON_FIELDS[aspect]: value}})
    elif aspect == "status":
        offered = (await rig.petrova.get(f"/rest/api/2/issue/{key}/transitions")).json()["transitions"]
        transition = data.draw(st.sampled_from([t["id"] for t in offered]), label=f"{key} status")
        body = {"transition": {"id": transition}}
        response = await rig.petrova.post(f"/rest/api/2/issue/{key}/transitions", json=body)
    else:
        open_sprint = next((s for s in now["sprint"] if s in SPRINTS), None)
        sprint = data.draw(st.sampled_from([s for s in [*SPRINTS, None] if s != open_sprint]), label=f"{key} sprint")
        path = "/rest/agile/1.0/backlog/issue" if sprint is None else f"/rest/agile/1.0/sprint/{SPRINTS[sprint]}/issue"
        response = await rig.petrova.post(path, json={"issues": [key]})
    assert response.status_code == 204, response.text


async def undo_once(rig: Rig, batch_id: int) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The undo's plan (a dry run), then the undo batch created and run (``None``: nothing to take back, 409)."""
    planned = await rig.interface.post(f"/batches/{batch_id}/undo", params={"dry_run": "true"})
    assert planned.status_code == 200, planned.text
    plan: dict[str, Any] = planned.json()
    created = await rig.interface.post(f"/batches/{batch_id}/undo")
    if plan["plan"] is None:
        assert (created.status_code, created.json()["detail"]) == (409, f"в пакете {batch_id} нечего откатывать")
        return plan, None
    assert created.status_code == 201, created.text
    return plan, await rig.drain(rig.agents[0], created.json()["batch"]["id"], steps=80)


async def undo_law(batch: dict[str, Any], content: bytes, data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        async with open_rig(Path(tmp), Simulator(reversible_sample())) as rig:
            agent = rig.agent()
            await rig.full_refresh(agent)
            uploaded = await rig.interface.post("/files", params={"filename": "план.txt"}, content=content)
            assert uploaded.status_code == 201, uploaded.text
            before = {key: aspects(rig.sim, key) for key in KEYS}
            done = await rig.drain(agent, (await rig.batch(batch))["id"], steps=60)
            event("statuses: " + ", ".join(sorted({c["status"] for c in done["commands"]})))
            edited = sorted(changed_aspects(done["commands"]))
            many = data.draw(st.integers(min_value=0, max_value=min(3, len(edited))), "how many a person changes")
            chosen = (
                data.draw(st.lists(st.sampled_from(edited), unique=True, min_size=many, max_size=many), "person")
                if many
                else []
            )
            event(f"aspects a person changed: {len(chosen)}")
            for key, aspect in chosen:
                await person_edits(rig, key, aspect, data)
            await rig.full_refresh(agent)
            by_person = {key: aspects(rig.sim, key) for key in KEYS}

            plan, undone = await undo_once(rig, done["id"])
            assert {(k["key"], k["aspect"]) for k in plan["kept"]} == set(chosen)
            assert all(k["changed_by"] == "petrova" for k in plan["kept"])
            if undone is not None:
                assert {c["status"] for c in undone["commands"]} == {"done"}, undone["commands"]
            expected = {key: {**before[key], **{a: by_person[k][a] for k, a in chosen if k == key}} for key in KEYS}
            assert {key: aspects(rig.sim, key) for key in KEYS} == expected
            created_issue(rig, done, plan)

            await twice(rig, done["id"], undone)


async def twice(rig: Rig, batch_id: int, undone: dict[str, Any] | None) -> None:
    """A second undo of the batch is refused, naming the first, and writes nothing."""
    rig.sim.clear_calls()
    plan = await rig.interface.post(f"/batches/{batch_id}/undo", params={"dry_run": "true"})
    assert (plan.status_code, plan.json()["plan"]) == (200, None)
    again = await rig.interface.post(f"/batches/{batch_id}/undo")
    standing = (
        f"у пакета {batch_id} уже есть откат — пакет {undone['id']}; неудавшиеся команды отката повторяйте в нём"
        if undone is not None
        else f"в пакете {batch_id} нечего откатывать"
    )
    assert (again.status_code, again.json()["detail"]) == (409, standing)
    assert (await rig.get(f"/batches/{batch_id}"))["undone_by"] == ([undone["id"]] if undone is not None else [])
    assert rig.jira_writes() == []


def created_issue(rig: Rig, done: dict[str, Any], plan: dict[str, Any]) -> None:
    """The issue the batch created is left, as ``ensure_issue`` made it, and the plan says so."""
    creation = next((c for c in done["commands"] if c["type"] == "ensure_issue"), None)
    if creation is None or not (creation["result"] or {}).get("created"):
        return
    key = creation["result"]["key"]
    assert [i["outcome"] for i in plan["items"] if i["command_id"] == creation["id"]] == ["left"]
    now = aspects(rig.sim, key)
    made = {"summary": creation["params"]["summary"].strip(), "duedate": "2026-11-30", "labels": ["AWPCA"]}
    assert {name: now[name] for name in made} == made
    assert (now["comments"], now["attachments"], now["links"], now["sprint"]) == ([], [], [], [])
    assert now["status"] == STATUSES[0]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(content=st.binary(min_size=1, max_size=32), data=st.data())
def test_an_undo_brings_back_every_aspect_but_what_a_person_changed(content: bytes, data: st.DataObject) -> None:
    """Apply a generated batch, let a person change some of what it set, undo through HTTP: Jira is back as before
    the batch on every aspect but the person's, which are kept and named; undoing twice writes nothing."""
    batch = data.draw(batches(hashlib.sha256(content).hexdigest()), "batch")
    anyio.run(undo_law, batch, content, data)
