"""The wire records the agent sends the hub (DESIGN 6 «Wire records»): each bad shape refused with the place named,
good ones read back as they were written, and the natural order of issue keys."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reconcile.vocabulary.errors import ValidationError
from reconcile.vocabulary.records import (
    ISSUE_LIMITS,
    ISSUE_TEXT_FIELDS,
    NATURAL_KEY_MAX,
    HistoryEntry,
    HistoryItem,
    MirrorIssue,
    MirrorLink,
    SprintRef,
    issue_from_wire,
    issue_to_wire,
    natural_key,
    oversized,
    wire_history,
    wire_issue,
)

ISSUE: dict[str, Any] = {
    "key": "AURORA-7",
    "summary": "Сводка",
    "status": "Сделать",
    "labels": ["AWPCA", "STOCKS_DRRK"],
    "sprint": {"id": 12, "name": "Спринт 3", "state": "active"},
    "links": [{"id": "901", "type": "Блокирует начало", "source": "AURORA-7", "target": "AURORA-8"}],
}
HISTORY: dict[str, Any] = {
    "key": "AURORA-7",
    "id": "5001",
    "created": "2026-10-22T08:45:00Z",
    "author": "ivanov",
    "items": [{"field": "status", "from": "1", "from_string": "Сделать", "to": "3", "to_string": "В работе"}],
}
BAD_SPRINT = "issues[3]: sprint — ожидается {id, name, state} или null"
BAD_LINKS = "issues[3]: links — ожидается список {id, type, source, target}"
BAD_ITEMS = "history[4]: items — ожидается список {field, from, from_string, to, to_string}"


def test_a_good_issue_reads_as_written() -> None:
    """Every field lands where the wire names it; the sprint and the links become their records."""
    issue = wire_issue(ISSUE, "issues[0]")
    assert issue == MirrorIssue(
        key="AURORA-7",
        summary="Сводка",
        status="Сделать",
        labels=("AWPCA", "STOCKS_DRRK"),
        sprint=SprintRef(id=12, name="Спринт 3", state="active"),
        links=(MirrorLink(id="901", type="Блокирует начало", source="AURORA-7", target="AURORA-8"),),
    )
    assert issue_from_wire(issue_to_wire(issue)) == issue


def test_the_least_issue_is_its_key() -> None:
    """No labels, sprint or links: empty, not refused."""
    assert wire_issue({"key": "AURORA-1"}, "issues[0]") == MirrorIssue(key="AURORA-1")
    assert wire_issue({"key": "AURORA-1", "sprint": None, "summary": None}, "x") == MirrorIssue(key="AURORA-1")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (None, "issues[3]: ожидается объект"),
        ({"key": None}, "issues[3]: key — ожидается ключ задачи"),
        ({"key": ""}, "issues[3]: key — ожидается ключ задачи"),
        ({"key": 7}, "issues[3]: key — ожидается ключ задачи"),
        ({"labels": "AWPCA"}, "issues[3]: labels — ожидается список строк"),
        ({"labels": ["AWPCA", 1]}, "issues[3]: labels — ожидается список строк"),
        ({"labels": None}, "issues[3]: labels — ожидается список строк"),
        ({"sprint": "Спринт 3"}, BAD_SPRINT),
        ({"sprint": {"id": "12", "name": "С", "state": "active"}}, BAD_SPRINT),
        ({"sprint": {"id": True, "name": "С", "state": "active"}}, BAD_SPRINT),
        ({"sprint": {"id": 12, "name": None, "state": "active"}}, BAD_SPRINT),
        ({"sprint": {"id": 12, "name": "С"}}, BAD_SPRINT),
        ({"links": {}}, BAD_LINKS),
        ({"links": ["901"]}, BAD_LINKS),
        ({"links": [{"id": 901, "type": "t", "source": "A-1", "target": "A-2"}]}, BAD_LINKS),
        ({"links": [{"id": "1", "type": "t", "source": "A-1"}]}, BAD_LINKS),
    ],
)  # fmt: skip
def test_a_bad_issue_is_refused_with_its_place(change: dict[str, Any] | None, message: str) -> None:
    """Each field's shape is checked before the record is built; the message names the record and the field."""
    data = None if change is None else {**ISSUE, **change}
    with pytest.raises(ValidationError) as caught:
        wire_issue(data, "issues[3]")
    assert str(caught.value) == message


@pytest.mark.parametrize("name", ISSUE_TEXT_FIELDS)
def test_every_text_field_is_a_string_or_null(name: str) -> None:
    """A number where text belongs is refused by name; null is taken."""
    with pytest.raises(ValidationError) as caught:
        wire_issue({**ISSUE, name: 5}, "issues[0]")
    assert str(caught.value) == f"issues[0]: {name} — ожидается строка или null"
    assert getattr(wire_issue({**ISSUE, name: None}, "issues[0]"), name) is None


