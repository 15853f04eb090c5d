"""The file picker of «Новый пакет» (issue 32): a file for ``ensure_attachment`` is stored as ``POST /files`` stores
it, and the command names it by its sha256.

With JavaScript, ``static/hub.js`` posts the chosen file's bytes to ``POST /files`` on the page's own origin (the
session's cookie, its CSRF token in a header, ``HX-Request`` so that the dispatch gives it to the page), then fills
the command's «Файл» with the sha256, its «Имя вложения» when empty, and shows the name and size. Without
JavaScript the editor's form is multipart while it holds an attachment command, so the file rides along with
whichever button is pressed and :func:`store_uploads` stores it the same way before the draft is read.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Mapping
from typing import Any

import attrs
from litestar import Response, post
from litestar.datastructures import FormMultiDict, UploadFile
from litestar.params import FromQuery

from hub_app.operations import admin
from hub_app.runtime.connection import HubRequest, hub_of
from hub_app.runtime.refusals import refusal
from hub_app.web.editor.form import Draft
from hub_app.web.labels import file_size
from reconcile.vocabulary import CATALOGUE, Format

__all__ = [
    "ROUTES",
    "UPLOAD",
    "Uploaded",
    "file_upload",
    "files_shown",
    "named_files",
    "store_uploads",
    "with_uploads",
]

#: The suffix of a file field's picker in the editor's form (``c3.file.upload``).
UPLOAD = ".upload"
_PICKED = re.compile(r"^c([1-9][0-9]*)\.([a-z_]+)" + re.escape(UPLOAD) + "$")
_CHUNK = 1 << 20


@attrs.frozen(kw_only=True)
class Uploaded:
    """A file stored from the editor: which command's which parameter names it, and what it is."""

    command: int
    param: str
    sha256: str
    size: int
    filename: str


def _said(filename: str | None, size: int) -> str:
    return f"{filename}, {file_size(size)}" if filename else file_size(size)


@post("/files", request_max_body_size=None)
async def file_upload(request: HubRequest, filename: FromQuery[str | None] = None) -> Response[Any]:
    """The picker's upload: ``{sha256, size, filename, shown}`` (201), or ``{detail}`` with the API's status and
    words (413: too large, or the store is full)."""
    try:
        stored = await admin.upload_file(hub_of(request), request.stream(), filename=filename)
    except Exception as exc:
        refused = refusal(exc)
        if refused is None:
            raise
        return Response({"detail": refused.message}, status_code=refused.status)
    answer = {"sha256": stored.sha256, "size": stored.size, "filename": filename, "shown": _said(filename, stored.size)}
    return Response(answer, status_code=201)


async def _chunks(upload: UploadFile) -> AsyncIterator[bytes]:
    while chunk := await upload.read(_CHUNK):
        yield chunk


async def store_uploads(request: HubRequest, form: FormMultiDict) -> list[Uploaded]:
    """The files the editor's form carries (no JavaScript), each stored as ``POST /files`` stores it."""
    found = []
    for name, value in form.multi_items():
        picked = _PICKED.match(name)
        if picked is None or not isinstance(value, UploadFile) or not value.filename:
            continue
        stored = await admin.upload_file(hub_of(request), _chunks(value), filename=value.filename)
        found.append(
            Uploaded(
                command=int(picked.group(1)),
                param=picked.group(2),
                sha256=stored.sha256,
                size=stored.size,
                filename=value.filename,
            )
        )
    return found


def with_uploads(draft: Draft, uploads: list[Uploaded]) -> Draft:
    """The draft naming the files just stored: the sha256 in the file's parameter, the file's name as the
    attachment's when it has none yet."""
    commands = list(draft.commands)
    for upload in uploads:
        if not 1 <= upload.command <= len(commands):
            continue
        command = commands[upload.command - 1]
        spec = CATALOGUE.get(command.type)
        if spec is None or spec.file_param != upload.param:
            continue
        params = {**command.params, upload.param: upload.sha256}
        named = next((p.name for p in spec.params if p.format is Format.FILENAME), None)
        if named is not None and not params.get(named):
            params[named] = upload.filename
        commands[upload.command - 1] = attrs.evolve(command, params=params)
    return attrs.evolve(draft, commands=tuple(commands))


def named_files(draft: Draft) -> list[str]:
    """The sha256 values the draft's commands name in their file parameter."""
    found = []
    for command in draft.commands:
        spec = CATALOGUE.get(command.type)
        value = command.params.get(spec.file_param) if spec is not None and spec.file_param else None
        if isinstance(value, str):
            found.append(value)
    return found


def files_shown(records: Mapping[str, Any]) -> dict[str, str]:
    """What the picker shows of each stored file named in the draft: «отчёт.xlsx, 12,3 КБ»."""
    return {sha: _said(record.filename, record.size) for sha, record in records.items()}


ROUTES = [file_upload]
