"""The ``history`` parameter of a refresh and the journal mark (seed 001, «Журнал изменений в refresh»;
DESIGN.md sections 3 and 4).

- Base JQL: ``project = <jira_project> AND labels in ("P1", "P2", …)`` over all projects in creation order;
  none without projects. A *full* run is a refresh by the base JQL current at delivery.
- Start JQL: ``(<base JQL>) AND sprint in openSprints() AND statusCategory != Done``.
- Journal mark: the ``started_at`` of the latest ``sync_run`` with ``history_at IS NOT NULL``, whatever its
  query (:func:`journal_mark`).
- ``history`` is added at every delivery of a refresh (first and repeated) and never stored
  (:func:`history_param`); ``history_at`` is set on a ``done`` report only for a run that read the journal of
  the whole base JQL — a full run, or the hub's change-only run by the base JQL (DESIGN.md 6.2) — whose result
  carries ``history`` without ``error`` (:func:`history_at_on_report`).
- The change-only run (:func:`is_changes_refresh`): the hub's own ``refresh {"jql": <base JQL>, "changes":
  true}``. It is not full (its ``sync_run.full`` is false and it judges no vanished issues) and gets the
  ``history`` of any non-full refresh, ``{since}``; its journal covers the base JQL from ``since`` to its start,
  so it may move the mark. ``POST /refresh {}`` is always a full run.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import attrs

from reconcile.queue.claim import DELIVERY_LIMIT
from reconcile.vocabulary.lifecycle import CommandStatus
from reconcile.vocabulary.text import utc_text

__all__ = [
    "HISTORY_OVERLAP",
    "JournalMark",
    "SyncRunMark",
    "answers_full_refresh",
    "base_jql",
    "format_since",
    "history_at_on_report",
    "history_param",
    "is_changes_refresh",
    "is_full_refresh",
    "journal_mark",
    "keys_jql",
    "start_jql",
    "sync_query",
]

#: The journal is read from the mark minus this overlap, so that nothing between two runs is missed.
HISTORY_OVERLAP = timedelta(minutes=15)


@attrs.frozen(kw_only=True)
class JournalMark:
    """The journal mark: ``started_at`` of the marking sync run and that run's ``query``."""

    started_at: datetime
    query: str


@attrs.frozen(kw_only=True)
class SyncRunMark:
    """The columns of one ``sync_run`` that decide the journal mark."""

    started_at: datetime
    query: str
    history_at: datetime | None = None


def _quote(label: str) -> str:
    return '"' + label.replace("\\", "\\\\").replace('"', '\\"') + '"'


def base_jql(jira_project: str, project_names: Sequence[str]) -> str | None:
    """``project = AURORA AND labels in ("AWPCA", "STOCKS_DRRK")``; ``None`` without projects.

    ``project_names`` are the projects' labels in creation order.
    """
    if not project_names:
        return None
    labels = ", ".join(_quote(name) for name in project_names)
    return f"project = {jira_project} AND labels in ({labels})"


def keys_jql(keys: Sequence[str]) -> str:
    """``key in (A-1, A-2)``: how a refresh by keys is read, and how its sync run names its query."""
    return f"key in ({', '.join(keys)})"


def sync_query(params: Mapping[str, Any]) -> str:
    """The query a delivered refresh reads (its sync run's ``query``): its JQL, or its keys as JQL."""
    jql = params.get("jql")
    return jql if isinstance(jql, str) else keys_jql(params.get("keys") or [])


def start_jql(base: str) -> str:
    """The start JQL: what the first journal read covers."""
    return f"({base}) AND sprint in openSprints() AND statusCategory != Done"


def is_full_refresh(params: Mapping[str, Any], base: str | None) -> bool:
    """Whether a refresh with ``params`` is a full run under the current base JQL ``base``.

    Full: no ``keys``, no ``changes``, and ``jql`` equal to the base JQL or absent (``POST /refresh {}``).
    Without a base JQL no run is full.
    """
    if base is None or params.get("keys") is not None or params.get("changes") is True:
        return False
    jql = params.get("jql")
    return jql is None or jql == base


def is_changes_refresh(params: Mapping[str, Any], base: str | None) -> bool:
    """Whether a refresh with ``params`` is the hub's change-only run under the current base JQL ``base``:
    ``changes`` true, no ``keys``, and ``jql`` equal to the base JQL (a change-only refresh created before a
    project was added is no longer one: its journal misses the new project's issues)."""
    if base is None or params.get("keys") is not None or params.get("changes") is not True:
        return False
    return params.get("jql") == base


def answers_full_refresh(
    params: Mapping[str, Any], *, status: CommandStatus, deliveries: int, base: str | None
) -> bool:
    """Whether a refresh command answers a new request for a full refresh instead of a second one: it is a full
    run under the current base JQL and it will still run — queued, or claimed with deliveries left (one that
    used them up is failed by the next claim)."""
    if not is_full_refresh(params, base):
        return False
    return status is CommandStatus.QUEUED or (status is CommandStatus.CLAIMED and deliveries < DELIVERY_LIMIT)


def _utc(value: datetime) -> datetime:
    # SQLite hands back naive datetimes; the hub stores UTC.
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def format_since(mark_started_at: datetime) -> str:
    """``mark − 15 minutes`` as ISO-8601 UTC with ``Z``, to the second (``2026-10-22T08:45:00Z``)."""
    return utc_text(_utc(mark_started_at) - HISTORY_OVERLAP)


def journal_mark(runs: Iterable[SyncRunMark]) -> JournalMark | None:
    """The mark: the latest (by ``started_at``) run with ``history_at`` set, whatever its query."""
    marked = [run for run in runs if run.history_at is not None]
    if not marked:
        return None
    latest = max(marked, key=lambda run: _utc(run.started_at))
    return JournalMark(started_at=latest.started_at, query=latest.query)


def history_param(
    *, full: bool, has_base_jql: bool, mark: JournalMark | None, base_jql: str | None
) -> dict[str, str] | None:
    """The ``history`` parameter added at delivery of a refresh, or ``None`` when none is added.

    - no base JQL (no projects) → ``None``;
    - full run, mark → ``{since}``, plus ``jql: <start JQL>`` when the mark's query is not the base JQL;
    - full run, no mark → ``{jql: <start JQL>}``;
    - ``keys`` or another JQL → ``{since}`` with a mark, else ``None``.

    ``has_base_jql`` must agree with ``base_jql is not None``.
    """
    if has_base_jql != (base_jql is not None):
        raise ValueError("has_base_jql disagrees with base_jql")
    if base_jql is None:
        return None
    if not full:
        return {"since": format_since(mark.started_at)} if mark is not None else None
    if mark is None:
        return {"jql": start_jql(base_jql)}
    param = {"since": format_since(mark.started_at)}
    if mark.query != base_jql:
        param["jql"] = start_jql(base_jql)
    return param


def history_at_on_report(*, full: bool, result: Mapping[str, Any] | None, changes: bool = False) -> bool:
    """Whether a ``done`` refresh sets its ``sync_run.history_at`` to the report time.

    Only a full run (``full``: its ``sync_run.full``, decided at delivery) or a change-only run (``changes``:
    :func:`is_changes_refresh` of its params under the base JQL at the report) whose ``result.history`` is
    present without ``error``.
    """
    if not (full or changes) or result is None:
        return False
    history = result.get("history")
    return isinstance(history, Mapping) and history.get("error") is None
