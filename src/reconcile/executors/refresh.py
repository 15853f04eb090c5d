"""``refresh``: read issues, their linked neighbours, unknown board types and the journal, page by page.

Neighbours are read only in the hub's Jira project and in the projects the agent may read
(``ExecContext.allowed_projects``); the links to the others are kept as they are.

Pages are numbered from 1 across the whole command (issues, then neighbours, then history), so the hub can
apply each exactly once. A journal failure leaves the refresh ``done`` with ``result.history.error``. An issue
(or its changelog) Jira answered in a shape that cannot be read is left out of its page and listed in
``result.unreadable`` as ``{key, error}``: the others are stored, its mirror row stays as it was.

The hub's change-only refresh (``changes: true`` with ``history.since``; DESIGN.md 6.2) reads ``(<jql>) AND
updated >= "<since in the Jira user's zone>"`` **once**, with ``expand=changelog``: each search page gives an
``issues`` page and, from the same answer, a ``history`` page (histories created at or after ``since``), so an
idle one costs one search call. It reads no neighbours: the links of what changed are stored from the changed
issues themselves, and an issue outside the base JQL that a new link names is read by the next full refresh
(``full_refresh_hours``); reading every unchanged end of every changed issue's links would cost a search page
per hundred of them each time. Unknown board types and a ``history.jql`` are read as by any refresh; its
``result`` carries ``"changes": true``. Without ``history.since`` (the hub sends it whenever there is a journal
mark, and it creates change-only refreshes only then) there is nothing to read changes from: the JQL is read
whole, as any refresh, and the result has no ``changes``.
"""

from __future__ import annotations

import re
from collections.abc import Generator, Mapping
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from reconcile.config.settings import Settings
from reconcile.executors._run import Body, CommandFailed, Run, next_start, search_call
from reconcile.executors.base import JiraCall, Page, Report, Step
from reconcile.executors.boards import board_problem
from reconcile.guard.paths import AGILE, PositiveId, jira_path, positive_id
from reconcile.guard.policy import key_project
from reconcile.jira.answers import answer_key
from reconcile.jira.model import histories_from_jira, issue_from_jira, mirror_fields
from reconcile.queue.history import keys_jql
from reconcile.vocabulary.errors import JiraAnswerError
from reconcile.vocabulary.records import HistoryEntry, MirrorIssue

__all__ = ["jira_since", "refresh", "with_updated_since"]

_PAGE = 100  # keys in one neighbours query: as many as one search page (search_call asks for 100) holds
_ORDER_BY = re.compile(r"\s+ORDER\s+BY\s+.*$", re.IGNORECASE | re.DOTALL)


def jira_since(since: str, time_zone: str | None) -> str:
    """``since`` (ISO-8601 UTC) in the Jira user's time zone as JQL wants it: ``yyyy/MM/dd HH:mm``.

    Minutes are truncated, so the query never starts later than ``since``.
    """
    moment = datetime.fromisoformat(since)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    zone: Any = UTC
    if time_zone:
        try:
            zone = ZoneInfo(time_zone)
        except (ZoneInfoNotFoundError, ValueError):
            zone = UTC
    return moment.astimezone(zone).strftime("%Y/%m/%d %H:%M")


def with_updated_since(jql: str, since_local: str) -> str:
    """``(<jql>) AND updated >= "<since>"``, keeping a trailing ``ORDER BY`` at the end."""
    match = _ORDER_BY.search(jql)
    order = match.group(0) if match else ""
    base = jql[: match.start()] if match else jql
    return f'({base.strip()}) AND updated >= "{since_local}"{order}'


_SEARCH = "POST /rest/api/2/search"


class _Pages:
    """Page numbers across the command, and the issues that could not be read."""

    def __init__(self) -> None:
        self.number = 0
        self.unreadable: dict[str, str] = {}

    def next(self) -> int:
        self.number += 1
        return self.number

    def issues(self, hits: list[Mapping[str, Any]], settings: Settings) -> tuple[MirrorIssue, ...]:
        """The readable issues among ``hits``; the others are noted as unreadable."""
        issues: list[MirrorIssue] = []
        for hit in hits:
            try:
                issues.append(issue_from_jira(hit, settings))
            except JiraAnswerError as error:
                self.unreadable.setdefault(error.key, error.message)
        return tuple(issues)


def _board_type(body: Any) -> str | None:
    value = body.get("type") if isinstance(body, Mapping) else None
    return value if value in ("scrum", "kanban") else None


