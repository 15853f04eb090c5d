"""What the page shows in words where the hub holds values (DESIGN.md 8, round 3): a command's result by its type's
rule (:mod:`reconcile.result_words`), its parameters by their catalogue labels.

Pure: the page, and any reader of the API, renders these same words.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reconcile.command_types import TYPES
from reconcile.wording import field_value

__all__ = ["params_in_words", "result_in_words"]


def result_in_words(command_type: str, params: Mapping[str, Any], result: Mapping[str, Any] | None) -> list[str]:
    """The phrases of a command's result (none for no result, an unknown type or a result of another shape)."""
    entry = TYPES.get(command_type)
    if entry is None or not isinstance(result, Mapping):
        return []
    return entry.result_words(params, result)


def params_in_words(command_type: str, params: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Each parameter given as ``(label, value)`` in the catalogue's order (a parameter the type does not name,
    as the hub's own ``boards``, by its name)."""
    entry = TYPES.get(command_type)
    known = entry.spec.params + entry.spec.hub_params if entry is not None else ()
    labels = {param.name: param.label for param in known}
    order = [param.name for param in known if param.name in params] + [n for n in params if n not in labels]
    return [(labels.get(name, name), field_value(name, params[name])) for name in order]
