"""Hub settings (DESIGN.md section 3): defaults in code, validated on every change.

Each setting says what it is next to its definition: ``metadata={"label": …, "doc": …}``
(:func:`reconcile.config.about.about`), which the page's settings form shows (:mod:`reconcile.config.form`).

A change (``PATCH /settings``) **merges** into the current settings (:func:`merge_settings`): an object
merges key by key, recursively; a scalar or a list replaces; ``null`` at the top level restores that key's
default, and inside an object removes the entry (so a removed gap falls back to its default, a removed link
type is gone). The merged whole is validated: a partial change never quietly resets what it does not name.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Literal

import attrs

from reconcile.config.about import about
from reconcile.config.undo import UndoSettings, undo_from_json, undo_to_json
from reconcile.vocabulary.catalogue import CATALOGUE, default_gaps
from reconcile.vocabulary.commands import is_project_key
from reconcile.vocabulary.errors import ValidationError

__all__ = [
    "DEFAULT_PACING",
    "DOORS",
    "LIMITS",
    "ApprovalDoors",
    "EpicLink",
    "IssueTypeRef",
    "Settings",
    "merge_settings",
    "settings_from_json",
    "settings_to_json",
]

#: The seed's pacing defaults: each command type's gap (the catalogue's).
DEFAULT_PACING: dict[str, float] = default_gaps(CATALOGUE)

#: The largest value of each number setting: beyond these a value is a typo, and some (a gap of 10**300
#: seconds) would overflow the clock arithmetic. Whole numbers, so that a message shows them as such.
LIMITS: dict[str, int] = {
    "pacing": 86400,
    "auto_refresh_minutes": 525600,
    "full_refresh_hours": 87600,
    "claim_wait_seconds": 3600,
    "max_file_bytes": 2**53,
    "max_store_bytes": 2**53,
    "file_retention_hours": 87600,
    "max_batch_commands": 1_000_000,
    "approval_ttl_hours": 87600,
    "audit_retention_days": 36500,
}


@attrs.frozen(kw_only=True)
class IssueTypeRef:
    id: str | None = attrs.field(default=None, metadata=about("id", "id типа задачи в Jira (если задан, имя не нужно)"))
    name: str | None = attrs.field(default=None, metadata=about("имя", "имя типа задачи в Jira"))

    def is_set(self) -> bool:
        return bool((self.id or "").strip() or (self.name or "").strip())

    def to_jira(self) -> dict[str, str]:
        """Jira's ``issuetype``: by ``id`` when set, else by ``name``."""
        if self.id:
            return {"id": self.id}
        return {"name": self.name or ""}


#: The doors a batch can come through, each with its own ``approval.<door>`` switch (see reconcile.outlook.approval).
DOORS: tuple[str, ...] = ("mcp", "http")


@attrs.frozen(kw_only=True)
class ApprovalDoors:
    """``approval``: per door, whether its batches wait for a person's approval (off by default)."""

    mcp: bool = attrs.field(default=False, metadata=about("через MCP", "пакеты ассистентов (MCP) ждут одобрения"))
    http: bool = attrs.field(
        default=False, metadata=about("через HTTP", "пакеты скриптов и страницы (HTTP) ждут одобрения")
    )

    def required(self, door: str) -> bool:
        return bool(getattr(self, door))


