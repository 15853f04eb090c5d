"""The pacing policy (seed: «Политика темпа и пауза на команде»)."""

from __future__ import annotations

from collections.abc import Iterable

from reconcile.settings import Settings

__all__ = ["estimate_seconds", "pause_seconds"]


def pause_seconds(command_type: str, settings: Settings) -> float:
    """What a delivery tells the agent to wait since its last Jira call: the gap of the delivered type."""
    return settings.gap(command_type)


def estimate_seconds(command_types: Iterable[str], settings: Settings) -> float:
    """A batch's estimate: the sum of the gaps of its commands' types, its tail refresh included."""
    return float(sum(settings.gap(t) for t in command_types))
