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
            if field == self.epic_link_field and value != issue.epic:
                link, told = self._epic_change(issue, value)
                items.append(link)
                epic_events += told
            elif (item := self._change(issue, field, value)) is not None:
                items.append(item)
        if record and items:
            now = self.now()
            self.record(issue, user, items, now)
            for epic_key, item in epic_events:
                self.record(self.issues[epic_key], user, [item], now)

    def _change(self, issue: Issue, field: str, value: Any) -> HistoryItem | None:
        """Write one checked value other than the epic link; its changelog item, ``None`` if nothing changed."""
        if field in ("summary", "description", "assignee", "reporter"):
            old = getattr(issue, field)
            if value == old:
                return None
            setattr(issue, field, value)
            if field in ("summary", "description"):
                return _item(field, old, value)
            return _item(field, _display(self.user(old)), _display(self.user(value)), old=old, new=value)
        if field == "labels" and value != issue.labels:
            old_labels, issue.labels = issue.labels, list(value)
            return _item(field, " ".join(old_labels) or None, " ".join(value) or None)
        if field == "duedate" and value != issue.duedate:
            old, issue.duedate = issue.duedate, value
            return _item(field, _date_string(old), _date_string(value), old=old, new=value)
        if field == "priority" and value != issue.priority_id:
            old, issue.priority_id = issue.priority_id, value
            shown = self.priorities.get
            return _item(field, shown(old or ""), shown(value or ""), old=old, new=value)
        if field == self.sprint_field:
            after = self.sprints_after_move(issue, value)
            if after == issue.sprint_ids:
                return None
            item = self.sprint_item(issue.sprint_ids, after)
            issue.sprint_ids = after
            return item
        if field in self.fields and value != issue.custom.get(field):
            old, issue.custom[field] = issue.custom.get(field), value
            before, after_text = _str_or_none(old), _str_or_none(value)
            return _item(self.fields[field]["name"], before, after_text, old=before, new=after_text, kind="custom")
        return None

    def _epic_change(self, issue: Issue, value: str | None) -> tuple[HistoryItem, list[tuple[str, HistoryItem]]]:
        """Link ``issue`` to the epic ``value`` (or unlink it): its own item, and the «Epic Child» item of each epic
        it leaves or joins, by the epic's key."""
        old = issue.epic
        told = []
        if old in self.issues:
            told.append((old, _item("Epic Child", issue.key, None, old=issue.id, kind="custom")))
        if value:
            told.append((value, _item("Epic Child", None, issue.key, new=issue.id, kind="custom")))
        issue.epic = value
        old_id = self.issues[old].id if old in self.issues else None
        new_id = self.issues[value].id if value else None
        return _item("Epic Link", old, value, old=old_id, new=new_id, kind="custom"), told


def _item(
    field: str, old_text: str | None, new_text: str | None, *, old: Any = None, new: Any = None, kind: str = "jira"
) -> HistoryItem:
    """A changelog item: the field's name, its kind, the values before and after (``from``, ``to``: ids where the
    field has them) and their texts."""
    return HistoryItem(field=field, fieldtype=kind, from_=old, from_string=old_text, to=new, to_string=new_text)


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
