"""A draft of «Новый пакет» kept over a login (DESIGN.md 5.7, the hub): only for a session the hub issued, and
within bounds, so nobody fills the hub's disk without having logged in.

- A draft is kept only for a request that names a session the hub issued that is live or ended at most
  :data:`ENDED_SESSION_KEPT` ago (a form posted from an editor whose session ended meanwhile); an anonymous
  request stores nothing.
- At most :data:`MAX_DRAFT_BYTES` of UTF-8 each (a larger one is not kept), :data:`MAX_DRAFTS_PER_SESSION` per
  session (a newer one replaces the session's oldest: the person's latest work matters most), and
  :data:`MAX_TOTAL_BYTES` over every live draft (past it a new one is not kept, whoever's it would be).
- A draft lives :data:`DRAFT_LIFETIME`; the next session of the same browser takes its drafts over at the login,
  and ``/new`` opens the newest (once), then the next.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

import attrs

__all__ = [
    "DRAFT_LIFETIME",
    "ENDED_SESSION_KEPT",
    "MAX_DRAFTS_PER_SESSION",
    "MAX_DRAFT_BYTES",
    "MAX_TOTAL_BYTES",
    "DraftPlace",
    "place_draft",
]

DRAFT_LIFETIME = timedelta(hours=24)
#: How long after its end a session still keeps what its browser posts (and its cookie is still sent).
ENDED_SESSION_KEPT = timedelta(hours=24)
MAX_DRAFT_BYTES = 2_000_000
MAX_DRAFTS_PER_SESSION = 5
MAX_TOTAL_BYTES = 200_000_000


@attrs.frozen(kw_only=True)
class DraftPlace:
    """Whether a new draft is kept, and which of the session's drafts (ids) go to make room for it."""

    keep: bool
    drop: tuple[int, ...] = ()


def place_draft(size: int, *, session_drafts: Sequence[tuple[int, int]], total_bytes: int) -> DraftPlace:
    """Where a new draft of ``size`` bytes goes: ``session_drafts`` are the session's live drafts as ``(id, size)``,
    oldest first; ``total_bytes`` the size of every live draft."""
    if size > MAX_DRAFT_BYTES:
        return DraftPlace(keep=False)
    surplus = max(len(session_drafts) - MAX_DRAFTS_PER_SESSION + 1, 0)
    dropped = session_drafts[:surplus]
    if total_bytes - sum(s for _, s in dropped) + size > MAX_TOTAL_BYTES:
        return DraftPlace(keep=False)
    return DraftPlace(keep=True, drop=tuple(i for i, _ in dropped))
