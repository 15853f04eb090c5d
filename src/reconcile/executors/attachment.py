"""``ensure_attachment``: upload the hub's file unless an attachment of the same name and size is there.

The hub's bytes are checked against the command's size and sha256 before any upload (DESIGN.md 5.2): a file
that changed under the hub must never reach Jira under the planner's name.

``absent: true`` (DESIGN.md 6.4) deletes the attachments that are the file — its size (and its ``filename`` when
given: Jira keeps no sha256, so size and name are how the seed already tells an attachment is the file) — that
the agent's Jira user added; the same by another user is left, and when only such are there the command fails
«вложение добавлено не агентом». ``undo`` is ``{added: {id, sha256}}`` or ``{deleted: [...]}``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from reconcile.executors._run import Body, CommandFailed, Run
from reconcile.executors.base import FetchFile, JiraCall, Upload
from reconcile.executors.comment import comment_author
from reconcile.guard.paths import API, issue_path, jira_path, positive_id
from reconcile.jira.answers import jira_id, jira_list, jira_object
from reconcile.jira.model import issue_fields
from reconcile.jira.replaced import AttachmentRef, AttachmentUndo

__all__ = ["NOT_THE_AGENTS", "ensure_attachment", "file_problem"]

NOT_THE_AGENTS = "вложение добавлено не агентом"


def file_problem(sha256: str, size: int | None, content: bytes) -> str | None:
    """Why the hub's bytes must not be uploaded, or ``None`` when they are the file the command names."""
    if size is not None and len(content) != size:
        return f"файл {sha256} у хаба другого размера: {len(content)} байт вместо {size}"
    digest = hashlib.sha256(content).hexdigest()
    if digest != sha256.lower():
        return f"файл {sha256} у хаба с другим sha256: {digest}"
    return None


def _remove(run: Run, key: str, sha256: str, attachments: list[Any]) -> Body:
    filename = run.opt_str("filename")
    size: int | None = run.params.get("size")
    if size is None and filename is None:
        raise CommandFailed(f"файл {sha256} больше нет у хаба")
    same = [
        jira_object(raw, key, f"attachment[{index}]")
        for index, raw in enumerate(attachments)
        if isinstance(raw, Mapping)
        and (size is None or raw.get("size") == size)
        and (filename is None or raw.get("filename") == filename)
    ]
    mine = [a for a in same if comment_author(a) is not None and comment_author(a) == run.ctx.jira_user]
    if same and not mine:
        raise CommandFailed(NOT_THE_AGENTS)
    refs = tuple(
        AttachmentRef(id=jira_id(a.get("id"), key, "attachment[].id"), sha256=sha256, filename=str(a.get("filename")))
        for a in mine
    )
    for done, ref in enumerate(refs):
        yield from run.pause_between_writes()
        run.result["undo"] = AttachmentUndo(deleted=refs[: done + 1]).to_json()
        yield from run.call(
            JiraCall(method="DELETE", path=jira_path(API, "attachment", positive_id(ref.id, "вложения")))
        )
    return run.done(attachment_id=refs[0].id if refs else None, uploaded=False, deleted=len(refs))


def ensure_attachment(run: Run) -> Body:
    key = run.key_param("key")
    sha256 = run.str_param("file")
    response = yield from run.call(JiraCall(method="GET", path=issue_path(key), params={"fields": "attachment"}))
    attachments = jira_list(issue_fields(response.json, key).get("attachment"), key, "attachment")
    if run.params.get("absent") is True:
        return (yield from _remove(run, key, sha256, attachments))
    filename = run.str_param("filename")
    # The hub completes `size` at delivery: the file's size in bytes, or null when the hub no longer has it.
    size: int | None = run.params.get("size")
    for index, raw in enumerate(attachments):
        attachment = jira_object(raw, key, f"attachment[{index}]")
        if size is not None and attachment.get("filename") == filename and attachment.get("size") == size:
            return run.done(attachment_id=jira_id(attachment.get("id"), key, f"attachment[{index}].id"), uploaded=False)
    content = yield FetchFile(sha256=sha256, size=size)
    if content is None:
        raise CommandFailed(f"файл {sha256} больше нет у хаба")
    problem = file_problem(sha256, size, content)
    if problem is not None:
        raise CommandFailed(problem)
    upload = Upload(filename=filename, content=content)
    call = JiraCall(method="POST", path=issue_path(key, "attachments"), upload=upload)
    response = yield from run.call(call)
    # Jira answers the attachments it created, as a list: the upload of one file is its first element.
    where = f"POST {call.path}"
    created = jira_list(response.json, where, "ответ")
    if not created:
        raise CommandFailed(f"ответ Jira по {where}: ответ — пустой список вместо созданного вложения")
    first = jira_object(created[0], where, "[0]")
    attachment_id = jira_id(first.get("id"), where, "[0].id")
    run.result["undo"] = AttachmentUndo(
        added=AttachmentRef(id=attachment_id, sha256=sha256, filename=filename)
    ).to_json()
    return run.done(attachment_id=attachment_id, uploaded=True)
