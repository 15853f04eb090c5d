"""Answers of administration: projects, tokens (a new one with its secret), stored files, health."""

from __future__ import annotations

import attrs

from adapters.storage.records import ProjectRecord, TokenRecord
from hub_app.answers.wire import iso

__all__ = ["FileStored", "HealthView", "ProjectView", "TokenCreated", "TokenView"]


@attrs.frozen(kw_only=True)
class HealthView:
    status: str


@attrs.frozen(kw_only=True)
class ProjectView:
    name: str
    board_id: int | None
    board_type: str | None
    created_at: str

    @classmethod
    def of(cls, project: ProjectRecord) -> ProjectView:
        return cls(
            name=project.name,
            board_id=project.board_id,
            board_type=project.board_type,
            created_at=iso(project.created_at),
        )


@attrs.frozen(kw_only=True)
class TokenView:
    name: str
    role: str
    created_at: str
    revoked_at: str | None
    needs_approval: bool

    @classmethod
    def of(cls, token: TokenRecord) -> TokenView:
        return cls(
            name=token.name,
            role=token.role,
            created_at=iso(token.created_at),
            revoked_at=iso(token.revoked_at),
            needs_approval=token.needs_approval,
        )


@attrs.frozen(kw_only=True)
class TokenCreated:
    """A new token with its secret: shown in this answer only (stored as sha256)."""

    name: str
    role: str
    secret: str
    needs_approval: bool = False


@attrs.frozen(kw_only=True)
class FileStored:
    sha256: str
    size: int
