"""``/browse/KEY``: the issue's page of a Jira the hub's page links to (issue 32: the demo's links to Jira lead
somewhere). A small HTML page naming the issue — key, summary, status, labels — or Jira's «Issue does not exist»
with 404 for an unknown key. Anonymous like any browser's first visit; not a REST call (no fault, no call record).
"""

from __future__ import annotations

from html import escape
from urllib.parse import unquote

from jira_sim.model import JiraError
from jira_sim.store import Store
from jira_sim.wire import Response

__all__ = ["PREFIX", "browse_page"]

PREFIX = "/browse/"
_HTML = b"text/html; charset=utf-8"


def _page(title: str, body: str) -> bytes:
    return (
        '<!doctype html><html lang="ru"><head><meta charset="utf-8">'
        f"<title>{escape(title)} - Jira (simulator)</title></head><body>{body}</body></html>"
    ).encode()


def browse_page(store: Store, path: str) -> Response:
    """The page of the issue ``path`` names (``/browse/AURORA-1533``)."""
    key = unquote(path.removeprefix(PREFIX)).strip("/")
    try:
        issue = store.issue(key)
    except JiraError:
        body = f'<h1 id="missing">Issue does not exist</h1><p>{escape(key)}: the issue does not exist.</p>'
        return Response(status=404, body=_page(key, body), content_type=_HTML)
    status = store.statuses.get(issue.status_id)
    facts = [
        f'<h1 id="issue"><span id="key">{escape(issue.key)}</span> '
        f'<span id="summary">{escape(issue.summary)}</span></h1>',
        f'<p>Status: <span id="status">{escape(status.name if status else issue.status_id)}</span></p>',
        f'<p>Labels: <span id="labels">{escape(", ".join(issue.labels) or "None")}</span></p>',
    ]
    if issue.description:
        facts.append(f'<pre id="description">{escape(issue.description)}</pre>')
    return Response(status=200, body=_page(f"[{issue.key}] {issue.summary}", "".join(facts)), content_type=_HTML)
