"""Issue links: created once per (type, inward, outward), deleted by id, written to both issues' changelog.

Webhooks hear ``issuelink_created``/``issuelink_deleted`` only, as from Jira DC (no ``jira:issue_updated``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jira_sim.comments import Comments
from jira_sim.model import Change, HistoryItem, JiraError, Link, LinkType

__all__ = ["Links"]


class Links(Comments):
    def add_link(self, body: Mapping[str, Any], user: str) -> Link:
        ref = body.get("type") or {}
        link_type = next(
            (t for t in self.link_types.values() if ref.get("name") == t.name or str(ref.get("id")) == t.id), None
        )
        if link_type is None:
            shown = ref.get("name", ref.get("id"))
            raise JiraError(404, [f"No issue link type with name '{shown}' found."])
        keys = []
        for side in ("inwardIssue", "outwardIssue"):
            issue_ref = body.get(side) or {}
            try:
                keys.append(self.issue(str(issue_ref.get("key") or issue_ref.get("id") or "")).key)
            except JiraError:
                raise JiraError(404, [f"Issue Does Not Exist: {issue_ref.get('key', issue_ref.get('id'))}"]) from None
        inward, outward = keys
        existing = next(
            (
                link
                for link in self.links_of(inward)
                if (link.type_id, link.inward, link.outward) == (link_type.id, inward, outward)
            ),
            None,
        )
        if existing is not None:
            return existing
        link = Link(id=self.new_id("link"), type_id=link_type.id, inward=inward, outward=outward)
        self.add_link_record(link)
        self._record_link(link_type, inward, outward, user, added=True)
        self.emit(Change(event="issuelink_created", issue=self.issues[inward], user=user, at=self.now(), link=link))
        comment = body.get("comment")
        if isinstance(comment, Mapping) and comment.get("body"):
            self.add_comment(inward, comment, user)
        return link

    def get_link(self, link_id: str) -> Link:
        link = self.links.get(link_id)
        if link is None:
            raise JiraError(404, [f"No issue link with id '{link_id}' exists."])
        return link

    def delete_link(self, link_id: str, user: str) -> None:
        link = self.get_link(link_id)
        self.remove_link_record(link)
        self._record_link(self.link_types[link.type_id], link.inward, link.outward, user, added=False)
        source = self.issues[link.inward]
        self.emit(Change(event="issuelink_deleted", issue=source, user=user, at=self.now(), link=link))

    def _record_link(self, link_type: LinkType, inward: str, outward: str, user: str, *, added: bool) -> None:
        """The changelog of both issues of a link, as Jira writes it: «This issue <verb> <other key>»."""
        now = self.now()
        for key, other, verb in ((inward, outward, link_type.outward), (outward, inward, link_type.inward)):
            text = f"This issue {verb} {other}"
            item = HistoryItem(
                field="Link",
                fieldtype="jira",
                from_=None if added else other,
                from_string=None if added else text,
                to=other if added else None,
                to_string=text if added else None,
            )
            self.record(self.issues[key], user, [item], now)
