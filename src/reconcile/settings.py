"""Hub settings (DESIGN.md section 3): defaults in code, validated on every change."""

from __future__ import annotations

from typing import Any, Literal

import attrs

from reconcile.errors import ValidationError

__all__ = [
    "COMMAND_TYPES",
    "DEFAULT_PACING",
    "DOORS",
    "ApprovalDoors",
    "EpicLink",
    "IssueTypeRef",
    "Settings",
    "settings_from_json",
    "settings_to_json",
]

COMMAND_TYPES: tuple[str, ...] = (
    "ensure_issue",
    "ensure_fields",
    "ensure_comment",
    "ensure_status",
    "ensure_link",
    "ensure_sprint",
    "ensure_attachment",
    "refresh",
)

DEFAULT_PACING: dict[str, float] = {
    "ensure_issue": 120,
    "ensure_fields": 120,
    "ensure_comment": 30,
    "ensure_status": 30,
    "ensure_link": 30,
    "ensure_sprint": 30,
    "ensure_attachment": 30,
    "refresh": 2,
}


@attrs.frozen(kw_only=True)
class IssueTypeRef:
    id: str | None = None
    name: str | None = None

    def is_set(self) -> bool:
        return bool((self.id or "").strip() or (self.name or "").strip())

    def to_jira(self) -> dict[str, str]:
        """Jira's ``issuetype``: by ``id`` when set, else by ``name``."""
        if self.id:
            return {"id": self.id}
        return {"name": self.name or ""}


#: The doors a batch can come through, each with its own ``approval.<door>`` switch (see reconcile.approval).
DOORS: tuple[str, ...] = ("mcp", "http")


@attrs.frozen(kw_only=True)
class ApprovalDoors:
    """``approval``: per door, whether its batches wait for a person's approval (off by default)."""

    mcp: bool = False
    http: bool = False

    def required(self, door: str) -> bool:
        return bool(getattr(self, door))


@attrs.frozen(kw_only=True)
class EpicLink:
    mode: Literal["field", "parent"] = "field"
    field_id: str | None = "customfield_10100"


def _default_issue_types() -> dict[str, IssueTypeRef]:
    return {
        "task": IssueTypeRef(name="Задача"),
        "epic": IssueTypeRef(name="Эпик"),
        "bug": IssueTypeRef(name="Ошибка"),
    }


def _default_fields() -> dict[str, str]:
    return {
        "sprint": "customfield_10104",
        "planned_start": "customfield_11200",
        "planned_end": "customfield_11201",
    }


def _default_link_types() -> dict[str, str]:
    return {"блокирует начало": "Блокирует начало", "связанные": "Связанные"}


@attrs.frozen(kw_only=True)
class Settings:
    jira_project: str = "AURORA"
    issue_types: dict[str, IssueTypeRef] = attrs.field(factory=_default_issue_types)
    epic_name_field_id: str | None = "customfield_10102"
    epic_link: EpicLink = attrs.field(factory=EpicLink)
    fields: dict[str, str] = attrs.field(factory=_default_fields)
    link_types: dict[str, str] = attrs.field(factory=_default_link_types)
    pacing: dict[str, float] = attrs.field(factory=lambda: dict(DEFAULT_PACING))
    auto_refresh_minutes: float = 15
    claim_wait_seconds: float = 25
    max_file_bytes: int = 104857600
    approval: ApprovalDoors = attrs.field(factory=ApprovalDoors)

    def gap(self, command_type: str) -> float:
        """The pacing gap of a command type (seed: «Политика темпа»)."""
        return float(self.pacing.get(command_type, DEFAULT_PACING.get(command_type, 0)))

    def agent_context(self) -> dict[str, Any]:
        """What every delivery carries in ``context`` (DESIGN.md section 6)."""
        data = settings_to_json(self)
        keys = ("jira_project", "issue_types", "epic_name_field_id", "epic_link", "fields", "link_types")
        return {k: data[k] for k in keys}


def settings_to_json(settings: Settings) -> dict[str, Any]:
    return {
        "jira_project": settings.jira_project,
        "issue_types": {
            name: {k: v for k, v in (("id", ref.id), ("name", ref.name)) if v is not None}
            for name, ref in settings.issue_types.items()
        },
        "epic_name_field_id": settings.epic_name_field_id,
        "epic_link": {"mode": settings.epic_link.mode, "field_id": settings.epic_link.field_id},
        "fields": dict(settings.fields),
        "link_types": dict(settings.link_types),
        "pacing": dict(settings.pacing),
        "auto_refresh_minutes": settings.auto_refresh_minutes,
        "claim_wait_seconds": settings.claim_wait_seconds,
        "max_file_bytes": settings.max_file_bytes,
        "approval": {"mcp": settings.approval.mcp, "http": settings.approval.http},
    }


