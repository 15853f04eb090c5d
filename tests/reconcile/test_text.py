"""Request text rules: every string valid Unicode without NUL, every number finite, nesting bounded; the
refusal names the exact place. A moment's text in UTC, one way."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from reconcile.vocabulary.errors import ValidationError
from reconcile.vocabulary.text import (
    BODY_HEAD,
    MAX_JSON_DEPTH,
    TooDeep,
    _clean,
    _walk,
    body_text,
    check_request_json,
    check_text,
    error_text,
    readable,
    utc_text,
)

_ZONE = timezone(timedelta(hours=3))

_CLEAN_TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=8)
_KEYS = st.text(st.characters(min_codepoint=97, max_codepoint=122), min_size=1, max_size=4)
CLEAN_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | _CLEAN_TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=20,
)


def _places(value: Any, path: str = "") -> list[str]:
    """Every path of a JSON value where a leaf or container sits (the root is "")."""
    found = [path]
    if isinstance(value, dict):
        for key, child in value.items():
            found += _places(child, f"{path}.{key}" if path else key)
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found += _places(child, f"{path}[{index}]")
    return found


def _replace(value: Any, path: str, new: Any) -> Any:
    if path == "":
        return new
    if isinstance(value, dict):
        for key, child in value.items():
            here = key
            if path == here or path.startswith((here + ".", here + "[")):
                rest = path[len(here) :].lstrip(".")
                return {**value, key: _replace(child, rest, new)}
    if isinstance(value, list):
        for index, child in enumerate(value):
            here = f"[{index}]"
            if path.startswith(here):
                rest = path[len(here) :].lstrip(".")
                return [*value[:index], _replace(child, rest, new), *value[index + 1 :]]
    raise AssertionError(path)


@given(CLEAN_JSON)
def test_clean_json_passes(value: Any) -> None:
    """Any JSON of valid text and finite numbers within the depth passes."""
    check_request_json(value)


@given(CLEAN_JSON, st.data(), st.sampled_from(["\udfff", "\ud800", "a\x00b", float("nan"), float("-inf")]))
def test_one_bad_value_is_named_by_its_path(value: Any, data: st.DataObject, bad: Any) -> None:
    """A bad string or number anywhere is refused with the path of exactly that place."""
    path = data.draw(st.sampled_from(_places(value)))
    poisoned = _replace(value, path, bad)
    where = path or "теле запроса"
    expected = f"недопустимый символ в {where}" if isinstance(bad, str) else f"недопустимое число в {where}"
    with pytest.raises(ValidationError) as caught:
        check_request_json(poisoned)
    assert caught.value.message == expected


def test_a_bad_key_names_its_object() -> None:
    """A NUL in an object's key names the object holding it."""
    with pytest.raises(ValidationError, match=r"^недопустимый символ в commands\[0\]\.params$"):
        check_request_json({"commands": [{"params": {"a\x00": 1}}]})


def test_depth_is_counted_in_levels() -> None:
    """64 nested lists pass; 65 are refused as too deep."""

    def nested(levels: int) -> Any:
        value: Any = []
        for _ in range(levels - 1):
            value = [value]
        return value

    check_request_json(nested(MAX_JSON_DEPTH))
    with pytest.raises(TooDeep, match=r"^вложенность JSON глубже 64$"):
        check_request_json(nested(MAX_JSON_DEPTH + 1))


def test_check_text_names_where() -> None:
    """One text checked alone names the place the caller gives."""
    check_text("Сверка ОСВ", "filename")
    with pytest.raises(ValidationError, match=r"^недопустимый символ в filename$"):
        check_text("a\x00", "filename")


def test_the_deepest_level_allowed_is_searched_like_any_other() -> None:
    """At 64 levels of objects or lists a bad text is named by its path, not refused as too deep."""
    value: Any = "a\x00"
    path = ""
    for level in range(MAX_JSON_DEPTH - 1):
        value = {"k": value} if level % 2 else [value]
        path = (".k" if level % 2 else "[0]") + path
    with pytest.raises(ValidationError) as caught:
        check_request_json(value)
    assert caught.value.message == f"недопустимый символ в {path.removeprefix('.')}"
    with pytest.raises(TooDeep):
        check_request_json({"k": value})


_ANY_TEXT = st.text(st.sampled_from(["a", "я", "\x00", "\ud800", "\udfff", "😀"]), max_size=3)
ANY_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | _ANY_TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_ANY_TEXT | st.integers(), inner, max_size=3),
    max_leaves=12,
)


@given(
    ANY_JSON,
    st.sampled_from([0, 1, 2, *range(MAX_JSON_DEPTH - 3, MAX_JSON_DEPTH + 1)]),
    st.sampled_from(["list", "object"]),
)
@example(None, MAX_JSON_DEPTH - 1, "list")  # the leaf at the deepest level allowed
@example("a", MAX_JSON_DEPTH - 1, "object")
@example(None, MAX_JSON_DEPTH, "object")  # one level too deep
def test_the_fast_check_agrees_with_the_walk(value: Any, levels: int, container: str) -> None:
    """``bad_place`` first asks the fast check, which makes no paths; it must call clean exactly what the walk
    finds nothing in (too deep is not clean), at any depth, for any keys, texts and numbers."""
    for _ in range(levels):
        value = [value] if container == "list" else {"k": value}
    try:
        walked: object = _walk(value)
    except TooDeep:
        walked = "too deep"
    assert _clean(value, 1) is (walked is None)


