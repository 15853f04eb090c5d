"""The hub's service layer: every operation of the HTTP API (and of the MCP tools) as one function.

Each function takes a :class:`~hub_app.runtime.Unit` (one transaction, the time of the call, the file store)
and plain inputs — usually the request's JSON body as parsed, unchecked — and returns plain JSON-ready values.
The rules live in :mod:`reconcile`; here they are fed from storage and their decisions are carried out.

Errors: :class:`reconcile.errors.ValidationError` (422, nothing written — the unit rolls back),
:class:`reconcile.errors.ConflictError` (409), :class:`NotFoundError` (404), :class:`FileTooLargeError`
(413, from :mod:`adapters.files`). Use::

    async with hub.unit() as unit:
        batch = await services.create_batch(unit, body, token_name="planner")
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import cattrs
from sqlalchemy import delete, func, select, text, update

from adapters.files import is_sha256
from adapters.storage.models import (
    AgentStatusRow,
    ApiTokenRow,
    BatchRow,
    CommandRow,
    FileRow,
    HistoryEntryRow,
    MirrorIssueRow,
    MirrorLinkRow,
    NoteRow,
    ProjectRow,
    SettingsRow,
    SyncRunRow,
)
from hub_app.runtime import BATCH_CHANNEL, Unit
from reconcile import confirm as confirm_rules
from reconcile import delivery, dryrun, history, queue, reports
from reconcile.batch import (
    BatchContext,
    ProjectInfo,
    ValidBatch,
    batch_keys,
    referenced_files,
    referenced_keys,
    retry_body,
)
from reconcile.batch import validate_batch as core_validate_batch
from reconcile.commands import is_jira_key
from reconcile.errors import ConflictError, ReconcileError, ValidationError
from reconcile.records import HistoryEntry, MirrorIssue, MirrorLink, SprintRef, converter
from reconcile.settings import Settings, settings_from_json, settings_to_json
from reconcile.tempkeys import TempKeyOutcome, resolved_keys

__all__ = [
    "ROLES",
    "NotFoundError",
    "TokenInfo",
    "add_note",
    "add_token",
    "agent_file_path",
    "agent_status",
    "authenticate",
    "cancel_batch",
    "cancel_command",
    "check_body",
    "claim",
    "create_batch",
    "create_project",
    "create_refresh",
    "delete_project",
    "get_batch",
    "get_command",
    "get_issue",
    "get_settings",
    "iso",
    "issue_history",
    "list_batches",
    "list_issues",
    "list_notes",
    "list_projects",
    "list_tokens",
    "load_settings",
    "parse_claim",
    "patch_project",
    "patch_settings",
    "read_agent_file",
    "record_file",
    "report",
    "retry_command",
    "revoke_token",
    "submit_pages",
]

ROLES = ("agent", "interface", "admin")
NO_PROJECTS_FOR_FULL_REFRESH = "нет проектов — полное обновление невозможно"
AUTO_REFRESH_AUTHOR = "hub"
AUTO_REFRESH_TITLE = "автообновление"
# Key of the transaction-scoped PostgreSQL advisory lock that serialises changes of the queue (see _lock_queue).
QUEUE_LOCK_KEY = 0x5D1C_4B0B
_QUEUED_HEAD = 50
FINAL_STATUSES = frozenset({"done", "failed", "skipped", "cancelled", "confirmed_by_state"})


class NotFoundError(ReconcileError):
    """The named object does not exist: HTTP 404."""


# --- small helpers ------------------------------------------------------------------------------------------


def iso(value: datetime | None) -> str | None:
    """UTC ISO-8601 with ``Z``."""
    if value is None:
        return None
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _page(limit: Any, offset: Any) -> tuple[int, int]:
    for name, value in (("limit", limit), ("offset", offset)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise ValidationError(f"{name} — ожидается неотрицательное целое")
    return (100 if limit is None else min(limit, 1000)), (offset or 0)


_KINDS: dict[str, str] = {
    "str": "строка",
    "nonempty": "непустая строка",
    "int": "целое число",
    "int?": "целое число или null",
    "str?": "строка или null",
    "bool": "логическое значение true/false",
    "number": "неотрицательное число",
    "list[str]": "список строк",
    "dict": "объект",
    "dict?": "объект или null",
    "list": "список",
}


def _kind_ok(kind: str, value: Any) -> bool:
    if kind.endswith("?") and value is None:
        return True
    base = kind.rstrip("?")
    if base == "str":
        return isinstance(value, str)
    if base == "nonempty":
        return isinstance(value, str) and bool(value.strip())
    if base == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if base == "bool":
        return isinstance(value, bool)
    if base == "number":
        return isinstance(value, int | float) and not isinstance(value, bool) and value >= 0
    if base == "list[str]":
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    if base == "dict":
        return isinstance(value, dict)
    if base == "list":
        return isinstance(value, list)
    raise AssertionError(kind)


def check_body(body: Any, required: Mapping[str, str], optional: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Check a JSON object's fields against ``{name: kind}``; 422 names the field and what was expected."""
    optional = optional or {}
    expected = "ожидаются " + (", ".join(required) or "—")
    if optional:
        expected += "; необязательные " + ", ".join(optional)
    if body is None:
        body = {}
    if not isinstance(body, dict):
        raise ValidationError(f"тело запроса — ожидается объект; {expected}")
    missing = [name for name in required if name not in body]
    if missing:
        raise ValidationError(f"нет {', '.join(missing)}; {expected}")
    extra = [name for name in body if name not in required and name not in optional]
    if extra:
        raise ValidationError(f"лишние поля {', '.join(extra)}; {expected}")
    for name, value in body.items():
        kind = required.get(name) or optional[name]
        if not _kind_ok(kind, value):
            raise ValidationError(f"{name} — ожидается {_KINDS[kind]}")
    return dict(body)


async def _lock_queue(unit: Unit) -> None:
    """Serialise every change of the queue's state across hub processes.

    The claim reads the ``claimed`` and ``queued`` commands and then writes its decision. Under PostgreSQL's
    READ COMMITTED two hub processes could both see "nothing in flight" and issue two commands, or redeliver
    a command another transaction is finishing. A transaction-scoped advisory lock taken as the first
    statement makes such transactions run one after another; it is released at commit or rollback, also when
    a process dies. SQLite needs nothing here: every transaction begins with ``BEGIN IMMEDIATE`` (see
    :mod:`adapters.storage.engine`), which already admits a single writer.
    """
    if unit.postgres:
        await unit.session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": QUEUE_LOCK_KEY})