@pytest.mark.parametrize(("name", "limit"), sorted(ISSUE_LIMITS.items()))
def test_a_bounded_field_at_its_limit_is_kept_and_one_more_is_refused(name: str, limit: int) -> None:
    """The hub's columns bound these fields: exactly the limit fits, one character more is a 422 naming it."""
    assert getattr(wire_issue({**ISSUE, name: "A" * limit}, "issues[1]"), name) == "A" * limit
    with pytest.raises(ValidationError) as caught:
        wire_issue({**ISSUE, name: "A" * (limit + 1)}, "issues[1]")
    assert str(caught.value) == f"issues[1]: {name} — длиннее {limit} символов"


def test_the_first_oversized_link_is_named_by_its_index() -> None:
    """A link's id, source and target are bounded too; the message names the link."""
    fine = {"id": "1", "type": "t", "source": "AURORA-1", "target": "AURORA-2"}
    long_source = {**fine, "source": "S" * 61}
    with pytest.raises(ValidationError) as caught:
        wire_issue({**ISSUE, "links": [fine, long_source, {**fine, "id": "9" * 61}]}, "issues[2]")
    assert str(caught.value) == "issues[2]: links[1].source — длиннее 60 символов"
    assert oversized(MirrorIssue(key="AURORA-1", links=(MirrorLink(id="1", type="t", source="A", target="A"),))) is None


def test_a_long_key_is_named_before_its_links() -> None:
    """The issue's own fields come first."""
    issue = MirrorIssue(key="K" * 61, links=(MirrorLink(id="1" * 61, type="t", source="A", target="B"),))
    assert oversized(issue) == "key — длиннее 60 символов"


def test_a_good_history_entry_reads_as_written() -> None:
    """``from`` on the wire is ``from_`` in the record, and back."""
    entry = wire_history(HISTORY, "history[0]")
    assert entry == HistoryEntry(
        key="AURORA-7",
        id="5001",
        created="2026-10-22T08:45:00Z",
        author="ivanov",
        items=(HistoryItem(field="status", from_="1", from_string="Сделать", to="3", to_string="В работе"),),
    )
    assert wire_history({"key": "A-1", "id": "1", "created": "2026-10-22T08:45:00Z"}, "h").items == ()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (None, "history[4]: ожидается объект"),
        ({"key": None}, "history[4]: key — ожидается строка"),
        ({"id": 5001}, "history[4]: id — ожидается строка"),
        ({"created": None}, "history[4]: created — ожидается строка"),
        ({"items": {}}, BAD_ITEMS),
        ({"items": [{"from": "1"}]}, BAD_ITEMS),
        ({"items": ["status"]}, BAD_ITEMS),
        ({"items": [{"field": "status", "to": {"a": 1}}]}, BAD_ITEMS),
        ({"items": [{"field": "status", "from": 1}]}, BAD_ITEMS),
        ({"items": [{"field": "status", "from_string": 1}]}, BAD_ITEMS),
        ({"items": [{"field": "status", "to_string": []}]}, BAD_ITEMS),
        ({"author": 7}, "history[4]: author — ожидается строка или null"),
        ({"id": "9" * 61}, "history[4]: id — длиннее 60 символов"),
        ({"created": "2" * 41}, "history[4]: created — длиннее 40 символов"),
    ],
)  # fmt: skip
def test_a_bad_history_entry_is_refused_with_its_place(change: dict[str, Any] | None, message: str) -> None:
    data = None if change is None else {**HISTORY, **change}
    with pytest.raises(ValidationError) as caught:
        wire_history(data, "history[4]")
    assert str(caught.value) == message


def test_natural_key_examples() -> None:
    """Digit runs compare by their value, text by its code points."""
    assert natural_key("AURORA-2") == "AURORA-012"
    assert natural_key("AURORA-10") == "AURORA-0210"
    assert natural_key("A0B007") == "A010B017"
    assert natural_key("AURORA") == "AURORA"
    keys = ["AURORA-10", "AURORA-2", "AB-1", "AURORA-100", "AURORA-9"]
    assert sorted(keys, key=natural_key) == ["AB-1", "AURORA-2", "AURORA-9", "AURORA-10", "AURORA-100"]


@given(st.integers(min_value=0, max_value=10**30), st.integers(min_value=0, max_value=10**30))
def test_natural_key_orders_numbers_by_value(a: int, b: int) -> None:
    """``P-a`` sorts before ``P-b`` exactly when a < b."""
    assert (natural_key(f"P-{a}") < natural_key(f"P-{b}")) == (a < b)


@given(st.text(alphabet="AB-0123456789", max_size=ISSUE_LIMITS["key"]))
def test_natural_key_fits_its_column(key: str) -> None:
    """A key within the key's limit has a natural key within ``NATURAL_KEY_MAX``."""
    assert len(natural_key(key)) <= NATURAL_KEY_MAX
