"""``ensure_attachment``: upload the hub's file unless an attachment of the same name and size is there.

The hub's bytes are checked against the command's size and sha256 before any upload (DESIGN.md 5.2): a file
that changed under the hub must never reach Jira under the planner's name.
"""

from __future__ import annotations

import hashlib

from reconcile.executors._run import Body, CommandFailed, Run
from reconcile.executors.base import FetchFile, JiraCall, Upload
from reconcile.jira_answers import jira_id, jira_list, jira_object
from reconcile.jira_model import issue_fields
from reconcile.jira_paths import issue_path

__all__ = ["ensure_attachment", "file_problem"]


def file_problem(sha256: str, size: int | None, content: bytes) -> str | None:
    """Why the hub's bytes must not be uploaded, or ``None`` when they are the file the command names."""
    if size is not None and len(content) != size:
        return f"файл {sha256} у хаба другого размера: {len(content)} байт вместо {size}"
    digest = hashlib.sha256(content).hexdigest()
    if digest != sha256.lower():
        return f"файл {sha256} у хаба с другим sha256: {digest}"
    return None


def ensure_attachment(run: Run) -> Body:
    key = run.key_param("key")
    sha256 = run.str_param("file")
    filename = run.str_param("filename")
    # The hub completes `size` at delivery: the file's size in bytes, or null when the hub no longer has it.
    size: int | None = run.params.get("size")
    response = yield from run.call(JiraCall(method="GET", path=issue_path(key), params={"fields": "attachment"}))
    attachments = jira_list(issue_fields(response.json, key).get("attachment"), key, "attachment")
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
    return run.done(attachment_id=jira_id(first.get("id"), where, "[0].id"), uploaded=True)
