"""The canonical JSON of a value and its sha256: what a plan's digest and an audit record's hash are taken over.

Sorted keys, no insignificant whitespace, text as UTF-8 (not ``\\u`` escapes): the same value always gives the
same bytes, in every process and on every database, so a digest shown on one page is the digest checked by
another process, and an audit record exported today hashes as it did when it was written.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

__all__ = ["canonical_json", "sha256_hex"]


_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def canonical_json(value: Any) -> str:
    """``value`` (JSON-able) as canonical JSON text; ``NaN`` and infinities are refused (:class:`ValueError`)."""
    return _ENCODER.encode(value)


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
