"""``ensure_fields``: one ``PUT`` with only the fields that differ (CRLF-insensitive, ``null`` == "").

``if_unchanged: {field: value}`` (DESIGN.md 6.4) writes a listed field only while Jira still holds that value;
otherwise the field is left and named in ``conflicts``. The result's ``undo`` says what each write replaced
(:class:`reconcile.jira.replaced.FieldsUndo`), read from the same ``GET`` the comparison needs: no extra call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reconcile.executors._run import Body, CommandFailed, Run
from reconcile.executors.base import JiraCall
from reconcile.guard.paths import issue_path
from reconcile.jira.model import issue_from_jira, mirror_fields
from reconcile.jira.replaced import Conflict, FieldChange, FieldsUndo
from reconcile.vocabulary.catalogue import CATALOGUE, CommandType
from reconcile.vocabulary.records import MirrorIssue
from reconcile.vocabulary.text import same_text

__all__ = ["FIELD_ORDER", "ensure_fields", "fields_diff", "held_fields"]

#: The fields, in the order the agent compares and reports them (``if_unchanged`` is none of them).
FIELD_ORDER: tuple[str, ...] = tuple(
    p.name for p in CATALOGUE[CommandType.ENSURE_FIELDS].optional if p.name != "if_unchanged"
)


def _labels(value: Any) -> list[str]:
    if not isinstance(value, list):
        return []
    return list(dict.fromkeys(str(label) for label in value))


def _same(name: str, before: str | None, wanted: str | None) -> bool:
    if name == "summary":
        # Jira trims the summary it stores; surrounding spaces alone never make a difference.
        before, wanted = (before or "").strip(), (wanted or "").strip()
    return same_text(before, wanted)


def held_fields(params: Mapping[str, Any], current: MirrorIssue) -> list[Conflict]:
    """The fields of ``if_unchanged`` that would be written but Jira no longer holds the value expected: left."""
    expected = params.get("if_unchanged")
    if not isinstance(expected, Mapping):
        return []
    conflicts = []
    for name, value in expected.items():
        found: str | None = getattr(current, name, None)
        if name in params and not _same(name, found, params[name]) and not _same(name, found, value):
            conflicts.append(Conflict(field=name, expected=value, found=found))
    return conflicts


def fields_diff(
    run: Run, current: MirrorIssue, *, left: frozenset[str] = frozenset()
) -> tuple[list[str], dict[str, Any], list[dict[str, str]]]:
    """(changed logical names, ``fields`` to set, ``update.labels`` verbs) for the command against Jira; the
    fields ``left`` are not compared (an only-if-unchanged conflict)."""
    params = run.params
    settings = run.settings
    changed: list[str] = []
    fields: dict[str, Any] = {}
    verbs: list[dict[str, str]] = []
    for name in FIELD_ORDER:
        if name not in params or name in left:
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
        if _same(name, getattr(current, name), wanted):
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
    conflicts = held_fields(run.params, current)
    if conflicts:
        run.result["conflicts"] = [c.to_json() for c in conflicts]
    changed, fields, verbs = fields_diff(run, current, left=frozenset(c.field for c in conflicts))
    if not changed:
        return run.done(changed=[])
    body: dict[str, Any] = {}
    if fields:
        body["fields"] = fields
    if verbs:
        body["update"] = {"labels": verbs}
    undo = FieldsUndo(
        changed={
            name: FieldChange(before=getattr(current, name), after=run.params[name])
            for name in changed
            if name not in ("labels_add", "labels_remove")
        },
        added=tuple(v["add"] for v in verbs if "add" in v),
        removed=tuple(v["remove"] for v in verbs if "remove" in v),
    )
    run.result["undo"] = undo.to_json()  # before the PUT: a failed write may still have changed Jira
    yield from run.call(JiraCall(method="PUT", path=issue_path(key), json=body))
    return run.done(changed=changed)
