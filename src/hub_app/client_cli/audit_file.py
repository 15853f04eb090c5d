"""``sdlc-hub audit verify FILE``: check an export of the audit offline (no hub needed; DESIGN.md 6.6).

The file is what ``GET /audit`` gives (``sdlc-hub audit export``): JSON lines (a first line ``{"checkpoint": …}``
when retention removed the records before) or CSV. Exit 0 with «N записей, голова <hash>»; exit 1 with the first
broken record, «запись seq 1234: …» (edited, removed, moved); exit 2 when the file cannot be read.
"""

from __future__ import annotations

import csv
import getpass
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from reconcile.audit import Checkpoint, parse_record, verify

__all__ = ["cli_actor", "verify_file"]


class _Unreadable(Exception):
    pass


def cli_actor() -> dict[str, str]:
    """Who acts through ``sdlc-hub`` on the hub's machine, as the audit names them: ``cli:<the OS user>``."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no name for the uid (a container's random user)
        user = "?"
    return {"actor": f"cli:{user}", "door": "cli"}


def _json_lines(lines: Iterator[str], first: str, start: int) -> Iterator[dict[str, Any]]:
    decode = json.JSONDecoder().decode
    for number, line in enumerate(_chained(first, lines) if first else lines, start=start):
        if not line.strip():
            continue
        try:
            yield parse_record(decode(line))
        except ValueError as exc:
            raise _Unreadable(f"строка {number}: не запись аудита: {exc}") from None


def _csv_rows(stream: TextIO, first: str) -> Iterator[dict[str, Any]]:
    reader = csv.DictReader(_chained(first, stream))
    for number, row in enumerate(reader, start=2):
        try:
            yield parse_record(row)
        except ValueError as exc:
            raise _Unreadable(f"строка {number}: не запись аудита: {exc}") from None


def _chained(first: str, stream: Iterator[str]) -> Iterator[str]:
    yield first
    yield from stream


def _records(stream: TextIO) -> tuple[Checkpoint | None, Iterator[dict[str, Any]]]:
    first = stream.readline()
    if first.startswith("seq,"):
        return None, _csv_rows(stream, first)
    try:
        head = json.loads(first) if first.strip() else None
    except ValueError:
        raise _Unreadable("строка 1: не JSON") from None
    if isinstance(head, dict) and isinstance(head.get("checkpoint"), dict):
        mark = head["checkpoint"]
        if not isinstance(mark.get("seq"), int) or not isinstance(mark.get("hash"), str):
            raise _Unreadable("строка 1: checkpoint — ожидается {seq, hash}")
        return Checkpoint(seq=mark["seq"], hash=mark["hash"]), _json_lines(stream, "", 2)
    return None, _json_lines(stream, first, 1)


def verify_file(path: Path, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Verify the export at ``path`` (``-``: standard input); the exit code. ``out`` and ``err`` default to the
    streams as they are when it runs."""
    out, err = out or sys.stdout, err or sys.stderr
    try:
        with (
            open(path, encoding="utf-8", newline="") if str(path) != "-" else _stdin()  # noqa: PTH123
        ) as stream:
            checkpoint, records = _records(stream)
            verdict = verify(records, checkpoint=checkpoint)
    except (OSError, UnicodeDecodeError) as exc:
        print(f"sdlc-hub: {path}: {exc}", file=err)
        return 2
    except _Unreadable as exc:
        print(f"sdlc-hub: {path}: {exc}", file=err)
        return 2
    if verdict.broken is not None:
        print(verdict.broken, file=out)
        return 1
    print(f"{verdict.count} записей, голова {verdict.head or '-'}", file=out)
    return 0


def _stdin() -> TextIO:
    return open(sys.stdin.fileno(), encoding="utf-8", newline="", closefd=False)
