"""Routes of the mirror (interface role): a project's slice, one issue, its journal; notes."""

from __future__ import annotations

from typing import Any

from litestar import get, post
from litestar.params import FromPath, FromQuery, JSONBody

from hub_app.answers.mirror import IssueDetail, IssueView, NoteView
from hub_app.answers.wire import Items
from hub_app.api.routing import in_unit, route, token_name
from hub_app.bodies.mirror import NoteIn
from hub_app.operations import mirror
from hub_app.runtime.connection import HubRequest
from hub_app.runtime.roles import INTERFACE
from reconcile.vocabulary import HistoryEntry

__all__ = ["ROUTES"]


@get("/issues", **route(INTERFACE, answer=Items[IssueView], errors_=(400, 404, 422)))
async def list_issues(
    request: HubRequest,
    project: FromQuery[str | None] = None,
    limit: FromQuery[int | None] = None,
    offset: FromQuery[int | None] = None,
) -> Any:
    """The mirror: a project's slice (issues with its label, not vanished), or every issue; paged."""
    return await in_unit(request, lambda u: mirror.list_issues(u, project_name=project, limit=limit, offset=offset))


@get("/issues/{key:str}", **route(INTERFACE, answer=IssueDetail, errors_=(404,)))
async def get_issue(request: HubRequest, key: FromPath[str]) -> Any:
    """One mirror issue with its links and notes."""
    return await in_unit(request, lambda u: mirror.get_issue(u, key))


@get("/issues/{key:str}/history", **route(INTERFACE, answer=Items[HistoryEntry], errors_=(400, 422)))
async def issue_history(
    request: HubRequest,
    key: FromPath[str],
    limit: FromQuery[int | None] = None,
    offset: FromQuery[int | None] = None,
) -> Any:
    """The issue's journal of changes in Jira, oldest first."""
    return await in_unit(request, lambda u: mirror.issue_history(u, key, limit=limit, offset=offset))


@get("/notes", **route(INTERFACE, answer=Items[NoteView], errors_=(400, 422)))
async def list_notes(
    request: HubRequest,
    key: FromQuery[str | None] = None,
    limit: FromQuery[int | None] = None,
    offset: FromQuery[int | None] = None,
) -> Any:
    """Notes, of one issue key or all."""
    return await in_unit(request, lambda u: mirror.list_notes(u, key=key, limit=limit, offset=offset))


@post("/notes", **route(INTERFACE, answer=NoteView, status=201, errors_=(422,)))
async def add_note(request: HubRequest, data: JSONBody[NoteIn]) -> Any:
    """A note of the hub on a Jira issue (never written to Jira)."""
    return await in_unit(request, lambda u: mirror.add_note(u, data, author=token_name(request)))


ROUTES = [list_issues, get_issue, issue_history, list_notes, add_note]