def _fail(message: str) -> ValidationError:
    return ValidationError(f"настройки: {message}")


def _str(data: dict[str, Any], key: str, *, nullable: bool = False) -> str | None:
    value = data[key]
    if value is None and nullable:
        return None
    if not isinstance(value, str) or not value.strip():
        raise _fail(f"{key} — непустая строка")
    return value


def _number(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise _fail(f"{name} — неотрицательное число")
    return float(value)


def _str_map(value: Any, name: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and k.strip() and v.strip() for k, v in value.items()
    ):
        raise _fail(f"{name} — объект из непустых строк")
    return dict(value)


def _approval(value: Any, base: ApprovalDoors) -> ApprovalDoors:
    """``approval``: doors not named keep their current switch, so turning one on never turns another off."""
    if not isinstance(value, dict) or set(value) - set(DOORS):
        raise _fail(f"approval — объект {{{', '.join(f'{door}?' for door in DOORS)}}}")
    for door, on in value.items():
        if not isinstance(on, bool):
            raise _fail(f"approval.{door} — логическое значение true/false")
    return attrs.evolve(base, **value)


def settings_from_json(data: Any, base: Settings | None = None) -> Settings:
    """Apply a (partial) JSON object of settings on ``base``; raise :class:`ValidationError` on bad values."""
    base = base or Settings()
    if not isinstance(data, dict):
        raise _fail("ожидается объект")
    merged = settings_to_json(base)
    unknown = sorted(set(data) - set(merged))
    if unknown:
        raise _fail(f"неизвестные параметры {', '.join(unknown)}")
    merged.update(data)

    jira_project = _str(merged, "jira_project")
    issue_types_raw = merged["issue_types"]
    if not isinstance(issue_types_raw, dict):
        raise _fail("issue_types — объект")
    issue_types: dict[str, IssueTypeRef] = {}
    for name, ref in issue_types_raw.items():
        if name not in ("task", "epic", "bug"):
            raise _fail(f"issue_types.{name}: ожидаются task, epic, bug")
        if not isinstance(ref, dict) or set(ref) - {"id", "name"}:
            raise _fail(f"issue_types.{name} — объект {{id?, name?}}")
        for k in ("id", "name"):
            if ref.get(k) is not None and not isinstance(ref[k], str):
                raise _fail(f"issue_types.{name}.{k} — строка")
        issue_types[name] = IssueTypeRef(id=ref.get("id"), name=ref.get("name"))

    epic_link_raw = merged["epic_link"]
    if not isinstance(epic_link_raw, dict) or epic_link_raw.get("mode") not in ("field", "parent"):
        raise _fail("epic_link.mode — field или parent")
    field_id = epic_link_raw.get("field_id")
    if epic_link_raw["mode"] == "field" and (not isinstance(field_id, str) or not field_id):
        raise _fail("epic_link.field_id обязателен при mode = field")

    pacing_raw = merged["pacing"]
    if not isinstance(pacing_raw, dict):
        raise _fail("pacing — объект")
    unknown_types = sorted(set(pacing_raw) - set(COMMAND_TYPES))
    if unknown_types:
        raise _fail(f"pacing: неизвестные типы {', '.join(unknown_types)}")
    pacing = dict(DEFAULT_PACING)
    pacing.update({k: _number(v, f"pacing.{k}") for k, v in pacing_raw.items()})

    max_file_bytes = merged["max_file_bytes"]
    if isinstance(max_file_bytes, bool) or not isinstance(max_file_bytes, int) or max_file_bytes <= 0:
        raise _fail("max_file_bytes — положительное целое")
    claim_wait = _number(merged["claim_wait_seconds"], "claim_wait_seconds")
    if claim_wait <= 0:
        raise _fail("claim_wait_seconds — положительное число")

    return Settings(
        approval=_approval(merged["approval"], base.approval),
        jira_project=jira_project or "",
        issue_types=issue_types,
        epic_name_field_id=_str(merged, "epic_name_field_id", nullable=True),
        epic_link=EpicLink(mode=epic_link_raw["mode"], field_id=field_id),
        fields=_str_map(merged["fields"], "fields"),
        link_types=_str_map(merged["link_types"], "link_types"),
        pacing=pacing,
        auto_refresh_minutes=_number(merged["auto_refresh_minutes"], "auto_refresh_minutes"),
        claim_wait_seconds=claim_wait,
        max_file_bytes=max_file_bytes,
    )
