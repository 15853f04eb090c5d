"""``ensure_comment``: keep the oldest comment starting with the marker in step with the command's text."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reconcile.executors._run import Body, Run, next_start
from reconcile.executors.base import JiraCall
from reconcile.jira_answers import jira_id, jira_object
from reconcile.jira_paths import issue_path, positive_id
from reconcile.text import same_text

__all__ = ["comment_text", "ensure_comment"]


def comment_text(marker: str, body: str) -> str:
    """``body`` when it already starts with ``marker``, else ``marker`` + newline + ``body``."""
    return body if body.startswith(marker) else f"{marker}\n{body}"


def _order(comment: Mapping[str, Any]) -> tuple[str, int]:
    comment_id = comment.get("id")
    number = comment_id if isinstance(comment_id, int) and not isinstance(comment_id, bool) else 0
    if isinstance(comment_id, str) and comment_id.isascii() and comment_id.isdigit() and len(comment_id) <= 18:
        number = int(comment_id)
    return (str(comment.get("created") or ""), number)


def ensure_comment(run: Run) -> Body:
    key = run.key_param("key")
    marker = run.str_param("marker")
    text = comment_text(marker, run.opt_str("body") or "")
    path = issue_path(key, "comment")
    comments: list[Mapping[str, Any]] = []
    start: int | None = 0
    while start is not None:
        call = JiraCall(method="GET", path=path, params={"startAt": str(start), "maxResults": "100"})
        response = yield from run.call(call)
        page, start = next_start(response.json, start, "comments", key=key)
        comments.extend(page)
    marked = sorted(
        (c for c in comments if isinstance(c.get("body"), str) and c["body"].startswith(marker)), key=_order
    )
    if marked:
        kept = marked[0]
        comment_id = jira_id(kept.get("id"), key, "comments[].id")
        if same_text(kept.get("body"), text):
            return run.done(comment_id=comment_id, action="none")
        kept_path = issue_path(key, "comment", positive_id(comment_id, "комментария"))
        yield from run.call(JiraCall(method="PUT", path=kept_path, json={"body": text}))
        return run.done(comment_id=comment_id, action="updated")
    response = yield from run.call(JiraCall(method="POST", path=path, json={"body": text}))
    created = jira_object(response.json, f"POST {path}", "ответ")
    return run.done(comment_id=jira_id(created.get("id"), f"POST {path}", "id"), action="created")