# --- tokens -------------------------------------------------------------------------------------------------


class TokenInfo:
    """An authenticated caller: the token's ``name`` and ``role``."""

    __slots__ = ("name", "role")

    def __init__(self, name: str, role: str) -> None:
        self.name = name
        self.role = role


def token_digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


async def add_token(unit: Unit, name: str, role: str) -> str:
    """Create a token; return its secret (stored only as sha256)."""
    if not isinstance(name, str) or not name.strip() or len(name) > 200:
        raise ValidationError("имя токена — ожидается непустая строка")
    if role not in ROLES:
        raise ValidationError(f"роль {role} неизвестна; ожидаются {', '.join(ROLES)}")
    existing = await unit.session.scalar(select(ApiTokenRow).where(ApiTokenRow.name == name))
    if existing is not None:
        raise ConflictError(f"токен {name} уже есть")
    secret = secrets.token_urlsafe(32)
    unit.session.add(ApiTokenRow(name=name, role=role, sha256=token_digest(secret), created_at=unit.now))
    await unit.session.flush()
    return secret


async def list_tokens(unit: Unit) -> list[dict[str, Any]]:
    rows = (await unit.session.scalars(select(ApiTokenRow).order_by(ApiTokenRow.id))).all()
    return [
        {"name": r.name, "role": r.role, "created_at": iso(r.created_at), "revoked_at": iso(r.revoked_at)} for r in rows
    ]


async def revoke_token(unit: Unit, name: str) -> dict[str, Any]:
    row = await unit.session.scalar(select(ApiTokenRow).where(ApiTokenRow.name == name))
    if row is None:
        raise NotFoundError(f"токена {name} нет")
    if row.revoked_at is None:
        row.revoked_at = unit.now
    return {"name": row.name, "role": row.role, "created_at": iso(row.created_at), "revoked_at": iso(row.revoked_at)}


async def authenticate(unit: Unit, secret: str) -> TokenInfo | None:
    """The active token with this secret, or ``None`` (unknown or revoked)."""
    row = await unit.session.scalar(select(ApiTokenRow).where(ApiTokenRow.sha256 == token_digest(secret)))
    if row is None or row.revoked_at is not None:
        return None
    return TokenInfo(row.name, row.role)


# --- settings -----------------------------------------------------------------------------------------------


async def load_settings(unit: Unit) -> Settings:
    row = await unit.session.get(SettingsRow, 1)
    if row is None:
        return Settings()
    return settings_from_json(row.data)


async def get_settings(unit: Unit) -> dict[str, Any]:
    return settings_to_json(await load_settings(unit))


async def patch_settings(unit: Unit, body: Any) -> dict[str, Any]:
    """Apply a partial settings object (validated as a whole); 422 on a bad value, nothing written."""
    current = await load_settings(unit)
    new = settings_from_json(body, base=current)
    data = settings_to_json(new)
    row = await unit.session.get(SettingsRow, 1)
    if row is None:
        unit.session.add(SettingsRow(id=1, data=data))
    else:
        row.data = data
    return data


# --- projects -----------------------------------------------------------------------------------------------

_PROJECT_NAME = re.compile(r"[^\s\",()]+")


def _project_json(row: ProjectRow) -> dict[str, Any]:
    return {
        "name": row.name,
        "board_id": row.board_id,
        "board_type": row.board_type,
        "created_at": iso(row.created_at),
    }


async def _projects(unit: Unit) -> list[ProjectRow]:
    query = select(ProjectRow).order_by(ProjectRow.created_at, ProjectRow.id)
    return list((await unit.session.scalars(query)).all())


def _check_board_type(value: Any) -> None:
    if value not in (None, "scrum", "kanban"):
        raise ValidationError("board_type — ожидается scrum, kanban или null")


async def list_projects(unit: Unit) -> list[dict[str, Any]]:
    return [_project_json(row) for row in await _projects(unit)]


async def create_project(unit: Unit, body: Any) -> dict[str, Any]:
    data = check_body(body, {"name": "nonempty"}, {"board_id": "int?", "board_type": "str?"})
    name = data["name"]
    if not _PROJECT_NAME.fullmatch(name):
        raise ValidationError(f"имя проекта {name!r} — метка Jira без пробелов, кавычек, запятых и скобок")
    _check_board_type(data.get("board_type"))
    for row in await _projects(unit):
        if row.name.casefold() == name.casefold():
            raise ConflictError(f"проект {row.name} уже есть")
    row = ProjectRow(name=name, board_id=data.get("board_id"), board_type=data.get("board_type"), created_at=unit.now)
    unit.session.add(row)
    await unit.session.flush()
    return _project_json(row)


async def _project(unit: Unit, name: str) -> ProjectRow:
    row = await unit.session.scalar(select(ProjectRow).where(ProjectRow.name == name))
    if row is None:
        raise NotFoundError(f"нет проекта {name}")
    return row


async def patch_project(unit: Unit, name: str, body: Any) -> dict[str, Any]:
    data = check_body(body, {}, {"board_id": "int?", "board_type": "str?"})
    row = await _project(unit, name)
    if "board_type" in data:
        _check_board_type(data["board_type"])
    if "board_id" in data and data["board_id"] != row.board_id:
        row.board_id = data["board_id"]
        # Another board: its type is not known until a refresh reads it (unless given now).
        row.board_type = None
    if "board_type" in data:
        row.board_type = data["board_type"]
    return _project_json(row)


async def delete_project(unit: Unit, name: str) -> None:
    row = await _project(unit, name)
    await unit.session.delete(row)


# --- files --------------------------------------------------------------------------------------------------


async def record_file(unit: Unit, *, sha256: str, size: int, filename: str | None) -> dict[str, Any]:
    """Record a file already placed in the store (the bytes go first, outside the transaction)."""
    row = await unit.session.scalar(select(FileRow).where(FileRow.sha256 == sha256))
    if row is None:
        unit.session.add(FileRow(sha256=sha256, size=size, filename=filename, created_at=unit.now))
    else:
        row.size = size
        if filename:
            row.filename = filename
    return {"sha256": sha256, "size": size}


async def agent_file_path(unit: Unit, sha256: str) -> Path:
    """Where the stored file ``sha256`` is (404 when the hub does not have it); the agent verifies the bytes."""
    if not is_sha256(sha256) or unit.files.size(sha256) is None:
        raise NotFoundError(f"файла {sha256} нет")
    return unit.files.path(sha256)


