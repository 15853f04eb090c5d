"""A throwaway 9th type, ``ensure_watcher`` (a Jira user watches an issue), made part by part: the tests add it to a
copy of the catalogue and show each part it lacks refused (tests/reconcile/test_whole_type.py, and the simulator's
routes in tests/jira_sim/test_sim_type_routes.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from reconcile.executors import Body, JiraCall, JiraResponse, Run
from reconcile.types.binding import ENTRIES, TypeBinding
from reconcile.types.dryrun_answers import MirrorAnswers, MirrorView, Said, answer
from reconcile.types.plan_rules import CREATE, NO_CHANGES, SAME, PlanInput, PlanLine
from reconcile.types.state_checks import NotConfirmed
from reconcile.vocabulary.catalogue import CATALOGUE, CommandSpec, Editor, Format, Param

WATCHER = CommandSpec(
    type="ensure_watcher",
    label="Наблюдатель",
    doc="пользователь Jira наблюдает за задачей",
    required=(
        Param(name="key", format=Format.ISSUE_KEY, label="Задача", doc="задача", editor=Editor.ISSUE_KEY),
        Param(name="user", format=Format.TEXT, label="Пользователь", doc="имя пользователя Jira", editor=Editor.TEXT),
    ),
    gap=30,
    writes=True,
    sets=None,
    subject="key",
    example={"key": "AURORA-1537", "user": "petrov"},
)

NO_WATCHERS = "наблюдатели зеркалу не известны: предсказано добавление"


def _watchers(key: str) -> str:
    # issue_path admits only the fixed parts the seed's types use: a throwaway type builds its own path.
    return f"/rest/api/2/issue/{key}/watchers"


def ensure_watcher(run: Run) -> Body:
    key, user = run.key_param("key"), run.str_param("user")
    response = yield from run.call(JiraCall(method="GET", path=_watchers(key)))
    if user in [w.get("name") for w in (response.json or {}).get("watchers", ())]:
        return run.done(added=False)
    yield from run.call(JiraCall(method="POST", path=_watchers(key), json=user))
    return run.done(added=True)


def watcher_lines(plan: PlanInput) -> list[PlanLine]:
    if not plan.prediction.writes:
        return [PlanLine(sign=SAME, text=f"{NO_CHANGES}: {plan.params.get('user')} уже наблюдает")]
    return [PlanLine(sign=CREATE, text=f"наблюдатель {plan.params.get('user')}", unknown=True)]


def watcher_words(params: Mapping[str, Any], result: Mapping[str, Any]) -> list[str]:
    return ["наблюдатель добавлен" if result.get("added") else "уже наблюдает"]


def _none_known(call: JiraCall, mirror: MirrorView, parts: Mapping[str, str]) -> Said:
    return Said(response=JiraResponse(status=200, json={"watchers": []}), assumed=NO_WATCHERS)


def _added(call: JiraCall, mirror: MirrorView, parts: Mapping[str, str]) -> Said:
    return Said(response=JiraResponse(status=204))


READ_WATCHERS = answer("GET /rest/api/2/issue/{key}/watchers", _none_known)
ADD_WATCHER = answer("POST /rest/api/2/issue/{key}/watchers", _added)

WHOLE = TypeBinding(
    spec=WATCHER,
    executor=ensure_watcher,
    plan_lines=watcher_lines,
    result_words=watcher_words,
    confirmation=NotConfirmed(why="the mirror holds no watchers"),
    dry_run=MirrorAnswers((READ_WATCHERS, ADD_WATCHER)),
)


def with_watcher(**binding: Any) -> tuple[dict[str, CommandSpec], tuple[TypeBinding, ...]]:
    """A copy of the catalogue with ``ensure_watcher``, and the entries with its binding (changed by ``binding``)."""
    return {**CATALOGUE, WATCHER.type: WATCHER}, (*ENTRIES, attrs.evolve(WHOLE, **binding))
