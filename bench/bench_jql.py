"""Issue 31's cost line for the JQL parser: parsing a client's JQL and writing the canonical text that the agent
sends (``project in (<allowed>) AND (<tree>)``), for a JQL of about 2 000 characters; the target is under 5 ms.

Run: ``PYTHONPATH=src python3 bench/bench_jql.py [--runs N]``. Prints median and p95 per case; the numbers go into
``bench/RESULTS.md``. A measurement, not a test: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from reconcile.guard.jql import client_jql, read_jql
from reconcile.guard.jql_tree import jql_text
from reconcile.guard.policy import agent_jql


def long_jql(size: int = 2000) -> str:
    """A realistic client JQL of about ``size`` characters: keys, labels, quoted text with escapes, functions,
    dates, a ``WAS … BY`` with predicates, nested groups."""
    parts = [
        '(project = AURORA AND labels in ("AWPCA", "STOCKS_DRRK")) AND sprint in openSprints()',
        "statusCategory != Done",
    ]
    n = 0
    while len(" AND ".join(parts)) < size - 120:
        n += 1
        parts.append(
            f'(key in (AURORA-{n}, AURORA-{n + 1}) OR summary ~ "отчёт \\"{n}\\" (ДРРК)" OR '
            f"created >= startOfDay(-{n % 9}) OR status was in (Разработка, 'Тестирование') by currentUser())"
        )
    parts.append('NOT assignee is EMPTY AND summary ~ x\\"y AND "Epic Link" = AURORA-1500')
    return " AND ".join(parts)


def _p95(times: list[float]) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, round(0.95 * len(ordered)) - 1)]


def measure(name: str, fn: Callable[[], object], runs: int) -> None:
    """Wall time (``perf_counter``) and the process's CPU time (``process_time``: what the work costs when other
    processes share the cores), median and p95."""
    fn()  # warm up (regex compilation, imports)
    wall, cpu = [], []
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    print(
        f"{name}: wall median {statistics.median(wall) * 1e3:.2f} ms, p95 {_p95(wall) * 1e3:.2f} ms; "
        f"CPU median {statistics.median(cpu) * 1e3:.2f} ms, p95 {_p95(cpu) * 1e3:.2f} ms over {runs} runs"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=500)
    runs = parser.parse_args().runs
    jql = long_jql()
    query = read_jql(jql)
    condition = client_jql(jql)
    assert not isinstance(query, str) and not hasattr(condition, "reason"), condition
    print(f"JQL of {len(jql)} characters, {len(jql_text(query))} in canonical form")  # type: ignore[arg-type]
    measure("parse", lambda: read_jql(jql), runs)
    measure("canonical text of the parsed tree", lambda: jql_text(query), runs)  # type: ignore[arg-type]
    measure("agent: parse + wrap + canonical text (agent_jql)", lambda: agent_jql(("AURORA",), jql), runs)


if __name__ == "__main__":
    main()
