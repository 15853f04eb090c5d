"""What the hub does with an agent's report (seed «Ошибки и подтверждение по состоянию»; DESIGN.md 4 and 6).

A report for a ``claimed`` command records its outcome. A report for a command that is no longer ``claimed``
(a repeat, or a late one after a cancel or the delivery limit) records only what the seed allows: the key of
a cancelled or limit-failed ``ensure_issue`` (its notes move to the key, the status stays), and a refresh's
facts, which are facts read from Jira whatever became of the command.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

import attrs

from reconcile.queue.claim import DELIVERY_LIMIT_ERROR
from reconcile.vocabulary.catalogue import CATALOGUE, REFRESH_TYPE

_BOARD_ID = re.compile(r"[0-9]{1,10}")

__all__ = [
    "ERROR_LIMIT",
    "ReportDecision",
    "board_types",
    "decide_report",
    "trim_error",
    "unreadable_keys",
    "vanishes",
]

#: ``command.error`` keeps at most this many characters (seed: «не больше 1500 символов»).
ERROR_LIMIT = 1500


def trim_error(error: str | None) -> str | None:
    return None if error is None else error[:ERROR_LIMIT]


@attrs.frozen(kw_only=True)
class ReportDecision:
    """``record``: store status, result, error, calls. ``key``: record this created key and move the notes.
    ``apply_refresh``: apply the refresh's result (boards, journal mark, vanished issues, confirmations).
    ``accepted``: what the agent is told — the reported status is the one the command has.
    """

    record: bool
    key: str | None
    apply_refresh: bool
    accepted: bool
    status: str


def _created_key(command_type: str, status: str, result: Mapping[str, Any]) -> str | None:
    key = result.get("key")
    if CATALOGUE[command_type].creates_issue and status == "done" and isinstance(key, str) and key:
        return key
    return None


def decide_report(
    *,
    command_type: str,
    current_status: str,
    current_error: str | None,
    reported_status: str,
    result: Mapping[str, Any],
    refresh_finished: bool,
) -> ReportDecision:
    """The hub's answer to a report; ``refresh_finished`` says a refresh's sync run already took a report."""
    key = _created_key(command_type, reported_status, result)
    is_refresh_done = command_type == REFRESH_TYPE and reported_status == "done"
    if current_status == "claimed":
        return ReportDecision(
            record=True, key=key, apply_refresh=is_refresh_done, accepted=True, status=reported_status
        )
    limit_failed = current_status == "failed" and current_error == DELIVERY_LIMIT_ERROR
    late_key = key if current_status == "cancelled" or limit_failed else None
    return ReportDecision(
        record=False,
        key=late_key,
        apply_refresh=is_refresh_done and not refresh_finished,
        accepted=current_status == reported_status,
        status=current_status,
    )


def board_types(result: Mapping[str, Any]) -> dict[int, str]:
    """Board types a refresh learnt: ``scrum`` and ``kanban`` are recorded, ``null`` changes nothing."""
    boards = result.get("boards")
    if not isinstance(boards, Mapping):
        return {}
    # A board id is a project's (an integer the database holds): anything else names no project's board.
    return {
        int(board_id): kind
        for board_id, kind in boards.items()
        if kind in ("scrum", "kanban") and _BOARD_ID.fullmatch(str(board_id)) and int(board_id) < 2**31
    }


def unreadable_keys(result: Mapping[str, Any]) -> frozenset[str]:
    """Issues a refresh could not read (``result.unreadable``): Jira returned them, so they have not vanished."""
    unreadable = result.get("unreadable")
    if not isinstance(unreadable, list):
        return frozenset()
    return frozenset(u["key"] for u in unreadable if isinstance(u, Mapping) and isinstance(u.get("key"), str))


def vanishes(
    *,
    labels: Iterable[str],
    project_names: Iterable[str],
    returned_by_run: bool,
    refreshed_at: datetime,
    run_started_at: datetime,
) -> bool:
    """After a full refresh: a project issue neither returned nor read as a neighbour has vanished.

    A late report must not vanish an issue that a newer refresh saw, so an issue refreshed since the run
    began stays.
    """
    in_project = bool(set(labels) & set(project_names))
    return in_project and not returned_by_run and refreshed_at < run_started_at
