"""A setting's ``metadata``: its name and description for a person, which the settings form shows."""

from __future__ import annotations

from typing import Any

__all__ = ["about"]


# Runs only at import, before mutmut forks (docs/mutation.md): a mutant of it would never run.
def about(label: str, doc: str, **extra: Any) -> dict[str, Any]:  # pragma: no mutate block
    """``{"label": …, "doc": …}`` and, for a choice, its ``choices``."""
    return {"label": label, "doc": doc, **extra}
