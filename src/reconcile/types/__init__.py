"""Each command type bound whole: its executor, plan lines, result words, state check and dry-run
answers; a prediction and the plan lines a write maps to.

The apps and other tools import from this face only; its modules are the inside."""

from __future__ import annotations

from reconcile.types.binding import executor_for
from reconcile.types.write_lines import Difference, PlanCheck, Reads, WriteLine

__all__ = ["Difference", "PlanCheck", "Reads", "WriteLine", "executor_for"]
