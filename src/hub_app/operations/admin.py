"""Administration: API tokens, settings, projects and uploaded files.

Errors: :class:`~reconcile.vocabulary.errors.ValidationError` (422, nothing written),
:class:`~reconcile.vocabulary.errors.ConflictError` (409), :class:`~reconcile.vocabulary.errors.NotFoundError` (404).
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from collections.abc import AsyncIterable
from pathlib import Path
from typing import Any

from adapters.files import StagedFile, is_sha256
from adapters.storage.records import FileRecord, ProjectRecord
from hub_app.answers.admin import FileStored, ProjectView, TokenCreated, TokenView
from hub_app.bodies.admin import ProjectIn, ProjectPatchIn, TokenIn
from hub_app.runtime import lookups
from hub_app.runtime.hub import Hub, Unit
from hub_app.runtime.roles import Caller, Role
from reconcile.batches import file_store
from reconcile.config import Settings, merge_settings, settings_from_json, settings_to_json
from reconcile.vocabulary import CATALOGUE, ConflictError, NotFoundError, ValidationError, check_project_name

log = logging.getLogger(__name__)

__all__ = [
    "NEEDS_APPROVAL_ROLE",
    "add_token",
    "agent_file_path",
    "authenticate",
    "caller_by_digest",
    "create_project",
    "delete_project",
    "get_settings",
    "list_projects",
    "list_tokens",
    "patch_project",
    "patch_settings",
    "prune_files",
    "replace_settings",
    "revoke_token",
    "store_file",
    "token_digest",
    "upload_file",
]


#: Approval by token is for planning tools: an admin could lift it (settings, a new token), an agent creates no batch.
NEEDS_APPROVAL_ROLE = "needs_approval — только для токена роли interface"


def token_digest(secret: str) -> str:
    """What the hub keeps of a token's secret (and the web page's session of it): its sha256."""
    return hashlib.sha256(secret.encode()).hexdigest()


async def add_token(unit: Unit, body: TokenIn) -> TokenCreated:
    """A new token; its secret is in this answer only (stored as sha256)."""
    name, role = body.name, body.role
    if not name.strip() or len(name) > 200:
        raise ValidationError("имя токена — ожидается непустая строка")
    if role not in tuple(Role):
        raise ValidationError(f"роль {role} неизвестна; ожидаются {', '.join(Role)}")
    if body.needs_approval and role != Role.INTERFACE.value:
        raise ValidationError(NEEDS_APPROVAL_ROLE)
    if await unit.db.admin.token(name) is not None:
        raise ConflictError(f"токен {name} уже есть")
    secret = secrets.token_urlsafe(32)
    digest = token_digest(secret)
    await unit.db.admin.add_token(name, role=role, sha256=digest, now=unit.now, needs_approval=body.needs_approval)
    unit.audit("token_added", data={"name": name, "role": role, "needs_approval": body.needs_approval})
    return TokenCreated(name=name, role=role, secret=secret, needs_approval=body.needs_approval)


async def list_tokens(unit: Unit) -> list[TokenView]:
    return [TokenView.of(token) for token in await unit.db.admin.tokens()]


async def revoke_token(unit: Unit, name: str) -> TokenView:
    if await unit.db.admin.token(name) is None:
        raise NotFoundError(f"токена {name} нет")
    await unit.db.admin.revoke_token(name, now=unit.now)
    unit.audit("token_revoked", data={"name": name})
    token = await unit.db.admin.token(name)
    assert token is not None
    return TokenView.of(token)


async def authenticate(unit: Unit, secret: str) -> Caller | None:
    """The active token with this secret, or ``None`` (unknown or revoked)."""
    return await caller_by_digest(unit, token_digest(secret))


async def caller_by_digest(unit: Unit, digest: str) -> Caller | None:
    """The active token whose secret has this sha256, or ``None`` (unknown or revoked)."""
    token = await unit.db.admin.token_by_digest(digest)
    if token is None or token.revoked_at is not None:
        return None
    return Caller(name=token.name, role=Role(token.role), needs_approval=token.needs_approval)


async def get_settings(unit: Unit) -> dict[str, Any]:
    return settings_to_json(await unit.db.admin.settings())


async def patch_settings(unit: Unit, body: Any) -> dict[str, Any]:
    """Merge a partial settings object into the current settings (DESIGN.md 3) and validate the whole; 422 on a
    bad value, nothing written."""
    before = await unit.db.admin.settings()
    settings: Settings = merge_settings(before, body)
    await _save_settings(unit, before, settings)
    return settings_to_json(settings)


async def _save_settings(unit: Unit, before: Settings, after: Settings) -> None:
    """Keep ``after``; the audit records the settings that changed, before and after."""
    await unit.db.admin.save_settings(after)
    old, new = settings_to_json(before), settings_to_json(after)
    changed = sorted(key for key in new if old.get(key) != new[key])
    if changed:
        data = {"before": {k: old.get(k) for k in changed}, "after": {k: new[k] for k in changed}}
        unit.audit("settings_changed", data=data)


async def replace_settings(unit: Unit, body: Any) -> dict[str, Any]:
    """The whole settings object of the page's form, validated as ``PATCH`` validates the merged whole; 422 on a
    bad value, nothing written."""
    settings = settings_from_json(body)
    await _save_settings(unit, await unit.db.admin.settings(), settings)
    return settings_to_json(settings)


def _check_board_type(value: str | None) -> None:
    if value not in (None, "scrum", "kanban"):
        raise ValidationError("board_type — ожидается scrum, kanban или null")


async def list_projects(unit: Unit) -> list[ProjectView]:
    return [ProjectView.of(p) for p in await unit.db.admin.projects()]


async def create_project(unit: Unit, body: ProjectIn) -> ProjectView:
    name = body.name
    check_project_name(name)
    _check_board_type(body.board_type)
    for existing in await unit.db.admin.projects():
        if existing.name.casefold() == name.casefold():
            raise ConflictError(f"проект {existing.name} уже есть")
    created = ProjectRecord(name=name, board_id=body.board_id, board_type=body.board_type, created_at=unit.now)
    await unit.db.admin.add_project(created)
    unit.audit("project_added", data={"name": name, "board_id": body.board_id, "board_type": body.board_type})
    return ProjectView.of(created)


async def patch_project(unit: Unit, name: str, body: ProjectPatchIn) -> ProjectView:
    current = await lookups.project(unit, name)
    _check_board_type(body.board_type)
    board_id, board_type = current.board_id, current.board_type
    if "board_id" in body.given and body.board_id != board_id:
        # Another board: its type is not known until a refresh reads it (unless given now).
        board_id, board_type = body.board_id, None
    if "board_type" in body.given:
        board_type = body.board_type
    changed = ProjectRecord(name=name, board_id=board_id, board_type=board_type, created_at=current.created_at)
    await unit.db.admin.save_project(changed)
    return ProjectView.of(changed)


async def delete_project(unit: Unit, name: str) -> None:
    await lookups.project(unit, name)
    await unit.db.admin.delete_project(name)
    unit.audit("project_removed", data={"name": name})


async def store_file(unit: Unit, staged: StagedFile, *, filename: str | None) -> FileStored:
    """``POST /files`` once the bytes are staged: 413 when the store has no room for them (nothing kept), else
    recorded and moved into place; the same bytes again take no room and count their retention anew."""
    await unit.db.lock_files()
    settings = await unit.db.admin.settings()
    again = staged.sha256 in await unit.db.admin.recorded_files([staged.sha256])
    used = await unit.db.admin.stored_bytes()
    file_store.check_room(used=used, adding=0 if again else staged.size, limit=settings.max_store_bytes)
    record = FileRecord(sha256=staged.sha256, size=staged.size, filename=filename, created_at=unit.now)
    await unit.db.admin.record_file(record)
    stored = unit.files.place(staged)
    return FileStored(sha256=stored.sha256, size=stored.size)


async def upload_file(hub: Hub, chunks: AsyncIterable[bytes], *, filename: str | None) -> FileStored:
    """``POST /files`` (the API's raw body, the page's picker): staged, then the old files pruned and this one
    stored, each in a transaction of its own."""
    async with hub.unit() as unit:
        settings = await unit.db.admin.settings()
    staged = await hub.files.stage_stream(chunks, limit=settings.max_file_bytes)
    try:
        async with hub.unit() as unit:
            await prune_files(unit)
        async with hub.unit() as unit:
            return await store_file(unit, staged, filename=filename)
    finally:
        hub.files.discard(staged)


async def prune_files(unit: Unit) -> list[str]:
    """Remove the files past ``file_retention_hours`` that no queued or claimed command names (run before every
    upload, in a transaction of its own: :mod:`reconcile.batches.file_store`); their sha256 values.

    The bytes go before the commit, under the file lock: an upload of the same bytes in another process waits
    for the lock, so it never records a file whose bytes are about to disappear.
    """
    await unit.db.lock_files()
    settings = await unit.db.admin.settings()
    cutoff = file_store.retention_cutoff(unit.now, settings.file_retention_hours)
    uploaded = await unit.db.admin.files_uploaded_by(cutoff)
    if not uploaded:
        return []
    needed = {
        command.params.get(spec.file_param)
        for spec in CATALOGUE.values()
        if spec.file_param is not None
        for command in await unit.db.queue.unfinished_of_type(spec.type)
    }
    gone = file_store.files_to_prune(uploaded, needed={sha for sha in needed if isinstance(sha, str)}, cutoff=cutoff)
    await unit.db.admin.delete_files(gone)
    for sha in gone:
        unit.files.delete(sha)
    if gone:
        unit.db.after_commit.append(lambda: log.info("files_pruned", extra={"files": len(gone)}))
    return gone


async def agent_file_path(unit: Unit, sha256: str) -> Path:
    """Where the stored file ``sha256`` is (404 when the hub does not have it); the agent verifies the bytes."""
    if not is_sha256(sha256) or unit.files.size(sha256) is None:
        raise NotFoundError(f"файла {sha256} нет")
    return unit.files.path(sha256)