async def read_agent_file(unit: Unit, sha256: str) -> bytes:
    """The stored file's bytes, checked against ``sha256`` (404 when missing or damaged)."""
    content = unit.files.read(sha256) if is_sha256(sha256) else None
    if content is None or hashlib.sha256(content).hexdigest() != sha256:
        raise NotFoundError(f"файла {sha256} нет")
    return content


async def _stored_files(unit: Unit, shas: Iterable[str]) -> dict[str, int]:
    wanted = [s for s in shas if is_sha256(s)]
    if not wanted:
        return {}
    rows = (await unit.session.scalars(select(FileRow).where(FileRow.sha256.in_(wanted)))).all()
    found: dict[str, int] = {}
    for row in rows:
        size = unit.files.size(row.sha256)
        if size is not None:
            found[row.sha256] = size
    return found


# --- batches ------------------------------------------------------------------------------------------------


def _command_json(row: CommandRow, *, full: bool = True) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": row.id,
        "batch_id": row.batch_id,
        "seq": row.seq,
        "type": row.type,
        "params": row.params,
        "status": row.status,
    }
    if full:
        data.update(
            temp_key=row.temp_key,
            deliveries=row.deliveries,
            claimed_at=iso(row.claimed_at),
            finished_at=iso(row.finished_at),
            result=row.result,
            error=row.error,
            jira_calls=row.jira_calls,
            operations=row.operations,
            retry_of=row.retry_of,
        )
    return data


def _batch_json(batch: BatchRow, commands: Sequence[CommandRow], *, full: bool = True) -> dict[str, Any]:
    counts: dict[str, int] = {}
    for command in commands:
        counts[command.status] = counts.get(command.status, 0) + 1
    finished = sum(n for status, n in counts.items() if status in FINAL_STATUSES)
    return {
        "id": batch.id,
        "author": batch.author,
        "title": batch.title,
        "project": batch.project,
        "token_name": batch.token_name,
        "created_at": iso(batch.created_at),
        "estimate_seconds": batch.estimate_seconds,
        "progress": {"total": len(commands), "finished": finished, "by_status": counts},
        "commands": [_command_json(c, full=full) for c in commands],
    }


async def _batch_context(unit: Unit, body: Any, settings: Settings) -> BatchContext:
    projects = {
        row.name: ProjectInfo(name=row.name, board_id=row.board_id, board_type=row.board_type)
        for row in await _projects(unit)
    }
    keys = sorted(referenced_keys(body))
    labels: dict[str, tuple[str, ...]] = {}
    if keys:
        query = select(MirrorIssueRow.key, MirrorIssueRow.labels).where(MirrorIssueRow.key.in_(keys))
        labels = {key: tuple(value or ()) for key, value in (await unit.session.execute(query)).all()}
    files = await _stored_files(unit, referenced_files(body))
    return BatchContext(settings=settings, projects=projects, mirror_labels=labels, files=files)


async def _store_batch(
    unit: Unit, valid: ValidBatch, *, token_name: str | None, retry_of: int | None = None
) -> tuple[BatchRow, list[CommandRow]]:
    batch = BatchRow(
        author=valid.author,
        title=valid.title,
        project=valid.project,
        token_name=token_name,
        estimate_seconds=valid.estimate_seconds,
        created_at=unit.now,
    )
    unit.session.add(batch)
    await unit.session.flush()
    rows = [
        CommandRow(
            batch_id=batch.id,
            seq=c.seq,
            type=c.type,
            params=dict(c.params),
            temp_key=c.temp_key,
            status="queued",
            deliveries=0,
            retry_of=retry_of if c.seq == 1 else None,
        )
        for c in valid.commands
    ]
    unit.session.add_all(rows)
    for note in valid.notes:
        unit.session.add(
            NoteRow(batch_id=batch.id, key=note.key, author=valid.author, text=note.text, created_at=unit.now)
        )
    await unit.session.flush()
    if unit.postgres:
        # Delivered at commit to every hub process listening (hub_app.runtime.Hub.start_listening).
        await unit.session.execute(text(f"NOTIFY {BATCH_CHANNEL}"))
    unit.after_commit.append(unit.hub.wakeup.notify)
    return batch, rows


async def create_batch(
    unit: Unit, body: Any, *, token_name: str | None = None, dry_run: bool = False, retry_of: int | None = None
) -> dict[str, Any]:
    """``POST /batches``: validate by the core, store the batch with its tail refresh, wake waiting claims.

    With ``dry_run`` the same validation runs and nothing is written; the answer has no ids.
    """
    settings = await load_settings(unit)
    valid = core_validate_batch(body, await _batch_context(unit, body, settings))
    if dry_run:
        return await _dry_run(unit, valid, settings)
    batch, rows = await _store_batch(unit, valid, token_name=token_name, retry_of=retry_of)
    data = _batch_json(batch, rows, full=False)
    data.pop("progress")
    data.pop("token_name")
    return data


async def _dry_run(unit: Unit, valid: ValidBatch, settings: Settings) -> dict[str, Any]:
    """The answer of ``?dry_run=true``: the normalised batch and each command's predicted writes."""
    keys = sorted(batch_keys(valid.commands))
    rows = (await unit.session.scalars(select(MirrorIssueRow).where(MirrorIssueRow.key.in_(keys)))).all()
    links = await _links_of(unit, [r.key for r in rows])
    agent = await _agent_row(unit)
    predictions = dryrun.predict_batch(
        valid,
        mirror={r.key: _record(r, links[r.key]) for r in rows},
        settings=settings,
        jira_user=agent.jira_user if agent else None,
        symmetric_link_types=frozenset(agent.symmetric_link_types or ()) if agent else frozenset(),
        now=unit.now,
    )
    return {
        "id": None,
        "author": valid.author,
        "title": valid.title,
        "project": valid.project,
        "estimate_seconds": valid.estimate_seconds,
        "commands": [
            {
                "id": None,
                "seq": c.seq,
                "type": c.type,
                "params": dict(c.params),
                "status": "queued",
                "prediction": p.to_json(),
            }
            for c, p in zip(valid.commands, predictions, strict=True)
        ],
        "notes": [{"key": n.key, "text": n.text} for n in valid.notes],
        "dry_run": True,
    }


async def _base_jql(unit: Unit, settings: Settings) -> str | None:
    return history.base_jql(settings.jira_project, [row.name for row in await _projects(unit)])