def test_readable_replaces_each_bad_character_by_one_replacement_character() -> None:
    assert readable({"a\x00": ["b\ud800c", 1, None], "n": 2.5}) == {"a\ufffd": ["b\ufffdc", 1, None], "n": 2.5}
    assert readable(("x\x00\x00",)) == ["x\ufffd\ufffd"]


@pytest.mark.parametrize(
    ("body", "status", "shown"),
    [
        ("<html><head><title>503 Service Unavailable</title></head><body>x</body></html>", 503, "Service Unavailable"),
        ("<html><head><title>503 Service Unavailable</title></head></html>", None, "503 Service Unavailable"),
        ("<!DOCTYPE html>\n<html><head><TITLE>\n  Bad &amp; Gateway </TITLE></head></html>", 502, "Bad & Gateway"),
        (
            "<html><head><style>p{}</style></head><body><h1>Oops</h1><p>Try <b>later</b></p></body></html>",
            500,
            "Oops Try later",
        ),
        ("<html><body>" + "слово " * 60 + "</body></html>", 500, ("слово " * 60)[: BODY_HEAD - 1] + "…"),
        ("  Rate limit exceeded.  ", 429, "Rate limit exceeded."),
        ("a < b and c > d", 400, "a < b and c > d"),
    ],
)
def test_an_error_body_reads_as_words(body: str, status: int | None, shown: str) -> None:
    """An HTML page by its title (the status it repeats left out), else the head of its text; plain text as is."""
    assert body_text(body, status) == shown


def test_an_error_stored_with_markup_reads_as_words() -> None:
    """«HTTP 503: <html>…» stored before reads as «HTTP 503: Service Unavailable», wherever it sits in the line;
    other lines as they are."""
    html = "<html><head><title>503 Service Unavailable</title></head><body>x</body></html>"
    assert error_text(f"HTTP 503: {html}") == "HTTP 503: Service Unavailable"
    assert error_text(f"jira at http://jira answered GET /myself with HTTP 503: {html}") == (
        "jira at http://jira answered GET /myself with HTTP 503: Service Unavailable"
    )
    assert error_text("HTTP 404: Issue Does Not Exist") == "HTTP 404: Issue Does Not Exist"
    assert error_text("конфликт: связь «Блокирует»") == "конфликт: связь «Блокирует»"


_MOMENTS = st.datetimes(
    min_value=datetime(1000, 1, 2), max_value=datetime(9999, 12, 30), timezones=st.sampled_from([UTC, _ZONE, None])
)


@given(_MOMENTS)
def test_a_moment_is_written_in_utc_the_one_way(moment: datetime) -> None:
    """Every form of :func:`utc_text` is the moment in UTC (a naive one taken as UTC) with ``Z``: to the second, with
    milliseconds or microseconds always, or microseconds only when it has any — what ``isoformat`` would write."""
    utc = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    assert utc_text(moment) == utc.strftime("%Y-%m-%dT%H:%M:%SZ")
    assert utc_text(moment, "micro") == utc.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    assert utc_text(moment, "milli") == utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"
    assert utc_text(moment, "auto") == utc.isoformat().replace("+00:00", "Z")
    assert datetime.fromisoformat(utc_text(moment, "auto")) == utc


def test_utc_text_pads_the_fraction() -> None:
    """A fraction keeps its leading zeros: 5 ms is ``.005``, 5 µs ``.000005``."""
    moment = datetime(2026, 10, 22, 9, 0, 0, 5000, tzinfo=UTC)
    assert utc_text(moment, "milli") == "2026-10-22T09:00:00.005Z"
    assert utc_text(moment.replace(microsecond=5), "auto") == "2026-10-22T09:00:00.000005Z"
    assert utc_text(moment.replace(microsecond=0), "auto") == "2026-10-22T09:00:00Z"


def test_an_html_pages_title_is_its_words_up_to_the_head() -> None:
    """Tags inside the title part words; a title of ``BODY_HEAD`` characters is kept whole, a longer one cut."""
    assert body_text("<html><title>503 <b>Service</b><i>Unavailable</i></title></html>", 503) == "Service Unavailable"
    exactly = "x" * BODY_HEAD
    assert body_text(f"<html><title>{exactly}</title></html>") == exactly
    assert body_text(f"<html><title>{exactly}y</title></html>") == "x" * (BODY_HEAD - 1) + "…"


@pytest.mark.usefixtures("moscow")
def test_a_naive_moment_is_taken_as_utc_whatever_the_machines_zone() -> None:
    """On a machine in Moscow a naive moment is still UTC's: its digits are written as they are."""
    moment = datetime(2026, 10, 22, 9, 0, 0, 120000)
    assert utc_text(moment) == "2026-10-22T09:00:00Z"
    assert utc_text(moment, "milli") == "2026-10-22T09:00:00.120Z"
    assert utc_text(moment, "auto") == "2026-10-22T09:00:00.120000Z"
