"""The hub's administration tables — tokens, settings, projects, files and the agent's status — as named queries."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import Row, delete, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from adapters.storage.models import AgentStatusRow, ApiTokenRow, FileRow, ProjectRow, SettingsRow, table_of
from adapters.storage.records import AgentStatusRecord, FileRecord, ProjectRecord, TokenRecord
from reconcile.config import Settings, settings_from_json, settings_to_json
from reconcile.outlook import pace_from_wire

__all__ = ["AdminRepository"]

_TOKEN = table_of(ApiTokenRow)
_PROJECT = table_of(ProjectRow)
_FILE = table_of(FileRow)
_AGENT = table_of(AgentStatusRow)
_SETTINGS = table_of(SettingsRow)


def _token(row: Row[Any]) -> TokenRecord:
    return TokenRecord(
        name=row.name,
        role=row.role,
        created_at=row.created_at,
        revoked_at=row.revoked_at,
        needs_approval=row.needs_approval,
    )


def _project(row: Row[Any]) -> ProjectRecord:
    return ProjectRecord(name=row.name, board_id=row.board_id, board_type=row.board_type, created_at=row.created_at)


def _agent(row: Row[Any]) -> AgentStatusRecord:
    return AgentStatusRecord(
        agent_id=row.agent_id,
        instance=row.instance,
        version=row.version,
        jira_user=row.jira_user,
        jira_time_zone=row.jira_time_zone,
        symmetric_link_types=tuple(row.symmetric_link_types or ()),
        last_seen_at=row.last_seen_at,
        last_claim_at=row.last_claim_at,
        last_error=row.last_error,
        last_webhook_event_at=row.last_webhook_event_at,
        jira_base_url=row.jira_base_url,
        pause_command_id=row.pause_command_id,
        pause_ends_at=row.pause_ends_at,
        policy=pace_from_wire(row.policy) if row.policy is not None else None,
    )


class AdminRepository:
    def __init__(self, session: AsyncSession) -> None:
        self._session = session

    async def token(self, name: str) -> TokenRecord | None:
        row = (await self._session.execute(select(_TOKEN).where(_TOKEN.c.name == name))).first()
        return _token(row) if row is not None else None

    async def token_by_digest(self, sha256: str) -> TokenRecord | None:
        row = (await self._session.execute(select(_TOKEN).where(_TOKEN.c.sha256 == sha256))).first()
        return _token(row) if row is not None else None

    async def tokens(self) -> list[TokenRecord]:
        return [_token(row) for row in (await self._session.execute(select(_TOKEN).order_by(_TOKEN.c.id))).all()]

    async def add_token(
        self, name: str, *, role: str, sha256: str, now: datetime, needs_approval: bool = False
    ) -> TokenRecord:
        values = {"name": name, "role": role, "sha256": sha256, "created_at": now, "needs_approval": needs_approval}
        await self._session.execute(insert(_TOKEN).values(**values))
        return TokenRecord(name=name, role=role, created_at=now, needs_approval=needs_approval)

    async def revoke_token(self, name: str, *, now: datetime) -> None:
        query = update(_TOKEN).where(_TOKEN.c.name == name, _TOKEN.c.revoked_at.is_(None)).values(revoked_at=now)
        await self._session.execute(query)

    async def settings(self) -> Settings:
        data = await self._session.scalar(select(_SETTINGS.c.data).where(_SETTINGS.c.id == 1))
        return Settings() if data is None else settings_from_json(data)

    async def save_settings(self, settings: Settings) -> None:
        data = settings_to_json(settings)
        changed = await self._session.execute(update(_SETTINGS).where(_SETTINGS.c.id == 1).values(data=data))
        if not changed.rowcount:  # type: ignore[attr-defined]
            await self._session.execute(insert(_SETTINGS).values(id=1, data=data))

    async def projects(self) -> list[ProjectRecord]:
        """Every project in creation order (the base JQL's order)."""
        query = select(_PROJECT).order_by(_PROJECT.c.created_at, _PROJECT.c.id)
        return [_project(row) for row in (await self._session.execute(query)).all()]

    async def project(self, name: str) -> ProjectRecord | None:
        row = (await self._session.execute(select(_PROJECT).where(_PROJECT.c.name == name))).first()
        return _project(row) if row is not None else None

    async def add_project(self, project: ProjectRecord) -> None:
        await self._session.execute(
            insert(_PROJECT).values(
                name=project.name,
                board_id=project.board_id,
                board_type=project.board_type,
                created_at=project.created_at,
            )
        )

    async def save_project(self, project: ProjectRecord) -> None:
        await self._session.execute(
            update(_PROJECT)
            .where(_PROJECT.c.name == project.name)
            .values(board_id=project.board_id, board_type=project.board_type)
        )

    async def delete_project(self, name: str) -> None:
        await self._session.execute(delete(_PROJECT).where(_PROJECT.c.name == name))

    async def set_board_type(self, board_id: int, board_type: str) -> None:
        """Every project on ``board_id`` learns its board's type."""
        await self._session.execute(
            update(_PROJECT).where(_PROJECT.c.board_id == board_id).values(board_type=board_type)
        )

    async def record_file(self, file: FileRecord) -> None:
        """Record an uploaded file (again: its size, its name when one is given, and the time of this upload,
        from which its retention counts)."""
        values: dict[str, Any] = {"size": file.size, "created_at": file.created_at}
        if file.filename:
            values["filename"] = file.filename
        changed = await self._session.execute(update(_FILE).where(_FILE.c.sha256 == file.sha256).values(**values))
        if not changed.rowcount:  # type: ignore[attr-defined]
            await self._session.execute(
                insert(_FILE).values(
                    sha256=file.sha256, size=file.size, filename=file.filename, created_at=file.created_at
                )
            )

    async def recorded_files(self, shas: Iterable[str]) -> set[str]:
        """Which of ``shas`` the hub has recorded."""
        wanted = sorted(set(shas))
        if not wanted:
            return set()
        query = select(_FILE.c.sha256).where(_FILE.c.sha256.in_(wanted))
        return set((await self._session.scalars(query)).all())

    async def files(self, shas: Iterable[str]) -> dict[str, FileRecord]:
        """The records of those of ``shas`` the hub has (the editor's file picker shows their name and size)."""
        wanted = sorted(set(shas))
        if not wanted:
            return {}
        rows = (await self._session.execute(select(_FILE).where(_FILE.c.sha256.in_(wanted)))).all()
        return {
            row.sha256: FileRecord(sha256=row.sha256, size=row.size, filename=row.filename, created_at=row.created_at)
            for row in rows
        }

    async def stored_bytes(self) -> int:
        """The size of every recorded file together (what ``max_store_bytes`` bounds)."""
        return int(await self._session.scalar(select(func.coalesce(func.sum(_FILE.c.size), 0))) or 0)

    async def files_uploaded_by(self, cutoff: datetime) -> dict[str, datetime]:
        """The files last uploaded at or before ``cutoff``: sha256 → that time."""
        query = select(_FILE.c.sha256, _FILE.c.created_at).where(_FILE.c.created_at <= cutoff)
        return {row.sha256: row.created_at for row in (await self._session.execute(query)).all()}

    async def delete_files(self, shas: Iterable[str]) -> None:
        wanted = sorted(set(shas))
        if wanted:
            await self._session.execute(delete(_FILE).where(_FILE.c.sha256.in_(wanted)))

    async def agent_status(self) -> AgentStatusRecord | None:
        row = (await self._session.execute(select(_AGENT).order_by(_AGENT.c.id).limit(1))).first()
        return _agent(row) if row is not None else None

    async def save_agent_status(self, status: AgentStatusRecord) -> None:
        """The one row of the agent's status."""
        values = {
            "agent_id": status.agent_id,
            "instance": status.instance,
            "version": status.version,
            "jira_user": status.jira_user,
            "jira_time_zone": status.jira_time_zone,
            "symmetric_link_types": list(status.symmetric_link_types),
            "last_seen_at": status.last_seen_at,
            "last_claim_at": status.last_claim_at,
            "last_error": status.last_error,
            "last_webhook_event_at": status.last_webhook_event_at,
            "jira_base_url": status.jira_base_url,
            "pause_command_id": status.pause_command_id,
            "pause_ends_at": status.pause_ends_at,
            "policy": status.policy.to_wire() if status.policy is not None else None,
        }
        first = select(_AGENT.c.id).order_by(_AGENT.c.id).limit(1).scalar_subquery()
        changed = await self._session.execute(update(_AGENT).where(_AGENT.c.id == first).values(**values))
        if not changed.rowcount:  # type: ignore[attr-defined]
            await self._session.execute(insert(_AGENT).values(**values))
