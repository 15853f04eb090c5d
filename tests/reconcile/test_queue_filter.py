"""The queue's filter as a value: parsed from the URL's query and back, and the text a batch is found by."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reconcile.outlook.batch_state import BatchState
from reconcile.outlook.queue_filter import QueueFilter, parse_filter, search_text
from reconcile.vocabulary.errors import ValidationError


def test_an_empty_query_asks_for_every_batch_of_people() -> None:
    """No field: any state, author, project and text; the hub's own refreshes hidden."""
    assert parse_filter({}) == QueueFilter()
    assert QueueFilter().query() == {}


def test_the_query_is_parsed_trimmed() -> None:
    """Each field as typed, trimmed; ``auto`` anything but empty or 0 shows the hub's own batches."""
    query = {"status": "done_with_errors", "author": " lead ", "project": "AWPCA", "q": "  AURORA-1 ", "auto": "1"}
    only = parse_filter(query)
    assert only == QueueFilter(
        state=BatchState.DONE_WITH_ERRORS, author="lead", project="AWPCA", text="AURORA-1", automatic=True
    )
    assert only.query() == {
        "status": "done_with_errors",
        "author": "lead",
        "project": "AWPCA",
        "q": "AURORA-1",
        "auto": "1",
    }
    assert parse_filter({"auto": "0"}).automatic is False
    assert parse_filter({"status": " ", "author": "", "q": " "}) == QueueFilter()


def test_an_unknown_state_or_a_long_text_is_refused() -> None:
    """422 naming the field and what it expects."""
    with pytest.raises(ValidationError) as refused:
        parse_filter({"status": "finished"})
    assert refused.value.message == (
        "status — неизвестное состояние пакета finished; ожидается одно из: "
        "awaiting_approval, queued, running, done, done_with_errors, cancelled, rejected"
    )
    with pytest.raises(ValidationError) as refused:
        parse_filter({"q": "x" * 201})
    assert refused.value.message == "q — не длиннее 200 символов"


_text = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=30)


@given(
    state=st.none() | st.sampled_from(BatchState),
    author=st.none() | _text.map(str.strip).filter(bool),
    project=st.none() | _text.map(str.strip).filter(bool),
    text=_text.map(str.strip),
    automatic=st.booleans(),
)
def test_query_and_parse_are_inverse(
    state: BatchState | None, author: str | None, project: str | None, text: str, automatic: bool
) -> None:
    """A filter survives the URL (a bookmark shows the same batches)."""
    only = QueueFilter(state=state, author=author, project=project, text=text, automatic=automatic)
    assert parse_filter(only.query()) == only


def test_search_text_holds_the_batch_and_its_commands_string_values_folded() -> None:
    """Title, author, project, token, each type and string parameter (lists too), case-folded, one a line."""
    text = search_text(
        title="Перенос  Сроков",
        author="Planner",
        project="AWPCA",
        token_name=None,
        commands=[
            ("ensure_issue", {"temp_key": "new:1", "summary": "ОСВ 60", "labels": ["AWPCA", "X"], "replace": True}),
            ("ensure_status", {"key": "AURORA-1", "target": ["Разработка", "Готово"]}),
        ],
    )
    assert text.split("\n") == [
        "перенос сроков",
        "planner",
        "awpca",
        "ensure_issue",
        "new:1",
        "осв 60",
        "awpca",
        "x",
        "ensure_status",
        "aurora-1",
        "разработка",
        "готово",
    ]


def test_a_batch_without_project_or_token_is_found_by_its_title_and_author_only() -> None:
    """No project, no token: no line for either."""
    text = search_text(title="Сверка", author="Planner", project=None, token_name=None, commands=[])
    assert text == "сверка\nplanner"
    assert search_text(title="Сверка", author="Planner", project="AWPCA", token_name="claude", commands=[]) == (
        "сверка\nplanner\nawpca\nclaude"
    )


@given(needle=st.text(alphabet="абвгдеёжзийклмнопрстуфхцчшщъыьэюяabcxyz0123456789-: ", max_size=30))
def test_what_a_person_types_is_found_as_it_is_stored(needle: str) -> None:
    """A batch titled with a Russian or Latin text is found by that text in another case (folded alike)."""
    stored = search_text(title=needle.upper() or "t", author="a", project=None, token_name=None, commands=[])
    assert QueueFilter(text=needle.lower()).needle in stored


def test_a_search_text_of_two_hundred_characters_is_taken() -> None:
    assert parse_filter({"q": "я" * 200}).text == "я" * 200
    with pytest.raises(ValidationError):
        parse_filter({"q": "я" * 201})
