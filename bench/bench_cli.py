"""How fast the admin commands start: ``sdlc-hub token add`` / ``token list`` as whole processes.

Run: ``PYTHONPATH=src python bench/bench_cli.py [--runs N]``. Each case starts a fresh interpreter (``python -m
hub_app.cli``) on a migrated SQLite data directory; prints the median wall and CPU (user + system) seconds of
the child. ``farm-bench -- python -m hub_app.cli token list --data-dir D`` gives the same figures from outside.
A measurement, not a test: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def run_once(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "hub_app.cli", *argv], env=env, check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "SDLC_HUB_DATA_DIR": tmp}
        env.pop("SDLC_HUB_DATABASE_URL", None)
        run_once(["migrate"], env)
        cases = {
            "token add": lambda i: ["token", "add", f"bench-{i}", "--role", "interface"],
            "token list": lambda i: ["token", "list"],
            "--version": lambda i: ["--version"],
        }
        for name, argv in cases.items():
            times = [run_once(argv(i), env) for i in range(runs)]
            wall = statistics.median(t[0] for t in times)
            cpu = statistics.median(t[1] for t in times)
            print(f"sdlc-hub {name}: median wall {wall:.2f} s, cpu {cpu:.2f} s over {runs} runs ({Path(tmp).name})")


if __name__ == "__main__":
    main()
