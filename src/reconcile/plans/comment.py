"""``ensure_comment``: keep the oldest comment starting with the marker in step with the command's text."""

from __future__ import annotations

from typing import Any

from reconcile.plans._run import Body, Run, issue_path, next_start
from reconcile.plans.base import JiraCall
from reconcile.text import same_text

__all__ = ["comment_text", "ensure_comment"]


def comment_text(marker: str, body: str) -> str:
    """``body`` when it already starts with ``marker``, else ``marker`` + newline + ``body``."""
    return body if body.startswith(marker) else f"{marker}\n{body}"


def _order(comment: Any) -> tuple[str, int]:
    comment_id = str(comment.get("id") or "")
    return (str(comment.get("created") or ""), int(comment_id) if comment_id.isdigit() else 0)


def ensure_comment(run: Run) -> Body:
    key = run.str_param("key")
    marker = run.str_param("marker")
    text = comment_text(marker, run.opt_str("body") or "")
    path = issue_path(key, "/comment")
    comments: list[Any] = []
    start: int | None = 0
    while start is not None:
        call = JiraCall(method="GET", path=path, params={"startAt": str(start), "maxResults": "100"})
        response = yield from run.call(call)
        page, start = next_start(response.json, start, "comments")
        comments.extend(page)
    marked = sorted(
        (c for c in comments if isinstance(c.get("body"), str) and c["body"].startswith(marker)), key=_order
    )
    if marked:
        kept = marked[0]
        comment_id = str(kept.get("id"))
        if same_text(kept.get("body"), text):
            return run.done(comment_id=comment_id, action="none")
        yield from run.call(JiraCall(method="PUT", path=f"{path}/{comment_id}", json={"body": text}))
        return run.done(comment_id=comment_id, action="updated")
    response = yield from run.call(JiraCall(method="POST", path=path, json={"body": text}))
    body = response.json if isinstance(response.json, dict) else {}
    new_id = body.get("id")
    return run.done(comment_id=None if new_id is None else str(new_id), action="created")
