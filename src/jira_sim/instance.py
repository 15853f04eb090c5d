"""What third-party clients read about the instance before anything else: ``serverInfo``, the field list,
projects and issue types, in Jira Data Center 10.3's shapes (``deploymentType`` is ``Server`` on DC too)."""

from __future__ import annotations

from typing import Any

from jira_sim.model import Project
from jira_sim.render import Renderer

__all__ = ["BUILD_NUMBER", "VERSION", "fields", "project", "project_list", "server_info"]

VERSION = (10, 3, 19)
#: Jira numbers builds major·10⁶ + minor·10⁴ + patch (10.3.19 → 10030019).
BUILD_NUMBER = VERSION[0] * 1_000_000 + VERSION[1] * 10_000 + VERSION[2]
_BUILD_DATE = "2026-04-03T00:00:00.000+0300"
_SCM_INFO = "3c6f9a2e5b1d4f8a7e0c2b9d6a1f5e3c8b7d4a20"

# (id, name, JQL clause names, schema or None, orderable, navigable, searchable) of the system fields
_SYSTEM: tuple[tuple[str, str, tuple[str, ...], dict[str, str] | None, bool, bool, bool], ...] = (
    ("issuekey", "Key", ("id", "issue", "issuekey", "key"), None, False, True, False),
    ("project", "Project", ("project",), {"type": "project"}, False, True, True),
    ("issuetype", "Issue Type", ("issuetype", "type"), {"type": "issuetype"}, True, True, True),
    ("summary", "Summary", ("summary",), {"type": "string"}, True, True, True),
    ("description", "Description", ("description",), {"type": "string"}, True, True, True),
    ("status", "Status", ("status",), {"type": "status"}, False, True, True),
    ("priority", "Priority", ("priority",), {"type": "priority"}, True, True, True),
    ("labels", "Labels", ("labels",), {"type": "array", "items": "string"}, True, True, True),
    ("duedate", "Due Date", ("due", "duedate"), {"type": "date"}, True, True, True),
    ("assignee", "Assignee", ("assignee",), {"type": "user"}, True, True, True),
    ("reporter", "Reporter", ("reporter",), {"type": "user"}, True, True, True),
    ("creator", "Creator", ("creator",), {"type": "user"}, False, True, True),
    ("created", "Created", ("created", "createdDate"), {"type": "datetime"}, False, True, True),
    ("updated", "Updated", ("updated", "updatedDate"), {"type": "datetime"}, False, True, True),
    ("resolution", "Resolution", ("resolution",), {"type": "resolution"}, True, True, True),
    ("resolutiondate", "Resolved", ("resolutiondate", "resolved"), {"type": "datetime"}, False, True, True),
    ("issuelinks", "Linked Issues", (), {"type": "array", "items": "issuelinks"}, True, True, False),
    ("attachment", "Attachment", ("attachments",), {"type": "array", "items": "attachment"}, True, True, True),
    ("subtasks", "Sub-Tasks", ("subtasks",), {"type": "array", "items": "issuelinks"}, False, True, True),
    ("comment", "Comment", ("comment",), {"type": "comments-page"}, True, False, True),
)

# custom field kind of the seed → its schema (the plugin type a real instance reports)
_CUSTOM_SCHEMA: dict[str, dict[str, str]] = {
    "sprint": {"type": "array", "items": "string", "custom": "com.pyxis.greenhopper.jira:gh-sprint"},
    "epic_link": {"type": "any", "custom": "com.pyxis.greenhopper.jira:gh-epic-link"},
    "epic_name": {"type": "string", "custom": "com.pyxis.greenhopper.jira:gh-epic-label"},
    "date": {"type": "date", "custom": "com.atlassian.jira.plugin.system.customfieldtypes:datepicker"},
    "string": {"type": "string", "custom": "com.atlassian.jira.plugin.system.customfieldtypes:textfield"},
    "number": {"type": "number", "custom": "com.atlassian.jira.plugin.system.customfieldtypes:float"},
}


def server_info(r: Renderer) -> dict[str, Any]:
    """``GET /rest/api/2/serverInfo``."""
    return {
        "baseUrl": r.base,
        "version": ".".join(str(n) for n in VERSION),
        "versionNumbers": list(VERSION),
        "deploymentType": "Server",
        "buildNumber": BUILD_NUMBER,
        "buildDate": _BUILD_DATE,
        "databaseBuildNumber": BUILD_NUMBER,
        "serverTime": r.time(r.store.now()),
        "scmInfo": _SCM_INFO,
        "serverTitle": "Jira",
    }


def fields(r: Renderer) -> list[dict[str, Any]]:
    """``GET /rest/api/2/field``: the system fields, then the seed's custom fields."""
    out: list[dict[str, Any]] = []
    for fid, name, clauses, schema, orderable, navigable, searchable in _SYSTEM:
        entry: dict[str, Any] = {
            "id": fid,
            "name": name,
            "custom": False,
            "orderable": orderable,
            "navigable": navigable,
            "searchable": searchable,
            "clauseNames": list(clauses),
        }
        if schema is not None:
            entry["schema"] = {**schema, "system": fid}
        out.append(entry)
    for fid, spec in r.store.fields.items():
        number = int(fid.rsplit("_", 1)[-1])
        out.append(
            {
                "id": fid,
                "name": spec["name"],
                "custom": True,
                "orderable": True,
                "navigable": True,
                "searchable": True,
                "clauseNames": [f"cf[{number}]", spec["name"]],
                "schema": {**_CUSTOM_SCHEMA[spec["kind"]], "customId": number},
            }
        )
    return out


def project_list(r: Renderer) -> list[dict[str, Any]]:
    """``GET /rest/api/2/project``."""
    listed = r.store.projects.values()
    return [{"expand": "description,lead,url,projectKeys", **r.project(p.key), "archived": False} for p in listed]


def project(r: Renderer, p: Project) -> dict[str, Any]:
    """``GET /rest/api/2/project/{idOrKey}``: with its lead and issue types, as Jira DC answers by default."""
    return {
        "expand": "description,lead,url,projectKeys",
        **r.project(p.key),
        "description": "",
        "lead": r.user(p.lead),
        "components": [],
        "issueTypes": [r.issuetype(tid) for tid in r.store.issue_types],
        "assigneeType": "UNASSIGNED",
        "versions": [],
        "roles": {},
        "projectKeys": [p.key],
        "archived": False,
    }
