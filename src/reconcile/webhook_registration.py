"""The registration of the agent's webhook in Jira DC (DESIGN.md 6.2): what ``sdlc-agent webhook`` prints for the
Jira admin and, with ``--register``, sends.

Two REST resources, by Jira's major version (``serverInfo.versionNumbers[0]``):

- Jira ≤ 9: ``POST /rest/webhooks/1.0/webhook`` ``{name, url, events, filters: {"issue-related-events-section":
  JQL}, excludeBody: false, secret}``;
- Jira 10: ``POST /rest/jira-webhook/1.0/webhooks`` ``{name, url, events, active: true, configuration: {FILTERS,
  EXCLUDE_BODY: "false", SECRET}}``.

The events are every one the listener reads (:data:`reconcile.webhook_events.EVENTS`); the filter is the agent's
own projects (``project in (AURORA, OPS)``), so Jira sends nothing the agent would drop; link events are not
filtered by Jira (they name no project) and the listener relays them as hints. The body is never empty
(``excludeBody`` false): an event's issue is what saves the hub a Jira call.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from reconcile.webhook_events import EVENTS

__all__ = ["LEGACY_PATH", "PATH_10", "Registration", "registration"]

LEGACY_PATH = "/rest/webhooks/1.0/webhook"
PATH_10 = "/rest/jira-webhook/1.0/webhooks"


@attrs.frozen(kw_only=True)
class Registration:
    """One registration call: its path and JSON body."""

    path: str
    body: dict[str, Any]


def registration(*, name: str, url: str, projects: Sequence[str], secret: str | None, jira_major: int) -> Registration:
    """The registration of a webhook posting to ``url`` for ``projects`` on a Jira of version ``jira_major``."""
    jql = f"project in ({', '.join(projects)})"
    if jira_major >= 10:
        configuration: dict[str, Any] = {"FILTERS": jql, "EXCLUDE_BODY": "false"}
        if secret is not None:
            configuration["SECRET"] = secret
        body = {"name": name, "url": url, "events": list(EVENTS), "active": True, "configuration": configuration}
        return Registration(path=PATH_10, body=body)
    legacy: dict[str, Any] = {
        "name": name,
        "url": url,
        "events": list(EVENTS),
        "filters": {"issue-related-events-section": jql},
        "excludeBody": False,
    }
    if secret is not None:
        legacy["secret"] = secret
    return Registration(path=LEGACY_PATH, body=legacy)
