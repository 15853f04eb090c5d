"""Every error of a refused batch, each next to its command (DESIGN.md 8, round 3): what the editor shows at once.

:func:`reconcile.batches.validation.validate_batch` goes on past the first violation and gathers one :class:`BatchError`
per broken rule it can tell apart: a command's first violation (its number, the parameter when the message is about
one), a batch-level one (``command`` is ``None``: ``author``, ``title``, a note). :class:`InvalidBatch` carries them
in the order a person reads the batch; its message is the first one's, the seed's words every door has always
answered (``detail``), so a client that reads only ``detail`` sees no change.
"""

from __future__ import annotations

from typing import Any

import attrs

from reconcile.vocabulary.errors import ValidationError

__all__ = ["BatchError", "Errors", "InvalidBatch"]


@attrs.frozen(kw_only=True)
class BatchError:
    """One violation: ``command`` is the 1-based position in the batch («команда 1»), ``None`` for the batch's own
    fields and notes; ``param`` the command's parameter it is about, when it is about one."""

    command: int | None
    message: str
    param: str | None = None

    def to_json(self) -> dict[str, Any]:
        """``{command, param?, message}``: ``param`` only when there is one."""
        answer: dict[str, Any] = {"command": self.command, "message": self.message}
        if self.param is not None:
            answer["param"] = self.param
        return answer


class InvalidBatch(ValidationError):
    """A batch refused with every error found (422); ``str()`` is the first one's message."""

    def __init__(self, errors: tuple[BatchError, ...]) -> None:
        assert errors
        super().__init__(errors[0].message, param=errors[0].param)
        self.errors = errors


@attrs.define
class Errors:
    """The errors gathered so far, in the order found."""

    found: list[BatchError] = attrs.Factory(list)

    def add(self, command: int | None, error: ValidationError) -> None:
        self.found.append(BatchError(command=command, message=error.message, param=error.param))

    def raise_any(self) -> None:
        if self.found:
            raise InvalidBatch(tuple(self.found))
