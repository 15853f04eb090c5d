"""The hub's file store: how much it may hold, and which uploads it lets go (settings ``max_store_bytes`` and
``file_retention_hours``).

An upload that would take the store past ``max_store_bytes`` is refused (413, nothing stored); uploading bytes the
store already has takes no room. A file is kept while a ``queued`` or ``claimed`` command (an ``ensure_attachment``,
waiting for approval or not) names it, and for ``file_retention_hours`` after its last upload; then it is pruned,
so a retry or a reapply of a finished command after that asks for the file to be uploaded again.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from datetime import datetime, timedelta

from reconcile.vocabulary.errors import TooLargeError

__all__ = ["check_room", "files_to_prune", "retention_cutoff"]


def check_room(*, used: int, adding: int, limit: int) -> None:
    """Raise :class:`TooLargeError` when ``adding`` bytes to the ``used`` ones passes ``limit``."""
    if used + adding > limit:
        raise TooLargeError(
            f"хранилище файлов заполнено: занято {used} из max_store_bytes = {limit} байт, "
            f"файл в {adding} байт не помещается"
        )


def retention_cutoff(now: datetime, retention_hours: float) -> datetime:
    """Files last uploaded at or before this moment are past their retention."""
    return now - timedelta(hours=retention_hours)


def files_to_prune(uploaded: Mapping[str, datetime], *, needed: Collection[str], cutoff: datetime) -> list[str]:
    """The files (sha256 → last upload) to remove: past ``cutoff`` and named by no unfinished command; sorted."""
    return sorted(sha for sha, at in uploaded.items() if at <= cutoff and sha not in needed)
