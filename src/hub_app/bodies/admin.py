"""Bodies of administration: projects, tokens and settings (``PATCH /settings``: checked as a whole by
:mod:`reconcile.config.settings`)."""

from __future__ import annotations

from typing import Literal

import attrs

from hub_app.bodies.parsing import HIDDEN, meta

__all__ = ["ApprovalIn", "EpicLinkIn", "IssueTypeIn", "ProjectIn", "ProjectPatchIn", "SettingsIn", "TokenIn"]


@attrs.frozen(kw_only=True)
class ProjectIn:
    name: str = attrs.field(metadata=meta("nonempty", "метка Jira проекта"))
    board_id: int | None = attrs.field(default=None, metadata=meta("int?"))
    board_type: Literal["scrum", "kanban"] | None = attrs.field(default=None, metadata=meta("str?"))


@attrs.frozen(kw_only=True)
class ProjectPatchIn:
    board_id: int | None = attrs.field(default=None, metadata=meta("int?"))
    board_type: Literal["scrum", "kanban"] | None = attrs.field(default=None, metadata=meta("str?"))
    given: frozenset[str] = attrs.field(default=frozenset(), metadata=HIDDEN)


@attrs.frozen(kw_only=True)
class TokenIn:
    name: str = attrs.field(metadata=meta("nonempty"))
    role: Literal["agent", "interface", "admin"] = attrs.field(metadata=meta("str"))
    needs_approval: bool = attrs.field(
        default=False, metadata=meta("bool", "каждый пакет этого токена ждёт одобрения человеком (только interface)")
    )


@attrs.frozen(kw_only=True)
class IssueTypeIn:
    id: str | None = None
    name: str | None = None


@attrs.frozen(kw_only=True)
class EpicLinkIn:
    mode: Literal["field", "parent"] = "field"
    field_id: str | None = None


@attrs.frozen(kw_only=True)
class ApprovalIn:
    """Per door (``mcp``, ``http``): whether its batches wait for a person's approval."""

    mcp: bool | None = None
    http: bool | None = None


@attrs.frozen(kw_only=True)
class SettingsIn:
    """``PATCH /settings``: any subset of the settings, merged into the current ones (objects key by key, ``null``
    restores a default) and checked as a whole by :mod:`reconcile.config.settings`."""

    jira_project: str | None = None
    issue_types: dict[str, IssueTypeIn] | None = None
    epic_name_field_id: str | None = None
    epic_link: EpicLinkIn | None = None
    fields: dict[str, str] | None = None
    link_types: dict[str, str] | None = None
    pacing: dict[str, float] | None = None
    auto_refresh_minutes: float | None = None
    full_refresh_hours: float | None = None
    claim_wait_seconds: float | None = None
    max_file_bytes: int | None = None
    max_store_bytes: int | None = None
    file_retention_hours: float | None = None
    max_batch_commands: int | None = None
    approval: ApprovalIn | None = None
