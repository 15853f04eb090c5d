"""``ensure_status`` fed Jira's answers as values (no I/O): the path of transitions with pauses, where it starts,
the key and place named when Jira's answer cannot be read, and the pure rules of a target and a transition."""

from __future__ import annotations

from typing import Any

import pytest

from reconcile.executors import JiraCall
from reconcile.executors._run import CommandFailed
from reconcile.executors.status import pick_transition, status_path
from tests.support import seed_result

from .executors_support import ISSUE, KEY, calls, issue, kinds, ok, play


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
    assert seed_result(report.result) == {"status": "", "transitions": []}


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
    assert seed_result(report.result) == {"status": status, "transitions": ["Готово"]}
    assert calls(steps)[-1] == ("POST", f"{ISSUE}/transitions")


def transitions(*pairs: tuple[str, str, str]) -> dict[str, Any]:
    return {"transitions": [{"id": tid, "name": name, "to": {"name": to}} for tid, name, to in pairs]}


def test_status_path_takes_two_transitions_with_a_pause() -> None:
    """Path [Разработка, Готово] from «Ожидание разработки»: POST, pause, POST (seed: «Переход по пути»)."""
    answers = [
        ok(issue("X-1", status={"name": "Ожидание разработки"})),
        ok(transitions(("11", "В разработку", "Разработка"))),
        ok(status=204),
        ok(transitions(("31", "Готово", "Готово"), ("41", "Вернуть в ожидание", "Ожидание разработки"))),
        ok(status=204),
    ]
    report, steps = play("ensure_status", {"key": "X-1", "target": ["Разработка", "Готово"]}, answers, pause=30)
    assert kinds(steps) == [
        "GET /rest/api/2/issue/X-1",
        "GET /rest/api/2/issue/X-1/transitions",
        "POST /rest/api/2/issue/X-1/transitions",
        "pause 30",
        "GET /rest/api/2/issue/X-1/transitions",
        "POST /rest/api/2/issue/X-1/transitions",
    ]
    assert isinstance(steps[2], JiraCall)
    assert steps[2].json == {"transition": {"id": "11"}}
    assert seed_result(report.result) == {"status": "Готово", "transitions": ["В разработку", "Готово"]}
    assert len(report.operations) == 2


def test_status_already_at_the_end_is_done_without_writes() -> None:
    """If X is already «Готово», the path is done after one read."""
    report, steps = play(
        "ensure_status",
        {"key": "X-1", "target": ["Разработка", "Готово"]},
        [ok(issue("X-1", status={"name": "Готово"}))],
    )
    assert len(steps) == 1
    assert (report.status, seed_result(report.result)) == ("done", {"status": "Готово", "transitions": []})


def test_status_continues_after_the_current_step() -> None:
    """From a status inside the path only the rest of the path is walked."""
    answers = [
        ok(issue("X-1", status={"name": "Разработка"})),
        ok(transitions(("31", "Готово", "Готово"))),
        ok(status=204),
    ]
    report, _ = play("ensure_status", {"key": "X-1", "target": ["Разработка", "Готово"]}, answers)
    assert seed_result(report.result) == {"status": "Готово", "transitions": ["Готово"]}


def test_status_missing_transition_lists_the_reachable_statuses() -> None:
    """No transition into the step: failed naming the step, the current status and the reachable ones."""
    answers = [
        ok(issue("X-1", status={"name": "Ожидание разработки"})),
        ok(transitions(("11", "В разработку", "Разработка"))),
    ]
    report, _ = play("ensure_status", {"key": "X-1", "target": "Готово"}, answers)
    assert report.status == "failed"
    assert report.error == "нет перехода в «Готово» из «Ожидание разработки»; доступны: Разработка"
    assert seed_result(report.result) == {"status": "Ожидание разработки", "transitions": []}


# --- the pure rules: the path a target names, and which transition leads into a step ---


def test_a_target_is_one_status_or_a_path_of_them() -> None:
    assert status_path("Готово") == ["Готово"]
    assert status_path(["Разработка", 5, None, "Готово"]) == ["Разработка", "Готово"]


@pytest.mark.parametrize("target", [None, [], [1, None], 7, {"name": "Готово"}])
def test_no_status_in_the_target_fails_the_command(target: Any) -> None:
    with pytest.raises(CommandFailed) as failed:
        status_path(target)
    assert str(failed.value) == "нет параметра target"


def test_the_transition_into_a_step_is_found_by_its_target_status_first() -> None:
    """By ``to.name`` first (whatever the transitions are called), then by the transition's own name."""
    by_name = {"id": "1", "name": "Готово", "to": {"name": "Закрыта"}}
    by_target = {"id": "2", "name": "Закрыть", "to": {"name": "Готово"}}
    assert pick_transition([by_name, by_target], "Готово") == by_target
    assert pick_transition([by_name], "Готово") == by_name
    assert pick_transition([{"id": "3", "name": "Готово", "to": "Готово"}], "Готово") == {
        "id": "3",
        "name": "Готово",
        "to": "Готово",
    }
    assert pick_transition([{"id": "4", "to": {"name": None}}, by_target], "Готово") == by_target
    assert pick_transition([by_name, by_target], "Разработка") is None
    assert pick_transition([], "Готово") is None


def test_status_only_if_unchanged_in_the_status_expected_walks_on() -> None:
    """if_unchanged {status} naming the status Jira holds: no conflict, the transition is made."""
    params = {"key": KEY, "target": "Разработка", "if_unchanged": {"status": "Анализ"}}
    transitions = {"transitions": [{"id": "3", "name": "В работу", "to": {"name": "Разработка"}}]}
    answers = [ok(issue(KEY, status={"name": "Анализ"})), ok(transitions), ok(status=204)]
    report, steps = play("ensure_status", params, answers)
    assert kinds(steps) == [f"GET {ISSUE}", f"GET {ISSUE}/transitions", f"POST {ISSUE}/transitions"]
    assert seed_result(report.result) == {"status": "Разработка", "transitions": ["В работу"]}
