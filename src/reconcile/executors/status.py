"""``ensure_status``: walk the path of statuses by transitions, pausing between the writes.

``if_unchanged: {status: name}`` (DESIGN.md 6.4): the walk starts only while the issue is in that status, else
the status is left and named in ``conflicts``. ``undo`` is ``{from, to, path}``: the status read first (the read
the walk needs anyway) and the statuses passed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reconcile.executors._run import Body, CommandFailed, Run
from reconcile.executors.base import JiraCall
from reconcile.guard.paths import issue_path
from reconcile.jira.answers import jira_id, jira_list, jira_object, opt_object, opt_text
from reconcile.jira.model import issue_fields
from reconcile.jira.replaced import Conflict, StatusUndo

__all__ = ["ensure_status", "pick_transition", "status_path"]


def status_path(target: Any) -> list[str]:
    steps = [target] if isinstance(target, str) else target if isinstance(target, list) else ()
    path = [step for step in steps if isinstance(step, str)]
    if not path:
        raise CommandFailed("нет параметра target")
    return path


def _to_name(transition: Mapping[str, Any]) -> str:
    to = transition.get("to")
    return str(to.get("name") or "") if isinstance(to, Mapping) else ""


def pick_transition(transitions: list[Mapping[str, Any]], step: str) -> Mapping[str, Any] | None:
    """The transition into ``step``: by its target status name, else by the transition's own name."""
    for transition in transitions:
        if _to_name(transition) == step:
            return transition
    for transition in transitions:
        if transition.get("name") == step:
            return transition
    return None


def ensure_status(run: Run) -> Body:
    key = run.key_param("key")
    path = status_path(run.params.get("target"))
    response = yield from run.call(JiraCall(method="GET", path=issue_path(key), params={"fields": "status"}))
    status = opt_object(issue_fields(response.json, key).get("status"), key, "status") or {}
    current = opt_text(status.get("name"), key, "status.name") or ""
    taken: list[str] = []
    run.result.update(status=current, transitions=taken)
    if current == path[-1]:
        return run.done()
    expected = run.params.get("if_unchanged")
    if isinstance(expected, Mapping) and expected.get("status") != current:
        conflict = Conflict(field="status", expected=expected.get("status"), found=current)
        return run.done(conflicts=[conflict.to_json()])
    before, passed = current, []
    start = len(path) - 1 - path[::-1].index(current) + 1 if current in path else 0
    for step in path[start:]:
        yield from run.pause_between_writes()
        response = yield from run.call(JiraCall(method="GET", path=issue_path(key, "transitions")))
        answer = jira_object(response.json, key, "transitions: ответ")
        available = [
            jira_object(t, key, f"transitions[{i}]")
            for i, t in enumerate(jira_list(answer.get("transitions"), key, "transitions"))
        ]
        transition = pick_transition(available, step)
        if transition is None:
            offered = (_to_name(t) or str(t.get("name") or "") for t in available)
            names = ", ".join(dict.fromkeys(name for name in offered if name)) or "нет"
            raise CommandFailed(f"нет перехода в «{step}» из «{current}»; доступны: {names}")
        transition_id = jira_id(transition.get("id"), key, f"переход «{step}»: id")
        call = JiraCall(
            method="POST",
            path=issue_path(key, "transitions"),
            json={"transition": {"id": transition_id}},
        )
        yield from run.call(call)
        taken.append(str(transition.get("name") or step))
        current = _to_name(transition) or step
        passed.append(current)
        run.result["status"] = current
        run.result["undo"] = StatusUndo(before=before, after=current, path=tuple(passed)).to_json()
    return run.done()
