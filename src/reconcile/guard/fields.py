"""Custom field ids verified against Jira (DESIGN.md 5.7, issue 31 finding 3): the hub's ``context`` maps each field
*role* (the sprint, the planned dates, the epic link, the epic name) to a field id; the agent writes a role's
field only when that id looks like a field id, is the one the bank pinned (if it pinned one) and Jira's own field
list (``GET /rest/api/2/field``) gives it the role's schema:

- ``sprint``: ``schema.custom`` ``com.pyxis.greenhopper.jira:gh-sprint``;
- ``epic_link``: ``com.pyxis.greenhopper.jira:gh-epic-link``; ``epic_name``: ``…:gh-epic-label``;
- ``planned_start``, ``planned_end``: ``schema.type`` ``date`` or ``datetime``.

:func:`fields_problem` is the decision (the command's ``failed`` message, or ``None``), taken before any call of
the command: a hub that maps ``planned_start`` to the Epic Link field gets «поле customfield_10100 — не дата
(Epic Link)» and no write. Every id the context maps must look like a field id (``customfield_<n>`` or a system
field of :data:`SYSTEM_FIELDS`) whatever the command, since each may go into a request's ``fields``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import attrs

from reconcile.config.settings import Settings
from reconcile.guard.paths import shown_value
from reconcile.vocabulary.catalogue import REFRESH_TYPE, CommandType

__all__ = [
    "ROLES",
    "SYSTEM_FIELDS",
    "JiraField",
    "field_problem",
    "fields_from_jira",
    "fields_problem",
    "is_field_id",
    "mapped_fields",
    "pin_problem",
    "roles_used",
    "unseen_ids",
    "verified_mapping",
]

#: The roles a custom field plays, in the order ``sdlc-agent check`` prints them.
ROLES: tuple[str, ...] = ("sprint", "planned_start", "planned_end", "epic_link", "epic_name")
#: Jira's system fields a mapping may name (``parent`` is the epic link of ``epic_link.mode = parent``).
SYSTEM_FIELDS: frozenset[str] = frozenset(
    {
        "summary",
        "description",
        "status",
        "priority",
        "duedate",
        "labels",
        "assignee",
        "reporter",
        "created",
        "updated",
        "issuelinks",
        "attachment",
        "parent",
    }
)
_CUSTOM = re.compile(r"customfield_[1-9][0-9]{0,17}", re.ASCII)
_GREENHOPPER = "com.pyxis.greenhopper.jira:"
#: role → (the plugin key its ``schema.custom`` must be, or ``None``; the ``schema.type`` values allowed, or ``None``;
#: what the field is not, in a refusal).
_SCHEMAS: dict[str, tuple[str | None, frozenset[str] | None, str]] = {
    "sprint": (_GREENHOPPER + "gh-sprint", None, "не спринт"),
    "epic_link": (_GREENHOPPER + "gh-epic-link", None, "не Epic Link"),
    "epic_name": (_GREENHOPPER + "gh-epic-label", None, "не Epic Name"),
    "planned_start": (None, frozenset({"date", "datetime"}), "не дата"),
    "planned_end": (None, frozenset({"date", "datetime"}), "не дата"),
}
#: The parameters whose value is written into a role's field.
_PARAM_ROLES = {"planned_start": "planned_start", "planned_end": "planned_end", "epic_key": "epic_link"}


@attrs.frozen(kw_only=True)
class JiraField:
    """One field of Jira's list: its id, name, ``schema.custom`` plugin key and ``schema.type``."""

    id: str
    name: str
    custom: str | None = None
    type: str | None = None


def is_field_id(value: Any) -> bool:
    """``customfield_<n>`` or a system field of :data:`SYSTEM_FIELDS`."""
    return isinstance(value, str) and (value in SYSTEM_FIELDS or _CUSTOM.fullmatch(value) is not None)


def fields_from_jira(body: Any) -> dict[str, JiraField]:
    """Jira's ``GET /rest/api/2/field`` answer by id; an entry that is not an object with a text id is left out."""
    fields: dict[str, JiraField] = {}
    for entry in body if isinstance(body, list) else ():
        if not isinstance(entry, Mapping) or not isinstance(entry.get("id"), str):
            continue
        schema = entry.get("schema")
        schema = schema if isinstance(schema, Mapping) else {}
        custom, kind, name = schema.get("custom"), schema.get("type"), entry.get("name")
        fields[entry["id"]] = JiraField(
            id=entry["id"],
            name=name if isinstance(name, str) else entry["id"],
            custom=custom if isinstance(custom, str) else None,
            type=kind if isinstance(kind, str) else None,
        )
    return fields


