"""The registration of the agent's webhook in Jira DC (DESIGN.md 6.2): what ``sdlc-agent webhook`` prints for the
Jira admin and, with ``--register``, sends.

Two REST resources, by Jira's major version (``serverInfo.versionNumbers[0]``):

- Jira ≤ 9: ``POST /rest/webhooks/1.0/webhook`` ``{name, url, events, filters: {"issue-related-events-section":
  JQL}, excludeBody: false, secret}``;
- Jira 10: ``POST /rest/jira-webhook/1.0/webhooks`` ``{name, url, events, active: true, configuration: {FILTERS,
  EXCLUDE_BODY: "false", SECRET}}``.

The events are every one the listener reads (:data:`reconcile.jira.webhook_events.EVENTS`); the filter is the agent's
own projects (``project in (AURORA, OPS)``), so Jira sends nothing the agent would drop; link events are not
filtered by Jira (they name no project) and the listener relays them as hints. The body is never empty
(``excludeBody`` false): an event's issue is what saves the hub a Jira call.

Registration is idempotent (issue 32): :func:`listed` reads Jira's list of webhooks (either resource's shape) and
:func:`registration_steps` decides from it — the first webhook of the agent's URL is updated (``PUT …/{id}``:
secret, events, filter), any other of that URL deleted (Jira would send every event once per webhook), and a new
one created only when none exists. :func:`unregistration_steps` deletes every webhook of the URL.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import attrs

from reconcile.jira.webhook_events import EVENTS

__all__ = [
    "LEGACY_PATH",
    "PATH_10",
    "Listed",
    "Registration",
    "Step",
    "listed",
    "registration",
    "registration_steps",
    "unregistration_steps",
    "webhooks_path",
]

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
    if webhooks_path(jira_major) == PATH_10:
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


def webhooks_path(jira_major: int) -> str:
    """The webhooks resource of a Jira of version ``jira_major``."""
    return PATH_10 if jira_major >= 10 else LEGACY_PATH


@attrs.frozen(kw_only=True)
class Listed:
    """One webhook of Jira's list: its id, name and URL."""

    id: int
    name: str
    url: str


_ID = re.compile(r"[1-9][0-9]{0,17}", re.ASCII)


def _webhook_id(entry: Mapping[str, Any]) -> int | None:
    """Jira 10's numeric ``id``, or the last segment of Jira ≤ 9's ``self`` (``…/rest/webhooks/1.0/webhook/3``)."""
    raw = entry.get("id")
    if raw is None and isinstance(entry.get("self"), str):
        raw = entry["self"].rpartition("/")[2]
    # Only an int or a text of digits reads as digits: True, 6.0 or None do not.
    text = str(raw)
    return int(text) if _ID.fullmatch(text) else None


def listed(body: Any) -> list[Listed]:
    """The webhooks of Jira's list answer (either resource); an entry without a usable id or URL is left out."""
    webhooks: list[Listed] = []
    for entry in body if isinstance(body, list) else ():
        if not isinstance(entry, Mapping) or not isinstance(entry.get("url"), str):
            continue
        webhook_id = _webhook_id(entry)
        if webhook_id is not None:
            name = entry.get("name")
            webhooks.append(Listed(id=webhook_id, name=name if isinstance(name, str) else "", url=entry["url"]))
    return webhooks


@attrs.frozen(kw_only=True)
class Step:
    """One call of a (un)registration: what it does to which webhook (``None``: the one it creates)."""

    action: Literal["create", "update", "delete"]
    method: str
    path: str
    webhook_id: int | None = None
    body: dict[str, Any] | None = None


def registration_steps(wanted: Registration, webhooks: Sequence[Listed]) -> list[Step]:
    """Update the first webhook of ``wanted``'s URL and delete the others of it; create one when there is none."""
    mine = [w for w in webhooks if w.url == wanted.body["url"]]
    if not mine:
        return [Step(action="create", method="POST", path=wanted.path, body=wanted.body)]
    first, *others = mine
    update = Step(
        action="update", method="PUT", path=f"{wanted.path}/{first.id}", webhook_id=first.id, body=wanted.body
    )
    return [update, *(_delete(wanted.path, w) for w in others)]


def unregistration_steps(path: str, url: str, webhooks: Sequence[Listed]) -> list[Step]:
    """Delete every webhook of ``url``."""
    return [_delete(path, w) for w in webhooks if w.url == url]


def _delete(path: str, webhook: Listed) -> Step:
    return Step(action="delete", method="DELETE", path=f"{path}/{webhook.id}", webhook_id=webhook.id)
