"""The public face of the simulator: state, recorded calls, injected faults and the ASGI app."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from jira_sim import control
from jira_sim.asgi import App, make_app
from jira_sim.faults import FaultBook
from jira_sim.render import Renderer
from jira_sim.seed import load_sample
from jira_sim.store import Store

__all__ = ["Simulator"]


def _real_clock() -> datetime:
    return datetime.now(UTC)


class Simulator:
    """An in-memory Jira Data Center 10.3.

    ``seed`` is a seed dict (``None``: the built-in sample); ``clock`` returns aware UTC datetimes and stamps
    every change, ``created``/``updated`` and relative JQL dates.
    """

    def __init__(self, seed: dict[str, Any] | None = None, *, clock: Callable[[], datetime] | None = None) -> None:
        self.store = Store(seed if seed is not None else load_sample(), clock or _real_clock)
        self.faults = FaultBook()
        self.asgi: App = make_app(self.store, self.faults)
        # the fault book's operations, offered as the simulator's own (see FaultBook.add for the arguments)
        self.add_fault = self.faults.add
        self.clear_faults = self.faults.clear_faults
        self.clear_calls = self.faults.clear_calls

    @property
    def calls(self) -> list[dict[str, Any]]:
        """Every ``/rest/*`` call in order: ``{method, path, status, at}`` (``status`` 0 = dropped)."""
        return self.faults.calls

    def reset(self) -> None:
        """Back to the seed: issues, counters, calls and faults."""
        control.reset(self.store, self.faults)

    def raw_issue(self, key: str) -> dict[str, Any]:
        """The stored issue with its changelog, as plain JSON values."""
        return control.raw_issue(self.store, key)

    def issue_json(self, key: str) -> dict[str, Any]:
        """What ``GET /rest/api/2/issue/{key}`` would answer (all fields, no changelog)."""
        return Renderer(self.store, "http://jira.test").issue(self.store.issue(key))
