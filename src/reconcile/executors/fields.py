"""``ensure_fields``: one ``PUT`` with only the fields that differ (CRLF-insensitive, ``null`` == "")."""

from __future__ import annotations

from typing import Any

from reconcile.catalogue import CATALOGUE
from reconcile.executors._run import Body, CommandFailed, Run
from reconcile.executors.base import JiraCall
from reconcile.jira_model import issue_from_jira, mirror_fields
from reconcile.jira_paths import issue_path
from reconcile.records import MirrorIssue
from reconcile.text import same_text

__all__ = ["FIELD_ORDER", "ensure_fields", "fields_diff"]

FIELD_ORDER: tuple[str, ...] = tuple(p.name for p in CATALOGUE["ensure_fields"].optional)


def _labels(value: Any) -> list[str]:
    if not isinstance(value, list):
        return []
    return list(dict.fromkeys(str(label) for label in value))


def fields_diff(run: Run, current: MirrorIssue) -> tuple[list[str], dict[str, Any], list[dict[str, str]]]:
    """(changed logical names, ``fields`` to set, ``update.labels`` verbs) for the command against Jira."""
    params = run.params
    settings = run.settings
    changed: list[str] = []
    fields: dict[str, Any] = {}
    verbs: list[dict[str, str]] = []
    for name in FIELD_ORDER:
        if name not in params:
            continue
        value = params[name]
        if name == "labels_add":
            missing = [label for label in _labels(value) if label not in current.labels]
            verbs.extend({"add": label} for label in missing)
            if missing:
                changed.append(name)
            continue
        if name == "labels_remove":
            present = [label for label in _labels(value) if label in current.labels]
            verbs.extend({"remove": label} for label in present)
            if present:
                changed.append(name)
            continue
        wanted: str | None = value  # the validation admits only text or null for the other fields
        before: str | None = getattr(current, name)
        wanted_cmp = wanted
        if name == "summary":
            # Jira trims the summary it stores; surrounding spaces alone never make a difference.
            before, wanted_cmp = (before or "").strip(), (wanted or "").strip()
        if same_text(before, wanted_cmp):
            continue
        changed.append(name)
        if name in ("priority", "assignee"):
            fields[name] = {"name": wanted} if wanted else None
        elif name in ("planned_start", "planned_end"):
            field_id = settings.fields.get(name)
            if not field_id:
                raise CommandFailed(f"нет настройки fields.{name}")
            fields[field_id] = wanted or None
        elif name == "epic_key":
            if settings.epic_link.mode == "parent":
                fields["parent"] = {"key": wanted} if wanted else None
            else:
                fields[settings.epic_link.field_id or ""] = wanted or None
        elif name == "duedate":
            fields[name] = wanted or None
        else:
            fields[name] = wanted
    return changed, fields, verbs


def ensure_fields(run: Run) -> Body:
    key = run.key_param("key")
    params = {"fields": ",".join(mirror_fields(run.settings))}
    response = yield from run.call(JiraCall(method="GET", path=issue_path(key), params=params))
    current = issue_from_jira(response.json, run.settings)
    changed, fields, verbs = fields_diff(run, current)
    if not changed:
        return run.done(changed=[])
    body: dict[str, Any] = {}
    if fields:
        body["fields"] = fields
    if verbs:
        body["update"] = {"labels": verbs}
    yield from run.call(JiraCall(method="PUT", path=issue_path(key), json=body))
    return run.done(changed=changed)