async def create_refresh(unit: Unit, body: Any, *, token_name: str | None = None) -> dict[str, Any]:
    """``POST /refresh``: ``{keys}``, ``{jql}`` or ``{}`` (a full refresh by the base JQL) as a batch."""
    data = check_body(body, {}, {"keys": "list[str]", "jql": "nonempty"})
    if "keys" in data and "jql" in data:
        raise ValidationError("только одно из keys, jql")
    params: dict[str, Any]
    if "keys" in data:
        params = {"keys": data["keys"]}
    elif "jql" in data:
        params = {"jql": data["jql"]}
    else:
        base = await _base_jql(unit, await load_settings(unit))
        if base is None:
            raise ValidationError(NO_PROJECTS_FOR_FULL_REFRESH)
        params = {"jql": base}
    batch_body = {
        "author": token_name or "interface",
        "title": "обновление из Jira",
        "commands": [{"type": "refresh", "params": params}],
    }
    return await create_batch(unit, batch_body, token_name=token_name)


async def _commands_of(unit: Unit, batch_ids: Sequence[int]) -> dict[int, list[CommandRow]]:
    result: dict[int, list[CommandRow]] = {i: [] for i in batch_ids}
    if not batch_ids:
        return result
    query = select(CommandRow).where(CommandRow.batch_id.in_(batch_ids)).order_by(CommandRow.seq)
    for row in (await unit.session.scalars(query)).all():
        result[row.batch_id].append(row)
    return result


async def list_batches(unit: Unit, *, limit: Any = None, offset: Any = None) -> dict[str, Any]:
    """Batches, newest first."""
    limit, offset = _page(limit, offset)
    total = await unit.session.scalar(select(func.count()).select_from(BatchRow)) or 0
    query = select(BatchRow).order_by(BatchRow.created_at.desc(), BatchRow.id.desc()).limit(limit).offset(offset)
    batches = list((await unit.session.scalars(query)).all())
    commands = await _commands_of(unit, [b.id for b in batches])
    return {"items": [_batch_json(b, commands[b.id]) for b in batches], "total": total}


async def _batch(unit: Unit, batch_id: int) -> BatchRow:
    row = await unit.session.get(BatchRow, batch_id)
    if row is None:
        raise NotFoundError(f"пакета {batch_id} нет")
    return row


async def get_batch(unit: Unit, batch_id: int) -> dict[str, Any]:
    batch = await _batch(unit, batch_id)
    commands = await _commands_of(unit, [batch.id])
    data = _batch_json(batch, commands[batch.id])
    notes = (await unit.session.scalars(select(NoteRow).where(NoteRow.batch_id == batch.id).order_by(NoteRow.id))).all()
    data["notes"] = [_note_json(n) for n in notes]
    return data


async def _command(unit: Unit, command_id: int) -> CommandRow:
    row = await unit.session.get(CommandRow, command_id)
    if row is None:
        raise NotFoundError(f"команды {command_id} нет")
    return row


async def get_command(unit: Unit, command_id: int) -> dict[str, Any]:
    return _command_json(await _command(unit, command_id))


def _parse_force(body: Any) -> bool:
    data = check_body(body, {}, {"force": "bool"})
    return bool(data.get("force", False))


async def cancel_command(unit: Unit, command_id: int, body: Any = None) -> dict[str, Any]:
    """Cancel a queued command; a claimed one only with ``force`` (409 without)."""
    force = _parse_force(body)
    await _lock_queue(unit)
    row = await _command(unit, command_id)
    if row.status == "claimed" and not force:
        raise ConflictError(f"команда {command_id} выдана агенту — отмена только с force: true")
    if row.status in ("queued", "claimed"):
        row.status = "cancelled"
        row.finished_at = unit.now
    elif row.status != "cancelled":
        raise ConflictError(f"команда {command_id} уже завершена ({row.status})")
    return _command_json(row)


async def cancel_batch(unit: Unit, batch_id: int, body: Any = None) -> dict[str, Any]:
    """Cancel the batch's queued commands, and its claimed one too with ``force``."""
    force = _parse_force(body)
    await _lock_queue(unit)
    batch = await _batch(unit, batch_id)
    statuses = ("queued", "claimed") if force else ("queued",)
    commands = await _commands_of(unit, [batch.id])
    for row in commands[batch.id]:
        if row.status in statuses:
            row.status, row.finished_at = "cancelled", unit.now
    return _batch_json(batch, commands[batch.id])


async def _resolved_in_batch(unit: Unit, batch_id: int) -> dict[str, str]:
    query = select(CommandRow.temp_key, CommandRow.status, CommandRow.result).where(
        CommandRow.batch_id == batch_id, CommandRow.temp_key.is_not(None)
    )
    outcomes = {
        temp_key: TempKeyOutcome(status=status, key=_result_key(result))
        for temp_key, status, result in (await unit.session.execute(query)).all()
    }
    return resolved_keys(outcomes)


def _result_key(result: Any) -> str | None:
    if isinstance(result, dict) and isinstance(result.get("key"), str):
        return str(result["key"])
    return None


async def retry_command(unit: Unit, command_id: int, *, token_name: str | None = None) -> dict[str, Any]:
    """``POST /commands/{id}/retry``: a new batch with the same command (temp keys resolved), validated as new."""
    row = await _command(unit, command_id)
    if row.status not in ("failed", "skipped", "cancelled"):
        raise ConflictError(
            f"команда {command_id} в статусе {row.status} — повтор только после failed, skipped, cancelled"
        )
    batch = await _batch(unit, row.batch_id)
    params = delivery.complete_params(row.type, row.params, resolved_temp_keys=await _resolved_in_batch(unit, batch.id))
    params.pop("boards", None)
    params.pop("size", None)
    body = retry_body(
        command_type=row.type,
        params=params,
        author=batch.author,
        title=f"повтор команды {command_id}: {batch.title}",
        project=batch.project,
    )
    if body.get("project") is None:
        body.pop("project")
    return await create_batch(unit, body, token_name=token_name, retry_of=command_id)


# --- notes --------------------------------------------------------------------------------------------------


def _note_json(row: NoteRow) -> dict[str, Any]:
    return {
        "id": row.id,
        "batch_id": row.batch_id,
        "key": row.key,
        "author": row.author,
        "text": row.text,
        "created_at": iso(row.created_at),
    }


async def add_note(unit: Unit, body: Any, *, author: str) -> dict[str, Any]:
    data = check_body(body, {"key": "nonempty", "text": "nonempty"})
    if not is_jira_key(data["key"]):
        raise ValidationError("key — ожидается ключ задачи Jira (AURORA-1538); new:<n> — только в пакете")
    row = NoteRow(batch_id=None, key=data["key"], author=author, text=data["text"], created_at=unit.now)
    unit.session.add(row)
    await unit.session.flush()
    return _note_json(row)


