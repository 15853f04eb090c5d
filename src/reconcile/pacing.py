"""The pacing policy (seed: «Политика темпа и пауза на команде»)."""

from __future__ import annotations

from collections.abc import Iterable

from reconcile.settings import Settings

__all__ = ["COMMAND_OVERHEAD_SECONDS", "estimate_seconds", "pause_seconds"]

#: What a command costs besides its gap: the claim, its Jira reads and the report. Measured in the demo on
#: loopback (0.05 s a command): noise next to real gaps of 30-120 s, but without it the demo's scaled-down gaps
#: (0.2 s) made the estimate a third short of the wall time.
COMMAND_OVERHEAD_SECONDS = 0.05


def pause_seconds(command_type: str, settings: Settings) -> float:
    """What a delivery tells the agent to wait since its last Jira call: the gap of the delivered type."""
    return settings.gap(command_type)


def estimate_seconds(command_types: Iterable[str], settings: Settings) -> float:
    """A batch's estimate: the sum of the gaps of its commands' types and of each command's overhead, its tail
    refresh included."""
    return float(sum(settings.gap(t) + COMMAND_OVERHEAD_SECONDS for t in command_types))
