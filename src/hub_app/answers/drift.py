"""Answers about drift: a desired state Jira no longer shows, and a page of them."""

from __future__ import annotations

from typing import Any

import attrs

from reconcile.outlook import Drift

__all__ = ["DriftItemView", "DriftPage"]


@attrs.frozen(kw_only=True)
class DriftItemView:
    """A desired state Jira no longer shows: the command and aspect, wanted and now, who changed it and when."""

    command_id: int
    batch_id: int
    key: str
    type: str
    aspect: str
    wanted: Any
    now: Any
    changed_by: str | None
    changed_at: str | None

    @classmethod
    def of(cls, drift: Drift) -> DriftItemView:
        return cls(**{field.name: getattr(drift, field.name) for field in attrs.fields(cls)})


@attrs.frozen(kw_only=True)
class DriftPage:
    """A page of drift, and when the latest finished full refresh started (how fresh the mirror is)."""

    items: list[DriftItemView]
    total: int
    last_full_refresh_at: str | None
