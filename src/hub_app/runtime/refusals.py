"""What every door answers to a refused request: one table from the core's errors to HTTP statuses.

The API answers the status with ``{status_code, detail}`` (:mod:`hub_app.api.errors`); the page shows its error
page with the status, or an action's message next to its form (:mod:`hub_app.web.errors`,
:mod:`hub_app.web.acting`); MCP answers a tool error with the message (:mod:`hub_app.mcp.server`). An error is
looked up along its class hierarchy, so a subclass (:class:`~reconcile.vocabulary.lifecycle.IllegalTransition`,
:class:`~reconcile.queue.agents.AgentConflict`, :class:`~adapters.files.FileTooLargeError`) gets its parent's status at
every door. An error the table does not name is the hub's own fault: logged, and answered «внутренняя ошибка хаба»
(500) without details.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import attrs

from reconcile.batches import InvalidBatch
from reconcile.outlook import PlanChanged
from reconcile.vocabulary import ConflictError, ForbiddenError, NotFoundError, TooLargeError, ValidationError

__all__ = ["INTERNAL_ERROR", "STATUS_BY_ERROR", "Refusal", "refusal"]

INTERNAL_ERROR = "внутренняя ошибка хаба"

#: Errors split by whose fault they are (STYLE.md, habit 4), each with the status every door gives it.
STATUS_BY_ERROR: Mapping[type[Exception], int] = MappingProxyType(
    {
        ValidationError: 422,
        ConflictError: 409,
        ForbiddenError: 403,
        NotFoundError: 404,
        TooLargeError: 413,
    }
)


@attrs.frozen
class Refusal:
    """A refused request: its HTTP status and the message a person reads (the seed's words); a batch refused by its
    validation (:class:`~reconcile.batches.all_errors.InvalidBatch`, one error or more) adds every error found,
    ``{command, param?, message}`` (the first is ``message``). Any other refusal has none."""

    status: int
    message: str
    errors: tuple[dict[str, Any], ...] = ()
    #: A plan that changed since the person read it (:class:`~reconcile.outlook.approved_plan.PlanChanged`): the one
    # now.
    plan: dict[str, Any] | None = None


def refusal(exc: BaseException) -> Refusal | None:
    """The refusal ``exc`` stands for, by the nearest class of its hierarchy in :data:`STATUS_BY_ERROR`; ``None``
    when it is none (the hub's own fault)."""
    for cls in type(exc).__mro__:
        status = STATUS_BY_ERROR.get(cls)
        if status is not None:
            found = exc.errors if isinstance(exc, InvalidBatch) else ()
            plan = exc.plan.to_json() if isinstance(exc, PlanChanged) else None
            return Refusal(status=status, message=str(exc), errors=tuple(e.to_json() for e in found), plan=plan)
    return None
