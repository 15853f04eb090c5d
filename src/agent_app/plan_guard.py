"""The approved plan as the agent holds a command to it (DESIGN.md 6.5): a delivery of an approved batch carries
``context.approved``, its command's lines; every write is checked against them first
(:class:`reconcile.types.write_lines.PlanCheck`), and a write not among them is not made.

What the hub sends can only narrow what the agent writes, never widen it: an entry that is no line matches nothing
(so the write it would have allowed is dropped), and a delivery without ``approved`` is checked by the bank's
policy alone, as before.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reconcile.executors import context_settings
from reconcile.types import PlanCheck, Reads, WriteLine
from reconcile.vocabulary import ValidationError

__all__ = ["plan_check"]


def plan_check(params: Mapping[str, Any], context: Mapping[str, Any]) -> PlanCheck | None:
    """The check of a delivery's writes (``None``: its batch carries no approved plan, or its settings cannot be
    read, when the executor fails before any write anyway)."""
    if "approved" not in context:
        return None
    try:
        settings = context_settings(context)
    except ValidationError:
        return None
    told = context["approved"]
    lines = [WriteLine.from_json(item) for item in told if isinstance(item, Mapping)] if isinstance(told, list) else []
    return PlanCheck(params=params, approved=lines, reads=Reads(settings))
