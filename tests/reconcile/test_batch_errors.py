"""Every error of a batch at once: one per broken command (its number, the parameter), the batch's own fields and
notes beside them, the first being the seed's message the batch has always been refused with."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reconcile.batches.all_errors import BatchError, InvalidBatch
from reconcile.batches.validation import BatchContext, ProjectInfo, validate_batch
from reconcile.config.settings import IssueTypeRef, Settings
from reconcile.vocabulary.catalogue import CATALOGUE

SHA = "0123456789abcdef" * 4
CTX = BatchContext(
    settings=Settings(issue_types={"task": IssueTypeRef(name="Задача"), "bug": IssueTypeRef(name="Ошибка")}),
    projects={"AWPCA": ProjectInfo(name="AWPCA", board_id=4216, board_type="scrum")},
    mirror_labels={"AURORA-1537": ("AWPCA",), "AURORA-1538": ("AWPCA",)},
    files={SHA: 10},
)


def _errors(body: dict[str, Any]) -> tuple[BatchError, ...]:
    with pytest.raises(InvalidBatch) as info:
        validate_batch(body, CTX)
    assert info.value.message == info.value.errors[0].message
    return info.value.errors


def _good() -> list[dict[str, Any]]:
    """A valid command of every type (the catalogue's examples; the issue's temp key is its own)."""
    return [{"type": name, "params": dict(spec.example)} for name, spec in CATALOGUE.items()]


#: Mistakes that break one command and no other: each with the parameter it is about.
MISTAKES: list[tuple[dict[str, Any], str | None]] = [
    ({"type": "ensure_status", "params": {"key": "AURORA-1537", "status": "Готово"}}, "target"),
    ({"type": "ensure_fields", "params": {"key": "AURORA-1537", "duedate": "23.10.2026"}}, "duedate"),
    (
        {"type": "ensure_link", "params": {"source": "AURORA-1537", "target": "AURORA-1538", "link_type": "x"}},
        "link_type",
    ),
    ({"type": "no_such_type", "params": {}}, None),
    ({"type": "ensure_comment", "params": {"key": "AURORA-1537", "marker": "m", "body": "b", "x": 1}}, "x"),
    ({"type": "ensure_sprint", "params": {"key": "new:77", "sprint": "Спринт 2"}}, "key"),
]


def test_three_mistakes_are_three_errors_next_to_their_commands() -> None:
    """Three broken commands among good ones: three errors, each with its command's number and parameter."""
    commands = _good()
    commands.insert(1, MISTAKES[0][0])
    commands.insert(4, MISTAKES[1][0])
    commands.append(MISTAKES[2][0])
    errors = _errors({"author": "a", "title": "t", "commands": commands})
    assert [(e.command, e.param) for e in errors] == [(2, "target"), (5, "duedate"), (len(commands), "link_type")]
    assert errors[0].message == "команда 2 (ensure_status): нет target; ожидаются key, target"
    assert errors[1].message == "команда 5 (ensure_fields): duedate — ожидается дата ГГГГ-ММ-ДД"
    assert errors[2].to_json() == {
        "command": len(commands),
        "param": "link_type",
        "message": (
            f"команда {len(commands)} (ensure_link): неизвестный тип связи «x»; "
            f"доступны: {', '.join(CTX.settings.link_types)}"
        ),
    }


def test_the_batchs_own_fields_and_notes_are_errors_without_a_command() -> None:
    """No author, a bad note and a bad command: the author first (as before), the command, then the note."""
    body = {
        "title": "t",
        "commands": [MISTAKES[0][0]],
        "notes": [{"key": "new:9", "text": "x"}],
    }
    errors = _errors(body)
    assert [(e.command, e.param) for e in errors] == [(None, None), (1, "target"), (None, None)]
    assert errors[0].message.startswith("нет author; ")
    assert errors[2].message == "заметка 1: временный ключ new:9 — в пакете нет его ensure_issue"


def test_a_refused_ensure_issue_still_defines_its_temp_key() -> None:
    """One mistake in an ensure_issue is one error: the commands naming its temp key are not refused for it."""
    broken = {"type": "ensure_issue", "params": {"temp_key": "new:1", "summary": "x", "issue_type": "epic"}}
    uses = {"type": "ensure_status", "params": {"key": "new:1", "target": "Готово"}}
    errors = _errors({"author": "a", "title": "t", "commands": [broken, uses]})
    assert [e.to_json() for e in errors] == [
        {"command": 1, "param": "issue_type", "message": "команда 1: нет настройки issue_types.epic"}
    ]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 20), st.sampled_from(range(len(MISTAKES)))), max_size=6))
def test_errors_are_exactly_the_broken_commands_the_first_being_detail(inserts: list[tuple[int, int]]) -> None:
    """Mistakes inserted anywhere into a valid batch: an error at each of their positions and nowhere else, the
    first error's message the refusal's own; with none inserted, the batch is valid."""
    commands: list[tuple[dict[str, Any], str | None] | None] = [None] * len(_good())
    good = _good()
    for position, which in inserts:
        commands.insert(min(position, len(commands)), MISTAKES[which])
    body_commands = []
    expected = []
    good_iter = iter(good)
    for index, item in enumerate(commands, start=1):
        if item is None:
            body_commands.append(next(good_iter))
        else:
            body_commands.append(item[0])
            expected.append((index, item[1]))
    body = {"author": "a", "title": "t", "commands": body_commands}
    if not expected:
        assert len(validate_batch(body, CTX).commands) == len(body_commands) + 1
        return
    errors = _errors(body)
    assert [(e.command, e.param) for e in errors] == expected


@pytest.mark.parametrize("kind", [{}, [], {"a": 1}, 7, None])
def test_a_type_that_no_name_can_be_is_one_error_of_its_command(kind: Any) -> None:
    """A ``type`` that is not a string (an object would not even hash) is an unknown type, before and after a good
    command that creates an issue."""
    commands = [{"type": kind, "params": {"temp_key": "new:1"}}, *_good()]
    found = _errors({"author": "a", "title": "t", "commands": commands})
    assert found[0].command == 1
    assert found[0].message.startswith(f"команда 1: неизвестный тип {kind}")
