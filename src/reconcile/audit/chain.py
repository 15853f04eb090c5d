"""The audit (DESIGN.md 6.6): one append-only record per event, chained by hashes so that an edit, a deletion or a
reordering shows.

A record has ``seq`` (gapless, from 1), ``at``, ``kind`` (:data:`KINDS`), ``actor`` (a token's name, ``hub`` or
``agent:<id>``), ``door`` (:data:`DOORS`), ``batch_id``/``command_id`` when it is about one, ``data`` (JSON; never
a secret), ``prev`` (the hash of the record before; :data:`GENESIS` for the first) and ``hash`` = hex sha256 of
``prev`` followed by the canonical JSON of the other columns (:func:`record_hash`). :func:`chained` makes the next
record from the chain's head; ``at`` never goes back along the chain, so a time range is a range of ``seq``.

Retention keeps a **checkpoint** ``{seq, hash}`` of the last record removed: what remains starts from it and still
verifies (:func:`verify`). Verification names the first broken ``seq``: a record edited (its hash), one removed
or moved (``seq`` not the next one), one whose ``prev`` is not the hash before it.

Pure: records come in and go out as values; the clock is a value.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any

import attrs

from reconcile.vocabulary.canonical import canonical_json, sha256_hex
from reconcile.vocabulary.text import utc_text

__all__ = [
    "COLUMNS",
    "DOORS",
    "GENESIS",
    "KINDS",
    "AuditEntry",
    "AuditRecord",
    "Checkpoint",
    "Head",
    "Verdict",
    "body_json",
    "chained",
    "format_at",
    "parse_record",
    "record_hash",
    "retention_cutoff",
    "verify",
]

KINDS: tuple[str, ...] = (
    "batch_created",
    "plan_approved",
    "plan_rejected",
    "batch_cancelled",
    "command_retried",
    "batch_undo",
    "delivered",
    "jira_write",
    "reported",
    "stale_plan",
    "approval_expired",
    "settings_changed",
    "token_added",
    "token_revoked",
    "login",
    "logout",
    "project_added",
    "project_removed",
)
DOORS: tuple[str, ...] = ("http", "web", "mcp", "cli", "agent", "hub")
#: The ``prev`` of the first record.
GENESIS = "0" * 64
#: The columns of a record, in the order an export writes them.
COLUMNS: tuple[str, ...] = ("seq", "at", "kind", "actor", "door", "batch_id", "command_id", "data", "prev", "hash")

#: Words in a key of ``data`` that name a secret: such a value is never recorded.
_SECRET_WORDS = ("secret", "password", "authorization", "cookie", "csrf")


def format_at(at: datetime) -> str:
    """A record's time as the hash covers it: UTC, microseconds, ``Z``."""
    return utc_text(at, "micro")


