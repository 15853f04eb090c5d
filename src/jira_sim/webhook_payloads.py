"""The bodies Jira Data Center posts to webhooks, built from a :class:`jira_sim.model.Change`.

As recorded from Jira Server/DC (``tests/cassettes/webhooks/``, checked by ``tests/contract``):

- ``jira:issue_created|updated|deleted``: ``{timestamp, webhookEvent, issue_event_type_name, user, issue,
  changelog?: {id, items}, comment?}``; ``issue`` is the REST v2 issue as ``GET /issue/{key}`` renders it
  (all fields; no ``expand``), ``timestamp`` milliseconds since the epoch;
- ``comment_created|updated``: ``{timestamp, webhookEvent, comment}``, the comment alone (Jira DC strips the
  issue; the ``jira:issue_updated`` event of the same comment carries it);
- ``issuelink_created|deleted``: ``{timestamp, webhookEvent, issueLink: {id, sourceIssueId,
  destinationIssueId, issueLinkType, systemLink}}`` with numeric ids and no user.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from jira_sim.model import Change
from jira_sim.render import Renderer

__all__ = ["millis", "payload"]


def millis(at: datetime) -> int:
    return int(at.timestamp() * 1000)


def payload(change: Change, r: Renderer) -> dict[str, Any]:
    """The JSON body of ``change``'s webhook delivery."""
    out: dict[str, Any] = {"timestamp": millis(change.at), "webhookEvent": change.event}
    if change.link is not None:
        link, store = change.link, r.store
        link_type = store.link_types[link.type_id]
        out["issueLink"] = {
            "id": int(link.id),
            "sourceIssueId": int(store.issue(link.inward).id),
            "destinationIssueId": int(store.issue(link.outward).id),
            "issueLinkType": {
                "id": int(link_type.id),
                "name": link_type.name,
                "outwardName": link_type.outward,
                "inwardName": link_type.inward,
                "isSubTaskLinkType": False,
                "isSystemLinkType": False,
            },
            "systemLink": False,
        }
        return out
    if not change.event.startswith("jira:"):  # comment_created, comment_updated
        assert change.comment is not None
        out["comment"] = r.comment(change.issue, change.comment)
        return out
    issue = r.issue(change.issue)
    del issue["expand"]
    out["issue_event_type_name"] = change.type_name
    out["user"] = r.user(change.user)
    out["issue"] = issue
    if change.items:
        out["changelog"] = {"id": change.history_id, "items": r.items(change.items)}
    if change.comment is not None:
        out["comment"] = r.comment(change.issue, change.comment)
    return out
