"""A board the hub names is verified against Jira before anything else is done with it (DESIGN.md 5.7).

Its id must be a positive integer (:func:`board_param`, before any call); then ``GET /rest/agile/1.0/board/{id}``
is read and a board whose ``location.projectKey`` is not among the projects the agent may touch is refused
(«доска 9001 не в разрешённых проектах») with no further call for it. Nothing read from a refused board — its
name, its project, its sprints — goes into a report. The agent's Jira client answers the same board's read from
its cache for the rest of the run, so the check costs one call per board.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping, Sequence
from typing import Any

from reconcile.executors._run import CommandFailed, Run
from reconcile.executors.base import JiraCall, JiraResponse, Step
from reconcile.guard.paths import AGILE, PositiveId, jira_path, positive_id

__all__ = ["board_param", "board_problem", "read_board"]


def board_param(value: Any) -> PositiveId:
    """The delivered ``board_id`` as a path part: «нет параметра board_id» when missing, «недопустимый id доски:
    …» when it is no positive integer."""
    if value is None:
        raise CommandFailed("нет параметра board_id")
    return positive_id(value, "доски")


def board_problem(body: Any, board: PositiveId, allowed: Sequence[str] | None) -> str | None:
    """Why the board Jira answered must not be used, or ``None``; ``allowed`` ``None``: any project."""
    if allowed is None:
        return None
    location = body.get("location") if isinstance(body, Mapping) else None
    project = location.get("projectKey") if isinstance(location, Mapping) else None
    if isinstance(project, str) and project in allowed:
        return None
    return f"доска {board.number} не в разрешённых проектах"


def read_board(run: Run, board: PositiveId) -> Generator[Step, Any, JiraResponse]:
    """``GET /rest/agile/1.0/board/{id}`` (an error answer fails the command); a board outside the allowed projects
    fails it too."""
    response = yield from run.call(JiraCall(method="GET", path=jira_path(AGILE, "board", board)))
    problem = board_problem(response.json, board, run.ctx.allowed_projects)
    if problem is not None:
        raise CommandFailed(problem)
    return response