async def list_notes(unit: Unit, *, key: str | None = None, limit: Any = None, offset: Any = None) -> dict[str, Any]:
    limit, offset = _page(limit, offset)
    query = select(NoteRow)
    if key is not None:
        query = query.where(NoteRow.key == key)
    total = await unit.session.scalar(select(func.count()).select_from(query.subquery())) or 0
    rows = (await unit.session.scalars(query.order_by(NoteRow.id).limit(limit).offset(offset))).all()
    return {"items": [_note_json(r) for r in rows], "total": total}


async def _move_notes(unit: Unit, batch_id: int, temp_key: str | None, key: str | None) -> None:
    """Notes of ``new:<n>`` in this batch move to the created issue's key."""
    if temp_key and key:
        await unit.session.execute(
            update(NoteRow).where(NoteRow.batch_id == batch_id, NoteRow.key == temp_key).values(key=key)
        )


# --- the mirror ---------------------------------------------------------------------------------------------


async def _links_of(unit: Unit, keys: Sequence[str]) -> dict[str, list[MirrorLinkRow]]:
    result: dict[str, list[MirrorLinkRow]] = {k: [] for k in keys}
    if not keys:
        return result
    query = (
        select(MirrorLinkRow)
        .where((MirrorLinkRow.source.in_(keys)) | (MirrorLinkRow.target.in_(keys)))
        .order_by(MirrorLinkRow.id)
    )
    for link in (await unit.session.scalars(query)).all():
        for key in {link.source, link.target}:
            if key in result:
                result[key].append(link)
    return result


def _record(row: MirrorIssueRow, links: Sequence[MirrorLinkRow]) -> MirrorIssue:
    sprint = row.sprint
    return MirrorIssue(
        key=row.key,
        summary=row.summary,
        description=row.description,
        status=row.status,
        status_category=row.status_category,
        priority=row.priority,
        duedate=row.duedate,
        planned_start=row.planned_start,
        planned_end=row.planned_end,
        labels=tuple(row.labels or ()),
        epic_key=row.epic_key,
        assignee=row.assignee,
        reporter=row.reporter,
        created=row.created,
        updated=row.updated,
        sprint=SprintRef(id=sprint["id"], name=sprint["name"], state=sprint["state"]) if sprint else None,
        links=tuple(MirrorLink(id=k.jira_id, type=k.type, source=k.source, target=k.target) for k in links),
    )


def _issue_json(row: MirrorIssueRow, links: Sequence[MirrorLinkRow]) -> dict[str, Any]:
    data: dict[str, Any] = converter.unstructure(_record(row, links))
    data["refreshed_at"] = iso(row.refreshed_at)
    data["vanished_at"] = iso(row.vanished_at)
    return data


async def list_issues(
    unit: Unit, *, project: str | None = None, limit: Any = None, offset: Any = None
) -> dict[str, Any]:
    """The mirror: a project's slice (issues with its label, exact match, not vanished), or every issue."""
    limit, offset = _page(limit, offset)
    query = select(MirrorIssueRow).order_by(MirrorIssueRow.key)
    if project is not None:
        await _project(unit, project)
        query = query.where(MirrorIssueRow.vanished_at.is_(None))
    rows = [r for r in (await unit.session.scalars(query)).all() if project is None or project in (r.labels or ())]
    page = rows[offset : offset + limit]
    links = await _links_of(unit, [r.key for r in page])
    return {"items": [_issue_json(r, links[r.key]) for r in page], "total": len(rows)}


async def get_issue(unit: Unit, key: str) -> dict[str, Any]:
    row = await unit.session.scalar(select(MirrorIssueRow).where(MirrorIssueRow.key == key))
    if row is None:
        raise NotFoundError(f"задачи {key} нет в зеркале")
    links = await _links_of(unit, [key])
    data = _issue_json(row, links[key])
    notes = (await unit.session.scalars(select(NoteRow).where(NoteRow.key == key).order_by(NoteRow.id))).all()
    data["notes"] = [_note_json(n) for n in notes]
    return data


async def issue_history(unit: Unit, key: str, *, limit: Any = None, offset: Any = None) -> dict[str, Any]:
    limit, offset = _page(limit, offset)
    query = select(HistoryEntryRow).where(HistoryEntryRow.issue_key == key)
    total = await unit.session.scalar(select(func.count()).select_from(query.subquery())) or 0
    rows = (
        await unit.session.scalars(
            query.order_by(HistoryEntryRow.created, HistoryEntryRow.id).limit(limit).offset(offset)
        )
    ).all()
    items = [
        {"key": r.issue_key, "id": r.jira_id, "created": r.created, "author": r.author, "items": r.items} for r in rows
    ]
    return {"items": items, "total": total}


# --- agent status -------------------------------------------------------------------------------------------


async def _agent_row(unit: Unit) -> AgentStatusRow | None:
    return await unit.session.scalar(select(AgentStatusRow).order_by(AgentStatusRow.id).limit(1))


def _online(row: AgentStatusRow, now: datetime, settings: Settings) -> bool:
    return row.last_seen_at >= now - timedelta(seconds=2 * settings.claim_wait_seconds)


async def agent_status(unit: Unit) -> dict[str, Any]:
    row = await _agent_row(unit)
    settings = await load_settings(unit)
    if row is None:
        return {
            "agent_id": None,
            "version": None,
            "jira_user": None,
            "jira_time_zone": None,
            "symmetric_link_types": [],
            "last_seen_at": None,
            "last_claim_at": None,
            "online": False,
        }
    return {
        "agent_id": row.agent_id,
        "version": row.version,
        "jira_user": row.jira_user,
        "jira_time_zone": row.jira_time_zone,
        "symmetric_link_types": row.symmetric_link_types,
        "last_seen_at": iso(row.last_seen_at),
        "last_claim_at": iso(row.last_claim_at),
        "online": _online(row, unit.now, settings),
    }


async def _touch_agent(unit: Unit) -> None:
    row = await _agent_row(unit)
    if row is not None:
        row.last_seen_at = unit.now


# --- claim --------------------------------------------------------------------------------------------------

CLAIM_FIELDS = {
    "agent_id": "nonempty",
}
CLAIM_OPTIONAL = {
    "version": "str?",
    "jira_user": "str?",
    "jira_time_zone": "str?",
    "symmetric_link_types": "list[str]",
    "wait": "number",
}


def parse_claim(body: Any) -> dict[str, Any]:
    """Check a claim body (also used by the HTTP layer to read ``wait`` before the long poll)."""
    return check_body(body, CLAIM_FIELDS, CLAIM_OPTIONAL)


