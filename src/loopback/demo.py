"""sdlc-hub demo [--keep]: hub + Jira simulator + agent on loopback, a sample batch, progress shown.

Real processes, as in production: ``sdlc-hub serve`` on a temporary SQLite data dir, ``jira-sim`` with its
built-in sample, ``sdlc-agent run``. The demo configures projects and a scaled-down pacing through the admin
API, reads the mirror once (a full refresh, which also discovers the STOCKS_DRRK board's type), uploads a
file, submits one batch with all eight command types and temp keys, prints one line per status change with
the hub's live figures, then each command's outcome and the resulting Jira state read back from the simulator.
Then it takes the batch back (DESIGN.md 6.4): the undo's plan, one line per command, the undo batch run, and
Jira's state after it — the issue the batch created left (``undo.created_issue`` leave), all else as before.
"""

from __future__ import annotations

import argparse
import io
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, TextIO

import httpx

from loopback.stack import DEMO_PACING, Stack, checked, start_stack, wait_batch
from reconcile.vocabulary import CATALOGUE, REFRESH_TYPE, RESOLVED, CommandType

__all__ = ["KEEP_HINT", "PACING_NOTE", "demo", "jira_state", "run", "sample_batch"]

_WRITE_GAP = max(gap for command_type, gap in DEMO_PACING.items() if CATALOGUE[command_type].writes)
#: The demo's closing lines: its pacing is not a bank's, and how to look at the page afterwards.
PACING_NOTE = (
    f"It ran with {_WRITE_GAP:g} s between writes instead of the real 30-120 s of the default pacing"
    " (the bank's policy for its Jira)."
)
KEEP_HINT = "Run `sdlc-hub demo --keep` to leave the hub (and its web page), the simulator and the agent running."


def sample_batch(sha256: str, issue_key: str, neighbour_key: str) -> dict[str, Any]:
    """One batch with all eight command types; ``new:1`` is created, then linked, commented, moved, attached."""
    return {
        "author": "demo",
        "title": "Демо sdlc-hub",
        "project": "AWPCA",
        "commands": [
            {
                "type": CommandType.ENSURE_ISSUE,
                "params": {
                    "temp_key": "new:1",
                    "issue_type": "task",
                    "summary": "Демо: сверка остатков",
                    "description": "Создано демо sdlc-hub.\nВторая строка.",
                    "labels": ["demo"],
                },
            },
            {"type": CommandType.ENSURE_FIELDS, "params": {"key": issue_key, "duedate": "2026-12-24"}},
            {
                "type": CommandType.ENSURE_COMMENT,
                "params": {"key": "new:1", "marker": "[демо]", "body": "План согласован."},
            },
            {"type": CommandType.ENSURE_STATUS, "params": {"key": "new:1", "target": ["Разработка"]}},
            {
                "type": CommandType.ENSURE_LINK,
                "params": {"source": "new:1", "target": issue_key, "link_type": "блокирует начало"},
            },
            {"type": CommandType.ENSURE_SPRINT, "params": {"key": "new:1", "sprint": "Спринт 2"}},
            {
                "type": CommandType.ENSURE_ATTACHMENT,
                "params": {"key": "new:1", "file": sha256, "filename": "демо.txt"},
            },
            {"type": CommandType.REFRESH, "params": {"keys": [neighbour_key]}},
        ],
        "notes": [{"key": "new:1", "text": "Заметка демо: переедет на настоящий ключ."}],
    }


