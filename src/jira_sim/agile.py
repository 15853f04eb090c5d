"""Jira Software's boards and sprints: the sprint list of a board, moving issues to a sprint or the backlog."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jira_sim.model import Board, Issue, JiraError, Sprint
from jira_sim.state import StoreState

__all__ = ["SPRINT_STATES", "Agile"]

SPRINT_STATES = ("future", "active", "closed")
_MAX_MOVED = 50


class Agile(StoreState):
    def board(self, board_id: str) -> Board:
        board = self.boards.get(int(board_id)) if board_id.isdigit() else None
        if board is None:
            raise JiraError(404, ["Board does not exist or you do not have permission to see it."])
        return board

    def sprint(self, sprint_id: str) -> Sprint:
        sprint = self.sprints.get(int(sprint_id)) if sprint_id.isdigit() else None
        if sprint is None:
            raise JiraError(
                404, [f"Sprint with id {sprint_id} does not exist or you do not have permission to see it."]
            )
        return sprint

    def board_sprints(self, board_id: str, states: list[str]) -> list[Sprint]:
        """The board's sprints in their order, only those in ``states`` when it is not empty."""
        board = self.board(board_id)
        if board.type != "scrum":
            raise JiraError(400, ["The board does not support sprints"])
        unknown = [s for s in states if s not in SPRINT_STATES]
        if unknown:
            raise JiraError(400, [f"The state '{unknown[0]}' is not valid. Valid states are: future, active, closed"])
        sprints = [self.sprints[s] for s in board.sprint_ids]
        sprints = [s for s in sprints if not states or s.state in states]
        return sorted(sprints, key=lambda s: (s.sequence, s.id))

    def move_to_sprint(self, sprint_id: str, body: Mapping[str, Any], user: str) -> None:
        sprint = self.sprint(sprint_id)
        if sprint.state == "closed":
            raise JiraError(400, ["Issues can only be moved to an active or a future sprint."])
        self._move(self._agile_issues(body), sprint.id, user)

    def move_to_backlog(self, body: Mapping[str, Any], user: str) -> None:
        self._move(self._agile_issues(body), [], user)

    def _move(self, issues: list[Issue], target: int | list[int], user: str) -> None:
        now = self.now()
        for issue in issues:
            after = self.sprints_after_move(issue, target)
            if after != issue.sprint_ids:
                item = self.sprint_item(issue.sprint_ids, after)
                issue.sprint_ids = after
                since = len(issue.histories)
                self.record(issue, user, [item], now)
                self.emit_update(issue, user, "issue_updated", since)

    def _agile_issues(self, body: Mapping[str, Any]) -> list[Issue]:
        keys = body.get("issues")
        if not isinstance(keys, list) or not keys:
            raise JiraError(400, ["No issues to move"], {"issues": "At least one issue must be specified"})
        if len(keys) > _MAX_MOVED:
            raise JiraError(400, ["Cannot move more than 50 issues at once"])
        out = []
        for key in keys:
            try:
                out.append(self.issue(str(key)))
            except JiraError:
                raise JiraError(
                    400, [f"Issue '{key}' does not exist or you do not have permission to see it."]
                ) from None
        return out
