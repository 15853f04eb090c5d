"""Bodies about batches and their commands: ``POST /batches`` (documented here, checked as a whole by
:func:`reconcile.batches.validation.validate_batch`), cancel, reject, refresh, and the MCP tools' arguments naming a
batch or a command."""

from __future__ import annotations

from typing import Any

import attrs

from hub_app.bodies.parsing import HIDDEN, meta
from reconcile.outlook import PLAN_NEEDED

__all__ = [
    "ApproveIn",
    "BatchCancel",
    "BatchIn",
    "BatchNoteIn",
    "BatchRef",
    "BatchStatusArgs",
    "CancelIn",
    "CommandIn",
    "CommandRef",
    "EmptyIn",
    "RefreshIn",
    "RejectIn",
]


@attrs.frozen(kw_only=True)
class CommandIn:
    """One command of a batch: its parameters are described by the command catalogue (one source)."""

    type: str
    params: dict[str, Any]


@attrs.frozen(kw_only=True)
class BatchNoteIn:
    key: str
    text: str


@attrs.frozen(kw_only=True)
class BatchIn:
    """``POST /batches`` (validated as a whole by the core: the first violation answers 422)."""

    author: str
    title: str
    commands: list[CommandIn]
    project: str | None = None
    notes: list[BatchNoteIn] | None = None


@attrs.frozen(kw_only=True)
class EmptyIn:
    """A request without fields (``{}`` or an empty body)."""


@attrs.frozen(kw_only=True)
class CancelIn:
    force: bool = attrs.field(
        default=False, metadata=meta("bool", "и команду, уже выданную агенту (она, возможно, уже пишется в Jira)")
    )


@attrs.frozen(kw_only=True)
class ApproveIn:
    plan: str = attrs.field(
        metadata=meta(
            "nonempty", "digest одобряемого плана (GET /batches/{id}/plan): другой план — 409", missing=PLAN_NEEDED
        )
    )


@attrs.frozen(kw_only=True)
class RejectIn:
    reason: str = attrs.field(metadata=meta("nonempty", "почему пакет отклонён (попадёт в error его команд)"))


@attrs.frozen(kw_only=True)
class RefreshIn:
    """``{keys}``, ``{jql}`` or ``{}`` (a full refresh by the base JQL)."""

    keys: list[str] | None = attrs.field(default=None, metadata=meta("list[str]"))
    jql: str | None = attrs.field(default=None, metadata=meta("nonempty"))
    given: frozenset[str] = attrs.field(default=frozenset(), metadata=HIDDEN)


@attrs.frozen(kw_only=True)
class BatchRef:
    batch_id: int = attrs.field(metadata=meta("int", minimum=1))


@attrs.frozen(kw_only=True)
class BatchStatusArgs:
    """MCP ``batch_status``: the batch, and how long to wait for a command of it to change status."""

    batch_id: int = attrs.field(metadata=meta("int", minimum=1))
    wait_seconds: float = attrs.field(
        default=0,
        metadata=meta(
            "number",
            "ждать до стольких секунд (не больше 55), пока статус какой-нибудь команды пакета (или его одобрение) "
            "не изменится: ответ — сразу после изменения, иначе по истечении срока; 0 — ответить сразу",
            maximum=55,
        ),
    )


@attrs.frozen(kw_only=True)
class BatchCancel:
    batch_id: int = attrs.field(metadata=meta("int", minimum=1))
    force: bool = attrs.field(default=False, metadata=meta("bool"))


@attrs.frozen(kw_only=True)
class BatchUndo:
    batch_id: int = attrs.field(metadata=meta("int", minimum=1))
    # The plan first: the undo batch is created only when the caller says so.
    dry_run: bool = attrs.field(default=True, metadata=meta("bool"))


@attrs.frozen(kw_only=True)
class CommandRef:
    command_id: int = attrs.field(metadata=meta("int", minimum=1))
