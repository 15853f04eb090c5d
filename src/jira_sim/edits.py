"""Creating and editing issues, and moving them through the workflow, with Jira's validation and changelog."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jira_sim.comments import Comments
from jira_sim.field_values import FieldError, FieldValues
from jira_sim.model import Change, Comment, HistoryItem, Issue, JiraError, Project, Transition

__all__ = ["IssueEdits"]


class IssueEdits(FieldValues, Comments):
    """``POST``/``PUT /issue`` and ``…/transitions``: every change is checked first, then applied as a whole."""

    def create_issue(self, body: Mapping[str, Any], user: str) -> Issue:
        fields = body.get("fields")
        if not isinstance(fields, Mapping):
            raise JiraError(400, ["Issue must contain fields"] if "fields" not in body else [], {})
        errors: dict[str, str] = {}
        project = self._project_ref(fields.get("project"), errors)
        issuetype_id = self._issuetype_ref(fields.get("issuetype"), errors)
        summary = fields.get("summary")
        if not isinstance(summary, str) or not summary.strip():
            errors["summary"] = "You must specify a summary of the issue."
        if (
            issuetype_id is not None
            and self.issue_types[issuetype_id] == self.epic_type_name()
            and self.epic_name_field
            and not fields.get(self.epic_name_field)
        ):
            errors[self.epic_name_field] = f"{self.fields[self.epic_name_field]['name']} is required."
        if errors:
            raise JiraError(400, [], errors)
        assert project is not None and issuetype_id is not None
        now = self.now()
        number = project.next_number
        issue = Issue(
            id=self.new_id("issue"),
            key=f"{project.key}-{number}",
            project=project.key,
            issuetype_id=issuetype_id,
            summary="",
            description=None,
            status_id=self.initial_status(),
            priority_id=self.default_priority,
            labels=[],
            duedate=None,
            assignee=None,
            reporter=user,
            creator=user,
            created=now,
            updated=now,
            custom={},
            epic=None,
            sprint_ids=[],
        )
        rest = {k: v for k, v in fields.items() if k not in ("project", "issuetype")}
        changes, comments = self._plan_edit(issue, rest, body.get("update") or {}, creating=True)
        project.next_number = number + 1
        self.add_issue_record(issue)
        self.apply_changes(issue, changes, user, record=False)
        self.touch(issue, now)
        self.emit(Change(event="jira:issue_created", issue=issue, user=user, at=now, type_name="issue_created"))
        for comment in self._add_comments(issue, comments, user):
            self.emit(Change(event="comment_created", issue=issue, user=user, at=now, comment=comment))
        return issue

    def _project_ref(self, ref: Any, errors: dict[str, str]) -> Project | None:
        if not isinstance(ref, Mapping) or not (ref.get("key") or ref.get("id")):
            errors["project"] = "project is required"
            return None
        for p in self.projects.values():
            if ref.get("key") == p.key or str(ref.get("id")) == p.id:
                return p
        errors["project"] = "valid project is required"
        return None

    def _issuetype_ref(self, ref: Any, errors: dict[str, str]) -> str | None:
        if not isinstance(ref, Mapping) or not (ref.get("id") or ref.get("name")):
            errors["issuetype"] = "issue type is required"
            return None
        if "id" in ref and str(ref["id"]) in self.issue_types:
            return str(ref["id"])
        if "id" not in ref:
            for tid, name in self.issue_types.items():
                if ref.get("name") == name:
                    return tid
        errors["issuetype"] = "The issue type selected is invalid."
        return None

    def edit_issue(self, key: str, body: Mapping[str, Any], user: str) -> None:
        issue = self.issue(key)
        fields = body.get("fields") or {}
        update = body.get("update") or {}
        if not isinstance(fields, Mapping) or not isinstance(update, Mapping):
            raise JiraError(400, ["Can not deserialize the request: fields and update must be objects"])
        both = sorted(set(fields) & set(update))
        if both:
            raise JiraError(400, [], {f: f"Field '{f}' cannot be set in both fields and update." for f in both})
        changes, comments = self._plan_edit(issue, fields, update, creating=False)
        since = len(issue.histories)
        self.apply_changes(issue, changes, user, record=True)
        added = self._add_comments(issue, comments, user)
        self.emit_update(issue, user, "issue_updated", since, added)

    def delete_issue(self, key: str, user: str) -> None:
        """``DELETE /issue/{key}``: the issue goes with its links and attachments (``jira:issue_deleted``)."""
        issue = self.issue(key)
        self.remove_issue_record(issue)
        self.emit(Change(event="jira:issue_deleted", issue=issue, user=user, at=self.now(), type_name="issue_deleted"))

    def _plan_edit(
        self, issue: Issue, fields: Mapping[str, Any], update: Mapping[str, Any], *, creating: bool
    ) -> tuple[dict[str, Any], list[Mapping[str, Any]]]:
        """Validate the request: ``{field id: new value}`` and the comments to add; nothing changes on error."""
        errors: dict[str, str] = {}
        wanted: dict[str, Any] = dict(fields)
        comments: list[Mapping[str, Any]] = []
        for field, ops in update.items():
            if not isinstance(ops, list) or not all(isinstance(op, Mapping) for op in ops):
                errors[field] = f"Field '{field}': update operations must be a list."
                continue
            if field == "comment":  # a comment added with the edit or the transition
                for op in ops:
                    for verb, value in op.items():
                        if verb != "add":
                            errors[field] = f"Operation '{verb}' is not supported for field '{field}'."
                        elif isinstance(value, Mapping) and self.comment_text(value) is not None:
                            comments.append(value)
                        else:
                            errors[field] = "Comment body can not be empty!"
                continue
            if field == "labels":
                labels = list(wanted.get("labels", issue.labels))
                for op in ops:
                    for verb, value in op.items():
                        if verb == "add" and value not in labels:
                            labels.append(value)
                        elif verb == "remove" and value in labels:
                            labels.remove(value)
                        elif verb == "set":
                            labels = list(value or [])
                        elif verb not in ("add", "remove", "set"):
                            errors[field] = f"Operation '{verb}' is not supported for field '{field}'."
                wanted["labels"] = labels
                continue
            for op in ops:
                for verb, value in op.items():
                    if verb == "set":
                        wanted[field] = value
                    else:
                        errors[field] = f"Operation '{verb}' is not supported for field '{field}'."
        changes: dict[str, Any] = {}
        for field, value in wanted.items():
            try:
                changes[field] = self.check_field(issue, field, value, creating=creating)
            except FieldError as exc:
                errors[field] = str(exc)
        if errors:
            raise JiraError(400, [], errors)
        return changes, comments

    def _add_comments(self, issue: Issue, comments: list[Mapping[str, Any]], user: str) -> list[Comment]:
        return [self.new_comment(issue, comment, user) for comment in comments]

    def available_transitions(self, key: str) -> list[Transition]:
        issue = self.issue(key)
        return [t for t in self.transitions if not t.sources or issue.status_id in t.sources]

    def transition(self, key: str, body: Mapping[str, Any], user: str) -> None:
        issue = self.issue(key)
        ref = body.get("transition")
        tid = str(ref.get("id")) if isinstance(ref, Mapping) and ref.get("id") is not None else None
        if tid is None:
            raise JiraError(400, ["Missing 'transition' identifier"])
        chosen = next((t for t in self.available_transitions(key) if t.id == tid), None)
        if chosen is None:
            raise JiraError(400, [f"Transition id '{tid}' is not valid for this issue."])
        changes, comments = self._plan_edit(issue, body.get("fields") or {}, body.get("update") or {}, creating=False)
        now = self.now()
        old = self.statuses[issue.status_id]
        new = self.statuses[chosen.to]
        items = [
            HistoryItem(
                field="status", fieldtype="jira", from_=old.id, from_string=old.name, to=new.id, to_string=new.name
            )
        ]
        if (old.category == "done") != (new.category == "done"):
            done = new.category == "done"
            items.append(
                HistoryItem(
                    field="resolution",
                    fieldtype="jira",
                    from_=None if done else "10000",
                    from_string=None if done else "Готово",
                    to="10000" if done else None,
                    to_string="Готово" if done else None,
                )
            )
            issue.resolution_date = now if done else None
        issue.status_id = new.id
        since = len(issue.histories)
        self.record(issue, user, items, now)
        self.apply_changes(issue, changes, user, record=True)
        added = self._add_comments(issue, comments, user)
        self.emit_update(issue, user, "issue_generic", since, added)