def _histories(
    hits: list[Mapping[str, Any]], since: str | None, pages: _Pages, seen: set[tuple[str, str]]
) -> tuple[HistoryEntry, ...]:
    """The journal entries of one search page's changelogs not handed over yet (from ``since`` when given)."""
    page: list[HistoryEntry] = []
    for hit in hits:
        key = answer_key(hit)
        try:
            histories = histories_from_jira(key, hit.get("changelog"), since=since)
        except JiraAnswerError as error:
            pages.unreadable.setdefault(error.key, error.message)
            continue
        for entry in histories:
            if (entry.key, entry.id) not in seen:
                seen.add((entry.key, entry.id))
                page.append(entry)
    return tuple(page)


def _journal(
    run: Run, jql: str, since: str | None, pages: _Pages, seen: set[tuple[str, str]], *, validate: bool = True
) -> Generator[Step, Any, int]:
    """One journal query: histories of its issues (from ``since`` when given), as ``history`` pages."""
    entries = 0
    start: int | None = 0
    while start is not None:
        call = search_call(jql, ["updated"], start, expand=["changelog"], validate=validate)
        response = yield from run.call(call)
        hits, start = next_start(response.json, start, "issues", key=_SEARCH)
        page = _histories(hits, since, pages, seen)
        if page:
            yield Page(page=pages.next(), kind="history", history=page)
            entries += len(page)
    return entries


def _boards(run: Run, unknown: list[PositiveId]) -> Generator[Step, Any, None]:
    """The types of the delivered boards whose type is not known yet (``result.boards``).

    Each board's read is also its check (:mod:`reconcile.executors.boards`): a board outside the allowed
    projects gets no type (``null`` changes nothing at the hub) and is listed in ``result.refused_boards``
    with the reason, nothing else read from it reported.
    """
    boards: dict[str, str | None] = {}
    refused: list[dict[str, str]] = []
    for board in unknown:
        response = yield from run.call(JiraCall(method="GET", path=jira_path(AGILE, "board", board)), allow=(404,))
        problem = board_problem(response.json, board, run.ctx.allowed_projects) if response.ok else None
        if problem is not None:
            refused.append({"id": str(board.number), "error": problem})
            boards[str(board.number)] = None
            continue
        boards[str(board.number)] = _board_type(response.json)  # a 404's error object has no board type
    run.result["boards"] = boards
    if refused:
        run.result["refused_boards"] = refused


def _unknown_boards(delivered: Any) -> list[PositiveId]:
    """The delivered boards of unknown type; every delivered board's id is checked before any call (one that is
    no positive integer fails the command)."""
    unknown: list[PositiveId] = []
    for board in delivered or ():
        if not isinstance(board, Mapping) or board.get("id") is None:
            continue
        board_id = positive_id(board["id"], "доски")
        if board.get("type") is None:
            unknown.append(board_id)
    return unknown


def _since(params: Mapping[str, Any]) -> str | None:
    history = params.get("history")
    since = history.get("since") if isinstance(history, Mapping) else None
    return since if isinstance(since, str) and since else None


def _changes(run: Run, jql: str, since: str, pages: _Pages, unknown: list[PositiveId]) -> Generator[Step, Any, Report]:
    """The change-only refresh (see the module docstring): issues and their journal from one read."""
    try:
        query = with_updated_since(jql, jira_since(since, run.ctx.jira_time_zone))
    except ValueError as error:
        raise CommandFailed(f"history.since: {error}") from error
    fields = mirror_fields(run.settings)
    read: set[str] = set()
    seen: set[tuple[str, str]] = set()
    entries = 0
    start: int | None = 0
    while start is not None:
        response = yield from run.call(search_call(query, fields, start, expand=["changelog"]))
        hits, start = next_start(response.json, start, "issues", key=_SEARCH)
        issues = pages.issues(hits, run.settings)
        read.update(issue.key for issue in issues)
        yield Page(page=pages.next(), kind="issues", issues=issues)
        journal = _histories(hits, since, pages, seen)
        if journal:
            yield Page(page=pages.next(), kind="history", history=journal)
            entries += len(journal)
    run.result.update(issues=len(read), neighbours=0, changes=True)
    yield from _boards(run, unknown)
    history = run.params["history"]
    history_jql = history.get("jql")
    if isinstance(history_jql, str) and history_jql.strip():
        try:
            entries += yield from _journal(run, history_jql, None, pages, seen)
        except (CommandFailed, JiraAnswerError) as error:
            run.result["history"] = {"error": error.message}
            return _done(run, pages)
    run.result["history"] = {"entries": entries}
    return _done(run, pages)


