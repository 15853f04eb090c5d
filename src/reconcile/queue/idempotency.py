"""Idempotent creation (DESIGN.md 6.3): a request that creates a batch may carry a key; the same key with the same
body answers the first batch again, with another body it is refused.

The rules only; the hub keeps each key of a token with its body's fingerprint and its batch, a unique
``(token, key)`` in the transaction that stores the batch (:mod:`adapters.storage.idempotency`).

- A key is 1–255 printable ASCII characters (``0x20``–``0x7E``), as an HTTP header can carry it.
- Two bodies are the same when their canonical JSON is: keys sorted, no insignificant whitespace, the
  text as it is (``ensure_ascii=False``). What is asked (a batch, a refresh) is part of the fingerprint: one
  key cannot name a batch and a refresh.
- A key lives :data:`KEY_TTL` from its first use; after that it names nothing and may be used again.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timedelta
from typing import Any

import msgspec

from reconcile.vocabulary.catalogue import REFRESH_TYPE
from reconcile.vocabulary.errors import ValidationError

__all__ = [
    "BAD_KEY",
    "BATCH_ASKED",
    "KEY_MAX",
    "KEY_TTL",
    "REFRESH_ASKED",
    "check_key",
    "expired_before",
    "fingerprint",
    "reused",
]

KEY_MAX = 255
KEY_TTL = timedelta(hours=24)

#: What is asked, the first part of a fingerprint: a batch (``POST /batches``, MCP ``batch_create``) or a refresh
#: (``POST /refresh``, MCP ``refresh``: a batch of the one type that reads Jira into the mirror, named by it).
BATCH_ASKED = "batch"
REFRESH_ASKED = REFRESH_TYPE

BAD_KEY = "ключ идемпотентности — ожидается от 1 до 255 печатных символов ASCII"


def check_key(key: str) -> str:
    """``key`` when it is one (422 :data:`BAD_KEY` otherwise)."""
    if not (1 <= len(key) <= KEY_MAX) or any(not (0x20 <= ord(c) <= 0x7E) for c in key):
        raise ValidationError(BAD_KEY)
    return key


def canonical_json(value: Any) -> bytes:
    """The canonical JSON of a body (UTF-8): sorted keys, no insignificant whitespace.

    msgspec's encoder writes it in a fraction of a millisecond for a 1 000-command batch, where the standard
    library's ``sort_keys`` takes ten (bench/RESULTS.md, issue 34); a text it cannot write as UTF-8 (a lone
    surrogate from an ``\\ud800`` escape) is written with every non-ASCII character escaped instead.
    """
    try:
        return msgspec.json.encode(value, order="sorted")
    except (msgspec.EncodeError, UnicodeEncodeError):
        return json.dumps(value, sort_keys=True, separators=(",", ":")).encode()


def fingerprint(kind: str, body: Any) -> str:
    """The sha256 (hex) of what is asked: its kind (``batch``, ``refresh``) and its body's canonical JSON."""
    digest = hashlib.sha256(kind.encode() + b"\n")
    digest.update(canonical_json(body))
    return digest.hexdigest()


def reused(batch_id: int) -> ValidationError:
    """The refusal of a key used before with another body (it names the batch that key created)."""
    return ValidationError(f"ключ идемпотентности уже использован для другого пакета: {batch_id}")


def expired_before(now: datetime) -> datetime:
    """Keys first used before this instant have expired at ``now``."""
    return now - KEY_TTL
