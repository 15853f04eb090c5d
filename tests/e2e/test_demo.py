"""``sdlc-hub demo`` runs the whole stack with the sample batch and exits 0."""

from __future__ import annotations

import re
import subprocess

import attrs
import pytest

from loopback.demo import KEEP_HINT, PACING_NOTE
from loopback.processes import script
from loopback.stack import DEMO_PACING, demo_pacing
from reconcile.vocabulary.catalogue import CATALOGUE

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def demo_out() -> str:
    """What one run of ``sdlc-hub demo`` printed (it exited 0).

    Its wall time is measured in ``bench/`` (the timeout below only guards against a hang)."""
    done = subprocess.run([*script("sdlc-hub"), "demo"], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_demo_runs_and_exits_zero(demo_out: str) -> None:
    """The demo exits 0 with every command done, prints outcomes, the live figures, the Jira state, and closes with
    its pacing and ``--keep``."""
    out = demo_out
    assert "OK: demo finished" in out
    for command_type in CATALOGUE:  # the sample batch uses every type
        assert f"{command_type}: done" in out, out
    assert "at the agent's pace)" in out and "ETA" not in out
    assert "#" not in out  # a command reads «command 12», never «#12», which looked like «batch 2»
    closing = out.rstrip().splitlines()[-2:]
    assert closing == [PACING_NOTE, KEEP_HINT]
    assert "0.2 s between writes instead of the real 30-120 s" in PACING_NOTE
    assert "sdlc-hub demo --keep" in KEEP_HINT
    assert "attachment: демо.txt" in out
    assert "note on AURORA-" in out


def test_demo_takes_its_batch_back(demo_out: str) -> None:
    """After its batch the demo prints the undo's plan (a line per command, the created issue left), runs the undo
    batch with every inverse done, and Jira then holds none of what the batch wrote but the issue it created."""
    batch, undo = demo_out.split("\nundo plan: ", 1)
    plan, after = undo.split("\nJira after the undo:\n", 1)
    assert plan.startswith("«Откат пакета ") and "Демо sdlc-hub»" in plan.splitlines()[0]
    new_key = re.search(r"ensure_issue: задача (AURORA-\d+) создана пакетом и не удаляется", plan)
    assert new_key is not None, plan
    assert "~ срок: 24.12.2026 → пусто" in plan
    summary = next(line for line in plan.splitlines() if line.startswith("undo batch "))
    writers = [t for t, spec in CATALOGUE.items() if spec.writes and t != "ensure_issue"]
    assert sorted(part.split(": ")[0] for part in summary.split("): ", 1)[1].split(", ")) == sorted(writers)
    assert all(part.endswith(": done") for part in summary.split("): ", 1)[1].split(", ")), summary
    state = after.split("\n\nOK: demo finished", 1)[0]
    assert f"{new_key[1]}: 'Демо: сверка остатков'" in state
    assert "status: Ожидание разработки" in state and "status: Разработка" not in state
    for written in ("attachment:", "comment:", "Блокирует начало", "duedate: 2026-12-24"):
        assert written in batch and written not in state, written


def test_demo_help_is_plain_text() -> None:
    """``sdlc-hub demo --help`` names --keep and the demo's pacing, with no raw RST backticks."""
    done = subprocess.run(
        [*script("sdlc-hub"), "demo", "--help"], capture_output=True, text=True, timeout=60, check=True
    )
    assert "`" not in done.stdout
    assert "--keep" in done.stdout
    assert "0.2 s between writes" in done.stdout


def test_demo_pacing_scales_every_type_of_the_catalogue() -> None:
    """The demo's pacing is 0.2 s before every type that writes and 0.05 s before one that only reads, for the
    real catalogue and for a copy with a type more."""
    assert demo_pacing(CATALOGUE) == DEMO_PACING
    assert DEMO_PACING["ensure_issue"] == 0.2
    assert DEMO_PACING["refresh"] == 0.05
    writer = attrs.evolve(CATALOGUE["ensure_fields"], type="ensure_due")
    reader = attrs.evolve(CATALOGUE["refresh"], type="read_due")
    assert demo_pacing({**CATALOGUE, "ensure_due": writer, "read_due": reader}) == {
        **DEMO_PACING,
        "ensure_due": 0.2,
        "read_due": 0.05,
    }