async def _register_agent(unit: Unit, data: Mapping[str, Any], settings: Settings) -> None:
    row = await _agent_row(unit)
    if row is not None and row.agent_id != data["agent_id"] and _online(row, unit.now, settings):
        raise ConflictError(
            f"активен другой агент {row.agent_id} (последний раз {iso(row.last_seen_at)}); второй агент не допускается"
        )
    if row is None:
        row = AgentStatusRow(agent_id=data["agent_id"], symmetric_link_types=[], last_seen_at=unit.now)
        unit.session.add(row)
    if row.agent_id != data["agent_id"]:
        row.jira_user = None
        row.jira_time_zone = None
        row.symmetric_link_types = []
    row.agent_id = data["agent_id"]
    for name in ("version", "jira_user", "jira_time_zone"):
        if name in data:
            setattr(row, name, data[name])
    if "symmetric_link_types" in data:
        row.symmetric_link_types = list(data["symmetric_link_types"])
    row.last_seen_at = unit.now
    row.last_claim_at = unit.now


async def _snapshot(unit: Unit) -> queue.ClaimSnapshot:
    claimed_rows = (await unit.session.scalars(select(CommandRow).where(CommandRow.status == "claimed"))).all()
    claimed = [
        queue.ClaimedCommand(
            id=r.id,
            claimed_at=r.claimed_at or unit.now,
            deliveries=r.deliveries,
            batch_id=r.batch_id,
            temp_key=r.temp_key,
        )
        for r in claimed_rows
    ]
    query = (
        select(CommandRow)
        .join(BatchRow, BatchRow.id == CommandRow.batch_id)
        .where(CommandRow.status == "queued")
        .order_by(BatchRow.created_at, BatchRow.id, CommandRow.seq)
        .limit(_QUEUED_HEAD + 1)
    )
    queued_rows = list((await unit.session.scalars(query)).all())
    complete = len(queued_rows) <= _QUEUED_HEAD
    queued_rows = queued_rows[:_QUEUED_HEAD]
    batch_ids = sorted({r.batch_id for r in queued_rows})
    outcomes: dict[int, dict[str, TempKeyOutcome]] = {}
    if batch_ids:
        rows = await unit.session.execute(
            select(CommandRow.batch_id, CommandRow.temp_key, CommandRow.status, CommandRow.result).where(
                CommandRow.batch_id.in_(batch_ids), CommandRow.temp_key.is_not(None)
            )
        )
        for batch_id, temp_key, status, result in rows.all():
            outcomes.setdefault(batch_id, {})[temp_key] = TempKeyOutcome(status=status, key=_result_key(result))
    return queue.ClaimSnapshot(
        claimed=claimed,
        queued_head=[
            queue.QueuedCommand(id=r.id, batch_id=r.batch_id, type=r.type, params=r.params, temp_key=r.temp_key)
            for r in queued_rows
        ],
        queue_complete=complete,
        outcomes=outcomes,
    )


async def _carry_out(unit: Unit, decision: queue.ClaimDecision) -> None:
    for action in decision.actions:
        row = await _command(unit, action.id)
        if isinstance(action, queue.FailCommand):
            row.status, row.error, row.finished_at = "failed", reports.trim_error(action.error), unit.now
        elif isinstance(action, queue.SkipCommand):
            row.status, row.error, row.finished_at = "skipped", reports.trim_error(action.error), unit.now
        elif isinstance(action, queue.Redeliver):
            row.claimed_at, row.deliveries = unit.now, action.deliveries
        else:
            row.status, row.claimed_at, row.deliveries = "claimed", unit.now, 1


async def _last_full_refresh_start(unit: Unit) -> datetime | None:
    return await unit.session.scalar(select(func.max(SyncRunRow.started_at)).where(SyncRunRow.full.is_(True)))


async def _journal_mark(unit: Unit) -> history.JournalMark | None:
    row = await unit.session.scalar(
        select(SyncRunRow)
        .where(SyncRunRow.history_at.is_not(None))
        .order_by(SyncRunRow.started_at.desc(), SyncRunRow.id.desc())
        .limit(1)
    )
    return history.journal_mark(
        [history.SyncRunMark(started_at=row.started_at, query=row.query, history_at=row.history_at)] if row else []
    )


def _refresh_query(params: Mapping[str, Any]) -> str:
    if isinstance(params.get("jql"), str):
        return str(params["jql"])
    return f"key in ({', '.join(params.get('keys') or [])})"


async def _deliver(unit: Unit, row: CommandRow, settings: Settings) -> dict[str, Any]:
    """The delivery of ``row``: params completed at delivery (never stored), pause and context."""
    resolved = await _resolved_in_batch(unit, row.batch_id)
    projects = await _projects(unit)
    file_size = None
    if row.type == "ensure_attachment":
        file_size = unit.files.size(str(row.params.get("file", "")))
    history_param = None
    full = False
    if row.type == "refresh":
        base = history.base_jql(settings.jira_project, [p.name for p in projects])
        full = history.is_full_refresh(row.params, base)
        history_param = history.history_param(
            full=full, has_base_jql=base is not None, mark=await _journal_mark(unit), base_jql=base
        )
    params = delivery.complete_params(
        row.type,
        row.params,
        resolved_temp_keys=resolved,
        file_size=file_size,
        boards=delivery.boards_param((p.board_id, p.board_type) for p in projects),
        history=history_param,
    )
    if row.type == "refresh":
        run = await unit.session.scalar(select(SyncRunRow).where(SyncRunRow.command_id == row.id))
        query = _refresh_query(params)
        if run is None:
            run = SyncRunRow(command_id=row.id, query=query, full=full, started_at=unit.now)
            unit.session.add(run)
        run.query, run.full, run.started_at = query, full, unit.now
    return {
        "id": row.id,
        "type": row.type,
        "params": params,
        "pause_seconds": delivery.pause_seconds(row.type, settings),
        "deliveries": row.deliveries,
        "context": settings.agent_context(),
    }


