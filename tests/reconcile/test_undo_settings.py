"""The setting ``undo`` read from JSON (DESIGN.md 6.4): every refusal names its place, every default holds."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reconcile.config.undo import CreatedIssueUndo, UndoSettings, undo_from_json, undo_to_json
from reconcile.vocabulary.errors import ValidationError

_OBJECT = "настройки: undo — объект {created_issue}"
_CREATED = "настройки: undo.created_issue — объект {mode, path?, label?}"
_MODE = "настройки: undo.created_issue.mode — leave или status"
_PATH = "настройки: undo.created_issue.path — список имён статусов"
_PATH_NEEDED = "настройки: undo.created_issue.path обязателен при mode = status"
_LABEL = "настройки: undo.created_issue.label — метка Jira без пробелов"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ([], _OBJECT),
        (None, _OBJECT),
        ({"created_issue": {}, "other": 1}, _OBJECT),
        ({"created_issue": []}, _CREATED),
        ({"created_issue": None}, _CREATED),
        ({"created_issue": {"mode": "leave", "other": 1}}, _CREATED),
        ({"created_issue": {"mode": "delete"}}, _MODE),
        ({"created_issue": {"mode": None}}, _MODE),
        ({"created_issue": {"mode": "Status"}}, _MODE),
        ({"created_issue": {"path": "Done"}}, _PATH),
        ({"created_issue": {"path": None}}, _PATH),
        ({"created_issue": {"path": ["Done", ""]}}, _PATH),
        ({"created_issue": {"path": ["  "]}}, _PATH),
        ({"created_issue": {"path": [1]}}, _PATH),
        ({"created_issue": {"mode": "status", "path": ["Done", 7]}}, _PATH),
        ({"created_issue": {"mode": "status"}}, _PATH_NEEDED),
        ({"created_issue": {"mode": "status", "path": []}}, _PATH_NEEDED),
        ({"created_issue": {"label": ""}}, _LABEL),
        ({"created_issue": {"label": "   "}}, _LABEL),
        ({"created_issue": {"label": "два слова"}}, _LABEL),
        ({"created_issue": {"label": "tab\there"}}, _LABEL),
        ({"created_issue": {"label": "end\n"}}, _LABEL),
        ({"created_issue": {"label": 5}}, _LABEL),
        ({"created_issue": {"label": ["undone"]}}, _LABEL),
    ],
)
def test_a_bad_undo_is_refused_by_its_place(value: Any, message: str) -> None:
    with pytest.raises(ValidationError) as refused:
        undo_from_json(value)
    assert refused.value.message == message
    assert refused.value.param is None


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({}, CreatedIssueUndo()),
        ({"created_issue": {}}, CreatedIssueUndo(mode="leave", path=[], label=None)),
        ({"created_issue": {"mode": "leave"}}, CreatedIssueUndo()),
        ({"created_issue": {"mode": "leave", "path": ["Done"]}}, CreatedIssueUndo(mode="leave", path=["Done"])),
        ({"created_issue": {"label": None}}, CreatedIssueUndo()),
        ({"created_issue": {"label": "отменено"}}, CreatedIssueUndo(label="отменено")),
        (
            {"created_issue": {"mode": "status", "path": [" In Progress ", "Done\t"], "label": "undone"}},
            CreatedIssueUndo(mode="status", path=["In Progress", "Done"], label="undone"),
        ),
    ],
)
def test_a_good_undo_reads_with_its_defaults_and_trimmed_statuses(value: Any, expected: CreatedIssueUndo) -> None:
    assert undo_from_json(value) == UndoSettings(created_issue=expected)


def test_without_created_issue_the_issue_is_left() -> None:
    undo = undo_from_json({})
    assert undo.created_issue.mode == "leave"
    assert undo_to_json(undo) == {"created_issue": {"mode": "leave"}}


_STATUS = st.text(alphabet="AbcЯ _-", min_size=1, max_size=12).filter(lambda s: s.strip() == s and s != "")
_LABELS = st.none() | st.text(alphabet="abc-_1Я", min_size=1, max_size=10)


@given(
    mode=st.sampled_from(["leave", "status"]),
    path=st.lists(_STATUS, max_size=4),
    label=_LABELS,
)
def test_what_is_written_reads_back_as_itself(mode: str, path: list[str], label: str | None) -> None:
    if mode == "status" and not path:
        path = ["Done"]
    undo = UndoSettings(created_issue=CreatedIssueUndo(mode=mode, path=path, label=label))  # type: ignore[arg-type]
    assert undo_from_json(undo_to_json(undo)) == undo
