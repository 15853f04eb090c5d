"""Which commands touched an issue (issue 32: the issue's page lists the batches and commands that did): a command
that writes and names the issue — by its key, or by the temp key its batch's ``ensure_issue`` created it under —
or the ``ensure_issue`` that created it. A ``refresh`` only reads, so a batch's tail refresh touches nothing.

Pure: the storage finds the candidate batches (those whose text holds the key, :mod:`reconcile.outlook.queue_filter`),
this rule says which of their commands count.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol, TypeVar

from reconcile.batches.rules import key_values
from reconcile.vocabulary.catalogue import CATALOGUE

__all__ = ["Command", "created_keys", "touching"]


class Command(Protocol):
    """What the rule reads of a stored command."""

    @property
    def type(self) -> str: ...

    @property
    def params(self) -> Mapping[str, Any]: ...

    @property
    def result(self) -> Mapping[str, Any] | None: ...


def _created(command: Command) -> str | None:
    spec = CATALOGUE.get(command.type)
    key = command.result.get("key") if spec is not None and spec.creates_issue and command.result else None
    return key if isinstance(key, str) else None


def created_keys(commands: Iterable[Command]) -> dict[str, str]:
    """The batch's temp keys whose issues exist: ``new:1`` → the key its ``ensure_issue`` reported."""
    found = {}
    for command in commands:
        key, temp = _created(command), command.params.get("temp_key")
        if key is not None and isinstance(temp, str):
            found[temp] = key
    return found


C = TypeVar("C", bound=Command)


def touching(key: str, commands: Iterable[C]) -> list[C]:
    """The commands of one batch that touched ``key``, in the batch's order."""
    batch = list(commands)
    created = created_keys(batch)
    found = []
    for command in batch:
        spec = CATALOGUE.get(command.type)
        if spec is None or not spec.writes:
            continue
        named = {created.get(value, value) for value in key_values(command.type, command.params)}
        if key in named or _created(command) == key:
            found.append(command)
    return found
