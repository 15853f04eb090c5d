"""Webhooks registered in the simulated Jira, through either of Jira DC's REST resources.

- Jira ≤ 9: ``/rest/webhooks/1.0/webhook`` with ``{name, url, events, filters: {"issue-related-events-section":
  <JQL>}, excludeBody, enabled?, secret?}``, answered with ``self``, ``lastUpdated…`` and ``enabled``;
- Jira 10: ``/rest/jira-webhook/1.0/webhooks`` with ``{name, url, events, active, configuration: {FILTERS,
  EXCLUDE_BODY, SECRET}}`` (configuration values are strings), answered with a numeric ``id``,
  ``createdDate``/``updatedDate`` and ``scopeType``.

Both list the same webhooks and take ``PUT …/{id}`` (the webhook replaced by the body, its id kept) and
``DELETE …/{id}``. A webhook hears its ``events`` of the issues its JQL matches (empty: every issue);
the ``issuelink_*`` events are not filtered by JQL, as in Jira. The secret is never shown back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal
from urllib.parse import urlsplit

from jira_sim.model import Change, JiraError, Webhook
from jira_sim.search import Search

__all__ = ["WEBHOOK_EVENTS", "Webhooks", "render_legacy", "render_v10"]

WEBHOOK_EVENTS = (
    "jira:issue_created",
    "jira:issue_updated",
    "jira:issue_deleted",
    "comment_created",
    "comment_updated",
    "issuelink_created",
    "issuelink_deleted",
)
_NOT_FILTERED = frozenset({"issuelink_created", "issuelink_deleted"})
_JQL_FILTER = "issue-related-events-section"

Api = Literal["legacy", "v10"]


class Webhooks(Search):
    def register_webhook(self, body: Mapping[str, Any], user: str, api: Api) -> Webhook:
        """A new webhook from a registration body of ``api`` (``legacy``: Jira ≤ 9, ``v10``: Jira 10)."""
        webhook = self._from_body(body, user, api, webhook_id=int(self.new_id("webhook")), created=self.now())
        self.webhooks[webhook.id] = webhook
        self.listening = any(w.active for w in self.webhooks.values())
        return webhook

    def update_webhook(self, webhook_id: str, body: Mapping[str, Any], user: str, api: Api) -> Webhook:
        """``PUT …/{id}``: the webhook replaced by the body (as a registration of ``api``), keeping its id."""
        old = self.webhook(webhook_id)
        webhook = self._from_body(body, user, api, webhook_id=old.id, created=self.now())
        self.webhooks[webhook.id] = webhook
        self.listening = any(w.active for w in self.webhooks.values())
        return webhook

    def _from_body(self, body: Mapping[str, Any], user: str, api: Api, *, webhook_id: int, created: Any) -> Webhook:
        if api == "legacy":
            filters = body.get("filters") or {}
            if not isinstance(filters, Mapping):
                raise JiraError(400, ["filters must be an object."])
            jql, exclude, secret, active = filters.get(_JQL_FILTER), body.get("excludeBody"), body.get("secret"), True
            if "enabled" in body:
                active = _flag(body["enabled"], "enabled")
        else:
            config = body.get("configuration") or {}
            if not isinstance(config, Mapping):
                raise JiraError(400, ["configuration must be an object."])
            jql, exclude, secret = config.get("FILTERS"), config.get("EXCLUDE_BODY"), config.get("SECRET")
            active = _flag(body.get("active", True), "active")
        name, url = body.get("name"), body.get("url")
        if not isinstance(name, str) or not name.strip():
            raise JiraError(400, ["The webhook name must not be empty."])
        if not isinstance(url, str) or urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).netloc:
            raise JiraError(400, [f"The webhook URL is not valid: {url!r}."])
        events = body.get("events") or []
        if not isinstance(events, list) or not all(isinstance(e, str) for e in events):
            raise JiraError(400, ["events must be a list of event names."])
        unknown = [e for e in events if e not in WEBHOOK_EVENTS]
        if unknown:
            raise JiraError(400, [f"Unknown webhook event: {unknown[0]}."])
        jql = jql or ""
        if not isinstance(jql, str):
            raise JiraError(400, ["The webhook's JQL filter must be a string."])
        if jql.strip():
            self._compile(jql, user, self.now(), strict=True)  # Jira refuses a filter it cannot parse
        if secret is not None and (not isinstance(secret, str) or not secret):
            raise JiraError(400, ["The webhook secret must be a non-empty string."])
        return Webhook(
            id=webhook_id,
            name=name.strip(),
            url=url,
            events=tuple(dict.fromkeys(events)),
            jql=jql.strip(),
            exclude_body=_flag(exclude, "excludeBody") if exclude is not None else False,
            secret=secret,
            active=active,
            owner=user,
            created=created,
        )

    def webhook(self, webhook_id: str) -> Webhook:
        found = self.webhooks.get(int(webhook_id)) if webhook_id.isdigit() else None
        if found is None:
            raise JiraError(404, [f"Webhook with id {webhook_id} does not exist."])
        return found

    def delete_webhook(self, webhook_id: str) -> None:
        del self.webhooks[self.webhook(webhook_id).id]
        self.listening = any(w.active for w in self.webhooks.values())

    def subscribers(self, change: Change) -> list[Webhook]:
        """The active webhooks that hear ``change``: its event chosen, its issue matching their JQL."""
        chosen = [w for w in self.webhooks.values() if w.active and change.event in w.events]
        if not chosen or change.event in _NOT_FILTERED:
            return chosen
        facts = self.facts(change.issue)
        now = self.now()
        return [w for w in chosen if not w.jql or self._compile(w.jql, w.owner, now, strict=False).matches(facts)]


def _flag(value: Any, name: str) -> bool:
    """A boolean as Jira's JSON or as Jira 10's configuration strings (``"true"``/``"false"``)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    raise JiraError(400, [f"{name} must be true or false, not {value!r}."])


def _millis(webhook: Webhook) -> int:
    return int(webhook.created.timestamp() * 1000)


def render_legacy(webhook: Webhook, base: str, display_name: str) -> dict[str, Any]:
    """A webhook as ``/rest/webhooks/1.0/webhook`` answers it (Jira ≤ 9)."""
    return {
        "self": f"{base}/rest/webhooks/1.0/webhook/{webhook.id}",
        "name": webhook.name,
        "url": webhook.url,
        "events": list(webhook.events),
        "filters": {_JQL_FILTER: webhook.jql},
        "excludeBody": webhook.exclude_body,
        "enabled": webhook.active,
        "lastUpdated": _millis(webhook),
        "lastUpdatedUser": webhook.owner,
        "lastUpdatedDisplayName": display_name,
    }


def render_v10(webhook: Webhook) -> dict[str, Any]:
    """A webhook as ``/rest/jira-webhook/1.0/webhooks`` answers it (Jira 10)."""
    configuration = {"EXCLUDE_BODY": "true" if webhook.exclude_body else "false"}
    if webhook.jql:
        configuration["FILTERS"] = webhook.jql
    return {
        "id": webhook.id,
        "name": webhook.name,
        "createdDate": _millis(webhook),
        "updatedDate": _millis(webhook),
        "events": list(webhook.events),
        "configuration": configuration,
        "url": webhook.url,
        "active": webhook.active,
        "scopeType": "global",
        "sslVerificationRequired": True,
    }
