"""Errors of the core, split by whose fault they are (STYLE.md, habit 4)."""

from __future__ import annotations

__all__ = [
    "ConflictError",
    "ForbiddenError",
    "JiraAnswerError",
    "NotFoundError",
    "ReconcileError",
    "TooLargeError",
    "ValidationError",
]


class ReconcileError(Exception):
    """Base of the core's errors; ``str(error)`` is the message a person reads (the seed's words)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ValidationError(ReconcileError):
    """The caller's input breaks a rule: HTTP 422, nothing written. ``param`` names the parameter of a batch's
    command the message is about, when one is (the editor shows the message next to its field)."""

    def __init__(self, message: str, *, param: str | None = None) -> None:
        super().__init__(message)
        self.param = param


class ConflictError(ReconcileError):
    """The request conflicts with the current state: HTTP 409."""


class JiraAnswerError(ReconcileError):
    """Jira answered something that cannot be read (a field missing or of the wrong shape): the command fails,
    or a refresh lists the issue as unreadable. ``key`` names the issue (or the call), ``field`` the place."""

    def __init__(self, key: str, field: str, problem: str) -> None:
        super().__init__(f"ответ Jira по {key}: {field} — {problem}")
        self.key = key
        self.field = field


class NotFoundError(ReconcileError):
    """The named object (a batch, a command, a project, an issue of the mirror, a file) does not exist: HTTP 404."""


class ForbiddenError(ReconcileError):
    """The caller may not do this to this object, whatever its role (four eyes on an approval): HTTP 403."""


class TooLargeError(ReconcileError):
    """The request would make the hub hold more than it may (the file store's ``max_store_bytes``): HTTP 413,
    nothing written."""
