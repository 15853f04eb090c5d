"""``ensure_comment``: keep the oldest comment starting with the marker in step with the command's text.

``absent: true`` (DESIGN.md 6.4) deletes the comments starting with the marker, only when the agent's Jira user
wrote every one of them (else ``failed`` «комментарий написан не агентом», nothing deleted). ``undo`` is
``{created: id}``, ``{updated: id, previous_body}`` or ``{deleted: [{id, body}]}``, all from the comments the
executor reads anyway.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reconcile.executors._run import Body, CommandFailed, Run, next_start
from reconcile.executors.base import JiraCall
from reconcile.guard.paths import issue_path, positive_id
from reconcile.jira.answers import jira_id, jira_object
from reconcile.jira.replaced import CommentRef, CommentUndo
from reconcile.vocabulary.text import same_text

__all__ = ["NOT_THE_AGENTS", "comment_author", "comment_text", "ensure_comment"]

NOT_THE_AGENTS = "комментарий написан не агентом"


def comment_text(marker: str, body: str) -> str:
    """``body`` when it already starts with ``marker``, else ``marker`` + newline + ``body``."""
    return body if body.startswith(marker) else f"{marker}\n{body}"


def comment_author(comment: Mapping[str, Any]) -> str | None:
    """The name of the Jira user who wrote the comment (or added the attachment), as Jira DC renders a user."""
    author = comment.get("author")
    name = author.get("name") if isinstance(author, Mapping) else None
    return name if isinstance(name, str) else None


def _order(comment: Mapping[str, Any]) -> tuple[str, int]:
    comment_id = comment.get("id")
    number = comment_id if isinstance(comment_id, int) and not isinstance(comment_id, bool) else 0
    if isinstance(comment_id, str) and comment_id.isascii() and comment_id.isdigit() and len(comment_id) <= 18:
        number = int(comment_id)
    return (str(comment.get("created") or ""), number)


def _remove(run: Run, key: str, marked: list[Mapping[str, Any]]) -> Body:
    """Delete every marked comment, once all of them are known to be the agent's own."""
    if any(comment_author(c) is None or comment_author(c) != run.ctx.jira_user for c in marked):
        raise CommandFailed(NOT_THE_AGENTS)
    refs = tuple(CommentRef(id=jira_id(c.get("id"), key, "comments[].id"), body=str(c.get("body"))) for c in marked)
    deleted: list[CommentRef] = []
    for ref in refs:
        yield from run.pause_between_writes()
        run.result["undo"] = CommentUndo(deleted=(*deleted, ref)).to_json()
        yield from run.call(
            JiraCall(method="DELETE", path=issue_path(key, "comment", positive_id(ref.id, "комментария")))
        )
        deleted.append(ref)
    return run.done(comment_id=refs[0].id if refs else None, action="deleted" if refs else "none")


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
    if run.params.get("absent") is True:
        return (yield from _remove(run, key, marked))
    if marked:
        kept = marked[0]
        comment_id = jira_id(kept.get("id"), key, "comments[].id")
        if same_text(kept.get("body"), text):
            return run.done(comment_id=comment_id, action="none")
        kept_path = issue_path(key, "comment", positive_id(comment_id, "комментария"))
        run.result["undo"] = CommentUndo(updated=comment_id, previous_body=str(kept.get("body"))).to_json()
        yield from run.call(JiraCall(method="PUT", path=kept_path, json={"body": text}))
        return run.done(comment_id=comment_id, action="updated")
    response = yield from run.call(JiraCall(method="POST", path=path, json={"body": text}))
    created = jira_object(response.json, f"POST {path}", "ответ")
    comment_id = jira_id(created.get("id"), f"POST {path}", "id")
    run.result["undo"] = CommentUndo(created=comment_id).to_json()
    return run.done(comment_id=comment_id, action="created")
