"""``ensure_sprint``: put the issue into a named active or future sprint of the board, or into the backlog."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reconcile.executors._run import Body, CommandFailed, Run, issue_path, next_start
from reconcile.executors.base import JiraCall
from reconcile.jira_answers import jira_int
from reconcile.jira_model import issue_fields, sprint_infos

__all__ = ["ensure_sprint"]


def ensure_sprint(run: Run) -> Body:
    key = run.str_param("key")
    wanted = run.str_param("sprint")
    field_id = run.settings.fields.get("sprint")
    if not field_id:
        raise CommandFailed("нет настройки fields.sprint")
    response = yield from run.call(JiraCall(method="GET", path=issue_path(key), params={"fields": field_id}))
    infos = sprint_infos(issue_fields(response.json, key).get(field_id))
    if wanted == "backlog":
        run.result.update(sprint_id=None, moved=False)
        if not any(info.is_open for info in infos):
            return run.done()
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
    call = JiraCall(method="POST", path=f"/rest/agile/1.0/sprint/{sprint_id}/issue", json={"issues": [key]})
    yield from run.call(call)
    return run.done(moved=True)
