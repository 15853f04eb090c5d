"""The status executor's pure rules: the path a target names, and which transition leads into a step."""

from __future__ import annotations

from typing import Any

import pytest

from reconcile.executors._run import CommandFailed
from reconcile.executors.status import pick_transition, status_path


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
