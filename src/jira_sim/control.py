"""The control API (``/_sim/*``, no auth, never rate limited): reset, the call log, faults, the rate limit,
webhook faults and deliveries, and an issue's stored state."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote

import attrs

from jira_sim.faults import FaultBook
from jira_sim.model import JiraError
from jira_sim.rate_limit import RateLimiter
from jira_sim.render import Renderer
from jira_sim.store import Store
from jira_sim.webhook_delivery import WebhookDispatcher
from jira_sim.wire import Request, Response, json_response

__all__ = ["Controls", "control", "raw_issue", "reset"]

_FAULT_KEYS = frozenset({"method", "path_regex", "status", "retry_after", "times", "latency"})
_RATE_LIMIT_KEYS = frozenset({"fill_per_second", "max"})
_WEBHOOK_FAULT_KEYS = frozenset({"drop", "duplicate", "delay_ms"})


@attrs.frozen(kw_only=True)
class Controls:
    """What the simulator does besides being Jira: injected faults and the call log, the rate limit, webhooks."""

    faults: FaultBook
    rate_limit: RateLimiter
    webhooks: WebhookDispatcher


def reset(store: Store, controls: Controls) -> None:
    """Back to the seed: issues, counters, calls, faults, no rate limit, no webhooks or deliveries."""
    store.reset()
    controls.faults.clear_calls()
    controls.faults.clear_faults()
    controls.rate_limit.off()
    controls.webhooks.faults.set(drop=0, duplicate=0, delay_ms=0)
    controls.webhooks.clear_deliveries()


def _keys_of(body: dict[str, Any], known: frozenset[str], what: str) -> dict[str, Any]:
    unknown = set(body) - known
    if unknown:
        raise JiraError(400, [f"unknown {what} keys: {', '.join(sorted(unknown))}"])
    return body


def _rate_limit(controls: Controls, body: dict[str, Any]) -> Response:
    _keys_of(body, _RATE_LIMIT_KEYS, "rate limit")
    if set(body) != _RATE_LIMIT_KEYS:
        raise JiraError(400, ["rate limit needs fill_per_second and max"])
    policy = controls.rate_limit.configure(body["fill_per_second"], body["max"])
    return json_response(201, {"fill_rate": policy.fill_rate, "interval_seconds": policy.interval, "max": policy.max})


def control(store: Store, controls: Controls, req: Request) -> Response:
    path, method = req.path, req.method
    book = controls.faults
    try:
        if path == "/_sim/reset" and method == "POST":
            reset(store, controls)
            return Response(status=204)
        if path == "/_sim/calls" and method == "GET":
            return json_response(200, book.calls)
        if path == "/_sim/calls" and method == "DELETE":
            book.clear_calls()
            return Response(status=204)
        if path == "/_sim/faults" and method == "POST":
            book.add(**_keys_of(req.json_object(), _FAULT_KEYS, "fault"))
            return json_response(201, {"faults": len(book.faults)})
        if path == "/_sim/faults" and method == "DELETE":
            book.clear_faults()
            return Response(status=204)
        if path == "/_sim/rate_limit" and method == "POST":
            return _rate_limit(controls, req.json_object())
        if path == "/_sim/rate_limit" and method == "DELETE":
            controls.rate_limit.off()
            return Response(status=204)
        if path == "/_sim/webhook_faults" and method == "POST":
            controls.webhooks.faults.set(**_keys_of(req.json_object(), _WEBHOOK_FAULT_KEYS, "webhook fault"))
            return json_response(201, controls.webhooks.faults.as_json())
        if path == "/_sim/webhook_faults" and method == "DELETE":
            controls.webhooks.faults.set(drop=0, duplicate=0, delay_ms=0)
            return Response(status=204)
        if path == "/_sim/webhook_deliveries" and method == "GET":
            return json_response(200, controls.webhooks.deliveries)
        if path == "/_sim/webhook_deliveries" and method == "DELETE":
            controls.webhooks.clear_deliveries()
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
