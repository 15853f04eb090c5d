"""Jira paths from checked parts (DESIGN.md 5.7): fixed names, keys that pass the key rule, positive integer ids —
and the refusal of anything else, with the value shown."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reconcile.guard.paths import (
    AGILE,
    API,
    FIXED,
    IssueKey,
    PathRefused,
    PositiveId,
    constant_for_run,
    issue_key,
    issue_path,
    jira_path,
    positive_id,
    shown_value,
)


def test_a_path_joins_fixed_names_keys_and_ids() -> None:
    """``/rest/api/2/issue/AURORA-1/comment/10700``; a plan's temp key is quoted; the agile root likewise."""
    assert (
        issue_path("AURORA-1", "comment", positive_id("10700", "комментария"))
        == "/rest/api/2/issue/AURORA-1/comment/10700"
    )
    assert issue_path("new:12") == "/rest/api/2/issue/new%3A12"
    assert jira_path(AGILE, "sprint", positive_id(8, "спринта"), "issue") == "/rest/agile/1.0/sprint/8/issue"
    assert jira_path(API, "search") == "/rest/api/2/search"
    assert {API, AGILE} <= FIXED


@pytest.mark.parametrize("part", ["..", "issue/../..", "HR-1", "", "rest/api/3", 7, None])
def test_a_fixed_part_outside_the_set_is_refused(part: Any) -> None:
    """A text that is not one of the fixed names (or any other value) cannot be a part."""
    with pytest.raises(PathRefused) as refused:
        jira_path(API, part)
    assert refused.value.message == f"недопустимая часть пути Jira: {shown_value(part)}"
    assert str(refused.value) == refused.value.message


@pytest.mark.parametrize(
    "value", ["..", "AURORA-1/../HR-1", "AURORA-1?x", "AURORA-1#x", "AURORA-01", "aurora-1", "AURORA-1 ", "new:0", 5]
)
def test_a_key_must_pass_the_key_rule(value: Any) -> None:
    """A key part is a Jira key or a plan's temp key, nothing else: the helper and the type both refuse."""
    for make in (issue_key, IssueKey):
        with pytest.raises(PathRefused) as refused:
            make(value)
        assert refused.value.message == f"недопустимый ключ задачи: {shown_value(value)}"


@pytest.mark.parametrize(("value", "number"), [(1, 1), ("42", 42), (10**18 - 1, 10**18 - 1), ("9" * 18, 10**18 - 1)])
def test_a_positive_integer_id_in_a_number_or_digits(value: Any, number: int) -> None:
    """A number or a text of ASCII digits, positive, below 10¹⁸ (Jira's long)."""
    assert positive_id(value, "доски") == PositiveId(number)


@pytest.mark.parametrize(
    "value", [0, -1, 10**18, True, 1.0, "0", "01", "1" + "0" * 18, "１", "٤", "4 ", " 4", "4/", "%34", "", None, [4]]
)
def test_anything_else_is_no_id(value: Any) -> None:
    """Zero, negatives, too long, flags, fractions, leading zeros, other scripts' digits, spaces, paths, encodings."""
    with pytest.raises(PathRefused) as refused:
        positive_id(value, "доски")
    assert refused.value.message == f"недопустимый id доски: {shown_value(value)}"


@pytest.mark.parametrize("value", [0, -3, 10**18, True, "4"])
def test_the_id_type_takes_only_a_positive_int(value: Any) -> None:
    """``PositiveId`` itself refuses what :func:`positive_id` would not give it."""
    with pytest.raises(PathRefused) as refused:
        PositiveId(value)
    assert refused.value.message == f"недопустимый id: {shown_value(value)}"


def test_a_refused_value_is_shown_json_quoted_and_short() -> None:
    """Control characters escaped, Cyrillic kept, at most 80 characters (79 and an ellipsis); no JSON: the type."""
    assert shown_value("a\nб") == '"a\\nб"'
    assert shown_value(None) == "null"
    assert shown_value(object()) == "object"
    exactly = "x" * 78  # 80 with its quotes
    assert shown_value(exactly) == f'"{exactly}"'
    longer = shown_value("x" * 79)
    assert (len(longer), longer) == (80, '"' + "x" * 78 + "…")


@given(st.text())
def test_no_text_makes_a_path_with_a_dot_segment_or_a_query(text: str) -> None:
    """Whatever text is offered as a key or an id, a path built from it has no ``..`` segment, ``?`` or ``#``."""
    for make in (lambda: issue_path(text), lambda: jira_path(AGILE, "board", positive_id(text, "доски"))):
        try:
            path = make()
        except PathRefused:
            continue
        assert "/../" not in path + "/"
        assert "?" not in path
        assert "#" not in path


def test_only_a_boards_own_read_is_kept_for_the_run() -> None:
    """``GET /rest/agile/1.0/board/<id>``; not its sprints, not another method, not an id that is no id."""
    assert constant_for_run("GET", "/rest/agile/1.0/board/9001")
    for method, path in [
        ("POST", "/rest/agile/1.0/board/9001"),
        ("GET", "/rest/agile/1.0/board/9001/sprint"),
        ("GET", "/rest/agile/1.0/board/0"),
        ("GET", "/rest/agile/1.0/board/x"),
        ("GET", "/rest/agile/1x0/board/1"),
        ("GET", "/rest/api/2/issue/AURORA-1"),
    ]:
        assert not constant_for_run(method, path)