def jira_state(sim: httpx.Client, key: str) -> list[str]:
    """Lines describing one issue as the simulator holds it (read through its Jira REST API)."""
    issue = sim.get(f"/rest/api/2/issue/{key}").json()
    fields = issue.get("fields") or {}
    lines = [f"{key}: {fields.get('summary')!r}"]
    status = (fields.get("status") or {}).get("name")
    lines.append(f"  status: {status}; labels: {', '.join(fields.get('labels') or [])}")
    if fields.get("duedate"):
        lines.append(f"  duedate: {fields['duedate']}")
    sprints = fields.get("customfield_10104") or []
    names = [_sprint_name(s) for s in sprints] if isinstance(sprints, list) else [str(sprints)]
    if names:
        lines.append(f"  sprints: {', '.join(n for n in names if n)}")
    for link in fields.get("issuelinks") or []:
        kind = (link.get("type") or {}).get("name")
        if "outwardIssue" in link:
            lines.append(f"  link: {key} → {link['outwardIssue'].get('key')} ({kind})")
        elif "inwardIssue" in link:
            lines.append(f"  link: {link['inwardIssue'].get('key')} → {key} ({kind})")
    comments = sim.get(f"/rest/api/2/issue/{key}/comment").json().get("comments") or []
    for comment in comments:
        lines.append(f"  comment: {comment.get('body')!r}")
    attachments = sim.get(f"/rest/api/2/issue/{key}", params={"fields": "attachment"}).json()
    for attachment in (attachments.get("fields") or {}).get("attachment") or []:
        lines.append(f"  attachment: {attachment.get('filename')} ({attachment.get('size')} bytes)")
    return lines


def _sprint_name(value: Any) -> str | None:
    if isinstance(value, dict):
        return str(value.get("name"))
    text = str(value)
    if "name=" in text:
        return text.split("name=", 1)[1].split(",", 1)[0]
    return text


def _pick_issue(client: httpx.Client) -> tuple[str, str]:
    """An AWPCA issue of the mirror to change and link to, and another to refresh."""
    items = checked(client.get("/issues", params={"project": "AWPCA", "limit": 100})).get("items") or []
    keys = sorted((item["key"] for item in items), key=lambda k: int(k.rsplit("-", 1)[1]))
    if not keys:
        raise RuntimeError("the mirror has no AWPCA issues after the first refresh")
    waiting = [i["key"] for i in items if i.get("status") == "Ожидание разработки"]
    issue_key = (waiting or keys)[0]
    neighbour = next((k for k in keys if k != issue_key), issue_key)
    return issue_key, neighbour


def demo(out: TextIO, *, keep: bool, work_dir: Path) -> int:
    began = time.monotonic()
    out.write(f"sdlc-hub demo: working in {work_dir}\n")
    out.flush()
    stack = start_stack(work_dir, detach=keep)
    ok = False
    try:
        out.write(f"hub {stack.hub_url}, jira-sim {stack.sim_url}\n")
        # The bank's policy, as an operator gives it: the agent may touch the hub's Jira project only.
        stack.start_agent(claim_wait=2.0, detach=keep, allow_projects=(stack.jira_project,))
        out.write(f"agent allowed Jira project {stack.jira_project} (--allow-project)\n")
        with stack.client("interface") as client, stack.sim() as sim:
            out.write("reading Jira into the mirror (full refresh) …\n")
            out.flush()
            first = checked(client.post("/refresh", json={}))
            wait_batch(client, first["id"], out=out, label="refresh ")
            projects = checked(client.get("/projects"))
            project_items = projects.get("items", projects) if isinstance(projects, dict) else projects
            for project in project_items:
                out.write(f"project {project['name']}: board {project.get('board_id')} ({project.get('board_type')})\n")

            content = "Файл демо sdlc-hub.\n".encode()
            uploaded = checked(client.post("/files", params={"filename": "демо.txt"}, content=content))
            out.write(f"uploaded демо.txt: sha256 {uploaded['sha256']}, {uploaded['size']} bytes\n")
            issue_key, neighbour = _pick_issue(client)
            batch = checked(client.post("/batches", json=sample_batch(uploaded["sha256"], issue_key, neighbour)))
            out.write(
                f"batch {batch['id']}: {len(batch['commands'])} commands, "
                f"estimate {float(batch.get('estimate_seconds') or 0):.1f} s\n"
            )
            out.flush()
            final = wait_batch(client, batch["id"], out=out)

            out.write("\noutcomes:\n")
            new_key = None
            for command in final["commands"]:
                result = command.get("result")
                error = command.get("error")
                out.write(
                    f"  command {command['id']} {command['type']}: {command['status']}"
                    f"{'  result ' + _compact(result) if result else ''}{'  error ' + error if error else ''}\n"
                )
                if command["type"] == CommandType.ENSURE_ISSUE and isinstance(result, dict):
                    new_key = result.get("key")
            ok = all(c["status"] in RESOLVED for c in final["commands"])

            out.write("\nJira (read back from the simulator):\n")
            keys = [k for k in (new_key, issue_key) if k]
            for key in keys:
                for line in jira_state(sim, key):
                    out.write(f"  {line}\n")
            if new_key:
                notes = checked(client.get("/notes", params={"key": new_key}))
                for note in notes.get("items", []) if isinstance(notes, dict) else notes:
                    out.write(f"  note on {new_key}: {note.get('text')!r}\n")
            ok = _undo_step(out, client, sim, batch["id"], keys) and ok
        out.write(f"\n{'OK' if ok else 'FAILED'}: demo finished in {time.monotonic() - began:.1f} s\n")
        out.write(f"{PACING_NOTE}\n")
        if keep:
            _print_keep(out, stack)
        else:
            out.write(f"{KEEP_HINT}\n")
        out.flush()
    except BaseException:
        for proc in stack.procs.values():
            if proc.popen.poll() is not None or not ok:
                out.write(f"--- {proc.name} log (tail) ---\n{proc.log_tail()}\n")
        if keep:
            stack.stop()
        raise
    finally:
        if not keep:
            stack.stop()
    return 0 if ok else 1


