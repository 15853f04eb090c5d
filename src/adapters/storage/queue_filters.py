"""The queue's filter (:class:`reconcile.outlook.queue_filter.QueueFilter`) as SQL over the batch table.

A state is a condition on the batch's approval and on which statuses its commands have (``EXISTS`` over the
``(batch_id, status)`` index); the text is a ``LIKE`` over ``batch.search``, written with the batch
(:func:`reconcile.outlook.queue_filter.search_text`), or over the keys of the issues the batch created (their commands'
results). Both databases answer the same: the text is case-folded before, and keys are ASCII.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from sqlalchemy import ColumnElement, and_, exists, func, not_, or_, select, true

from adapters.storage.models import BatchRow, CommandRow, table_of
from reconcile.outlook import ApprovalState, BatchState, QueueFilter
from reconcile.vocabulary import CATALOGUE, PENDING, CommandStatus, creating_types

__all__ = ["batch_filter"]

_BATCH = table_of(BatchRow)
_COMMAND = table_of(CommandRow)

_S = CommandStatus
_ERRORS = (_S.FAILED, _S.SKIPPED)
_CREATING = creating_types(CATALOGUE)


def _has(statuses: Collection[CommandStatus]) -> ColumnElement[bool]:
    """The batch has a command in one of ``statuses``."""
    values = sorted(status.value for status in statuses)
    return exists().where(_COMMAND.c.batch_id == _BATCH.c.id, _COMMAND.c.status.in_(values))


def _state(state: BatchState) -> ColumnElement[bool]:
    """:func:`reconcile.outlook.batch_state.batch_state` as SQL: the same states, tried in the same order."""
    rejected = _BATCH.c.approval_state == ApprovalState.REJECTED.value
    waiting = _BATCH.c.approval_state == ApprovalState.PENDING.value
    decided = or_(_BATCH.c.approval_state.is_(None), _BATCH.c.approval_state == ApprovalState.APPROVED.value)
    if state is BatchState.REJECTED:
        return rejected
    if state is BatchState.AWAITING_APPROVAL:
        return waiting
    unfinished = _has(PENDING)
    if state is BatchState.QUEUED:
        return and_(decided, unfinished, not_(_has(set(CommandStatus) - {_S.QUEUED})))
    if state is BatchState.RUNNING:
        return and_(decided, unfinished, _has(set(CommandStatus) - {_S.QUEUED}))
    finished = and_(decided, not_(unfinished))
    if state is BatchState.DONE_WITH_ERRORS:
        return and_(finished, _has(_ERRORS))
    if state is BatchState.CANCELLED:
        return and_(finished, not_(_has(_ERRORS)), _has([_S.CANCELLED]))
    return and_(finished, not_(_has([*_ERRORS, _S.CANCELLED])))


def _created(needle: str) -> ColumnElement[bool]:
    """The batch created an issue whose key holds ``needle`` (known only once its command reported: the result)."""
    key = func.lower(_COMMAND.c.result["key"].as_string())
    return exists().where(
        _COMMAND.c.batch_id == _BATCH.c.id, _COMMAND.c.type.in_(_CREATING), key.contains(needle, autoescape=True)
    )


def batch_filter(only: QueueFilter) -> ColumnElement[bool]:
    """The ``WHERE`` of the batches ``only`` asks for."""
    conditions: list[ColumnElement[bool]] = []
    if not only.automatic:
        conditions.append(_BATCH.c.token_name.is_not(None))
    if only.state is not None:
        conditions.append(_state(only.state))
    if only.author is not None:  # the batch's author, or the token it came with (issue 32: the page shows both)
        conditions.append(or_(_BATCH.c.token_name == only.author, _BATCH.c.author == only.author))
    if only.project is not None:
        conditions.append(_BATCH.c.project == only.project)
    if only.needle:
        conditions.append(or_(_BATCH.c.search.contains(only.needle, autoescape=True), _created(only.needle)))
    return and_(true(), *conditions)


def distinct_of(column: Any) -> Any:
    """The distinct non-null values of a batch column, sorted (the filter's choices)."""
    return select(column).where(column.is_not(None)).distinct().order_by(column)
