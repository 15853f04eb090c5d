"""The sans-I/O protocol between an executor and whoever drives it (DESIGN.md section 5.1).

An executor is a generator. It yields steps — :class:`JiraCall`, :class:`Pause`, :class:`FetchFile`,
:class:`Page` — and receives, for a ``JiraCall`` a :class:`JiraResponse`, for a ``FetchFile`` the file's
bytes (or ``None`` when the hub no longer has it), for the others ``None``. It returns a :class:`Report`.
The agent drives it with httpx and a real clock (:mod:`agent_app.drive`); tests drive the same generator against
the simulator or cassettes with a fake clock, or answer its steps as values (:mod:`reconcile.executors.drive`, which
the dry run uses too). ``jira_calls`` is counted by the driver, never by the executor.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from typing import Any, Literal

import attrs

from reconcile.guard.fields import JiraField
from reconcile.vocabulary.records import HistoryEntry, MirrorIssue

__all__ = [
    "Delivery",
    "Dropped",
    "ExecContext",
    "Executor",
    "FetchFile",
    "JiraCall",
    "JiraResponse",
    "Operation",
    "Page",
    "Pause",
    "Report",
    "Step",
    "Upload",
]


class Dropped(Exception):
    """Thrown by the driver into an executor at a write it must not make: the hub no longer issues the command
    to this agent (cancelled with ``force``, or taken over by another process). The executor ends with a
    ``failed`` report carrying ``message`` and the writes made so far (DESIGN.md 5.4)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@attrs.frozen(kw_only=True)
class Upload:
    """One multipart file part of an attachment upload."""

    filename: str
    content: bytes
    content_type: str = "application/octet-stream"


@attrs.frozen(kw_only=True)
class JiraCall:
    method: str
    path: str
    params: Mapping[str, str] | None = None
    json: Any = None
    upload: Upload | None = None

    @property
    def is_write(self) -> bool:
        """Whether the call changes Jira (``POST /search`` is a read)."""
        if self.method == "GET":
            return False
        return not (self.method == "POST" and self.path.endswith("/search"))


@attrs.frozen(kw_only=True)
class JiraResponse:
    status: int
    json: Any = None
    headers: Mapping[str, str] = attrs.field(factory=dict)

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


@attrs.frozen(kw_only=True)
class Pause:
    """Wait ``seconds`` from the driver's last Jira call before the next step."""

    seconds: float


@attrs.frozen(kw_only=True)
class FetchFile:
    """Ask the driver for the hub's file (``GET /agent/files/{sha256}``); the executor checks its sha256 and size."""

    sha256: str
    size: int | None


@attrs.frozen(kw_only=True)
class Page:
    """A page of a refresh, sent to the hub as soon as it is read (``POST /agent/commands/{id}/pages``)."""

    page: int
    kind: Literal["issues", "neighbours", "history"]
    issues: tuple[MirrorIssue, ...] = ()
    history: tuple[HistoryEntry, ...] = ()


Step = JiraCall | Pause | FetchFile | Page


@attrs.frozen(kw_only=True)
class Operation:
    """A write made in Jira, as reported in ``operations``."""

    method: str
    path: str
    status: int

    def to_json(self) -> dict[str, Any]:
        return {"method": self.method, "path": self.path, "status": self.status}


@attrs.frozen(kw_only=True)
class Report:
    status: Literal["done", "failed"]
    result: Mapping[str, Any] = attrs.field(factory=dict)
    error: str | None = None
    operations: tuple[Operation, ...] = ()


@attrs.frozen(kw_only=True)
class Delivery:
    """A command as the hub delivers it on ``claim`` (parameters completed at delivery)."""

    id: int
    type: str
    params: Mapping[str, Any]
    pause_seconds: float
    deliveries: int = 1
    context: Mapping[str, Any] = attrs.field(factory=dict)


@attrs.frozen(kw_only=True)
class ExecContext:
    """What the driver knows about Jira beyond the delivery: its own user, the names of its link types (``None``:
    not known) and which of them are symmetric; the Jira projects the bank's policy lets the agent read
    (``None``: any; DESIGN.md 5.5); Jira's field list (``None``: not known) and the field ids the bank pinned by
    role (DESIGN.md 5.7)."""

    jira_user: str | None = None
    jira_time_zone: str | None = None
    #: Jira's own address (``serverInfo``'s ``baseUrl`` as :func:`reconcile.jira.site.site_url` keeps it).
    jira_base_url: str | None = None
    symmetric_link_types: frozenset[str] = frozenset()
    link_types: frozenset[str] | None = None
    allowed_projects: tuple[str, ...] | None = None
    jira_fields: Mapping[str, JiraField] | None = None
    field_pins: Mapping[str, str] = attrs.field(factory=dict)


Executor = Generator[Step, Any, Report]