def _undo_step(out: TextIO, client: httpx.Client, sim: httpx.Client, batch_id: int, keys: list[str]) -> bool:
    """The batch taken back: the undo's plan (a line per command of the batch), the undo batch run, and the Jira
    state of ``keys`` after it; whether every command of the undo batch ended resolved."""
    plan = checked(client.post(f"/batches/{batch_id}/undo", params={"dry_run": "true"}))
    out.write(f"\nundo plan: «{plan['title']}»\n")
    planned = (plan.get("plan") or {}).get("commands") or []
    for item in plan["items"]:
        mine = [c for c in planned if c["seq"] in item["commands"]]
        writes = "; ".join(f"{c['subject']} {line['sign']} {line['text']}" for c in mine for line in c["lines"])
        out.write(f"  command {item['command_id']} {item['type']}: {writes or item['text']}\n")
    created = checked(client.post(f"/batches/{batch_id}/undo"))["batch"]
    began = time.monotonic()
    # The undo batch's status changes stay unprinted: the summary line and the state say what it did.
    final = wait_batch(client, created["id"], out=io.StringIO(), label="undo ")
    statuses = ", ".join(f"{c['type']}: {c['status']}" for c in final["commands"] if c["type"] != REFRESH_TYPE)
    out.write(f"undo batch {created['id']} ({time.monotonic() - began:.1f} s): {statuses}\n")
    out.write("\nJira after the undo:\n")
    for key in keys:
        for line in jira_state(sim, key):
            out.write(f"  {line}\n")
    return all(c["status"] in RESOLVED for c in final["commands"])


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _print_keep(out: TextIO, stack: Stack) -> None:
    out.write("\nstill running (--keep):\n")
    out.write(f"  hub       {stack.hub_url}   (web page {stack.hub_url}/, MCP {stack.hub_url}/mcp)\n")
    out.write(f"  jira-sim  {stack.sim_url}\n")
    for role, token in stack.tokens.items():
        out.write(f"  {role} token: {token}\n")
    pids = " ".join(str(p.popen.pid) for p in stack.procs.values())
    out.write(f"  data and logs: {stack.work_dir}\n  stop with: kill {pids}\n")


def run(argv: list[str]) -> int:
    """``sdlc-hub demo [--keep]`` (``argv`` without the subcommand's name)."""
    parser = argparse.ArgumentParser(
        prog="sdlc-hub demo",
        description="hub + Jira simulator + agent on loopback, a sample batch, progress shown",
        epilog=PACING_NOTE.replace("It ran", "It runs"),
    )
    parser.add_argument("--keep", action="store_true", help="leave hub, simulator and agent running")
    args = parser.parse_args(argv)
    work_dir = Path(tempfile.mkdtemp(prefix="sdlc-hub-demo-"))
    try:
        return demo(sys.stdout, keep=args.keep, work_dir=work_dir)
    except RuntimeError as exc:
        print(f"sdlc-hub demo: {exc}", file=sys.stderr)
        return 1
    finally:
        if not args.keep:
            shutil.rmtree(work_dir, ignore_errors=True)
