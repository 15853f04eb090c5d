"""The rules of idempotent creation (DESIGN.md 6.3): what a key is, when two bodies are the same, how long a key
lives."""

from __future__ import annotations

import hashlib
import json
from datetime import timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reconcile.queue import idempotency
from reconcile.vocabulary.errors import ValidationError
from tests.support import T0

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
PRINTABLE = st.characters(min_codepoint=0x20, max_codepoint=0x7E)


def _reordered(value: Any) -> Any:
    """The same JSON with every object's keys in reverse order."""
    if isinstance(value, dict):
        return {key: _reordered(value[key]) for key in reversed(list(value))}
    if isinstance(value, list):
        return [_reordered(item) for item in value]
    return value


@given(JSON, st.sampled_from([None, 2, "\t"]))
def test_the_fingerprint_ignores_key_order_and_whitespace(body: Any, indent: int | str | None) -> None:
    """A body as another client writes it (keys in another order, indented) has the same fingerprint."""
    written = json.loads(json.dumps(_reordered(body), indent=indent))
    assert idempotency.fingerprint("batch", written) == idempotency.fingerprint("batch", body)


@given(JSON, JSON)
def test_different_bodies_have_different_fingerprints(first: Any, second: Any) -> None:
    """Bodies whose canonical JSON differs are different requests; a batch and a refresh are never the same."""
    same = idempotency.canonical_json(first) == idempotency.canonical_json(second)
    assert (idempotency.fingerprint("batch", first) == idempotency.fingerprint("batch", second)) is same
    assert idempotency.fingerprint("batch", first) != idempotency.fingerprint("refresh", first)


@given(st.text(PRINTABLE, min_size=1, max_size=255))
def test_printable_ascii_up_to_255_is_a_key(key: str) -> None:
    """Every text of 1–255 characters from space to tilde is a key, as it is."""
    assert idempotency.check_key(key) == key


@given(
    st.text(PRINTABLE, max_size=200).flatmap(
        lambda text: st.sampled_from([text + c for c in "\x00\x1f\x7fé\u00a0ключ"] + ["", "a" * 256])
    )
)
def test_anything_else_is_not_a_key(key: str) -> None:
    """Empty, longer than 255, or with a control, non-ASCII or non-printable character: 422."""
    with pytest.raises(ValidationError) as refused:
        idempotency.check_key(key)
    assert str(refused.value) == "ключ идемпотентности — ожидается от 1 до 255 печатных символов ASCII"


def test_a_key_expires_a_day_after_its_first_use() -> None:
    """At ``now``, keys first used before ``now − 24 h`` have expired."""
    assert idempotency.expired_before(T0) == T0 - timedelta(hours=24)


def test_a_reused_key_names_its_batch() -> None:
    """The seed-style refusal names the batch the key made."""
    assert str(idempotency.reused(17)) == "ключ идемпотентности уже использован для другого пакета: 17"


def test_the_canonical_json_of_a_body() -> None:
    """Sorted keys at every depth, no spaces, UTF-8; a text UTF-8 cannot hold (a lone surrogate) is written with
    every non-ASCII character escaped, still sorted."""
    assert idempotency.canonical_json({"b": 1, "a": [1, 2], "c": "я"}) == '{"a":[1,2],"b":1,"c":"я"}'.encode()
    lone = {"b": 1, "a": "\ud800", "c": {"z": "я", "y": None}}
    assert idempotency.canonical_json(lone) == b'{"a":"\\ud800","b":1,"c":{"y":null,"z":"\\u044f"}}'


def test_a_key_of_255_printable_characters_is_a_key_and_the_fingerprint_is_of_kind_and_body() -> None:
    """The fingerprint is kept with a key for a day: its bytes are the kind, a line break, the canonical body."""
    assert idempotency.check_key("k" * 255) == "k" * 255
    with pytest.raises(ValidationError):
        idempotency.check_key("k" * 256)
    expected = hashlib.sha256(b'batch\n{"a":1,"b":[2]}').hexdigest()
    assert idempotency.fingerprint("batch", {"b": [2], "a": 1}) == expected
