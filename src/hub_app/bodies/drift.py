"""Bodies about drift: what to put back (``POST /drift/reapply``), and the MCP tool ``drift_list``'s arguments."""

from __future__ import annotations

from typing import Any

import attrs

from adapters.storage.models import DB_INT_MAX
from hub_app.bodies.parsing import meta
from reconcile.vocabulary import ValidationError

__all__ = ["DriftArgs", "ReapplyIn"]


def _command_id(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= DB_INT_MAX:
        raise ValidationError(f"{what} — ожидается номер команды")
    return value


@attrs.frozen(kw_only=True)
class ReapplyIn:
    """``POST /drift/reapply``: the commands (``command_id`` of ``GET /drift`` items) whose drift to put back."""

    command_ids: list[int] = attrs.field(
        metadata=meta("list", "команды из GET /drift, чьи расхождения вернуть", item=_command_id, minItems=1)
    )


@attrs.frozen(kw_only=True)
class DriftArgs:
    project: str | None = attrs.field(default=None, metadata=meta("nonempty", "проект хаба; без него — всё зеркало"))
    limit: int | None = attrs.field(default=None, metadata=meta("int", minimum=0))
    offset: int | None = attrs.field(default=None, metadata=meta("int", minimum=0))
