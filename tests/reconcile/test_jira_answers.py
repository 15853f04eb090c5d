"""Jira's answers read strictly: the value in Jira's documented shape, or an error naming the key and field."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reconcile.jira.answers import (
    answer_key,
    jira_id,
    jira_int,
    jira_list,
    jira_object,
    jira_text,
    jira_time,
    kind_of,
    opt_object,
    opt_text,
)
from reconcile.vocabulary.errors import JiraAnswerError


def _refused(read: Any, value: Any) -> str:
    with pytest.raises(JiraAnswerError) as info:
        read(value, "X-1", "поле")
    assert (info.value.key, info.value.field) == ("X-1", "поле")
    return info.value.message


def test_kinds_are_named_in_the_messages_words() -> None:
    """bool before int (a bool is an int to Python), then numbers, strings, lists, objects, null."""
    assert [kind_of(v) for v in (None, True, 1, 1.5, "a", [], {}, (1,))] == [
        "null",
        "логическое значение",
        "число",
        "число",
        "строка",
        "список",
        "объект",
        "tuple",
    ]


def test_objects_and_lists() -> None:
    """An object, or null where allowed; a list with null read as empty."""
    assert jira_object({"a": 1}, "X-1", "f") == {"a": 1}
    assert _refused(jira_object, []) == "ответ Jira по X-1: поле — ожидается объект, получено: список"
    assert _refused(jira_object, None) == "ответ Jira по X-1: поле — ожидается объект, получено: null"
    assert opt_object(None, "X-1", "f") is None
    assert _refused(opt_object, "x") == "ответ Jira по X-1: поле — ожидается объект, получено: строка"
    assert jira_list(None, "X-1", "f") == []
    assert jira_list([1], "X-1", "f") == [1]
    assert _refused(jira_list, {}) == "ответ Jira по X-1: поле — ожидается список, получено: объект"


def test_texts() -> None:
    """A text or null; a required text is non-empty; a NUL or a lone surrogate is «недопустимый символ»."""
    assert opt_text(None, "X-1", "f") is None
    assert opt_text("", "X-1", "f") == ""
    assert _refused(opt_text, 5) == "ответ Jira по X-1: поле — ожидается строка или null, получено: число"
    assert _refused(opt_text, "a\x00") == "ответ Jira по X-1: поле — недопустимый символ"
    assert jira_text("a", "X-1", "f") == "a"
    assert _refused(jira_text, "") == "ответ Jira по X-1: поле — ожидается непустая строка, получено: строка"
    assert _refused(jira_text, None) == "ответ Jira по X-1: поле — ожидается непустая строка, получено: null"
    assert _refused(jira_text, "a\ud800") == "ответ Jira по X-1: поле — недопустимый символ"


def test_ids_and_numbers() -> None:
    """An id is a number below 10**18 or a short word without spaces, read as a string; a numeric id is
    digits only."""
    assert jira_id(10400, "X-1", "f") == "10400"
    assert jira_id(0, "X-1", "f") == "0"
    assert jira_id(10**18 - 1, "X-1", "f") == "999999999999999999"
    assert jira_id("(новая)", "X-1", "f") == "(новая)"
    assert jira_id("x" * 64, "X-1", "f") == "x" * 64
    for bad, kind in ((10**18, "число"), (-1, "число"), (True, "логическое значение"), ("x" * 65, "строка")):
        assert _refused(jira_id, bad) == f"ответ Jira по X-1: поле — ожидается идентификатор Jira, получено: {kind}"
    assert _refused(jira_id, "a b") == "ответ Jira по X-1: поле — ожидается идентификатор Jira, получено: строка"
    assert _refused(jira_id, "") == "ответ Jira по X-1: поле — ожидается идентификатор Jira, получено: строка"
    assert jira_int("42", "X-1", "f") == 42
    assert jira_int(7, "X-1", "f") == 7
    assert _refused(jira_int, "4a") == "ответ Jira по X-1: поле — ожидается число, получено: строка"
    assert _refused(jira_int, "٣") == "ответ Jira по X-1: поле — ожидается число, получено: строка"
    # what is not even an id is refused as such, at the same place
    assert _refused(jira_int, [7]) == "ответ Jira по X-1: поле — ожидается идентификатор Jira, получено: список"


def test_times() -> None:
    """A timestamp in UTC with Z (no offset: UTC); null stays None; anything else names the value."""
    assert jira_time("2026-10-22T12:00:00.000+0300", "X-1", "f") == "2026-10-22T09:00:00Z"
    assert jira_time("2026-10-22T12:00:00", "X-1", "f") == "2026-10-22T12:00:00Z"
    assert jira_time(None, "X-1", "f") is None
    assert _refused(jira_time, 5) == "ответ Jira по X-1: поле — ожидается дата-время, получено: число"
    assert _refused(jira_time, "вчера") == "ответ Jira по X-1: поле — не дата-время: 'вчера'"
    long = "x" * 50
    assert _refused(jira_time, long) == f"ответ Jira по X-1: поле — не дата-время: {'x' * 40!r}"
    assert _refused(jira_time, "0001-01-01T00:00:00+0100") == (
        "ответ Jira по X-1: поле — не дата-время: '0001-01-01T00:00:00+0100'"
    )


@pytest.mark.parametrize(
    ("value", "read"),
    [
        ("2026-10-22T12:00:00.123+0300", "2026-10-22T09:00:00.123Z"),
        ("2026-10-22T12:00:00.001+0300", "2026-10-22T09:00:00.001Z"),
        ("2026-10-22T12:00:00.000+0300", "2026-10-22T09:00:00Z"),
        ("2026-10-22T12:00:00.000500+0300", "2026-10-22T09:00:00Z"),
    ],
)
def test_a_time_to_the_millisecond_keeps_jiras_millisecond(value: str, read: str) -> None:
    """With ``millis``: Jira's millisecond when it has one; a whole millisecond's fraction is no millisecond."""
    assert jira_time(value, "X-1", "f", millis=True) == read


@pytest.mark.usefixtures("moscow")
def test_a_time_near_the_end_of_year_9999_reads_in_utc_whatever_the_machines_zone() -> None:
    """On a machine in Moscow (UTC+3) the last hours of year 9999 are still read: only UTC counts."""
    assert jira_time("9999-12-31T22:00:00.000+0000", "X-1", "f") == "9999-12-31T22:00:00Z"


def test_the_key_of_an_answer() -> None:
    """The answer's key when it is a non-empty string, else the default."""
    assert answer_key({"key": "X-1"}) == "X-1"
    assert [answer_key(v) for v in ({"key": ""}, {"key": 5}, [], None)] == ["?", "?", "?", "?"]
    assert answer_key({}, "") == ""


@given(st.integers(min_value=0, max_value=10**18 - 1))
def test_a_numeric_id_reads_back_as_its_number(number: int) -> None:
    """A number, or its digits as a string, is the same numeric id."""
    assert jira_int(number, "X-1", "f") == jira_int(str(number), "X-1", "f") == number


def test_a_jira_id_with_a_bad_character_names_the_issue_and_the_field() -> None:
    """An id that looks like one (no spaces) but holds a NUL is refused naming the issue and the field."""
    with pytest.raises(JiraAnswerError) as caught:
        jira_id("100\x00", "AURORA-1", "issuelinks[0].id")
    assert str(caught.value) == "ответ Jira по AURORA-1: issuelinks[0].id — недопустимый символ"