def mapped_fields(settings: Settings) -> dict[str, str]:
    """The field id the settings give each role that has one (``epic_link`` only in ``field`` mode)."""
    mapped = {role: settings.fields[role] for role in ROLES if settings.fields.get(role)}
    if settings.epic_link.mode == "field" and settings.epic_link.field_id:
        mapped["epic_link"] = settings.epic_link.field_id
    if settings.epic_name_field_id:
        mapped["epic_name"] = settings.epic_name_field_id
    return mapped


def roles_used(command_type: str, params: Mapping[str, Any]) -> tuple[str, ...]:
    """The roles whose field a command reads to decide or writes: what a refresh reads for the mirror, what an
    ``ensure_fields``/``ensure_issue`` sets (the epic name on a new epic), ``ensure_sprint``'s sprint."""
    if command_type == REFRESH_TYPE:
        return ("sprint", "planned_start", "planned_end", "epic_link")
    if command_type == CommandType.ENSURE_SPRINT:
        return ("sprint",)
    if command_type not in (CommandType.ENSURE_FIELDS, CommandType.ENSURE_ISSUE):
        return ()
    used = [role for name, role in _PARAM_ROLES.items() if params.get(name) is not None]
    if command_type == CommandType.ENSURE_ISSUE and params.get("issue_type") == "epic":
        used.append("epic_name")
    return tuple(used)


def field_problem(role: str, field_id: str, fields: Mapping[str, JiraField]) -> str | None:
    """Why ``field_id`` cannot play ``role`` in this Jira (absent from its list, or of another schema)."""
    field = fields.get(field_id)
    if field is None:
        return f"поля {field_id} нет в Jira ({role})"
    custom, types, wrong = _SCHEMAS[role]
    if (custom is not None and field.custom != custom) or (types is not None and field.type not in types):
        return f"поле {field_id} — {wrong} ({field.name})"
    return None


def pin_problem(role: str, field_id: str, pins: Mapping[str, str]) -> str | None:
    """Why the hub's ``field_id`` for ``role`` is refused by the bank's pin, or ``None``."""
    pinned = pins.get(role)
    if pinned is None or pinned == field_id:
        return None
    return f"поле {role}: хаб указал {field_id}, политика агента — {pinned}"


def fields_problem(
    command_type: str,
    params: Mapping[str, Any],
    settings: Settings,
    *,
    fields: Mapping[str, JiraField] | None,
    pins: Mapping[str, str],
) -> str | None:
    """Why the command must not run with this mapping (checked before its first call), or ``None``.

    Every mapped id must look like a field id; each role the command uses must match the bank's pin and, when
    Jira's list is known (``fields``), exist there with the role's schema."""
    mapped = mapped_fields(settings)
    for name, field_id in (*settings.fields.items(), *mapped.items()):
        if not is_field_id(field_id):
            return f"недопустимый id поля {name}: {shown_value(field_id)}"
    for role in roles_used(command_type, params):
        if role not in mapped:
            continue  # the executor says «нет настройки …» when it needs one
        problem = pin_problem(role, mapped[role], pins)
        if problem is None and fields is not None:
            problem = field_problem(role, mapped[role], fields)
        if problem is not None:
            return problem
    return None


def unseen_ids(settings: Settings, fields: Mapping[str, JiraField]) -> list[str]:
    """The custom field ids the settings map that Jira's list (as last read) does not hold: read it again."""
    return [fid for fid in mapped_fields(settings).values() if is_field_id(fid) and fid not in fields]


def verified_mapping(
    settings: Settings, fields: Mapping[str, JiraField], pins: Mapping[str, str]
) -> list[tuple[str, str, str | None]]:
    """``(role, field id, problem or None)`` for every role mapped or pinned: what ``sdlc-agent check`` prints."""
    mapped = mapped_fields(settings)
    rows: list[tuple[str, str, str | None]] = []
    for role in ROLES:
        if role not in mapped and role not in pins:
            continue
        field_id = mapped.get(role) or pins[role]
        if not is_field_id(field_id):
            rows.append((role, field_id, f"недопустимый id поля {role}: {shown_value(field_id)}"))
            continue
        rows.append((role, field_id, pin_problem(role, field_id, pins) or field_problem(role, field_id, fields)))
    return rows
