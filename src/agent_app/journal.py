"""The agent's local journal (DESIGN.md 5.4): the command in hand and its unacknowledged report.

One small JSON file, rewritten atomically (temporary file in the same directory, fsync, rename, fsync of the
directory), so after a crash at any instant it holds either the old or the new entry, never a mix:

- no entry: nothing in hand;
- ``{"command_id", "type", "deliveries", "report": null}``: a command was being executed; its outcome in
  Jira is unknown, the hub re-delivers it on the next claim (executors read first, so running it again is
  safe);
- ``{..., "report": {wire report}}``: executed, the report not yet acknowledged; it is sent before any claim.

The file also keeps the agent's ``instance`` (DESIGN.md 5.4): made once, it names this agent process to the
hub across restarts, so a restart on the same journal takes over at once while a copy with its own journal is
refused. :meth:`Journal.lock` makes sure only one process at a time uses a journal (a copy started with the
same journal path would otherwise share the instance too).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs

__all__ = ["Journal", "JournalBusy", "JournalEntry"]

_FORMAT = 1


@attrs.frozen(kw_only=True)
class JournalEntry:
    command_id: int
    type: str
    deliveries: int = 1
    report: dict[str, Any] | None = None


class JournalBusy(Exception):
    """Another process holds the journal (:meth:`Journal.lock`)."""


class Journal:
    """The journal file at ``path`` (its directory is created on first write)."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._instance: str | None = None

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Hold ``<name>.lock`` exclusively while inside; :class:`JournalBusy` when another process holds it.

        The lock dies with the process (even on ``kill -9``), so a restart never finds it stale.
        """
        self.path.parent.mkdir(parents=True, exist_ok=True)
        lock_path = self.path.with_name(self.path.name + ".lock")
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise JournalBusy(f"the journal {self.path} is held by another agent process") from None
            yield
        finally:
            os.close(fd)

    def instance(self) -> str:
        """This agent's instance: read from the file, or made and written there on first use."""
        if self._instance is None:
            stored = self._payload().get("instance")
            if isinstance(stored, str) and stored:
                self._instance = stored
            else:
                self._instance = uuid.uuid4().hex
                self.write(self.read())
        return self._instance

    def _payload(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def read(self) -> JournalEntry | None:
        """The entry, or ``None``; an unreadable file is moved aside to ``<name>.corrupt`` and read as empty."""
        try:
            raw = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        try:
            data = json.loads(raw)
            entry = data.get("entry")
            if entry is None:
                return None
            return JournalEntry(
                command_id=int(entry["command_id"]),
                type=str(entry["type"]),
                deliveries=int(entry.get("deliveries", 1)),
                report=entry.get("report"),
            )
        except (ValueError, KeyError, TypeError, AttributeError):
            self.path.replace(self.path.with_name(self.path.name + ".corrupt"))
            return None

    def write(self, entry: JournalEntry | None) -> None:
        payload = {
            "format": _FORMAT,
            "instance": self.instance(),
            "entry": None if entry is None else attrs.asdict(entry),
        }
        self._write_atomically(json.dumps(payload, ensure_ascii=False, indent=1).encode("utf-8"))

    def begin(self, *, command_id: int, type: str, deliveries: int) -> None:
        """Before executing: the command in hand, no report yet."""
        self.write(JournalEntry(command_id=command_id, type=type, deliveries=deliveries))

    def record_report(self, entry: JournalEntry, report: dict[str, Any]) -> JournalEntry:
        """After executing: the report (wire form, with ``jira_calls``) kept until the hub acknowledges it."""
        updated = attrs.evolve(entry, report=report)
        self.write(updated)
        return updated

    def clear(self) -> None:
        """The hub acknowledged the report (or the command was abandoned to re-delivery on purpose)."""
        self.write(None)

    def _write_atomically(self, data: bytes) -> None:
        directory = self.path.parent
        directory.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=self.path.name + ".", suffix=".tmp", dir=directory)
        try:
            with os.fdopen(fd, "wb") as tmp:
                tmp.write(data)
                tmp.flush()
                os.fsync(tmp.fileno())
            Path(tmp_name).replace(self.path)
        except BaseException:
            Path(tmp_name).unlink(missing_ok=True)
            raise
        dir_fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