def _done(run: Run, pages: _Pages) -> Report:
    if pages.unreadable:
        run.result["unreadable"] = [{"key": key, "error": error} for key, error in pages.unreadable.items()]
    return run.done()


class _Search:
    """One query read page by page; a ``key in (…)`` query naming a deleted issue is repeated leniently.

    Jira rejects such a query with 400 («An issue with key … does not exist»); with ``validateQuery: false``
    it answers for the keys that exist, which is what a refresh of a batch's keys needs.
    """

    def __init__(self, jql: str, fields: list[str], *, by_keys: bool) -> None:
        self.jql = jql
        self.fields = fields
        self.by_keys = by_keys
        self.lenient = False

    def page(self, run: Run, start: int) -> Generator[Step, Any, tuple[list[Any], int | None]]:
        while True:
            strict = not self.lenient
            call = search_call(self.jql, self.fields, start, validate=strict)
            response = yield from run.call(call, allow=(400,) if self.by_keys and strict else ())
            if response.status != 400:
                return next_start(response.json, start, "issues", key=_SEARCH)
            self.lenient = True  # the 400 allowed once: asked again leniently, a second 400 fails the command


def refresh(run: Run) -> Body:
    params = run.params
    settings = run.settings
    jql = params.get("jql")
    keys = [str(k) for k in params.get("keys") or () if isinstance(k, str)]
    if not isinstance(jql, str) or not jql.strip():
        if not keys:
            raise CommandFailed("нет параметра keys или jql")
        jql = keys_jql(keys)
    unknown = _unknown_boards(params.get("boards"))
    pages = _Pages()
    since = _since(params)
    if params.get("changes") is True and since is not None and isinstance(params.get("jql"), str):
        return (yield from _changes(run, jql, since, pages, unknown))
    fields = mirror_fields(settings)

    # Only what finding the neighbours needs is kept, not the issues handed over (flat memory at any size):
    # the keys read and the ends of their links, in the order first seen.
    read: set[str] = set()
    linked: dict[str, None] = {}
    main = _Search(jql, fields, by_keys=not isinstance(params.get("jql"), str) or not params["jql"].strip())
    start: int | None = 0
    while start is not None:
        hits, start = yield from main.page(run, start)
        issues = pages.issues(hits, settings)
        for issue in issues:
            read.add(issue.key)
            linked.update((end, None) for link in issue.links for end in (link.source, link.target))
        yield Page(page=pages.next(), kind="issues", issues=issues)
    run.result.update(issues=len(read), neighbours=0, boards={})

    # A neighbour in a project the agent may not read, or outside the hub's Jira project (whose mirror holds no
    # other: DESIGN.md 5.7), stays a link end only (DESIGN.md 5.5).
    allowed = run.ctx.allowed_projects
    wanted = [
        key
        for key in linked
        if key not in read
        and key not in pages.unreadable
        and key_project(key) == settings.jira_project
        and (allowed is None or key_project(key) in allowed)
    ]
    del linked
    neighbours: set[str] = set()
    for offset in range(0, len(wanted), _PAGE):
        query = _Search(keys_jql(wanted[offset : offset + _PAGE]), fields, by_keys=True)
        start = 0
        while start is not None:
            hits, start = yield from query.page(run, start)
            issues = pages.issues(hits, settings)
            neighbours.update(issue.key for issue in issues)
            yield Page(page=pages.next(), kind="neighbours", issues=issues)
    run.result["neighbours"] = len(neighbours)

    yield from _boards(run, unknown)

    history = params.get("history")
    if isinstance(history, Mapping):
        seen: set[tuple[str, str]] = set()
        entries = 0
        try:
            if since is not None:
                since_jql = with_updated_since(jql, jira_since(since, run.ctx.jira_time_zone))
                entries += yield from _journal(run, since_jql, since, pages, seen, validate=not main.lenient)
            history_jql = history.get("jql")
            if isinstance(history_jql, str) and history_jql.strip():
                entries += yield from _journal(run, history_jql, None, pages, seen)
        except (CommandFailed, JiraAnswerError) as error:
            run.result["history"] = {"error": error.message}
        except ValueError as error:
            run.result["history"] = {"error": f"history.since: {error}"}
        else:
            run.result["history"] = {"entries": entries}
    return _done(run, pages)
