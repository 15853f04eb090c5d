"""``ensure_issue``: find our own issue with the same summary (last 7 days), else create it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from reconcile.executors._run import Body, CommandFailed, Run, next_start, search_call
from reconcile.executors.base import JiraCall
from reconcile.guard.paths import API, jira_path, shown_value
from reconcile.jira.answers import answer_key, jira_object, jira_text, opt_text
from reconcile.jira.model import issue_fields
from reconcile.jira.replaced import IssueUndo
from reconcile.vocabulary.commands import is_project_key

__all__ = ["ensure_issue", "new_issue_fields"]


_NUMBER = re.compile(r"[0-9]{1,18}")


def _created_order(hit: Mapping[str, Any]) -> tuple[str, int]:
    """Oldest first, then the lowest key number; a hit whose key has no number orders as 0."""
    # Only hits that matched by summary get here: `_summary` has read their fields as an object or null.
    fields = hit.get("fields") or {}
    number = answer_key(hit).rpartition("-")[2]
    return (str(fields.get("created") or ""), int(number) if _NUMBER.fullmatch(number) else 0)


def _summary(hit: Mapping[str, Any]) -> str:
    key = answer_key(hit)
    return opt_text(issue_fields(hit, key).get("summary"), key, "summary") or ""


def new_issue_fields(run: Run) -> dict[str, Any]:
    """The ``fields`` of ``POST /rest/api/2/issue`` for the command's parameters."""
    settings = run.settings
    issue_type = run.opt_str("issue_type") or "task"
    type_ref = settings.issue_types.get(issue_type)
    if type_ref is None or not type_ref.is_set():
        raise CommandFailed(f"нет настройки issue_types.{issue_type}")
    summary = run.str_param("summary")
    fields: dict[str, Any] = {
        "project": {"key": settings.jira_project},
        "summary": summary,
        "issuetype": type_ref.to_jira(),
    }
    for name in ("description", "duedate"):
        value = run.opt_str(name)
        if value is not None:
            fields[name] = value
    priority = run.opt_str("priority")
    if priority is not None:
        fields["priority"] = {"name": priority}
    for name in ("planned_start", "planned_end"):
        value = run.opt_str(name)
        if value is not None:
            field_id = settings.fields.get(name)
            if not field_id:
                raise CommandFailed(f"нет настройки fields.{name}")
            fields[field_id] = value
    labels = run.params.get("labels")
    if isinstance(labels, list) and labels:
        fields["labels"] = [str(label) for label in labels]
    assignee = run.opt_str("assignee")
    if assignee is not None:
        fields["assignee"] = {"name": assignee}
    epic_key = run.opt_str("epic_key")
    if epic_key is not None:
        if settings.epic_link.mode == "parent":
            fields["parent"] = {"key": epic_key}
        else:
            fields[settings.epic_link.field_id or ""] = epic_key
    if issue_type == "epic" and settings.epic_name_field_id:
        fields[settings.epic_name_field_id] = summary
    return fields


def ensure_issue(run: Run) -> Body:
    summary = run.str_param("summary")
    project = run.settings.jira_project
    allowed = run.ctx.allowed_projects
    if not is_project_key(project) or (allowed is not None and project not in allowed):
        raise CommandFailed(f"проект {shown_value(project)} не в разрешённых проектах")
    fields = new_issue_fields(run)
    jql = f"project = {run.settings.jira_project} AND reporter = currentUser() AND created >= -7d"
    found: list[Mapping[str, Any]] = []
    start: int | None = 0
    while start is not None:
        response = yield from run.call(search_call(jql, ["summary", "created"], start))
        hits, start = next_start(response.json, start, "issues", key="POST /rest/api/2/search")
        # Jira trims the summary it stores, so a command's surrounding spaces must not hide our issue.
        found.extend(hit for hit in hits if _summary(hit).strip() == summary.strip())
    if found:
        oldest = min(found, key=_created_order)
        return run.done(key=jira_text(oldest.get("key"), answer_key(oldest), "key"), created=False)
    path = jira_path(API, "issue")
    response = yield from run.call(JiraCall(method="POST", path=path, json={"fields": fields}))
    created = jira_object(response.json, f"POST {path}", "ответ")
    key = jira_text(created.get("key"), f"POST {path}", "key")
    return run.done(key=key, created=True, undo=IssueUndo(key=key, created=True).to_json())
