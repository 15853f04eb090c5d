"""The fault book: injected faults waiting for matching calls, and the log of every ``/rest/*`` call."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

import attrs

from reconcile.vocabulary import utc_text

__all__ = ["FAULT_STATUSES", "Fault", "FaultBook", "stamp"]

FAULT_STATUSES = (429, 503, "drop", "pass")


def stamp(at: datetime) -> str:
    """The control API's form of a time: ISO 8601 in UTC with ``Z``."""
    return utc_text(at, "auto")


@attrs.define(kw_only=True)
class Fault:
    """The next ``times`` calls matching ``method`` and ``path_regex`` fail with ``status`` after ``latency``."""

    method: str | None
    path_regex: str | None
    status: int | str
    retry_after: float | None
    times: int
    latency: float

    def matches(self, method: str, path: str) -> bool:
        if self.method is not None and self.method.upper() != method.upper():
            return False
        return self.path_regex is None or re.search(self.path_regex, path) is not None


@attrs.define
class FaultBook:
    """Faults in the order they were added (the first match wins) and the calls in the order they came."""

    faults: list[Fault] = attrs.Factory(list)
    _calls: list[dict[str, Any]] = attrs.Factory(list)

    @property
    def calls(self) -> list[dict[str, Any]]:
        """Every ``/rest/*`` call in order: ``{method, path, status, at}`` (``status`` 0 = dropped)."""
        return [dict(c) for c in self._calls]

    def record(self, method: str, path: str, status: int, at: datetime) -> None:
        self._calls.append({"method": method, "path": path, "status": status, "at": stamp(at)})

    def clear_calls(self) -> None:
        self._calls.clear()

    def add(
        self,
        *,
        method: str | None = None,
        path_regex: str | None = None,
        status: int | str = 429,
        retry_after: float | None = None,
        times: int = 1,
        latency: float = 0,
    ) -> None:
        """Make the next ``times`` matching ``/rest/*`` calls fail with ``status`` (429, 503, ``"drop"``).

        ``status="pass"`` only delays (``latency`` seconds) and then answers normally; ``ValueError`` names a bad
        argument.
        """
        if status not in FAULT_STATUSES:
            raise ValueError(f"fault status must be one of 429, 503, 'drop', 'pass', not {status!r}")
        if not isinstance(times, int) or times < 1:
            raise ValueError(f"fault times must be a positive integer, not {times!r}")
        if latency < 0 or (retry_after is not None and retry_after < 0):
            raise ValueError("fault latency and retry_after must not be negative")
        self.faults.append(
            Fault(
                method=method,
                path_regex=path_regex,
                status=status,
                retry_after=retry_after,
                times=times,
                latency=float(latency),
            )
        )

    def clear_faults(self) -> None:
        self.faults.clear()

    def take(self, method: str, path: str) -> Fault | None:
        """The first fault matching the call, counted down (and dropped when used up); ``None`` if none."""
        for fault in self.faults:
            if fault.matches(method, path):
                fault.times -= 1
                if fault.times <= 0:
                    self.faults.remove(fault)
                return fault
        return None
