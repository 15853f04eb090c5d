"""Drafts kept over an expired session (filled in by piece 3)."""

from __future__ import annotations

from hub_app.connection import HubRequest
from hub_app.web.editor import Draft

__all__ = ["take"]


async def take(request: HubRequest) -> Draft | None:
    """The draft kept for this browser before its login, taken (once)."""
    return None
