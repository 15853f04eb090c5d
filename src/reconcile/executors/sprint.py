"""``ensure_sprint``: put the issue into a named active or future sprint of the board, or into the backlog
(``backlog`` or ``null``).

``if_unchanged: {sprint: name or null}`` (DESIGN.md 6.4): the issue moves only while its open sprint (the
mirror's rule: the active one, else the latest future one) has that name (``null``: none), else it is left and
named in ``conflicts``. ``undo`` is ``{from, to}``, read from the sprint field the executor reads anyway.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reconcile.executors._run import Body, CommandFailed, Run, issue_path, next_start
from reconcile.executors.base import JiraCall
from reconcile.jira_answers import jira_int
from reconcile.jira_model import issue_fields, sprint_infos, sprint_of
from reconcile.replaced import Conflict, SprintName, SprintUndo

__all__ = ["ensure_sprint"]


def _held(run: Run, before: SprintName | None) -> Conflict | None:
    """The only-if-unchanged conflict: the issue is no longer in the sprint ``if_unchanged`` names."""
    expected = run.params.get("if_unchanged")
    if not isinstance(expected, Mapping) or "sprint" not in expected:
        return None
    found = before.name if before is not None else None
    if expected["sprint"] == found:
        return None
    return Conflict(field="sprint", expected=expected["sprint"], found=found)


def ensure_sprint(run: Run) -> Body:
    key = run.str_param("key")
    raw = run.params.get("sprint")
    wanted = "backlog" if raw is None else run.str_param("sprint")
    field_id = run.settings.fields.get("sprint")
    if not field_id:
        raise CommandFailed("нет настройки fields.sprint")
    response = yield from run.call(JiraCall(method="GET", path=issue_path(key), params={"fields": field_id}))
    value = issue_fields(response.json, key).get(field_id)
    infos = sprint_infos(value)
    current = sprint_of(value)
    before = SprintName(id=current.id, name=current.name) if current is not None else None
    if wanted == "backlog":
        run.result.update(sprint_id=None, moved=False)
        if not any(info.is_open for info in infos):
            return run.done()
        conflict = _held(run, before)
        if conflict is not None:
            return run.done(conflicts=[conflict.to_json()])
        run.result["undo"] = SprintUndo(before=before, after=None).to_json()
        call = JiraCall(method="POST", path="/rest/agile/1.0/backlog/issue", json={"issues": [key]})
        yield from run.call(call)
        return run.done(moved=True)
    board_id = run.params.get("board_id")
    if isinstance(board_id, bool) or not isinstance(board_id, int | str) or str(board_id) == "":
        raise CommandFailed("нет параметра board_id")
    # The field already shows the issue in an active sprint of that name on that board: the one the board's
    # list would choose (an active sprint wins), so its sprints are not read.
    for info in infos:
        if (
            info.state == "active"
            and info.name == wanted
            and info.board_id is not None
            and str(info.board_id) == str(board_id)
        ):
            run.result.update(sprint_id=info.id, moved=False)
            return run.done()
    sprints: list[Mapping[str, Any]] = []
    start: int | None = 0
    while start is not None:
        call = JiraCall(
            method="GET",
            path=f"/rest/agile/1.0/board/{board_id}/sprint",
            params={"state": "active,future", "startAt": str(start), "maxResults": "50"},
        )
        response = yield from run.call(call)
        page, start = next_start(response.json, start, "values", key=f"доска {board_id}")
        sprints.extend(page)
    matching = [s for s in sprints if s.get("name") == wanted]
    if not matching:
        names = ", ".join(str(s.get("name")) for s in sprints) or "нет"
        raise CommandFailed(f"нет спринта «{wanted}» на доске {board_id}; активные и будущие: {names}")
    chosen = next((s for s in matching if str(s.get("state")).lower() == "active"), matching[0])
    sprint_id = jira_int(chosen.get("id"), f"доска {board_id}", f"спринт «{wanted}»: id")
    run.result.update(sprint_id=sprint_id, moved=False)
    if any(info.id == sprint_id for info in infos):
        return run.done()
    conflict = _held(run, before)
    if conflict is not None:
        return run.done(conflicts=[conflict.to_json()])
    run.result["undo"] = SprintUndo(before=before, after=SprintName(id=sprint_id, name=wanted)).to_json()
    call = JiraCall(method="POST", path=f"/rest/agile/1.0/sprint/{sprint_id}/issue", json={"issues": [key]})
    yield from run.call(call)
    return run.done(moved=True)
