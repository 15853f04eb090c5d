"""What the page says in Russian where the hub's values are English words (DESIGN.md 8), and how it shows
times, durations and JSON."""

from __future__ import annotations

import functools
import json
from datetime import UTC, datetime, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from reconcile.outlook import BatchState

__all__ = [
    "APPROVAL_LABELS",
    "BAR_LABELS",
    "BATCH_STATE_LABELS",
    "STATUS_LABELS",
    "counts_told",
    "day",
    "duration",
    "estimate",
    "file_size",
    "moment",
    "pretty_json",
    "site",
    "status_label",
    "when",
    "zone_of",
]

STATUS_LABELS: dict[str, str] = {
    "queued": "в очереди",
    "claimed": "выполняется",
    "done": "выполнена",
    "failed": "ошибка",
    "skipped": "пропущена",
    "cancelled": "отменена",
    "confirmed_by_state": "подтверждена по состоянию",
}

APPROVAL_LABELS: dict[str, str] = {
    "pending": "ждёт одобрения",
    "approved": "одобрен",
    "rejected": "отклонён",
}


#: A batch's state (:class:`reconcile.outlook.batch_state.BatchState`) in words.
BATCH_STATE_LABELS: dict[BatchState, str] = {
    BatchState.AWAITING_APPROVAL: "ждёт одобрения",
    BatchState.QUEUED: "в очереди",
    BatchState.RUNNING: "выполняется",
    BatchState.DONE: "завершён",
    BatchState.DONE_WITH_ERRORS: "завершён с ошибками",
    BatchState.CANCELLED: "отменён",
    BatchState.REJECTED: "отклонён",
}

#: What a part of the bar (:class:`reconcile.outlook.batch_state.BarPart`) counts.
BAR_LABELS: dict[str, str] = {
    "done": "выполнено",
    "failed": "с ошибкой",
    "stopped": "пропущено или отменено",
    "running": "выполняется",
    "queued": "в очереди",
}


#: A cancelled batch's counts in words, cancelled first (issue 32: «отменено: 4, выполнено: 2», never «6/7»).
_TOLD: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("отменено", ("cancelled",)),
    ("выполнено", ("done", "confirmed_by_state")),
    ("с ошибкой", ("failed",)),
    ("пропущено", ("skipped",)),
    ("выполняется", ("claimed",)),
    ("в очереди", ("queued",)),
)


def counts_told(by_status: dict[str, int]) -> str:
    """A batch's commands counted in words by what happened to them: «отменено: 4, выполнено: 2»."""
    parts = []
    for word, statuses in _TOLD:
        count = sum(by_status.get(status, 0) for status in statuses)
        if count:
            parts.append(f"{word}: {count}")
    return ", ".join(parts)


def status_label(status: str) -> str:
    """A command's status as the page shows it (an unknown one as it is)."""
    return STATUS_LABELS.get(status, status)


def zone_of(name: str | None) -> tzinfo:
    """The Jira user's time zone by its IANA name; UTC when none is known or the name is no zone."""
    return _zone(name) if name else UTC


@functools.cache
def _zone(name: str) -> tzinfo:
    try:
        return ZoneInfo(name)
    except (ValueError, OSError, ZoneInfoNotFoundError):
        return UTC


def moment(value: str | datetime) -> datetime | None:
    """A time of the hub or of Jira as an aware datetime (a naive one is UTC); ``None`` when it is no ISO time."""
    try:
        found = value if isinstance(value, datetime) else datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return found if found.tzinfo is not None else found.replace(tzinfo=UTC)


def when(value: str | datetime | None, zone: str | None = None) -> str:
    """A moment as ``22.10.2026 12:00:00 MSK`` in the Jira user's time zone ``zone`` (its IANA name), or as
    ``22.10.2026 09:00:00 UTC`` when none is known; ``—`` for none. The page's one date format (issue 32): the
    day first, as the plans' and results' dates (``23.10.2026``) and the page's locale read it."""
    if value is None:
        return "—"
    found = moment(value)
    if found is None:
        return str(value)  # a time Jira wrote in a shape of its own: shown as it came
    local = found.astimezone(zone_of(zone))
    return local.strftime("%d.%m.%Y %H:%M:%S ") + (local.tzname() or "UTC")


def day(value: str | None) -> str:
    """A date of Jira (``2026-10-23``) as the page shows every date: ``23.10.2026``; «—» for none, and anything
    else as it came."""
    if not value:
        return "—"
    found = moment(value[:10]) if len(value) >= 10 and value[4:5] == "-" else None
    return found.strftime("%d.%m.%Y") if found is not None else value


def site(url: str) -> str:
    """An address as its link text: without its scheme and trailing slash (``jira.bank.local/jira``)."""
    return url.split("://", 1)[-1].rstrip("/")


def duration(seconds: float | None) -> str:
    """A span of time as a person reads it: «2 ч 5 мин», «4 мин 10 с», «12 с», «0,5 с»."""
    if seconds is None:
        return "—"
    if seconds < 10 and seconds != int(seconds):
        return f"{seconds:.1f}".replace(".", ",") + " с"
    total = round(seconds)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} ч {minutes} мин" if minutes else f"{hours} ч"
    if minutes:
        return f"{minutes} мин {secs} с" if secs else f"{minutes} мин"
    return f"{secs} с"


#: An estimate longer than this is said to be long, in so many words.
LONG_ESTIMATE_SECONDS = 3600


def estimate(seconds: float | None) -> str:
    """A batch's estimate as a person reads it: «около 4 мин», «около 8 ч 21 мин — дольше часа»."""
    if seconds is None:
        return "—"
    said = f"около {duration(seconds)}"
    return f"{said} — дольше часа" if seconds > LONG_ESTIMATE_SECONDS else said


_SIZE_UNITS = ("КБ", "МБ", "ГБ", "ТБ")


def file_size(size: int) -> str:
    """A file's size as a person reads it: «512 байт», «12,3 КБ», «4 МБ» (units of 1024)."""
    if size < 1024:
        return f"{size} байт"
    value = float(size)
    for unit in _SIZE_UNITS:
        value /= 1024
        if value < 1024 or unit == _SIZE_UNITS[-1]:
            break
    shown = f"{value:.1f}".rstrip("0").rstrip(".").replace(".", ",")
    return f"{shown} {unit}"


def pretty_json(value: Any) -> str:
    """JSON indented for reading, Cyrillic as it is."""
    return json.dumps(value, ensure_ascii=False, indent=2, sort_keys=False)
