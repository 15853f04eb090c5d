"""Benchmark of the undo of a batch (DESIGN.md 6.4): the plan of the inverse of a 1 000-command batch.

Run: ``python bench/bench_undo.py [--commands 1000]``. Stores a batch of ``ensure_fields``, ``ensure_status``,
``ensure_link`` and ``ensure_comment`` commands (a quarter each, over as many issues) in a scratch SQLite hub,
marks them ``done`` with the results the executors report (what each write replaced), puts the issues in the
mirror as the batch left them (every 20th due date changed since by a person, with its journal entry), then
measures ``POST /batches/{id}/undo?dry_run=true``'s operation in process (the core's rule, the mirror and journal
reads, the validation and the dry run of the inverse batch) and the pure rule alone. Wall and CPU time; medians
of repeated runs. Measurements, not tests.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import attrs

from hub_app.operations import undo
from hub_app.runtime.hub import open_hub
from reconcile.batches.validation import NewCommand, ValidBatch
from reconcile.config.settings import Settings
from reconcile.outlook.approval import Requester
from reconcile.outlook.undo import DoneCommand, plan_undo
from reconcile.vocabulary.lifecycle import CommandStatus
from reconcile.vocabulary.records import HistoryEntry, HistoryItem, MirrorIssue

T0 = datetime(2026, 10, 22, 9, 0, tzinfo=UTC)


def command(n: int) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """Command ``n``: its type, params and the result its executor reported."""
    key = f"AURORA-{n + 1}"
    kind = n % 4
    if kind == 0:
        params = {"key": key, "duedate": "2026-12-15"}
        undo_ = {
            "changed": {"duedate": {"from": "2026-10-23", "to": "2026-12-15"}},
            "labels": {"added": [], "removed": []},
        }
        return "ensure_fields", params, {"changed": ["duedate"], "undo": undo_}
    if kind == 1:
        path = ["Разработка", "Тестирование"]
        undo_ = {"from": "Ожидание разработки", "to": "Тестирование", "path": path}
        return (
            "ensure_status",
            {"key": key, "target": path},
            {"status": "Тестирование", "transitions": path, "undo": undo_},
        )
    if kind == 2:
        other = f"AURORA-{n + 2}"
        link = {"id": str(10000 + n), "type": "Связанные", "source": key, "target": other}
        params = {"source": key, "target": other, "link_type": "связанные"}
        return (
            "ensure_link",
            params,
            {"existed": False, "link_id": link["id"], "removed": [], "undo": {"created": link}},
        )
    params = {"key": key, "marker": "[план]", "body": "новый текст"}
    result = {"comment_id": str(n), "action": "updated", "undo": {"updated": str(n), "previous_body": "[план] старый"}}
    return "ensure_comment", params, result


def issue(n: int) -> MirrorIssue:
    changed = n % 20 == 1  # the issues of every fifth ensure_fields
    return MirrorIssue(
        key=f"AURORA-{n}",
        summary=f"Задача {n}",
        status="Тестирование",
        duedate="2027-01-31" if changed else "2026-12-15",
        labels=("AWPCA",),
        updated="2026-10-22T10:00:00.000Z",
    )


def journal(n: int) -> HistoryEntry:
    item = HistoryItem(field="duedate", from_="2026-12-15", from_string=None, to="2027-01-31", to_string=None)
    return HistoryEntry(
        key=f"AURORA-{n}", id=str(n), created="2026-10-23T10:14:00.000+0300", author="ivanov", items=(item,)
    )


def timed(runs: int, work: Any) -> tuple[float, float]:
    walls, cpus = [], []
    for _ in range(runs):
        wall, cpu = time.perf_counter(), time.process_time()
        work()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


async def main(size: int) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        hub = await open_hub(data_dir=Path(scratch), now=lambda: T0)
        made = [command(n) for n in range(size)]
        valid = ValidBatch(
            author="bench",
            title="пакет",
            project=None,
            commands=tuple(NewCommand(seq=i + 1, type=t, params=p, temp_key=None) for i, (t, p, _) in enumerate(made)),
            notes=(),
            estimate_seconds=0,
        )
        async with hub.unit() as unit:
            batch, stored = await unit.db.queue.add_batch(valid, token_name="bench", retry_of=None, now=T0)
            for record, (_, _, result) in zip(stored, made, strict=True):
                operations = [{"method": "PUT", "path": "/", "status": 204}]
                await unit.db.queue.save(
                    attrs.evolve(
                        record, status=CommandStatus.DONE, result=result, operations=operations, finished_at=T0
                    )
                )
            issues = [issue(n) for n in range(1, size + 2)]
            await unit.db.mirror.upsert_issues(issues, command_id=None, now=T0)
            await unit.db.mirror.upsert_history([journal(n) for n in range(1, size + 2, 20)])
        walls, cpus = [], []
        for _ in range(5):
            wall, cpu = time.perf_counter(), time.process_time()
            async with hub.unit() as unit:
                answer = await undo.undo_batch(unit, batch.id, requester=Requester(token_name="bench"), dry_run=True)
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
        print(
            f"undo plan of {size} commands (hub, SQLite): {len(answer.plan.commands if answer.plan else [])} inverse "
            f"commands, {len(answer.kept)} kept; wall {statistics.median(walls) * 1000:.0f} ms, "
            f"cpu {statistics.median(cpus) * 1000:.0f} ms"
        )
        done = [
            DoneCommand(
                id=r.id, seq=r.seq, type=r.type, params=r.params, status=CommandStatus.DONE, result=res, wrote=True
            )
            for r, (_, _, res) in zip(stored, made, strict=True)
        ]
        mirror = {i.key: i for i in issues}
        journals = {f"AURORA-{n}": [journal(n)] for n in range(1, size + 2, 20)}
        wall, cpu = timed(
            5, lambda: plan_undo(done, mirror=mirror, journal=journals, settings=Settings(), zone="Europe/Moscow")
        )
        print(f"plan_undo alone, {size} commands: wall {wall * 1000:.1f} ms, cpu {cpu * 1000:.1f} ms")
        await hub.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--commands", type=int, default=1000)
    asyncio.run(main(parser.parse_args().commands))
