"""Temp keys inside a batch (seed 001, «Временные ключи и ссылки внутри пакета»).

A key parameter of any command may be a temp key ``new:<n>``, created by the ``ensure_issue`` of the same
batch with that ``temp_key``. The hub issues such a command only after that ``ensure_issue`` is ``done`` (or
``confirmed_by_state``), with the real key substituted. When the ``ensure_issue`` ended otherwise, the
dependent command is ``skipped`` with the seed's message.

The tail refresh is the exception: it reads whatever keys of the batch exist, so its unresolved temp keys are
dropped; when none is left it is ``skipped`` with :data:`NO_KEYS_TO_REFRESH` (a decision of ours, the seed is
silent).

Everything here is pure: outcomes of the creating ``ensure_issue`` commands come in as values.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from reconcile.vocabulary.catalogue import REFRESH_TYPE
from reconcile.vocabulary.commands import is_temp_key, key_params
from reconcile.vocabulary.lifecycle import PENDING, RESOLVED

__all__ = [
    "NO_KEYS_TO_REFRESH",
    "Ready",
    "Skip",
    "TempKeyOutcome",
    "Wait",
    "outcome_of",
    "resolved_keys",
    "result_key",
    "settle",
    "skip_reason",
    "substitute",
    "temp_refs",
]

NO_KEYS_TO_REFRESH = "нет ключей для обновления"


@attrs.frozen(kw_only=True)
class TempKeyOutcome:
    """Where the ``ensure_issue`` that creates a temp key stands: its ``status`` and ``result.key`` if any."""

    status: str
    key: str | None = None

    @property
    def resolved(self) -> bool:
        """The issue exists and its key is known: dependents may be issued."""
        return self.status in RESOLVED and bool(self.key)

    @property
    def pending(self) -> bool:
        """The ``ensure_issue`` has not finished: dependents wait."""
        return self.status in PENDING


def result_key(result: object) -> str | None:
    """The key a stored ``ensure_issue`` ``result`` names: ``result.key`` if a string."""
    key = result.get("key") if isinstance(result, Mapping) else None
    return key if isinstance(key, str) else None


def outcome_of(status: str, result: object) -> TempKeyOutcome:
    """The outcome of an ``ensure_issue`` from its stored ``status`` and ``result`` (:func:`result_key`)."""
    return TempKeyOutcome(status=status, key=result_key(result))


@attrs.frozen(kw_only=True)
class Ready:
    """Every temp key the command references is resolved; ``params`` have the real keys."""

    params: dict[str, Any]


@attrs.frozen(kw_only=True)
class Wait:
    """The ``ensure_issue`` creating ``temp_key`` has not finished yet."""

    temp_key: str


@attrs.frozen(kw_only=True)
class Skip:
    """The command can never run: it is ``skipped`` with ``error``."""

    error: str


def _refs_in(value: object) -> list[str]:
    if isinstance(value, list | tuple):
        return [v for v in value if is_temp_key(v)]
    return [value] if isinstance(value, str) and is_temp_key(value) else []


def temp_refs(command_type: str, params: Mapping[str, Any]) -> tuple[str, ...]:
    """The temp keys ``params`` reference, in parameter order, without repeats.

    ``ensure_issue``'s own ``temp_key`` is a definition, not a reference; its ``epic_key`` is a reference.
    For ``refresh`` every temp key in ``keys`` counts.
    """
    return tuple(dict.fromkeys(ref for name in key_params(command_type) for ref in _refs_in(params.get(name))))


def substitute(command_type: str, params: Mapping[str, Any], resolved: Mapping[str, str]) -> dict[str, Any]:
    """A copy of ``params`` with every temp key found in ``resolved`` replaced by its real key.

    Unresolved temp keys stay as they are, except in ``refresh`` ``keys``, where they are dropped (a tail
    refresh reads only the keys that exist). Idempotent: substituting twice changes nothing more.
    """
    result = dict(params)
    for name in key_params(command_type):
        value = result.get(name)  # an absent parameter is neither a list nor a text: nothing to replace
        if command_type == REFRESH_TYPE and isinstance(value, list | tuple):
            # ``resolved`` maps temp keys only: a real key is kept as it is.
            result[name] = [resolved.get(v, v) for v in value if not is_temp_key(v) or v in resolved]
        elif isinstance(value, str) and is_temp_key(value) and value in resolved:
            result[name] = resolved[value]
    return result


def skip_reason(temp_key: str, outcome: str) -> str:
    """The seed's error of a command skipped because the ``ensure_issue`` of ``temp_key`` ended ``outcome``.

    ``cancelled`` → «создание задачи new:<n> отменено»; anything else (``failed``, ``skipped``, or a
    ``done`` without a key) → «задача new:<n> не создана».
    """
    if outcome == "cancelled":
        return f"создание задачи {temp_key} отменено"
    return f"задача {temp_key} не создана"


def resolved_keys(outcomes: Mapping[str, TempKeyOutcome]) -> dict[str, str]:
    """``temp_key → real key`` for the resolved outcomes only."""
    return {tk: o.key for tk, o in outcomes.items() if o.resolved and o.key}


def settle(command_type: str, params: Mapping[str, Any], outcomes: Mapping[str, TempKeyOutcome]) -> Ready | Skip | Wait:
    """What to do with a queued command at the head of the queue, given its batch's temp key ``outcomes``.

    - a referenced temp key whose ``ensure_issue`` ended without a key → :class:`Skip` with
      :func:`skip_reason` of the first such key in parameter order (a missing outcome counts as «не создана»);
      for ``refresh`` such keys are dropped instead, and only a refresh left with no keys is skipped
      (:data:`NO_KEYS_TO_REFRESH`);
    - otherwise a referenced temp key still ``queued``/``claimed`` → :class:`Wait`;
    - otherwise :class:`Ready` with the keys substituted.
    """
    refs = temp_refs(command_type, params)
    pending: str | None = None
    for ref in refs:
        outcome = outcomes.get(ref)
        if outcome is not None and outcome.pending:
            pending = pending or ref
        elif (outcome is None or not outcome.resolved) and command_type != REFRESH_TYPE:
            return Skip(error=skip_reason(ref, outcome.status if outcome else "failed"))
    if pending is not None:
        return Wait(temp_key=pending)
    ready = substitute(command_type, params, resolved_keys(outcomes))
    if command_type == REFRESH_TYPE and "keys" in params and params["keys"] is not None and not ready["keys"]:
        return Skip(error=NO_KEYS_TO_REFRESH)
    return Ready(params=ready)
