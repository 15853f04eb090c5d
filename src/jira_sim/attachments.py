"""Attachments of issues: uploaded in one multipart request, each one a changelog item; deleted one by one, only by
the user who added it (Jira's «Delete Own Attachments»; the simulator's users hold no «Delete All Attachments»)."""

from __future__ import annotations

from jira_sim.model import Attachment, HistoryItem, JiraError
from jira_sim.state import StoreState

__all__ = ["Attachments"]


class Attachments(StoreState):
    def add_attachments(self, key: str, files: list[tuple[str, str, bytes]], user: str) -> list[Attachment]:
        """``files`` are ``(filename, content type, content)``."""
        issue = self.issue(key)
        if not files:
            raise JiraError(400, ["No attachments were found in the request."])
        now = self.now()
        added = []
        for filename, mime_type, content in files:
            attachment = Attachment(
                id=self.new_id("attachment"),
                filename=filename,
                size=len(content),
                mime_type=mime_type or "application/octet-stream",
                author=user,
                created=now,
                content=content,
            )
            self.add_attachment_record(issue, attachment)
            added.append(attachment)
        items = [
            HistoryItem(
                field="Attachment", fieldtype="jira", from_=None, from_string=None, to=a.id, to_string=a.filename
            )
            for a in added
        ]
        since = len(issue.histories)
        self.record(issue, user, items, now)
        self.emit_update(issue, user, "issue_updated", since)
        return added

    def delete_attachment(self, attachment_id: str, user: str) -> None:
        attachment = self.attachment(attachment_id)
        if attachment.author != user:
            raise JiraError(403, ["You do not have permission to delete attachment with id: " + attachment_id])
        issue = next(i for i in self.issues.values() if attachment in i.attachments)
        self.remove_attachment_record(issue, attachment)
        item = HistoryItem(
            field="Attachment",
            fieldtype="jira",
            from_=attachment.id,
            from_string=attachment.filename,
            to=None,
            to_string=None,
        )
        since = len(issue.histories)
        self.record(issue, user, [item])
        self.emit_update(issue, user, "issue_updated", since)
