"""Comments of issues: as in Jira they bump the issue's ``updated`` but write no changelog.

Webhooks hear of a comment twice, as Jira DC tells them: ``jira:issue_updated`` (``issue_commented``, with
the issue) and ``comment_created`` (the comment alone). A comment is deleted only by its author (Jira's «Delete
Own Comments»; the simulator's users hold no «Delete All Comments»), announced as ``issue_comment_deleted``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jira_sim.model import Change, Comment, Issue, JiraError
from jira_sim.state import StoreState

__all__ = ["Comments"]

_EMPTY = {"comment": "Comment body can not be empty!"}


class Comments(StoreState):
    @staticmethod
    def comment_text(body: Mapping[str, Any]) -> str | None:
        """The text of a comment body, ``None`` when Jira would refuse it as empty."""
        text = body.get("body")
        return text if isinstance(text, str) and text.strip() else None

    def comment(self, key: str, comment_id: str) -> Comment:
        found = next((c for c in self.issue(key).comments if c.id == comment_id), None)
        if found is None:
            raise JiraError(404, [f"Can not find a comment for the id: {comment_id}."])
        return found

    def add_comment(self, key: str, body: Mapping[str, Any], user: str) -> Comment:
        issue = self.issue(key)
        comment = self.new_comment(issue, body, user)
        self.emit_update(issue, user, "issue_commented", len(issue.histories), [comment])
        return comment

    def new_comment(self, issue: Issue, body: Mapping[str, Any], user: str) -> Comment:
        """Add the comment; the operation that adds it tells the webhooks."""
        text = self.comment_text(body)
        if text is None:
            raise JiraError(400, [], _EMPTY)
        now = self.now()
        comment = Comment(
            id=self.new_id("comment"), author=user, body=text, created=now, updated=now, update_author=user
        )
        issue.comments.append(comment)
        self.touch(issue, now)
        return comment

    def update_comment(self, key: str, comment_id: str, body: Mapping[str, Any], user: str) -> Comment:
        issue = self.issue(key)
        comment = self.comment(key, comment_id)
        text = self.comment_text(body)
        if text is None:
            raise JiraError(400, [], _EMPTY)
        if text != comment.body:
            now = self.now()
            comment.body = text
            comment.updated = now
            comment.update_author = user
            self.touch(issue, now)
            self.emit_update(issue, user, "issue_comment_edited", len(issue.histories), [comment], edited=True)
        return comment

    def delete_comment(self, key: str, comment_id: str, user: str) -> None:
        issue = self.issue(key)
        comment = self.comment(key, comment_id)
        if comment.author != user:
            raise JiraError(403, ["You do not have the permission to delete this comment."])
        issue.comments.remove(comment)
        now = self.now()
        self.touch(issue, now)
        self.emit(Change(event="jira:issue_updated", issue=issue, user=user, at=now, type_name="issue_comment_deleted"))
