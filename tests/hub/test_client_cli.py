"""``sdlc-hub``'s client commands against a served hub (real HTTP, on SQLite and PostgreSQL): submit with its
idempotency key, dry run, show, list, wait with its exit codes, cancel, approve, reject, export, projects,
settings, issues, and one line per error."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import socket
import subprocess
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import anyio
import attrs
import pytest
import uvicorn

from hub_app.app import create_app
from hub_app.cli import main
from hub_app.runtime.hub import Hub
from tests.support import cmd

from .conftest import Api
from .support import FIELDS, claim_ok, done, seed_mirror

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("logging_restored")]

PLAN = {"author": "planner", "title": "план", "commands": [FIELDS]}


@attrs.frozen
class Ran:
    code: int
    out: str
    err: str


@attrs.frozen
class Cli:
    """``sdlc-hub`` run in a worker thread against the served hub (the server runs in the test's loop)."""

    url: str
    tokens: dict[str, str]
    capsys: pytest.CaptureFixture[str]

    async def __call__(self, *argv: str, role: str | None = "interface") -> Ran:
        """``argv`` against the served hub with ``role``'s token; ``role=None``: a command that needs no hub."""
        # The served hub logs in this process too: only errors, so that the CLI's output is its own.
        hub = ["--hub", self.url, f"--token={self.tokens[role]}", "--log-level", "ERROR"] if role else []
        full = [*argv, *hub]
        code = await anyio.to_thread.run_sync(main, full)
        captured = self.capsys.readouterr()
        return Ran(code, captured.out, captured.err)


@contextlib.asynccontextmanager
async def _served(hub: Hub) -> AsyncIterator[str]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    server = uvicorn.Server(uvicorn.Config(create_app(hub, mcp=False), lifespan="on", log_level="warning"))
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(server.serve, [sock])
            try:
                yield f"http://127.0.0.1:{sock.getsockname()[1]}"
            finally:
                server.should_exit = True
    finally:
        sock.close()


@pytest.fixture
async def cli(api: Api, hub: Hub, capsys: pytest.CaptureFixture[str]) -> AsyncIterator[Cli]:
    async with _served(hub) as url:
        yield Cli(url=url, tokens=api.tokens, capsys=capsys)


def _plan_file(tmp_path: Path, body: Any = PLAN, name: str = "plan.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(body, ensure_ascii=False), encoding="utf-8")
    return str(path)


async def _count(api: Api) -> int:
    total: int = (await api.get("/batches")).json()["total"]
    return total


async def test_submit_twice_queues_one_batch(cli: Cli, api: Api, tmp_path: Path) -> None:
    """The same plan file submitted again (a rerun script) answers its batch: the key comes from the content."""
    plan = _plan_file(tmp_path)
    first = await cli("batch", "submit", plan)
    again = await cli("batch", "submit", plan)
    batch_id = (await api.get("/batches")).json()["items"][0]["id"]
    assert (first.code, first.out) == (0, f"batch {batch_id} queued: 2 commands, estimate 122 s\n")
    assert (again.code, again.out) == (
        0,
        f"batch {batch_id} was submitted before with this key: the same batch, not queued again\n",
    )
    other = await cli("batch", "submit", plan, "--idempotency-key", "another-run")
    assert other.code == 0 and other.out.startswith(f"batch {batch_id + 1} queued")
    assert await _count(api) == 2


async def test_dry_run_prints_the_plan_and_queues_nothing(cli: Cli, api: Api, tmp_path: Path) -> None:
    """--dry-run: each command with its predicted writes; nothing stored."""
    await seed_mirror(api, [{"key": "AURORA-1", "summary": "Задача", "status": "Разработка", "labels": []}])
    before = await _count(api)
    ran = await cli("batch", "submit", _plan_file(tmp_path), "--dry-run")
    assert ran.code == 0
    lines = ran.out.splitlines()
    assert lines[0] == "plan of «план» (2 commands), nothing queued:"
    assert lines[1].startswith("  #1 ensure_fields AURORA-1: ")
    assert "PUT /rest/api/2/issue/AURORA-1" in ran.out
    assert lines[-1] == "estimate: 122 s"
    assert await _count(api) == before


async def test_a_refused_batch_is_one_line_per_error(cli: Cli, api: Api, tmp_path: Path) -> None:
    """Two mistakes: exit 2, the hub's detail then the second error, each on its own line; nothing stored."""
    wrong = {
        "author": "planner",
        "title": "план",
        "commands": [
            cmd("ensure_fields", key="AURORA-1", duedate="23.10.2026"),
            cmd("ensure_status", key="AURORA-2"),
        ],
    }
    ran = await cli("batch", "submit", _plan_file(tmp_path, wrong))
    assert ran.code == 2
    assert ran.out == ""
    lines = ran.err.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("sdlc-hub: команда 1 (ensure_fields): duedate")
    assert lines[1].startswith("sdlc-hub: команда 2 (ensure_status)")
    assert await _count(api) == 0


async def test_a_file_that_is_not_json_is_one_line(cli: Cli, tmp_path: Path) -> None:
    """A plan that is not JSON: exit 2, one line naming the file."""
    path = tmp_path / "plan.json"
    path.write_text("{nope", encoding="utf-8")
    ran = await cli("batch", "submit", str(path))
    assert ran.code == 2
    assert ran.err.startswith(f"sdlc-hub: {path} is not JSON: ")
    assert len(ran.err.splitlines()) == 1


async def _waiting(cli: Cli, hub: Hub, argv: list[str], drive: Callable[[], Any]) -> Ran:
    """``sdlc-hub *argv`` (it follows a batch), and ``drive()`` once it waits on the hub."""
    box: dict[str, Ran] = {}

    async def run() -> None:
        box["ran"] = await cli(*argv)

    with anyio.fail_after(60):
        async with anyio.create_task_group() as tg:
            tg.start_soon(run)
            while hub.wakeup.watchers() == 0:  # noqa: ASYNC110 — the follower has no event of its own
                await anyio.sleep(0.01)
            await drive()
    return box["ran"]


async def test_wait_follows_the_batch_to_its_end(cli: Cli, api: Api, hub: Hub, tmp_path: Path) -> None:
    """submit --wait: a plain line per change of a command (not a terminal), a final line naming every command,
    exit 0 when all are done."""

    async def agent() -> None:
        for _ in range(2):
            delivery = await claim_ok(api)
            await done(api, delivery["id"], {"changed": ["duedate"]} if delivery["type"] != "refresh" else {})

    ran = await _waiting(cli, hub, ["batch", "submit", _plan_file(tmp_path), "--wait"], agent)
    batch_id = (await api.get("/batches")).json()["items"][0]["id"]
    assert ran.code == 0, ran.err
    lines = ran.out.splitlines()
    assert lines[0].startswith(f"batch {batch_id} queued")
    assert "#1 ensure_fields AURORA-1: done" in ran.out
    assert lines[-1] == f"batch {batch_id} done: #1 ensure_fields AURORA-1 done, #2 refresh AURORA-1 done"


async def test_wait_exits_1_when_a_command_failed(cli: Cli, api: Api, hub: Hub) -> None:
    """A command failed: exit 1, its error on its line, the final line says «done with errors»."""
    batch = (await api.post("/batches", PLAN)).json()

    async def agent() -> None:
        first = await claim_ok(api)
        failed = {"status": "failed", "result": {}, "error": "HTTP 400 поле недоступно", "jira_calls": 1}
        await api.report(first["id"], {**failed, "operations": []})
        await done(api, (await claim_ok(api))["id"])

    ran = await _waiting(cli, hub, ["batch", "wait", str(batch["id"])], agent)
    assert ran.code == 1
    assert "#1 ensure_fields AURORA-1: failed — HTTP 400 поле недоступно" in ran.out
    assert ran.out.splitlines()[-1].startswith(f"batch {batch['id']} done with errors: #1 ensure_fields")


async def test_wait_exits_3_for_a_batch_waiting_for_approval(cli: Cli, api: Api) -> None:
    """A batch waiting for a person's approval: wait answers at once with exit 3; approve sends nothing the hub
    does not offer, and the batch runs; reject by the author cancels it."""
    await api.patch("/settings", {"approval": {"http": True}})
    batch = (await api.post("/batches", PLAN)).json()
    waited = await cli("batch", "wait", str(batch["id"]))
    assert waited.code == 3
    assert waited.out.splitlines()[-1].startswith(f"batch {batch['id']} waiting for approval: ")
    approved = await cli("batch", "approve", str(batch["id"]), role="admin")
    assert (approved.code, approved.out) == (0, f"batch {batch['id']} approved by admin-token: queued\n")
    other = (await api.post("/batches", {**PLAN, "title": "второй"})).json()
    rejected = await cli("batch", "reject", str(other["id"]), "--reason", "не сейчас")
    assert (rejected.code, rejected.out) == (0, f"batch {other['id']} rejected: не сейчас\n")
    own = await cli("batch", "approve", str(other["id"]))
    assert own.code == 2 and own.err.startswith("sdlc-hub: ")


async def test_show_list_cancel_and_export(cli: Cli, api: Api) -> None:
    """show (a line per command with its result in words), list by state, cancel, export as CSV and JSON (each
    command with its result and its Jira writes)."""
    first = (await api.post("/batches", PLAN)).json()
    second = (await api.post("/batches", {**PLAN, "title": "второй"})).json()
    delivery = await claim_ok(api)
    operations = [{"method": "PUT", "path": "/rest/api/2/issue/AURORA-1", "status": 204}]
    await done(api, delivery["id"], {"changed": ["duedate"]}, operations=operations)
    shown = await cli("batch", "show", str(first["id"]))
    assert shown.code == 0
    assert shown.out.splitlines()[1].startswith("  #1 ensure_fields AURORA-1: done")
    listed = await cli("batch", "list", "--state", "queued")
    assert [line.split("\t")[:2] for line in listed.out.splitlines()] == [[str(second["id"]), "queued"]]
    cancelled = await cli("batch", "cancel", str(second["id"]))
    assert cancelled.out == f"batch {second['id']}: cancelled, 2 commands cancelled\n"
    exported = await cli("batch", "export", str(first["id"]), "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(exported.out)))
    assert [(r["seq"], r["type"], r["status"]) for r in rows] == [
        ("1", "ensure_fields", "done"),
        ("2", "refresh", "queued"),
    ]
    assert rows[0]["jira_writes"] == "PUT /rest/api/2/issue/AURORA-1 → 204"
    as_json = json.loads((await cli("batch", "export", str(first["id"]), "--format", "json")).out)
    assert as_json[0]["jira_writes"] == ["PUT /rest/api/2/issue/AURORA-1 → 204"]
    assert as_json[0]["result"] == rows[0]["result"]


async def test_projects_settings_and_issues(cli: Cli, api: Api) -> None:
    """project add/list/remove and settings set/show/unset with an admin token; issue show from the mirror; an
    interface token's write is refused with exit 2."""
    assert (await cli("project", "add", "AWPCA", "--board-id", "4216", role="admin")).code == 0
    assert (await cli("project", "list")).out == "AWPCA\tboard 4216\t-\n"
    refused = await cli("project", "remove", "AWPCA")
    assert refused.code == 2 and len(refused.err.splitlines()) == 1
    assert (await cli("project", "remove", "AWPCA", role="admin")).out == "project AWPCA removed\n"
    set_ = await cli("settings", "set", "pacing.ensure_fields=60", role="admin")
    assert (set_.code, set_.out) == (0, "pacing.ensure_fields = 60.0\n")
    assert json.loads((await cli("settings", "show")).out)["pacing"]["ensure_fields"] == 60
    unset = await cli("settings", "unset", "pacing.ensure_fields", role="admin")
    assert unset.out == "pacing.ensure_fields = 120\n"
    await seed_mirror(api, [{"key": "AURORA-7", "summary": "Сверка", "status": "Готово", "labels": ["AWPCA"]}])
    issue = await cli("issue", "show", "AURORA-7")
    assert issue.out.splitlines()[:2] == ["AURORA-7 «Сверка» — Готово", "  labels: AWPCA"]
    missing = await cli("issue", "show", "AURORA-8")
    assert (missing.code, missing.err) == (2, "sdlc-hub: задачи AURORA-8 нет в зеркале\n")


def test_an_unreachable_hub_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    """No hub at the URL: exit 2, one line naming it."""
    code = main(["batch", "show", "1", "--hub", "http://127.0.0.1:9", "--token", "t"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("sdlc-hub: cannot reach the hub at http://127.0.0.1:9: ")
    assert len(err.splitlines()) == 1


def test_completion_covers_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    """The bash script offers the groups, their commands and options; bash reads it without a syntax error, and
    completing ``sdlc-hub batch s`` offers submit and show."""
    assert main(["completion", "bash"]) == 0
    script = capsys.readouterr().out
    assert '" batch") words="submit show list cancel approve reject wait export undo --help"' in script
    completed = subprocess.run(
        ["bash", "-c", f'{script}\nCOMP_WORDS=(sdlc-hub batch s); COMP_CWORD=2; _sdlc_hub; echo "${{COMPREPLY[@]}}"'],
        capture_output=True,
        text=True,
        check=True,
    )
    assert completed.stdout.split() == ["submit", "show"]
    assert main(["completion", "zsh"]) == 0
    assert capsys.readouterr().out.startswith("autoload -U +X bashcompinit && bashcompinit\n_sdlc_hub() {")


async def test_undo_prints_its_plan_then_queues_the_inverse(cli: Cli, api: Api) -> None:
    """batch undo --dry-run prints what becomes of each command and queues nothing; without it the inverse batch
    is created, «Откат пакета N: …», and named."""
    await seed_mirror(api, [{"key": "AURORA-1", "summary": "Сверка", "duedate": "2026-10-23", "labels": []}])
    first = (await api.post("/batches", PLAN)).json()
    undo = {"changed": {"duedate": {"from": "2026-10-01", "to": "2026-10-23"}}, "labels": {"added": [], "removed": []}}
    operations = [{"method": "PUT", "path": "/rest/api/2/issue/AURORA-1", "status": 204}]
    await done(api, (await claim_ok(api))["id"], {"changed": ["duedate"], "undo": undo}, operations=operations)
    await done(api, (await claim_ok(api))["id"])
    planned = await cli("batch", "undo", str(first["id"]), "--dry-run")
    assert planned.code == 0, planned.err
    lines = planned.out.splitlines()
    assert lines[0] == f"undo of batch {first['id']}: «Откат пакета {first['id']}: план»"
    assert lines[1].startswith("  1. ensure_fields: ")
    assert lines[-1] == "nothing queued (--dry-run)"
    before = (await api.get("/batches")).json()["total"]
    created = await cli("batch", "undo", str(first["id"]))
    assert created.code == 0, created.err
    newest = (await api.get("/batches")).json()
    assert newest["total"] == before + 1
    assert created.out.splitlines()[-1] == f"created batch {newest['items'][0]['id']}"
    assert newest["items"][0]["undo_of"] == first["id"]


async def test_audit_export_then_verify(cli: Cli, api: Api, tmp_path: Path) -> None:
    """audit export (admin) writes the chain as JSON lines; audit verify reads it offline: exit 0 with the count and
    the head hash; an edited record is named by its seq with exit 1; an interface token is refused, one line."""
    await api.post("/batches", PLAN)
    exported = await cli("audit", "export", role="admin")
    assert exported.code == 0, exported.err
    records = [json.loads(line) for line in exported.out.splitlines()]
    assert {"token_added", "batch_created"} <= {r["kind"] for r in records}
    good = tmp_path / "audit.jsonl"
    good.write_text(exported.out, encoding="utf-8")
    verified = await cli("audit", "verify", str(good), role=None)
    assert (verified.code, verified.out) == (0, f"{len(records)} записей, голова {records[-1]['hash']}\n")
    edited = [*records[:-1], {**records[-1], "actor": "someone-else"}]
    bad = tmp_path / "edited.jsonl"
    bad.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in edited), encoding="utf-8")
    broken = await cli("audit", "verify", str(bad), role=None)
    assert broken.code == 1
    assert broken.out.startswith(f"запись seq {records[-1]['seq']}: ")
    refused = await cli("audit", "export")
    assert refused.code == 2
    assert len(refused.err.splitlines()) == 1
