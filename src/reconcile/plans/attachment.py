"""``ensure_attachment``: upload the hub's file unless an attachment of the same name and size is there.

The hub's bytes are checked against the command's size and sha256 before any upload (DESIGN.md 5.2): a file
that changed under the hub must never reach Jira under the planner's name.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from reconcile.plans._run import Body, PlanFailed, Run, issue_path
from reconcile.plans.base import FetchFile, JiraCall, Upload

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
    key = run.str_param("key")
    sha256 = run.str_param("file")
    filename = run.str_param("filename")
    size_param = run.params.get("size")
    size = size_param if isinstance(size_param, int) and not isinstance(size_param, bool) else None
    response = yield from run.call(JiraCall(method="GET", path=issue_path(key), params={"fields": "attachment"}))
    attachments = ((response.json or {}).get("fields") or {}).get("attachment") or []
    for attachment in attachments:
        if (
            isinstance(attachment, Mapping)
            and size is not None
            and attachment.get("filename") == filename
            and attachment.get("size") == size
        ):
            return run.done(attachment_id=str(attachment.get("id")), uploaded=False)
    content = yield FetchFile(sha256=sha256, size=size)
    if content is None:
        raise PlanFailed(f"файл {sha256} больше нет у хаба")
    problem = file_problem(sha256, size, content)
    if problem is not None:
        raise PlanFailed(problem)
    upload = Upload(filename=filename, content=content)
    call = JiraCall(method="POST", path=issue_path(key, "/attachments"), upload=upload)
    response = yield from run.call(call)
    created = response.json if isinstance(response.json, list) else []
    first = created[0] if created and isinstance(created[0], Mapping) else {}
    attachment_id = first.get("id")
    return run.done(attachment_id=None if attachment_id is None else str(attachment_id), uploaded=True)