@attrs.frozen(kw_only=True)
class EpicLink:
    mode: Literal["field", "parent"] = attrs.field(
        default="field",
        metadata=about(
            "способ", "field — через поле Epic Link, parent — через parent задачи", choices=("field", "parent")
        ),
    )
    field_id: str | None = attrs.field(
        default="customfield_10100", metadata=about("поле Epic Link", "id поля Epic Link; обязательно при field")
    )


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
    jira_project: str = attrs.field(
        default="AURORA",
        metadata=about("Проект Jira", "ключ проекта Jira, в котором хаб создаёт и меняет задачи; ключи и JQL — в нём"),
    )
    issue_types: dict[str, IssueTypeRef] = attrs.field(
        factory=_default_issue_types,
        metadata=about("Типы задач", "типы задач Jira для task, epic и bug: по id или по имени (id важнее)"),
    )
    epic_name_field_id: str | None = attrs.field(
        default="customfield_10102",
        metadata=about("Поле «Имя эпика»", "id поля Jira с именем эпика (Epic Name); пусто — такого поля нет"),
    )
    epic_link: EpicLink = attrs.field(
        factory=EpicLink, metadata=about("Связь с эпиком", "как задача привязывается к своему эпику")
    )
    fields: dict[str, str] = attrs.field(
        factory=_default_fields,
        metadata=about(
            "Поля Jira", "поля хаба → id полей Jira (sprint, planned_start, planned_end), по строке «имя = id»"
        ),
    )
    link_types: dict[str, str] = attrs.field(
        factory=_default_link_types,
        metadata=about(
            "Типы связей",
            "логические имена типов связей (link_type в ensure_link) → типы связей Jira, по строке «имя = тип»",
        ),
    )
    pacing: dict[str, float] = attrs.field(
        factory=lambda: dict(DEFAULT_PACING),
        metadata=about("Темп, с", "пауза в секундах перед записью в Jira и между записями, по типам команд"),
    )
    auto_refresh_minutes: float = attrs.field(
        default=15,
        metadata=about(
            "Автообновление, мин", "через сколько минут после прошлого обновления хаб обновляет зеркало сам"
        ),
    )
    full_refresh_hours: float = attrs.field(
        default=24,
        metadata=about("Полное обновление, ч", "как часто хаб читает задачи проектов целиком, а не только изменения"),
    )
    claim_wait_seconds: float = attrs.field(
        default=25,
        metadata=about(
            "Ожидание агента, с", "сколько ждёт запрос агента; молчащий дольше двух таких сроков агент не в сети"
        ),
    )
    max_file_bytes: int = attrs.field(
        default=104857600, metadata=about("Файл, байт", "наибольший размер одного файла вложения")
    )
    max_store_bytes: int = attrs.field(
        default=10737418240, metadata=about("Хранилище файлов, байт", "сколько могут занимать все файлы хаба")
    )
    file_retention_hours: float = attrs.field(
        default=168,
        metadata=about("Хранение файлов, ч", "через сколько часов удаляется файл, который не нужен командам в очереди"),
    )
    max_batch_commands: int = attrs.field(
        default=5000, metadata=about("Команд в пакете", "наибольшее число команд в одном пакете")
    )
    approval: ApprovalDoors = attrs.field(
        factory=ApprovalDoors,
        metadata=about("Одобрение", "пакеты, пришедшие через эту дверь, ждут одобрения другого человека"),
    )
    undo: UndoSettings = attrs.field(
        factory=UndoSettings, metadata=about("Откат пакета", "что откат пакета делает с задачами, которые он создал")
    )
    approval_ttl_hours: float = attrs.field(
        default=72,
        metadata=about(
            "Срок одобрения, ч",
            "одобренный пакет, ни одна команда которого не выдана агенту за это время, снова ждёт одобрения",
        ),
    )
    audit_retention_days: float = attrs.field(
        default=400,
        metadata=about(
            "Хранение аудита, дн", "записи аудита старше удаляются; контрольная точка сохраняет проверку цепочки"
        ),
    )

    def gap(self, command_type: str) -> float:
        """The pacing gap of a command type (seed: «Политика темпа»)."""
        return float(self.pacing.get(command_type, DEFAULT_PACING.get(command_type, 0)))

    def agent_context(self) -> dict[str, Any]:
        """What every delivery carries in ``context`` (DESIGN.md section 6): the settings the executors read, and
        ``claim_wait_seconds``, from which the agent knows how often to tell the hub it is alive (DESIGN.md 5.6)."""
        data = settings_to_json(self)
        keys = (
            "jira_project",
            "issue_types",
            "epic_name_field_id",
            "epic_link",
            "fields",
            "link_types",
            "claim_wait_seconds",
        )
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
        "full_refresh_hours": settings.full_refresh_hours,
        "claim_wait_seconds": settings.claim_wait_seconds,
        "max_file_bytes": settings.max_file_bytes,
        "max_store_bytes": settings.max_store_bytes,
        "file_retention_hours": settings.file_retention_hours,
        "max_batch_commands": settings.max_batch_commands,
        "approval": {"mcp": settings.approval.mcp, "http": settings.approval.http},
        "undo": undo_to_json(settings.undo),
        "approval_ttl_hours": settings.approval_ttl_hours,
        "audit_retention_days": settings.audit_retention_days,
    }


