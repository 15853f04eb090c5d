"""``ensure_status`` fed values with no I/O: the key and place named when Jira's answer cannot be read, the
transitions offered and the status after one."""

from __future__ import annotations

from typing import Any

import pytest

from .executors_support import ISSUE, KEY, calls, issue, ok, play


@pytest.mark.parametrize(
    ("answers", "error"),
    [
        ([ok({"key": KEY, "fields": 5})], "fields — ожидается объект, получено: число"),
        ([ok(issue(KEY, status=[]))], "status — ожидается объект, получено: список"),
        ([ok(issue(KEY, status={"name": 5}))], "status.name — ожидается строка или null, получено: число"),
        (
            [ok(issue(KEY, status={"name": "Анализ"})), ok({"transitions": 5})],
            "transitions — ожидается список, получено: число",
        ),
        (
            [ok(issue(KEY, status={"name": "Анализ"})), ok({"transitions": [{"id": "1", "name": "x"}, 5]})],
            "transitions[1] — ожидается объект, получено: число",
        ),
    ],
)
def test_status_answers_that_cannot_be_read_name_the_issue_and_the_place(answers: list[Any], error: str) -> None:
    """The issue's status, its name and the transitions list are read strictly; the error names key and place."""
    report, _ = play("ensure_status", {"key": KEY, "target": "Готово"}, answers)
    assert (report.status, report.error) == ("failed", f"ответ Jira по {KEY}: {error}")


def test_an_issue_without_status_starts_from_an_empty_name() -> None:
    """No status (null) reads as the empty name: the walk starts at the path's first step and says «из «»»;
    no transition at all reads as «доступны: нет»."""
    report, _ = play(
        "ensure_status", {"key": KEY, "target": "Готово"}, [ok(issue(KEY, status=None)), ok({"transitions": []})]
    )
    assert (report.status, report.error) == ("failed", "нет перехода в «Готово» из «»; доступны: нет")
    assert report.result == {"status": "", "transitions": []}


def test_the_transitions_offered_are_listed_by_target_status_else_by_their_own_name() -> None:
    """A transition without ``to`` (or with ``to.name`` null) is listed by its own name, once each."""
    transitions = [
        {"id": "1", "name": "Закрыть"},
        {"id": "2", "name": "Отложить", "to": {"name": None}},
        {"id": "3", "name": "В работу", "to": {"name": "Разработка"}},
        {"id": "4", "to": {"name": "Разработка"}},
        {"id": "5", "name": "Закрыть", "to": "Закрыта"},
    ]
    report, _ = play(
        "ensure_status",
        {"key": KEY, "target": "Готово"},
        [ok(issue(KEY, status={"name": "Анализ"})), ok({"transitions": transitions})],
    )
    assert report.error == "нет перехода в «Готово» из «Анализ»; доступны: Закрыть, Отложить, Разработка"


def test_a_transition_without_any_name_offers_nothing() -> None:
    """A transition with neither ``to.name`` nor ``name`` has no name to show: «доступны: нет»."""
    report, _ = play(
        "ensure_status",
        {"key": KEY, "target": "Готово"},
        [ok(issue(KEY, status={"name": "Анализ"})), ok({"transitions": [{"id": "5"}]})],
    )
    assert report.error == "нет перехода в «Готово» из «Анализ»; доступны: нет"


def test_a_transition_without_any_name_is_left_out_beside_named_ones() -> None:
    """The list names what a person could ask for: no empty entry between the named transitions."""
    transitions = [{"id": "1", "name": "Закрыть"}, {"id": "5"}, {"id": "6", "to": {"name": "Разработка"}}]
    report, _ = play(
        "ensure_status",
        {"key": KEY, "target": "Готово"},
        [ok(issue(KEY, status={"name": "Анализ"})), ok({"transitions": transitions})],
    )
    assert report.error == "нет перехода в «Готово» из «Анализ»; доступны: Закрыть, Разработка"


@pytest.mark.parametrize(
    ("transition", "status"),
    [
        ({"id": "7", "name": "Готово", "to": {"name": "Закрыта"}}, "Закрыта"),
        ({"id": "7", "name": "Готово"}, "Готово"),
        ({"id": "7", "name": "Готово", "to": {"name": None}}, "Готово"),
    ],
)
def test_after_a_transition_the_status_is_its_target_else_the_step(transition: dict[str, Any], status: str) -> None:
    """A transition found by its own name leads to its ``to.name`` when Jira gives one, else to the step."""
    report, steps = play(
        "ensure_status",
        {"key": KEY, "target": "Готово"},
        [ok(issue(KEY, status={"name": "Анализ"})), ok({"transitions": [transition]}), ok(None, status=204)],
    )
    assert report.status == "done"
    assert report.result == {"status": status, "transitions": ["Готово"]}
    assert calls(steps)[-1] == ("POST", f"{ISSUE}/transitions")