async def claim(unit: Unit, body: Any) -> dict[str, Any] | None:
    """``POST /agent/claim`` once (no waiting): the delivery, or ``None`` when there is nothing to issue.

    409 when another agent was seen within 2 × ``claim_wait_seconds``. Creates the auto refresh batch when
    the queue is empty and the last full refresh is older than ``auto_refresh_minutes``.
    """
    data = parse_claim(body)
    await _lock_queue(unit)
    settings = await load_settings(unit)
    await _register_agent(unit, data, settings)
    auto_done = False
    while True:
        decision = queue.decide_claim(await _snapshot(unit))
        await _carry_out(unit, decision)
        await unit.session.flush()
        if decision.needs_more:
            continue
        chosen = decision.delivery
        if chosen is not None:
            return await _deliver(unit, await _command(unit, chosen.id), settings)
        if auto_done:
            return None
        queued = await unit.session.scalar(
            select(func.count()).select_from(CommandRow).where(CommandRow.status.in_(("queued", "claimed")))
        )
        projects = await _projects(unit)
        if not queue.decide_auto_refresh(
            queue_empty=not queued,
            projects_exist=bool(projects),
            last_full_refresh_started_at=await _last_full_refresh_start(unit),
            now=unit.now,
            auto_refresh_minutes=settings.auto_refresh_minutes,
        ):
            return None
        base = history.base_jql(settings.jira_project, [p.name for p in projects])
        body_auto = {
            "author": AUTO_REFRESH_AUTHOR,
            "title": AUTO_REFRESH_TITLE,
            "commands": [{"type": "refresh", "params": {"jql": base}}],
        }
        valid = core_validate_batch(body_auto, BatchContext(settings=settings))
        await _store_batch(unit, valid, token_name=None)
        auto_done = True


# --- refresh pages and reports ------------------------------------------------------------------------------

_PAGE_KINDS = ("issues", "neighbours", "history")


_ISSUE_TEXT = (
    "summary", "description", "status", "status_category", "priority", "duedate", "planned_start",
    "planned_end", "epic_key", "assignee", "reporter", "created", "updated",
)  # fmt: skip


def _check_wire_issue(data: Any, what: str) -> None:
    """Wire records are checked strictly: cattrs alone would take a string for a list of labels."""
    if not isinstance(data, dict):
        raise ValidationError(f"{what}: ожидается объект")
    if not isinstance(data.get("key"), str) or not data["key"]:
        raise ValidationError(f"{what}: key — ожидается ключ задачи")
    for name in _ISSUE_TEXT:
        if data.get(name) is not None and not isinstance(data[name], str):
            raise ValidationError(f"{what}: {name} — ожидается строка или null")
    if not _kind_ok("list[str]", data.get("labels", [])):
        raise ValidationError(f"{what}: labels — ожидается список строк")
    sprint = data.get("sprint")
    if sprint is not None and not (
        isinstance(sprint, dict)
        and _kind_ok("int", sprint.get("id"))
        and isinstance(sprint.get("name"), str)
        and isinstance(sprint.get("state"), str)
    ):
        raise ValidationError(f"{what}: sprint — ожидается {{id, name, state}} или null")
    links = data.get("links", [])
    if not isinstance(links, list) or not all(
        isinstance(k, dict) and all(isinstance(k.get(f), str) for f in ("id", "type", "source", "target"))
        for k in links
    ):
        raise ValidationError(f"{what}: links — ожидается список {{id, type, source, target}}")


def _check_wire_history(data: Any, what: str) -> None:
    if not isinstance(data, dict):
        raise ValidationError(f"{what}: ожидается объект")
    for name in ("key", "id", "created"):
        if not isinstance(data.get(name), str):
            raise ValidationError(f"{what}: {name} — ожидается строка")
    items = data.get("items", [])
    if not isinstance(items, list) or not all(isinstance(i, dict) and isinstance(i.get("field"), str) for i in items):
        raise ValidationError(f"{what}: items — ожидается список {{field, from, from_string, to, to_string}}")


def _structure(data: Any, cls: type[Any], what: str) -> Any:
    if cls is MirrorIssue:
        _check_wire_issue(data, what)
    else:
        _check_wire_history(data, what)
    try:
        return converter.structure(data, cls)
    except (cattrs.BaseValidationError, TypeError, ValueError, KeyError, AttributeError) as exc:
        raise ValidationError(f"{what}: запись не той формы: {exc}") from None


async def _refresh_command(unit: Unit, command_id: int) -> CommandRow:
    row = await _command(unit, command_id)
    if row.type != "refresh":
        raise ConflictError(f"команда {command_id} — не refresh")
    if row.status == "queued" or row.deliveries == 0:
        raise ConflictError(f"команда {command_id} не выдана агенту")
    return row


async def _upsert_issues(unit: Unit, issues: Sequence[MirrorIssue], command_id: int) -> None:
    """A page's issues and their links, in a few statements whatever the page's size."""
    if not issues:
        return
    latest = {issue.key: issue for issue in issues}
    keys = list(latest)
    rows = {
        row.key: row
        for row in (await unit.session.scalars(select(MirrorIssueRow).where(MirrorIssueRow.key.in_(keys)))).all()
    }
    for key, issue in latest.items():
        row = rows.get(key)
        if row is None:
            row = MirrorIssueRow(key=key, labels=[], refreshed_at=unit.now)
            unit.session.add(row)
        for name in _ISSUE_TEXT:
            setattr(row, name, getattr(issue, name))
        row.labels = list(issue.labels)
        row.sprint = converter.unstructure(issue.sprint) if issue.sprint is not None else None
        row.refreshed_at = unit.now
        row.vanished_at = None
        row.seen_by = command_id
    # Links are replaced per issue: the ones touching the page's issues that Jira no longer shows on either side
    # go, the shown ones are upserted.
    shown = {link.id: link for issue in latest.values() for link in issue.links}
    stale = delete(MirrorLinkRow).where(MirrorLinkRow.source.in_(keys) | MirrorLinkRow.target.in_(keys))
    if shown:
        stale = stale.where(MirrorLinkRow.jira_id.not_in(list(shown)))
    await unit.session.execute(stale)
    if shown:
        known = {
            row.jira_id: row
            for row in (
                await unit.session.scalars(select(MirrorLinkRow).where(MirrorLinkRow.jira_id.in_(list(shown))))
            ).all()
        }
        for link_id, link in shown.items():
            existing = known.get(link_id)
            if existing is None:
                unit.session.add(MirrorLinkRow(jira_id=link_id, type=link.type, source=link.source, target=link.target))
            else:
                existing.type, existing.source, existing.target = link.type, link.source, link.target
    await unit.session.flush()


async def _upsert_history(unit: Unit, entries: Sequence[HistoryEntry]) -> None:
    """A page's journal entries, unique by (issue, Jira history id)."""
    if not entries:
        return
    latest = {(entry.key, entry.id): entry for entry in entries}
    keys = sorted({key for key, _ in latest})
    rows = {
        (row.issue_key, row.jira_id): row
        for row in (
            await unit.session.scalars(select(HistoryEntryRow).where(HistoryEntryRow.issue_key.in_(keys)))
        ).all()
    }
    for ident, entry in latest.items():
        items = [converter.unstructure(item) for item in entry.items]
        row = rows.get(ident)
        if row is None:
            unit.session.add(
                HistoryEntryRow(
                    issue_key=entry.key, jira_id=entry.id, created=entry.created, author=entry.author, items=items
                )
            )
        else:
            row.created, row.author, row.items = entry.created, entry.author, items
    await unit.session.flush()


