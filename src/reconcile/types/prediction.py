"""A command's prediction: what the dry run (:mod:`reconcile.outlook.dryrun`) says it would do, which its plan lines
read."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from reconcile.types.write_lines import WriteLine

__all__ = ["Prediction"]


@attrs.frozen(kw_only=True)
class Prediction:
    """What one command would do: its writes in order, the report it would give (status ``done``, ``failed``, or
    ``unknown`` when its type's dry-run answers do not cover a call), and what is uncertain."""

    seq: int
    type: str
    writes: tuple[dict[str, Any], ...]
    status: str
    result: Mapping[str, Any]
    error: str | None = None
    pause_seconds: float = 0
    unknown: tuple[str, ...] = ()
    #: Its writes as the plan lines a person approves (:mod:`reconcile.types.write_lines`).
    lines: tuple[WriteLine, ...] = ()
    #: The call the mirror could not answer, «не известно по зеркалу: <METHOD path>»: the prediction stops
    #: there (status ``unknown``), and the writes after it are not in the plan, so the agent makes none of them.
    beyond: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "type": self.type,
            "writes": list(self.writes),
            "status": self.status,
            "result": dict(self.result),
            "error": self.error,
            "pause_seconds": self.pause_seconds,
            "unknown": list(self.unknown),
        }
