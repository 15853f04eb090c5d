"""Answers about drift: a page of the core's records (:class:`reconcile.outlook.Drift`: a desired state Jira no
longer shows — the command and aspect, wanted and now, who changed it and when), as the core keeps them."""

from __future__ import annotations

import attrs

from reconcile.outlook import Drift

__all__ = ["DriftPage"]


@attrs.frozen(kw_only=True)
class DriftPage:
    """A page of drift, and when the latest finished full refresh started (how fresh the mirror is)."""

    items: list[Drift]
    total: int
    last_full_refresh_at: str | None