def _scrubbed(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {
            str(k): "***" if any(word in str(k).lower() for word in _SECRET_WORDS) else _scrubbed(v)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [_scrubbed(v) for v in value]
    return value


@attrs.frozen(kw_only=True)
class AuditEntry:
    """What an operation records; the chain adds ``seq``, ``at``, ``prev`` and ``hash``."""

    kind: str
    actor: str
    door: str
    batch_id: int | None = None
    command_id: int | None = None
    data: Mapping[str, Any] = attrs.field(factory=dict, converter=_scrubbed)


@attrs.frozen(kw_only=True)
class AuditRecord:
    seq: int
    at: str
    kind: str
    actor: str
    door: str
    batch_id: int | None
    command_id: int | None
    data: Mapping[str, Any]
    prev: str
    hash: str

    def to_json(self) -> dict[str, Any]:
        return {column: getattr(self, column) for column in COLUMNS}

    def body(self) -> dict[str, Any]:
        """The columns the hash covers besides ``prev``."""
        return {column: getattr(self, column) for column in COLUMNS if column not in ("prev", "hash")}


def record_hash(prev: str, body: Mapping[str, Any]) -> str:
    """hex sha256 of ``prev`` followed by the canonical JSON of the other columns (``body``)."""
    return sha256_hex(prev + canonical_json(dict(body)))


@attrs.frozen(kw_only=True)
class Head:
    """The chain's last record (or, after retention removed every record, its checkpoint)."""

    seq: int
    hash: str
    at: datetime | None = None


@attrs.frozen(kw_only=True)
class Checkpoint:
    """The last record retention removed: what remains starts after ``seq`` with ``prev`` = ``hash``."""

    seq: int
    hash: str

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "hash": self.hash}


def chained(head: Head | None, entry: AuditEntry, *, now: datetime) -> AuditRecord:
    """The record of ``entry`` after ``head`` (``None``: the first): the next ``seq``, ``at`` = ``now`` but never
    before the head's, ``prev`` = the head's hash."""
    at = now if head is None or head.at is None else max(now, head.at)
    seq = 1 if head is None else head.seq + 1
    record = AuditRecord(
        seq=seq,
        at=format_at(at),
        kind=entry.kind,
        actor=entry.actor,
        door=entry.door,
        batch_id=entry.batch_id,
        command_id=entry.command_id,
        data=dict(entry.data),
        prev=GENESIS if head is None else head.hash,
        hash="",
    )
    return attrs.evolve(record, hash=record_hash(record.prev, record.body()))


def retention_cutoff(now: datetime, days: float) -> datetime:
    """Records before this time are removed (``audit_retention_days``)."""
    return now - timedelta(days=days)


class _Unreadable(ValueError):
    pass


def _int(value: Any, column: str, *, optional: bool = False) -> int | None:
    if type(value) is int:
        return value
    if value is None or value == "":
        if optional:
            return None
        raise _Unreadable(f"нет {column}")
    if isinstance(value, bool):
        raise _Unreadable(f"{column} — не число")
    try:
        return int(value)
    except (TypeError, ValueError):
        raise _Unreadable(f"{column} — не число") from None


_TEXTS = ("at", "kind", "actor", "door", "prev", "hash")
_ID = (int, type(None))


def parse_record(raw: Mapping[str, Any]) -> dict[str, Any]:
    """A record of an export as :func:`verify` reads it: JSON lines as they are, CSV with ``data`` as JSON text
    and numbers as text; :class:`ValueError` saying what is wrong."""
    get = raw.get
    if (  # a line of JSON lines, as the hub writes it: taken as it is
        type(get("seq")) is int
        and type(get("at")) is str
        and type(get("kind")) is str
        and type(get("actor")) is str
        and type(get("door")) is str
        and type(get("prev")) is str
        and type(get("hash")) is str
        and type(get("data")) is dict
        and type(get("batch_id")) in _ID
        and type(get("command_id")) in _ID
    ):
        return dict(raw)
    data = raw.get("data")
    if isinstance(data, str):
        data = json.loads(data)
    if not isinstance(data, Mapping):
        raise _Unreadable("data — не объект")
    for column in _TEXTS:
        if not isinstance(raw.get(column), str):
            raise _Unreadable(f"нет {column}")
    seq = raw.get("seq")
    return {
        "seq": seq if type(seq) is int else _int(seq, "seq"),
        "at": raw["at"],
        "kind": raw["kind"],
        "actor": raw["actor"],
        "door": raw["door"],
        "batch_id": _int(raw.get("batch_id"), "batch_id", optional=True),
        "command_id": _int(raw.get("command_id"), "command_id", optional=True),
        "data": data,
        "prev": raw["prev"],
        "hash": raw["hash"],
    }


@attrs.frozen(kw_only=True)
class Verdict:
    """What verification found: how many records, the last one's hash, and the first break (``None``: none)."""

    count: int
    head: str | None
    broken: str | None = None


def verify(records: Iterable[Mapping[str, Any]], *, checkpoint: Checkpoint | None = None) -> Verdict:
    """Check a run of records (each as :meth:`AuditRecord.to_json` gives it, or :func:`parse_record`'s) in the
    order given (see the module docstring). The first record's ``prev`` is checked when it is the chain's first
    (``seq`` 1) or follows ``checkpoint``; a run cut from the middle of the chain (an export from a time or a
    cursor) is checked from its first record on."""
    count = 0
    last: Mapping[str, Any] | None = None
    for record in records:
        broken = _break(record, last, checkpoint)
        if broken is not None:
            return Verdict(count=count, head=last["hash"] if last else None, broken=broken)
        count += 1
        last = record
    return Verdict(count=count, head=last["hash"] if last else None)


_TEXT = json.encoder.encode_basestring  # the C encoder of a str, as json.dumps's


def _value(value: Any) -> str:
    if value is None:
        return "null"
    if type(value) is int:
        return str(value)
    return _TEXT(value) if type(value) is str else canonical_json(value)


def body_json(record: Mapping[str, Any]) -> str:
    """The canonical JSON of a record's columns but ``prev`` and ``hash``, written out in the keys' sorted order
    (what :func:`record_hash` takes, without sorting a dict per record: ``verify`` reads a record in microseconds)."""
    return (
        f'{{"actor":{_value(record["actor"])},"at":{_value(record["at"])},"batch_id":{_value(record["batch_id"])},'
        f'"command_id":{_value(record["command_id"])},"data":{canonical_json(record["data"])},'
        f'"door":{_value(record["door"])},"kind":{_value(record["kind"])},"seq":{_value(record["seq"])}}}'
    )


def _break(record: Mapping[str, Any], last: Mapping[str, Any] | None, checkpoint: Checkpoint | None) -> str | None:
    """What is wrong with ``record`` after ``last`` (``None``: the chain's or the run's first)."""
    seq = record["seq"]
    before = last["seq"] if last is not None else checkpoint.seq if checkpoint is not None else None
    if before is not None and seq != before + 1:
        # Ahead: the one expected is missing here; behind: this one is out of its place.
        named = before + 1 if seq > before else seq
        return (
            f"запись seq {named}: не на своём месте — после seq {before} идёт seq {seq} "
            "(запись удалена или переставлена)"
        )
    if sha256_hex(record["prev"] + body_json(record)) != record["hash"]:
        return f"запись seq {seq}: хеш не сходится — запись изменена"
    if last is not None:
        anchor: str | None = last["hash"]
    elif checkpoint is not None:
        anchor = checkpoint.hash
    else:
        anchor = GENESIS if seq == 1 else None
    if anchor is not None and record["prev"] != anchor:
        return f"запись seq {seq}: prev не равен хешу записи перед ней — цепочка разорвана"
    return None
