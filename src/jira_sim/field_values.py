"""One field of an issue: whether a value may be written (:meth:`FieldValues.check_field`) and writing the
checked values with their changelog (:meth:`FieldValues.apply_changes`), as Jira's edit screen does."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date
from typing import Any

from jira_sim.model import HistoryItem, Issue, User
from jira_sim.state import StoreState

__all__ = ["NOT_SETTABLE", "FieldError", "FieldValues"]

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
NOT_SETTABLE = "Field '{0}' cannot be set. It is not on the appropriate screen, or unknown."


class FieldError(Exception):
    """A value Jira refuses for one field; the message goes to ``errors[field]``."""


class FieldValues(StoreState):
    def check_field(self, issue: Issue, field: str, value: Any, *, creating: bool) -> Any:
        if field in self.fields and not self.fields[field].get("editable", True):
            raise FieldError(NOT_SETTABLE.format(field))
        if field == "summary":
            if not isinstance(value, str) or not value.strip():
                raise FieldError("You must specify a summary of the issue.")
            trimmed = value.strip()  # Jira stores the summary trimmed
            if "\n" in trimmed or "\r" in trimmed:
                raise FieldError("The summary is invalid because it contains newline characters.")
            if len(trimmed) > 255:
                raise FieldError("Summary must be less than 255 characters.")
            return trimmed
        if field == "description" or (field in self.fields and self.fields[field]["kind"] in ("string", "epic_name")):
            if value is not None and not isinstance(value, str):
                raise FieldError(f"Field '{field}' expects a string.")
            return value
        if field == "labels":
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise FieldError("Field 'labels' expects a list of strings.")
            for label in value:
                if not label or " " in label:
                    raise FieldError(f"The label '{label}' contains spaces which is invalid.")
                if len(label) > 255:
                    raise FieldError("The label must not exceed 255 characters.")
            return list(dict.fromkeys(value))
        if field == "duedate" or (field in self.fields and self.fields[field]["kind"] == "date"):
            if value is not None and (not isinstance(value, str) or not _DATE.match(value) or not _valid_date(value)):
                raise FieldError(f"Error parsing date string: {value}")
            return value
        if field == "priority":
            if value is None:
                return None
            pid = None
            if isinstance(value, Mapping):
                pid = next(
                    (p for p, n in self.priorities.items() if str(value.get("id")) == p or value.get("name") == n),
                    None,
                )
            if pid is None:
                raise FieldError("The priority selected is invalid.")
            return pid
        if field in ("assignee", "reporter"):
            if value is None or (isinstance(value, Mapping) and value.get("name") in (None, "")):
                if field == "reporter":
                    raise FieldError("Reporter is required.")
                return None
            name = value.get("name") if isinstance(value, Mapping) else None
            found = self.find_user(str(name)) if name else None
            if found is None:
                raise FieldError(f"User '{name}' does not exist.")
            return found.name
        if field == self.epic_link_field:
            if value is None:
                return None
            target = self.issues.get(str(value).upper()) if isinstance(value, str) else None
            if target is None:
                raise FieldError(f"Issue '{value}' does not exist.")
            if self.issue_types[target.issuetype_id] != self.epic_type_name():
                raise FieldError(f"Issue '{value}' is not an epic.")
            if target.key == issue.key:
                raise FieldError("An epic cannot be linked to itself.")
            return target.key
        if field == self.sprint_field:
            if value is None:
                return []
            sprint = self.sprints.get(int(value)) if isinstance(value, int | str) and str(value).isdigit() else None
            if sprint is None:
                raise FieldError(f"Sprint with id '{value}' does not exist.")
            if sprint.state == "closed":
                raise FieldError("Issues can only be moved to an active or a future sprint.")
            return sprint.id
        if field in self.fields and self.fields[field]["kind"] == "number":
            if value is not None and not isinstance(value, int | float):
                raise FieldError(f"Field '{field}' expects a number.")
            return value
        raise FieldError(NOT_SETTABLE.format(field))

    def apply_changes(self, issue: Issue, changes: Mapping[str, Any], user: str, *, record: bool) -> None:
        items: list[HistoryItem] = []
        epic_events: list[tuple[str, HistoryItem]] = []
        for field, value in changes.items():
            if field in ("summary", "description") and value != getattr(issue, field):
                items.append(
                    HistoryItem(
                        field=field,
                        fieldtype="jira",
                        from_=None,
                        from_string=getattr(issue, field),
                        to=None,
                        to_string=value,
                    )
                )
                setattr(issue, field, value)
            elif field == "labels" and value != issue.labels:
                items.append(
                    HistoryItem(
                        field="labels",
                        fieldtype="jira",
                        from_=None,
                        from_string=" ".join(issue.labels) or None,
                        to=None,
                        to_string=" ".join(value) or None,
                    )
                )
                issue.labels = list(value)
            elif field == "duedate" and value != issue.duedate:
                items.append(
                    HistoryItem(
                        field="duedate",
                        fieldtype="jira",
                        from_=issue.duedate,
                        from_string=_date_string(issue.duedate),
                        to=value,
                        to_string=_date_string(value),
                    )
                )
                issue.duedate = value
            elif field == "priority" and value != issue.priority_id:
                items.append(
                    HistoryItem(
                        field="priority",
                        fieldtype="jira",
                        from_=issue.priority_id,
                        from_string=self.priorities.get(issue.priority_id or ""),
                        to=value,
                        to_string=self.priorities.get(value or ""),
                    )
                )
                issue.priority_id = value
            elif field in ("assignee", "reporter") and value != getattr(issue, field):
                old = getattr(issue, field)
                items.append(
                    HistoryItem(
                        field=field,
                        fieldtype="jira",
                        from_=old,
                        from_string=_display(self.user(old)),
                        to=value,
                        to_string=_display(self.user(value)),
                    )
                )
                setattr(issue, field, value)
            elif field == self.epic_link_field and value != issue.epic:
                old = issue.epic
                items.append(
                    HistoryItem(
                        field="Epic Link",
                        fieldtype="custom",
                        from_=self.issues[old].id if old in self.issues else None,
                        from_string=old,
                        to=self.issues[value].id if value else None,
                        to_string=value,
                    )
                )
                if old in self.issues:
                    epic_events.append(
                        (
                            old,
                            HistoryItem(
                                field="Epic Child",
                                fieldtype="custom",
                                from_=issue.id,
                                from_string=issue.key,
                                to=None,
                                to_string=None,
                            ),
                        )
                    )
                if value:
                    epic_events.append(
                        (
                            value,
                            HistoryItem(
                                field="Epic Child",
                                fieldtype="custom",
                                from_=None,
                                from_string=None,
                                to=issue.id,
                                to_string=issue.key,
                            ),
                        )
                    )
                issue.epic = value
            elif field == self.sprint_field:
                after = self.sprints_after_move(issue, value)
                if after != issue.sprint_ids:
                    items.append(self.sprint_item(issue.sprint_ids, after))
                    issue.sprint_ids = after
            elif field in self.fields and value != issue.custom.get(field):
                old = issue.custom.get(field)
                name = self.fields[field]["name"]
                items.append(
                    HistoryItem(
                        field=name,
                        fieldtype="custom",
                        from_=_str_or_none(old),
                        from_string=_str_or_none(old),
                        to=_str_or_none(value),
                        to_string=_str_or_none(value),
                    )
                )
                issue.custom[field] = value
        if record and items:
            now = self.now()
            self.record(issue, user, items, now)
            for epic_key, item in epic_events:
                self.record(self.issues[epic_key], user, [item], now)


def _valid_date(text: str) -> bool:
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _date_string(value: str | None) -> str | None:
    return None if value is None else f"{value} 00:00:00.0"


def _display(user: User | None) -> str | None:
    return None if user is None else user.display_name


def _str_or_none(value: Any) -> str | None:
    return None if value is None else str(value)
