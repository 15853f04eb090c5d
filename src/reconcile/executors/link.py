"""``ensure_link``: the wanted ``source → target`` link of a type, with conflicts replaced only on request.

A conflict is a link between the same two issues of another type from ``link_types`` (either direction) or
the reverse direction of the wanted type when that type is not symmetric (change 000: a type is symmetric
when Jira's ``inward == outward``; then ``target → source`` counts as the wanted link).

``present: false`` (DESIGN.md 6.4) removes the wanted link when it is there (a conflicting one stays). ``undo``
names the link created and the links deleted with their types and ends, all read from the ``issuelinks`` the
executor reads anyway (a new link's id costs the read back it always did).
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from typing import Any

from reconcile.executors._run import Body, CommandFailed, Run
from reconcile.executors.base import JiraCall, Step
from reconcile.guard.paths import API, issue_path, jira_path, positive_id
from reconcile.jira.answers import jira_list, jira_object
from reconcile.jira.model import issue_fields, links_from_jira
from reconcile.jira.replaced import LinkUndo
from reconcile.vocabulary.records import MirrorLink

__all__ = ["classify_links", "ensure_link"]


def classify_links(
    links: tuple[MirrorLink, ...],
    *,
    source: str,
    target: str,
    wanted_type: str,
    known_types: frozenset[str],
    symmetric: bool,
) -> tuple[MirrorLink | None, list[MirrorLink]]:
    """(the wanted link if present, the conflicting links) among the links of ``source``."""
    wanted: MirrorLink | None = None
    conflicts: list[MirrorLink] = []
    for link in links:
        forward = link.source == source and link.target == target
        backward = link.source == target and link.target == source
        if not (forward or backward):
            continue
        if link.type == wanted_type:
            if forward or symmetric:
                wanted = wanted or link
            else:
                conflicts.append(link)
        elif link.type in known_types:
            conflicts.append(link)
    return wanted, conflicts


def _check_link_type(run: Run, wanted_type: str) -> Generator[Step, Any, None]:
    """Jira must know the link type before anything is written (a type added since the agent started is read
    again: ``GET /issueLinkType``); else «в Jira нет типа связи «X»; есть: …»."""
    known = run.ctx.link_types
    if known is None or wanted_type in known:
        return
    response = yield from run.call(JiraCall(method="GET", path=jira_path(API, "issueLinkType")))
    answer = jira_object(response.json, "GET /rest/api/2/issueLinkType", "ответ")
    types = jira_list(answer.get("issueLinkTypes"), "GET /rest/api/2/issueLinkType", "issueLinkTypes")
    names = [str(t["name"]) for t in types if isinstance(t, Mapping) and isinstance(t.get("name"), str)]
    if wanted_type not in names:
        raise CommandFailed(f"в Jira нет типа связи «{wanted_type}»; есть: {', '.join(names) or 'нет'}")


def _describe(link: MirrorLink) -> str:
    return f"«{link.type}» {link.source} → {link.target} (id {link.id})"


def ensure_link(run: Run) -> Body:
    source = run.key_param("source")
    target = run.key_param("target")
    logical = run.str_param("link_type")
    wanted_type = run.settings.link_types.get(logical)
    if wanted_type is None:
        raise CommandFailed(f"нет настройки link_types.{logical}")
    yield from _check_link_type(run, wanted_type)
    replace = run.params.get("replace") is True
    read = JiraCall(method="GET", path=issue_path(source), params={"fields": "issuelinks"})
    response = yield from run.call(read)
    links = links_from_jira(source, issue_fields(response.json, source).get("issuelinks"))
    wanted, conflicts = classify_links(
        links,
        source=source,
        target=target,
        wanted_type=wanted_type,
        known_types=frozenset(run.settings.link_types.values()),
        symmetric=wanted_type in run.ctx.symmetric_link_types,
    )
    removed: list[str] = []
    run.result.update(existed=wanted is not None, link_id=wanted.id if wanted else None, removed=removed)
    if run.params.get("present") is False:
        if wanted is not None:
            run.result["undo"] = LinkUndo(removed=(wanted,)).to_json()
            path = jira_path(API, "issueLink", positive_id(wanted.id, "связи"))
            yield from run.call(JiraCall(method="DELETE", path=path))
            removed.append(wanted.id)
        return run.done()
    if conflicts and not replace:
        found = ", ".join(_describe(link) for link in conflicts)
        raise CommandFailed(f"конфликт: связь {found}; нужна «{wanted_type}»; replace не задан")
    gone: list[MirrorLink] = []
    for link in conflicts:
        yield from run.pause_between_writes()
        path = jira_path(API, "issueLink", positive_id(link.id, "связи"))
        run.result["undo"] = LinkUndo(removed=(*gone, link)).to_json()
        yield from run.call(JiraCall(method="DELETE", path=path))
        removed.append(link.id)
        gone.append(link)
    if wanted is not None:
        return run.done()
    yield from run.pause_between_writes()
    body = {"type": {"name": wanted_type}, "inwardIssue": {"key": source}, "outwardIssue": {"key": target}}
    response = yield from run.call(JiraCall(method="POST", path=jira_path(API, "issueLink"), json=body))
    location = response.headers.get("location") or response.headers.get("Location") or ""
    link_id = location.rstrip("/").rpartition("/")[2] if "/issueLink/" in location else None
    if link_id is None:
        # Jira answers 201 without a body: the new link's id is read back from the source issue.
        response = yield from run.call(read)
        links = links_from_jira(source, issue_fields(response.json, source).get("issuelinks"))
        created = next((x for x in links if x.type == wanted_type and x.source == source and x.target == target), None)
        link_id = created.id if created else None
    made = MirrorLink(id=link_id or "", type=wanted_type, source=source, target=target)
    run.result["undo"] = LinkUndo(created=made, removed=tuple(gone)).to_json()
    return run.done(link_id=link_id)
