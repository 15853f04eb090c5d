"""The control API (``/_sim/*``, no auth): reset, the call log, faults, and an issue's stored state."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote

from jira_sim.faults import FaultBook
from jira_sim.model import JiraError
from jira_sim.render import Renderer
from jira_sim.store import Store
from jira_sim.wire import Request, Response, json_response

__all__ = ["control", "raw_issue", "reset"]

_FAULT_KEYS = frozenset({"method", "path_regex", "status", "retry_after", "times", "latency"})


def reset(store: Store, book: FaultBook) -> None:
    """Back to the seed: issues, counters, calls and faults."""
    store.reset()
    book.clear_calls()
    book.clear_faults()


def control(store: Store, book: FaultBook, req: Request) -> Response:
    path, method = req.path, req.method
    try:
        if path == "/_sim/reset" and method == "POST":
            reset(store, book)
            return Response(status=204)
        if path == "/_sim/calls" and method == "GET":
            return json_response(200, book.calls)
        if path == "/_sim/calls" and method == "DELETE":
            book.clear_calls()
            return Response(status=204)
        if path == "/_sim/faults" and method == "POST":
            body = req.json_object()
            unknown = set(body) - _FAULT_KEYS
            if unknown:
                raise JiraError(400, [f"unknown fault keys: {', '.join(sorted(unknown))}"])
            book.add(**body)
            return json_response(201, {"faults": len(book.faults)})
        if path == "/_sim/faults" and method == "DELETE":
            book.clear_faults()
            return Response(status=204)
        match = re.fullmatch(r"/_sim/state/issues/([^/]+)", path)
        if match and method == "GET":
            return json_response(200, raw_issue(store, unquote(match[1])))
    except JiraError as exc:
        return json_response(exc.status, exc.body())
    except (TypeError, ValueError) as exc:
        return json_response(400, {"errorMessages": [str(exc)], "errors": {}})
    return json_response(404, {"errorMessages": [f"no control endpoint {method} {path}"], "errors": {}})


def raw_issue(store: Store, key: str) -> dict[str, Any]:
    """The stored issue with its changelog, as plain JSON values."""
    try:
        issue = store.issue(key)
    except JiraError:
        raise JiraError(404, [f"Issue Does Not Exist: {key}"]) from None
    r = Renderer(store, "http://jira-sim")
    return {
        "id": issue.id,
        "key": issue.key,
        "project": issue.project,
        "issuetype": store.issue_types[issue.issuetype_id],
        "summary": issue.summary,
        "description": issue.description,
        "status": store.statuses[issue.status_id].name,
        "status_category": store.statuses[issue.status_id].category,
        "priority": store.priorities.get(issue.priority_id or ""),
        "labels": list(issue.labels),
        "duedate": issue.duedate,
        "assignee": issue.assignee,
        "reporter": issue.reporter,
        "creator": issue.creator,
        "created": r.time(issue.created),
        "updated": r.time(issue.updated),
        "epic": issue.epic,
        "sprints": [
            {"id": s, "name": store.sprints[s].name, "state": store.sprints[s].state} for s in issue.sprint_ids
        ],
        "custom": dict(issue.custom),
        "links": [
            {"id": link.id, "type": store.link_types[link.type_id].name, "inward": link.inward, "outward": link.outward}
            for link in store.links_of(issue.key)
        ],
        "comments": [
            {"id": c.id, "author": c.author, "body": c.body, "created": r.time(c.created), "updated": r.time(c.updated)}
            for c in issue.comments
        ],
        "attachments": [
            {
                "id": a.id,
                "filename": a.filename,
                "size": a.size,
                "mimeType": a.mime_type,
                "author": a.author,
                "created": r.time(a.created),
            }
            for a in issue.attachments
        ],
        "changelog": [r.history(h) for h in issue.histories],
    }
