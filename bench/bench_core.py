"""Benchmarks of the pure core: how long the hub's rules take on large inputs.

Run: ``python bench/bench_core.py [--cpu]``. Prints one line per case (median of repeated runs; ``--cpu``: the
process's CPU time instead of the wall clock, steadier on a loaded machine); the numbers go into
``bench/RESULTS.md``. These are measurements, not tests: nothing here asserts a time.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from reconcile.batches.validation import BatchContext, ProjectInfo, validate_batch
from reconcile.config.settings import Settings
from reconcile.jira.model import issue_from_jira, sprint_of
from reconcile.outlook.dryrun import issue_to_jira, predict_batch
from reconcile.queue.claim import ClaimSnapshot, QueuedCommand, decide_claim
from reconcile.vocabulary.records import MirrorIssue, MirrorLink, SprintRef

SETTINGS = Settings()
NOW = datetime(2026, 10, 22, 12, tzinfo=UTC)


def measure(name: str, fn: Callable[[], Any], *, repeat: int = 7, unit_count: int = 1, unit: str = "") -> None:
    clock = time.process_time if "--cpu" in sys.argv else time.perf_counter
    times = []
    for _ in range(repeat):
        start = clock()
        fn()
        times.append(clock() - start)
    median = statistics.median(times)
    per = f"; {median / unit_count * 1e6:.1f} µs per {unit}" if unit_count > 1 else ""
    print(f"{name}: median {median * 1e3:.2f} ms, fastest {min(times) * 1e3:.2f} ms over {repeat} runs{per}")


def big_batch(n: int) -> dict[str, Any]:
    commands: list[dict[str, Any]] = []
    for i in range(n // 4):
        temp = f"new:{i + 1}"
        commands.append(
            {"type": "ensure_issue", "params": {"temp_key": temp, "summary": f"Задача {i}", "labels": ["x"]}}
        )
        commands.append(
            {"type": "ensure_fields", "params": {"key": temp, "duedate": "2026-10-23", "labels_add": ["y"]}}
        )
        commands.append(
            {"type": "ensure_link", "params": {"source": temp, "target": f"AURORA-{i + 1}", "link_type": "связанные"}}
        )
        commands.append({"type": "ensure_sprint", "params": {"key": temp, "sprint": "Спринт 2"}})
    return {"author": "bench", "title": "bench", "project": "AWPCA", "commands": commands}


def mirror_issue(n: int) -> MirrorIssue:
    return MirrorIssue(
        key=f"AURORA-{n}",
        summary=f"Задача {n}",
        description="строка\r\nстрока",
        status="Разработка",
        status_category="indeterminate",
        labels=("AWPCA",),
        reporter="bridge-user",
        created="2026-10-21T09:00:00Z",
        sprint=SprintRef(id=7, name="Спринт 2", state="active"),
        links=(MirrorLink(id=str(n), type="Связанные", source=f"AURORA-{n}", target=f"AURORA-{n + 1}"),),
    )


def main() -> None:
    ctx = BatchContext(
        settings=SETTINGS, projects={"AWPCA": ProjectInfo(name="AWPCA", board_id=4216, board_type="scrum")}
    )
    body = big_batch(1000)
    measure("validate_batch, 1000 commands", lambda: validate_batch(body, ctx), unit_count=1000, unit="command")

    page = [issue_to_jira(mirror_issue(n), SETTINGS) for n in range(100)]
    measure(
        "issue_from_jira, a page of 100 issues",
        lambda: [issue_from_jira(raw, SETTINGS) for raw in page],
        unit_count=100,
        unit="issue",
    )
    sprint_strings = [
        f"com.atlassian.greenhopper.service.sprint.Sprint@{n:x}[id={n},rapidViewId=4216,state=CLOSED,"
        f"name=Спринт {n}, с запятой [и скобками],startDate=2026-10-01T09:00:00.000+03:00,endDate=<null>,"
        f"completeDate=<null>,sequence={n},goal=цель=важная]"
        for n in range(1, 11)
    ]
    measure(
        "sprint_of, 10 old-form sprint strings x 100",
        lambda: [sprint_of(sprint_strings) for _ in range(100)],
        unit_count=100,
        unit="field",
    )

    queue = [
        QueuedCommand(id=i, batch_id=1, type="ensure_fields", params={"key": f"AURORA-{i}", "duedate": "2026-10-23"})
        for i in range(1, 1001)
    ]
    snapshot = ClaimSnapshot(queued_head=queue)
    measure("decide_claim, 1000 queued", lambda: decide_claim(snapshot), repeat=21)

    valid = validate_batch(big_batch(200), ctx)
    mirror = {f"AURORA-{n}": mirror_issue(n) for n in range(1, 60)}
    measure(
        "predict_batch (dry run), 200 commands",
        lambda: predict_batch(
            valid,
            mirror=mirror,
            settings=SETTINGS,
            jira_user="bridge-user",
            symmetric_link_types=frozenset({"Связанные"}),
            now=NOW + timedelta(0),
        ),
        unit_count=len(valid.commands),
        unit="command",
        repeat=31,
    )


if __name__ == "__main__":
    main()
