"""P2: how close the agent keeps a paced batch to its mandated pauses (issue 23 item 3, DESIGN.md 5.6).

Run: ``python bench/bench_pacing.py [--commands 20] [--pacing 0.5] [--runs 3]``. Real processes on loopback
(:mod:`loopback.stack`: ``jira-sim``, ``sdlc-hub serve`` on SQLite, ``sdlc-agent run``), every type paced at
``--pacing`` seconds. After a full refresh, one batch of ``--commands`` commands that each make one write
(``ensure_fields`` and ``ensure_comment`` in turn, on two issues of the sample) runs to its end.

P2 is the time from the batch's first write to its last, read from the simulator's call log, over the pauses the
policy mandates between them (``(commands - 1) × pacing``): 1.0 would be an agent that adds nothing to the pacing.
What it adds per command (the claim, the reads, the delivery check, the report) is printed beside it.

Which code runs is chosen by ``PYTHONPATH`` (the processes are started from it too), so one run can compare two
trees: ``PYTHONPATH=/work/main/src python bench/bench_pacing.py`` against this tree's ``src``.
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Any

import loopback.stack as loopback_stack
from loopback.stack import checked, start_stack, wait_batch
from reconcile.vocabulary.catalogue import CATALOGUE

_ISSUES = ("AURORA-1533", "AURORA-1538")


def _batch(commands: int) -> dict[str, Any]:
    body: list[dict[str, Any]] = []
    for n in range(commands):
        key = _ISSUES[n % len(_ISSUES)]
        if n % 2:
            body.append({"type": "ensure_comment", "params": {"key": key, "marker": f"[p2-{n}]", "body": "темп"}})
        else:
            body.append({"type": "ensure_fields", "params": {"key": key, "duedate": f"2027-01-{n // 2 + 1:02d}"}})
    return {"author": "bench", "title": "P2", "commands": body}


def _at(call: dict[str, Any]) -> float:
    return datetime.fromisoformat(str(call["at"]).replace("Z", "+00:00")).timestamp()


def _is_write(call: dict[str, Any]) -> bool:
    return call["method"] != "GET" and not str(call["path"]).endswith("/search")


def one_run(commands: int, pacing: float) -> tuple[float, float]:
    """(P2, milliseconds added per command) of one batch on a fresh stack."""
    with tempfile.TemporaryDirectory(prefix="bench-p2-") as tmp:
        stack = start_stack(Path(tmp), pacing=dict.fromkeys(CATALOGUE, pacing), claim_wait_seconds=2.0)
        try:
            stack.start_agent()
            with stack.client() as client:
                refresh = checked(client.post("/refresh", json={}))
                wait_batch(client, refresh["id"], out=io.StringIO(), timeout=120)
                with stack.sim() as sim:
                    sim.delete("/_sim/calls")
                batch = checked(client.post("/batches", json=_batch(commands)))
                wait_batch(client, batch["id"], out=io.StringIO(), timeout=120 + commands * pacing * 3)
            with stack.sim() as sim:
                calls = sim.get("/_sim/calls").json()
        finally:
            stack.stop()
    writes = sorted(_at(c) for c in (calls if isinstance(calls, list) else calls["items"]) if _is_write(c))
    if len(writes) != commands:
        raise RuntimeError(f"expected {commands} writes, the simulator saw {len(writes)}")
    mandated = (commands - 1) * pacing
    span = writes[-1] - writes[0]
    return span / mandated, (span - mandated) / (commands - 1) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--commands", type=int, default=20)
    parser.add_argument("--pacing", type=float, default=0.5)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    code = Path(loopback_stack.__file__).resolve().parents[1]
    results = [one_run(args.commands, args.pacing) for _ in range(args.runs)]
    ratios = [r for r, _ in results]
    added = [a for _, a in results]
    print(
        f"{code}: P2 {statistics.median(ratios):.3f} (runs {', '.join(f'{r:.3f}' for r in ratios)}), "
        f"{statistics.median(added):.1f} ms a command over {args.pacing} s pacing",
        file=sys.stdout,
    )


if __name__ == "__main__":
    main()