async def submit_pages(unit: Unit, command_id: int, body: Any) -> dict[str, Any]:
    """``POST /agent/commands/{id}/pages``: idempotent upserts of the mirror, whatever the command's status."""
    data = check_body(body, {"page": "int"}, {"kind": "str", "issues": "list", "history": "list"})
    if "kind" in data and data["kind"] not in _PAGE_KINDS:
        raise ValidationError(f"kind — ожидается одно из {', '.join(_PAGE_KINDS)}")
    issues = [_structure(item, MirrorIssue, f"issues[{i}]") for i, item in enumerate(data.get("issues") or [])]
    entries = [_structure(item, HistoryEntry, f"history[{i}]") for i, item in enumerate(data.get("history") or [])]
    for i, issue in enumerate(issues):
        if not isinstance(issue.key, str) or not issue.key:
            raise ValidationError(f"issues[{i}]: key — ожидается ключ задачи")
    await _lock_queue(unit)
    row = await _refresh_command(unit, command_id)
    await _upsert_issues(unit, issues, row.id)
    await _upsert_history(unit, entries)
    await _touch_agent(unit)
    return {"accepted": True, "issues": len(issues), "history": len(entries)}


REPORT_FIELDS = {"status": "str"}
REPORT_OPTIONAL = {"result": "dict?", "error": "str?", "jira_calls": "int?", "operations": "list"}


async def _apply_refresh_result(unit: Unit, row: CommandRow, result: Mapping[str, Any], settings: Settings) -> None:
    """After a ``done`` refresh report (also a late one): boards, journal mark, vanished issues, confirmations."""
    for board_id, board_type in reports.board_types(result).items():
        await unit.session.execute(
            update(ProjectRow).where(ProjectRow.board_id == board_id).values(board_type=board_type)
        )
    run = await unit.session.scalar(select(SyncRunRow).where(SyncRunRow.command_id == row.id))
    if run is not None:
        run.finished_at = unit.now
        issues = result.get("issues")
        run.issues = issues if isinstance(issues, int) and not isinstance(issues, bool) else None
        if history.history_at_on_report(full=run.full, result=result):
            run.history_at = unit.now
        if run.full:
            project_names = {p.name for p in await _projects(unit)}
            candidates = (
                await unit.session.scalars(select(MirrorIssueRow).where(MirrorIssueRow.vanished_at.is_(None)))
            ).all()
            for issue in candidates:
                if reports.vanishes(
                    labels=issue.labels or (),
                    project_names=project_names,
                    returned_by_run=issue.seen_by == row.id,
                    refreshed_at=issue.refreshed_at,
                    run_started_at=run.started_at,
                ):
                    issue.vanished_at = unit.now
    await unit.session.flush()
    await _confirm_claimed(unit, settings, exclude=row.id)


async def _confirm_claimed(unit: Unit, settings: Settings, *, exclude: int) -> None:
    claimed = (
        await unit.session.scalars(select(CommandRow).where(CommandRow.status == "claimed", CommandRow.id != exclude))
    ).all()
    if not claimed:
        return
    agent = await _agent_row(unit)
    facts = confirm_rules.AgentFacts(
        jira_user=agent.jira_user if agent else None,
        symmetric_link_types=frozenset(agent.symmetric_link_types or ()) if agent else frozenset(),
    )
    for row in claimed:
        params = delivery.complete_params(
            row.type, row.params, resolved_temp_keys=await _resolved_in_batch(unit, row.batch_id)
        )
        needs = confirm_rules.mirror_needs(row.type, params)
        query = None
        if needs.keys:
            query = select(MirrorIssueRow).where(MirrorIssueRow.key.in_(needs.keys))
        elif needs.summary is not None:
            query = select(MirrorIssueRow).where(MirrorIssueRow.summary == needs.summary)
        if query is None:
            continue
        rows = (await unit.session.scalars(query)).all()
        links = await _links_of(unit, [r.key for r in rows])
        mirror = {r.key: _record(r, links[r.key]) for r in rows}
        found = confirm_rules.confirm(
            row.type, params, mirror=mirror, facts=facts, link_types=settings.link_types, now=unit.now
        )
        if found is None:
            continue
        row.status, row.finished_at = "confirmed_by_state", unit.now
        if found.key is not None:
            row.result = {**(row.result or {}), "key": found.key, "created": False}
            await _move_notes(unit, row.batch_id, row.temp_key, found.key)


async def report(unit: Unit, command_id: int, body: Any) -> dict[str, Any]:
    """``POST /agent/commands/{id}/report``: record the outcome of the command's delivery.

    Idempotent. For a command no longer ``claimed`` only what the seed allows is recorded: the key of a
    cancelled or limit-failed ``ensure_issue`` (and its notes move), and a refresh's facts (the mirror,
    boards, journal mark, confirmations); the status stays.
    """
    data = check_body(body, REPORT_FIELDS, REPORT_OPTIONAL)
    status = data["status"]
    if status not in ("done", "failed"):
        raise ValidationError("status — ожидается done или failed")
    result = data.get("result") or {}
    await _lock_queue(unit)
    settings = await load_settings(unit)
    row = await _command(unit, command_id)
    await _touch_agent(unit)
    if row.status == "queued":
        raise ConflictError(f"команда {command_id} не выдана агенту")
    run = None
    if row.type == "refresh":
        run = await unit.session.scalar(select(SyncRunRow).where(SyncRunRow.command_id == row.id))
    decision = reports.decide_report(
        command_type=row.type,
        current_status=row.status,
        current_error=row.error,
        reported_status=status,
        result=result,
        refresh_finished=run is None or run.finished_at is not None,
    )
    if decision.record:
        row.status = status
        row.result = dict(result)
        row.error = reports.trim_error(data.get("error"))
        row.jira_calls = data.get("jira_calls")
        row.operations = data.get("operations") or []
        row.finished_at = unit.now
    elif decision.key is not None:
        row.result = {**(row.result or {}), **result}
    await _move_notes(unit, row.batch_id, row.temp_key, decision.key)
    if decision.apply_refresh:
        await _apply_refresh_result(unit, row, result, settings)
    return {"accepted": decision.accepted, "status": decision.status}
