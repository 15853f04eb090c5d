"""``ensure_sprint``: put the issue into a named active or future sprint of the board, or into the backlog
(``backlog`` or ``null``).

The board is verified first (:mod:`reconcile.executors.boards`): its id a positive integer before any call, its
project an allowed one before its sprints are read; the sprint chosen must have been made on that board.

``if_unchanged: {sprint: name or null}`` (DESIGN.md 6.4): the issue moves only while its open sprint (the
mirror's rule: the active one, else the latest future one) has that name (``null``: none), else it is left and
named in ``conflicts``. ``undo`` is ``{from, to}``, read from the sprint field the executor reads anyway.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reconcile.executors._run import Body, CommandFailed, Run, next_start
from reconcile.executors.base import JiraCall
from reconcile.executors.boards import board_param, read_board
from reconcile.guard.paths import AGILE, PositiveId, issue_path, jira_path, positive_id
from reconcile.jira.answers import jira_int
from reconcile.jira.model import issue_fields, sprint_infos, sprint_of
from reconcile.jira.replaced import Conflict, SprintName, SprintUndo

__all__ = ["ensure_sprint"]


def _own(sprint: Mapping[str, Any], board: PositiveId) -> bool:
    """Whether a sprint of the board's list was made on that board (Jira names it in ``originBoardId``)."""
    origin = sprint.get("originBoardId")
    return origin is None or str(origin) == str(board.number)


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
    key = run.key_param("key")
    raw = run.params.get("sprint")
    wanted = "backlog" if raw is None else run.str_param("sprint")
    field_id = run.settings.fields.get("sprint")
    if not field_id:
        raise CommandFailed("нет настройки fields.sprint")
    board = None if wanted == "backlog" else board_param(run.params.get("board_id"))
    response = yield from run.call(JiraCall(method="GET", path=issue_path(key), params={"fields": field_id}))
    value = issue_fields(response.json, key).get(field_id)
    infos = sprint_infos(value)
    current = sprint_of(value)
    before = SprintName(id=current.id, name=current.name) if current is not None else None
    if board is None:
        run.result.update(sprint_id=None, moved=False)
        if not any(info.is_open for info in infos):
            return run.done()
        conflict = _held(run, before)
        if conflict is not None:
            return run.done(conflicts=[conflict.to_json()])
        run.result["undo"] = SprintUndo(before=before, after=None).to_json()
        call = JiraCall(method="POST", path=jira_path(AGILE, "backlog", "issue"), json={"issues": [key]})
        yield from run.call(call)
        return run.done(moved=True)
    # The field already shows the issue in an active sprint of that name on that board: the one the board's
    # list would choose (an active sprint wins), so its sprints are not read.
    for info in infos:
        if info.state == "active" and info.name == wanted and info.board_id == board.number:
            run.result.update(sprint_id=info.id, moved=False)
            return run.done()
    yield from read_board(run, board)
    where = f"доска {board.number}"
    sprints: list[Mapping[str, Any]] = []
    start: int | None = 0
    while start is not None:
        call = JiraCall(
            method="GET",
            path=jira_path(AGILE, "board", board, "sprint"),
            params={"state": "active,future", "startAt": str(start), "maxResults": "50"},
        )
        response = yield from run.call(call)
        page, start = next_start(response.json, start, "values", key=where)
        sprints.extend(page)
    matching = [s for s in sprints if s.get("name") == wanted]
    if not matching:
        names = ", ".join(str(s.get("name")) for s in sprints) or "нет"
        raise CommandFailed(f"нет спринта «{wanted}» на доске {board.number}; активные и будущие: {names}")
    own = [s for s in matching if _own(s, board)]
    if not own:
        raise CommandFailed(f"спринт «{wanted}» на доске {board.number} заведён на другой доске")
    chosen = next((s for s in own if str(s.get("state")).lower() == "active"), own[0])
    sprint_id = jira_int(chosen.get("id"), where, f"спринт «{wanted}»: id")
    run.result.update(sprint_id=sprint_id, moved=False)
    if any(info.id == sprint_id for info in infos):
        return run.done()
    conflict = _held(run, before)
    if conflict is not None:
        return run.done(conflicts=[conflict.to_json()])
    run.result["undo"] = SprintUndo(before=before, after=SprintName(id=sprint_id, name=wanted)).to_json()
    path = jira_path(AGILE, "sprint", positive_id(sprint_id, "спринта"), "issue")
    yield from run.call(JiraCall(method="POST", path=path, json={"issues": [key]}))
    return run.done(moved=True)
