"""What the hub adds to a command at every delivery (first and repeated) and never stores.

Seed 001 and DESIGN.md section 6: temp keys substituted; ``size`` for ``ensure_attachment`` (the file's
current size in the hub's store, ``null`` when the file is gone); ``boards`` (every project's board, without
repeats) and ``history`` (see :mod:`reconcile.queue.history`) for ``refresh``. The delivery's ``pause_seconds`` is
:func:`reconcile.queue.pacing.pause_seconds`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from reconcile.queue.tempkeys import substitute
from reconcile.vocabulary.catalogue import CATALOGUE, REFRESH_TYPE

__all__ = ["boards_param", "complete_params"]


def boards_param(projects: Iterable[tuple[int | None, str | None]]) -> list[dict[str, Any]]:
    """``[{id, type}]`` from the projects' ``(board_id, board_type)`` in creation order, without repeats.

    Projects without a board are left out. When projects share a board, the first known type wins.
    """
    boards: dict[int, str | None] = {}
    for board_id, board_type in projects:
        if board_id is None:
            continue
        if boards.get(board_id) is None:
            boards[board_id] = board_type
    return [{"id": board_id, "type": board_type} for board_id, board_type in boards.items()]


def complete_params(
    command_type: str,
    params: Mapping[str, Any],
    *,
    resolved_temp_keys: Mapping[str, str],
    file_size: int | None = None,
    boards: Iterable[Mapping[str, Any]] = (),
    history: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The params sent to the agent: the stored ``params`` plus the delivery-time additions.

    - temp keys in ``resolved_temp_keys`` substituted (:func:`reconcile.queue.tempkeys.substitute`);
    - a command that carries a file (``ensure_attachment``): ``size`` = ``file_size``, always present, ``None``
      when the file is gone;
    - ``refresh``: ``boards`` always (a list, maybe empty); ``history`` only when given.

    ``params`` is not changed.
    """
    result = substitute(command_type, params, resolved_temp_keys)
    if CATALOGUE[command_type].file_param is not None:
        result["size"] = file_size
    elif command_type == REFRESH_TYPE:
        result["boards"] = [dict(board) for board in boards]
        if history is not None:
            result["history"] = dict(history)
    return result