def _fail(message: str) -> ValidationError:
    return ValidationError(f"настройки: {message}")


def _str(value: Any, key: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _fail(f"{key} — непустая строка")
    return value


def _project_key(value: Any) -> str:
    """``jira_project``: a Jira project key, so that every key and JQL the hub scopes to it means that project."""
    key = _str(value, "jira_project")
    if not is_project_key(key):
        raise _fail("jira_project — ключ проекта Jira: латинские заглавные буквы, цифры и _, первой — буква (AURORA)")
    return key


def _number(value: Any, name: str, limit: int, *, positive: bool = False) -> float:
    if isinstance(value, float) and not math.isfinite(value):
        raise ValidationError(f"недопустимое число в {name}")
    low_ok = isinstance(value, int | float) and (value > 0 if positive else value >= 0)
    if isinstance(value, bool) or not low_ok or value > limit:
        kind = "положительное число" if positive else "неотрицательное число"
        raise _fail(f"{name} — {kind} не больше {limit}")
    return float(value)


def _count(value: Any, name: str) -> int:
    limit = LIMITS[name]
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= limit:
        raise _fail(f"{name} — положительное целое не больше {limit}")
    return value


def _str_map(value: Any, name: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and k.strip() and v.strip() for k, v in value.items()
    ):
        raise _fail(f"{name} — объект из непустых строк")
    return dict(value)


def _approval(value: Any) -> ApprovalDoors:
    """``approval``: a switch per door (a change naming one door keeps the others: :func:`merge_settings`)."""
    if not isinstance(value, dict) or set(value) - set(DOORS):
        raise _fail(f"approval — объект {{{', '.join(f'{door}?' for door in DOORS)}}}")
    for door, on in value.items():
        if not isinstance(on, bool):
            raise _fail(f"approval.{door} — логическое значение true/false")
    return attrs.evolve(ApprovalDoors(), **value)


def _issue_types(value: Any) -> dict[str, IssueTypeRef]:
    if not isinstance(value, dict):
        raise _fail("issue_types — объект")
    issue_types: dict[str, IssueTypeRef] = {}
    for name, ref in value.items():
        if name not in ("task", "epic", "bug"):
            raise _fail(f"issue_types.{name}: ожидаются task, epic, bug")
        if not isinstance(ref, dict) or set(ref) - {"id", "name"}:
            raise _fail(f"issue_types.{name} — объект {{id?, name?}}")
        for k in ("id", "name"):
            if ref.get(k) is not None and not isinstance(ref[k], str):
                raise _fail(f"issue_types.{name}.{k} — строка")
        issue_types[name] = IssueTypeRef(id=ref.get("id"), name=ref.get("name"))
    return issue_types


def _epic_link(value: Any) -> EpicLink:
    if not isinstance(value, dict) or value.get("mode") not in ("field", "parent"):
        raise _fail("epic_link.mode — field или parent")
    extra = sorted(set(value) - {"mode", "field_id"})
    if extra:
        raise _fail(f"epic_link: неизвестные параметры {', '.join(extra)}")
    field_id = value.get("field_id")
    if field_id is not None and not isinstance(field_id, str):
        raise _fail("epic_link.field_id — строка или null")
    if value["mode"] == "field" and not (field_id or "").strip():
        raise _fail("epic_link.field_id обязателен при mode = field")
    return EpicLink(mode=value["mode"], field_id=field_id)


def _pacing(value: Any) -> dict[str, float]:
    if not isinstance(value, dict):
        raise _fail("pacing — объект")
    unknown_types = sorted(set(value) - set(DEFAULT_PACING))
    if unknown_types:
        raise _fail(f"pacing: неизвестные типы {', '.join(unknown_types)}")
    pacing = dict(DEFAULT_PACING)
    pacing.update({k: _number(v, f"pacing.{k}", LIMITS["pacing"]) for k, v in value.items()})
    return pacing


def settings_from_json(data: Any) -> Settings:
    """Settings from a JSON object; a key it lacks takes its default. :class:`ValidationError` on bad values."""
    if not isinstance(data, dict):
        raise _fail("ожидается объект")
    merged = settings_to_json(Settings())
    unknown = sorted(set(data) - set(merged))
    if unknown:
        raise _fail(f"неизвестные параметры {', '.join(unknown)}")
    merged.update(data)
    epic_name = merged["epic_name_field_id"]
    return Settings(
        approval=_approval(merged["approval"]),
        jira_project=_project_key(merged["jira_project"]),
        issue_types=_issue_types(merged["issue_types"]),
        epic_name_field_id=None if epic_name is None else _str(epic_name, "epic_name_field_id"),
        epic_link=_epic_link(merged["epic_link"]),
        fields=_str_map(merged["fields"], "fields"),
        link_types=_str_map(merged["link_types"], "link_types"),
        pacing=_pacing(merged["pacing"]),
        auto_refresh_minutes=_number(
            merged["auto_refresh_minutes"], "auto_refresh_minutes", LIMITS["auto_refresh_minutes"]
        ),
        full_refresh_hours=_number(
            merged["full_refresh_hours"], "full_refresh_hours", LIMITS["full_refresh_hours"], positive=True
        ),
        claim_wait_seconds=_number(
            merged["claim_wait_seconds"], "claim_wait_seconds", LIMITS["claim_wait_seconds"], positive=True
        ),
        max_file_bytes=_count(merged["max_file_bytes"], "max_file_bytes"),
        max_store_bytes=_count(merged["max_store_bytes"], "max_store_bytes"),
        file_retention_hours=_number(
            merged["file_retention_hours"], "file_retention_hours", LIMITS["file_retention_hours"], positive=True
        ),
        max_batch_commands=_count(merged["max_batch_commands"], "max_batch_commands"),
        undo=undo_from_json(merged["undo"]),
        approval_ttl_hours=_number(
            merged["approval_ttl_hours"], "approval_ttl_hours", LIMITS["approval_ttl_hours"], positive=True
        ),
        audit_retention_days=_number(
            merged["audit_retention_days"], "audit_retention_days", LIMITS["audit_retention_days"], positive=True
        ),
    )


def _merged(current: Mapping[str, Any], change: Mapping[str, Any]) -> dict[str, Any]:
    """An object merged key by key (recursively); ``null`` removes the entry, anything else replaces it."""
    result = dict(current)
    for key, value in change.items():
        if value is None:
            result.pop(key, None)
        elif isinstance(value, Mapping) and isinstance(result.get(key), Mapping):
            result[key] = _merged(result[key], value)
        else:
            result[key] = value
    return result


def merge_settings(current: Settings, change: Any) -> Settings:
    """``PATCH /settings``: ``change`` merged into ``current`` (see the module docstring), validated as a whole.

    Raises :class:`ValidationError` on any bad value; the caller then keeps ``current`` unchanged.
    """
    if not isinstance(change, dict):
        raise _fail("ожидается объект")
    defaults = settings_to_json(Settings())
    unknown = sorted(set(change) - set(defaults))
    if unknown:
        raise _fail(f"неизвестные параметры {', '.join(unknown)}")
    merged = settings_to_json(current)
    for key, value in change.items():
        if value is None:
            merged[key] = defaults[key]
        elif isinstance(value, dict) and isinstance(merged[key], dict):
            merged[key] = _merged(merged[key], value)
        else:
            merged[key] = value
    return settings_from_json(merged)
