"""The public face of the simulator: state, recorded calls, injected faults and the ASGI app."""

from __future__ import annotations

import copy
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from jira_sim.app import Fault, make_app
from jira_sim.render import Renderer
from jira_sim.store import JiraError, Store, load_sample

__all__ = ["Simulator"]

_FAULT_STATUSES = (429, 503, "drop", "pass")


def _real_clock() -> datetime:
    return datetime.now(UTC)


class Simulator:
    """An in-memory Jira Data Center 10.3.

    ``seed`` is a seed dict (``None``: the built-in sample); ``clock`` returns aware UTC datetimes and stamps
    every change, ``created``/``updated`` and relative JQL dates.
    """

    def __init__(self, seed: dict[str, Any] | None = None, *, clock: Callable[[], datetime] | None = None) -> None:
        self._seed = copy.deepcopy(seed) if seed is not None else load_sample()
        self._clock = clock or _real_clock
        self.store = Store(self._seed, self._clock)
        self._calls: list[dict[str, Any]] = []
        self._faults: list[Fault] = []
        self.asgi = make_app(self)

    # --- calls --------------------------------------------------------------------------------------------

    @property
    def calls(self) -> list[dict[str, Any]]:
        """Every ``/rest/*`` call in order: ``{method, path, status, at}`` (``status`` 0 = dropped)."""
        return [dict(c) for c in self._calls]

    def clear_calls(self) -> None:
        self._calls.clear()

    def _record_call(self, method: str, path: str, status: int) -> None:
        at = self.store.now().isoformat().replace("+00:00", "Z")
        self._calls.append({"method": method, "path": path, "status": status, "at": at})

    # --- state --------------------------------------------------------------------------------------------

    def reset(self) -> None:
        """Back to the seed: issues, counters, calls and faults."""
        self.store = Store(self._seed, self._clock)
        self._calls.clear()
        self._faults.clear()

    def raw_issue(self, key: str) -> dict[str, Any]:
        """The stored issue with its changelog, as plain JSON values."""
        store = self.store
        try:
            issue = store.issue(key)
        except JiraError:
            raise JiraError(404, [f"Issue Does Not Exist: {key}"]) from None
        r = Renderer(store, "http://jira-sim")
        return {
            "id": issue.id,
            "key": issue.key,
            "project": issue.project,
            "issuetype": store.issue_types[issue.issuetype_id],
            "summary": issue.summary,
            "description": issue.description,
            "status": store.statuses[issue.status_id].name,
            "status_category": store.statuses[issue.status_id].category,
            "priority": store.priorities.get(issue.priority_id or ""),
            "labels": list(issue.labels),
            "duedate": issue.duedate,
            "assignee": issue.assignee,
            "reporter": issue.reporter,
            "creator": issue.creator,
            "created": r.time(issue.created),
            "updated": r.time(issue.updated),
            "epic": issue.epic,
            "sprints": [
                {"id": s, "name": store.sprints[s].name, "state": store.sprints[s].state} for s in issue.sprint_ids
            ],
            "custom": dict(issue.custom),
            "links": [
                {
                    "id": link.id,
                    "type": store.link_types[link.type_id].name,
                    "inward": link.inward,
                    "outward": link.outward,
                }
                for link in store.links_of(issue.key)
            ],
            "comments": [
                {
                    "id": c.id,
                    "author": c.author,
                    "body": c.body,
                    "created": r.time(c.created),
                    "updated": r.time(c.updated),
                }
                for c in issue.comments
            ],
            "attachments": [
                {
                    "id": a.id,
                    "filename": a.filename,
                    "size": a.size,
                    "mimeType": a.mime_type,
                    "author": a.author,
                    "created": r.time(a.created),
                }
                for a in issue.attachments
            ],
            "changelog": [r.history(h) for h in issue.histories],
        }

    def issue_json(self, key: str) -> dict[str, Any]:
        """What ``GET /rest/api/2/issue/{key}`` would answer (all fields, no changelog)."""
        return Renderer(self.store, "http://jira.test").issue(self.store.issue(key))

    # --- faults -------------------------------------------------------------------------------------------

    def add_fault(
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

        ``status="pass"`` only delays (``latency`` seconds) and then answers normally.
        """
        if status not in _FAULT_STATUSES:
            raise ValueError(f"fault status must be one of 429, 503, 'drop', 'pass', not {status!r}")
        if not isinstance(times, int) or times < 1:
            raise ValueError(f"fault times must be a positive integer, not {times!r}")
        if latency < 0 or (retry_after is not None and retry_after < 0):
            raise ValueError("fault latency and retry_after must not be negative")
        self._faults.append(
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
        self._faults.clear()

    def _take_fault(self, method: str, path: str) -> Fault | None:
        for fault in self._faults:
            if fault.matches(method, path):
                fault.times -= 1
                if fault.times <= 0:
                    self._faults.remove(fault)
                return fault
        return None
