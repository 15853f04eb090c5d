"""Jira Data Center's webhooks as hints (DESIGN.md 6.2): a delivery's body read into the wire event the agent
relays to the hub, ``{event, key, at, issue?}``, and what each event needs from the hub.

Jira DC posts (recorded payloads in ``tests/cassettes/webhooks/``; the simulator's in ``jira_sim.webhook_payloads``):

- ``jira:issue_created`` / ``jira:issue_updated`` / ``jira:issue_deleted``: ``{timestamp, webhookEvent,
  issue_event_type_name, user, issue, changelog?: {id, items}, comment?}``, ``issue`` in REST v2 shape;
- ``comment_created`` / ``comment_updated``: ``{timestamp, webhookEvent, comment}`` — the comment alone, its
  ``self`` naming the issue by its numeric id;
- ``issuelink_created`` / ``issuelink_deleted``: ``{timestamp, webhookEvent, issueLink: {id, sourceIssueId,
  destinationIssueId, issueLinkType, systemLink}}`` — numeric ids only, no key;
- with ``excludeBody``, nothing at all: an empty body.

Delivery is at most once, unordered, without a delivery id: an event is a hint, and the change-only refresh stays
the truth. What each event needs (:class:`Need`, one rule: :func:`need_of`, for the agent's parse and the hub's
wire event alike):

- ``APPLY``: an issue event's ``issue``, read by the same model as a search page (:func:`issue_from_jira`, the
  settings' custom fields; no Jira call), goes into the mirror under the upsert rule (``reconcile.jira.mirror_rule``);
  its ``user`` and ``changelog`` are one entry of the issue's journal (:func:`history_of`: Jira's history id, the
  event's time, its author and items), so «who changed it and when» is known the moment the event arrives — the
  same entry a later refresh reads from the changelog, under the same ``(key, id)``;
- ``TARGETED``: a deletion (the mirror's rows of the issues linked to it still show the links that went with it:
  the hub refreshes those keys; the deleted issue itself is judged vanished only by a full refresh), or an issue
  body that could not be read (the hub refreshes its key): a ``refresh {keys}`` (``reconcile.batches.event_refresh``);
- ``CHANGES``: a link event names no key, and an empty body nothing at all; Jira touches both issues of a link
  (their ``updated``), so the hub's change-only refresh finds them in one search (``reconcile.batches.event_refresh``);
- ``NOTHING``: a comment event — the mirror keeps no comments, and Jira sends the ``jira:issue_updated`` of the
  same comment with the issue — and any event this list does not name.

:func:`dedup_key`: issue id + changelog id (a change), + comment id and its ``updated`` (a comment: one comment
edited twice is two events), the link id (a link event), else the timestamp; an empty body has none (nothing
tells two apart), and a body without any of these is keyed by its bytes (a repeat is byte for byte the same).
:func:`in_policy`: the issue key's project is one the agent may read; an event without a key cannot be judged and
is relayed (what the hub queues for it is a refresh by its base JQL, which the agent wraps in its projects).
:func:`signature_ok` checks ``X-Hub-Signature: sha256=<hex HMAC-SHA256 of the body>``.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import re
from collections import OrderedDict
from collections.abc import Mapping
from datetime import UTC, datetime
from enum import Enum
from typing import Any

import attrs

from reconcile.config.settings import Settings
from reconcile.guard.policy import AgentPolicy, key_project
from reconcile.jira.mirror_rule import updated_at
from reconcile.jira.model import histories_from_jira, issue_from_jira
from reconcile.vocabulary.commands import is_jira_key
from reconcile.vocabulary.errors import JiraAnswerError, ValidationError
from reconcile.vocabulary.records import HistoryEntry, MirrorIssue, converter, issue_to_wire, wire_history, wire_issue
from reconcile.vocabulary.text import utc_text

__all__ = [
    "COMMENT_EVENTS",
    "EVENTS",
    "ISSUE_EVENTS",
    "LINK_EVENTS",
    "Need",
    "RecentEvents",
    "WebhookError",
    "WebhookEvent",
    "dedup_key",
    "history_of",
    "in_policy",
    "need_of",
    "parse_webhook",
    "signature_ok",
    "webhook_secret",
    "wire_event",
]

ISSUE_EVENTS = ("jira:issue_created", "jira:issue_updated", "jira:issue_deleted")
COMMENT_EVENTS = ("comment_created", "comment_updated")
LINK_EVENTS = ("issuelink_created", "issuelink_deleted")
#: Every event the agent asks Jira for (the registration's ``events``).
EVENTS = ISSUE_EVENTS + COMMENT_EVENTS + LINK_EVENTS

_ISSUE_ID_IN_SELF = re.compile(r"/issue/(\d+)/comment/")


class WebhookError(Exception):
    """A body that is no Jira webhook payload (the listener answers 400 and relays nothing)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Need(Enum):
    """What an event needs from the hub (see the module docstring)."""

    APPLY = "apply"
    TARGETED = "targeted"
    CHANGES = "changes"
    NOTHING = "nothing"


def need_of(event: str | None, *, key: str | None, has_issue: bool) -> Need:
    """What an event needs: from its ``webhookEvent`` (``None``: an empty body), its key and whether it carries an
    issue that could be read."""
    if event is None or event in LINK_EVENTS:
        return Need.CHANGES
    if event not in ISSUE_EVENTS or key is None:
        return Need.NOTHING
    if event == "jira:issue_deleted" or not has_issue:
        return Need.TARGETED
    return Need.APPLY


@attrs.frozen(kw_only=True)
class WebhookEvent:
    """One delivery as the agent read it.

    ``key`` is the issue's when the payload names it; ``issue_ids`` are the numeric Jira ids it names (a link's two
    ends, a comment's issue, an issue event's own); ``problem`` says why an issue body could not be used."""

    event: str | None
    at: str
    key: str | None = None
    issue: MirrorIssue | None = None
    issue_ids: tuple[str, ...] = ()
    dedup: str | None = None
    problem: str | None = None
    #: The change the event announces as a journal entry (its ``user`` and ``changelog``), when it carries one.
    history: HistoryEntry | None = None

    @property
    def need(self) -> Need:
        return need_of(self.event, key=self.key, has_issue=self.issue is not None)

    def to_wire(self) -> dict[str, Any]:
        """``{event, key, at, issue?, history?}`` as ``POST /agent/events`` carries it."""
        wire: dict[str, Any] = {"event": self.event, "key": self.key, "at": self.at}
        if self.issue is not None:
            wire["issue"] = issue_to_wire(self.issue)
        if self.history is not None:
            wire["history"] = converter.unstructure(self.history)
        return wire


def _at(timestamp: Any, received_at: datetime) -> str:
    """Jira's ``timestamp`` (milliseconds since the epoch) as UTC ISO-8601 with ``Z``; else when it was received."""
    moment = received_at.astimezone(UTC)
    if isinstance(timestamp, int) and not isinstance(timestamp, bool):
        with contextlib.suppress(OverflowError, OSError, ValueError):
            moment = datetime.fromtimestamp(timestamp / 1000, tz=UTC)
    return utc_text(moment)


def _id(value: Any) -> str | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value if isinstance(value, str) and value.isdigit() else None


def _object(payload: Mapping[str, Any], name: str) -> Mapping[str, Any] | None:
    value = payload.get(name)
    return value if isinstance(value, Mapping) else None


def dedup_key(payload: Mapping[str, Any], body: bytes) -> str:
    """The key that tells a repeated delivery of one change (see the module docstring)."""
    event = payload.get("webhookEvent")
    issue, changelog = _object(payload, "issue"), _object(payload, "changelog")
    comment, link = _object(payload, "comment"), _object(payload, "issueLink")
    issue_id = _id(issue.get("id")) if issue is not None else None
    if issue_id is not None and changelog is not None and _id(changelog.get("id")) is not None:
        return f"{event}:{issue_id}:changelog:{changelog['id']}"
    if comment is not None and _id(comment.get("id")) is not None:
        return f"{event}:{issue_id or ''}:comment:{comment['id']}:{comment.get('updated')}"
    if link is not None and _id(link.get("id")) is not None:
        return f"{event}:link:{link['id']}"
    timestamp = payload.get("timestamp")
    if issue_id is not None and isinstance(timestamp, int | str):
        return f"{event}:{issue_id}:at:{timestamp}"
    return "body:" + hashlib.sha256(body).hexdigest()


def _issue_ids(payload: Mapping[str, Any]) -> tuple[str, ...]:
    ids: list[str | None] = []
    issue, comment, link = _object(payload, "issue"), _object(payload, "comment"), _object(payload, "issueLink")
    if issue is not None:
        ids.append(_id(issue.get("id")))
    if link is not None:
        ids += [_id(link.get("sourceIssueId")), _id(link.get("destinationIssueId"))]
    if comment is not None and isinstance(comment.get("self"), str):
        found = _ISSUE_ID_IN_SELF.search(comment["self"])
        ids.append(found.group(1) if found else None)
    return tuple(dict.fromkeys(i for i in ids if i is not None))


def history_of(payload: Mapping[str, Any], key: str, at: str) -> HistoryEntry | None:
    """The journal entry of an issue event: its ``changelog`` (Jira's history id and items) by its ``user`` at the
    event's time, read by the same model as a changelog page; ``None`` when it carries no changelog or one that
    cannot be read (the refresh reads it then)."""
    changelog = _object(payload, "changelog")
    if changelog is None or _id(changelog.get("id")) is None:
        return None
    raw = {"id": changelog["id"], "created": at, "author": payload.get("user"), "items": changelog.get("items")}
    try:
        return histories_from_jira(key, {"histories": [raw]})[0]
    except JiraAnswerError:
        return None


def parse_webhook(body: bytes, settings: Settings, *, received_at: datetime) -> WebhookEvent:
    """A delivery's body read into the event the agent relays (no Jira call).

    An empty body (``excludeBody``) is an event that names nothing. A body that is not a JSON object, or an issue
    event without an issue key, raises :class:`WebhookError` (English: the listener's log and 400 answer).
    """
    if not body.strip():
        return WebhookEvent(event=None, at=_at(None, received_at))
    try:
        payload = json.loads(body)
    except (UnicodeDecodeError, ValueError) as error:
        raise WebhookError(f"webhook body is not JSON: {error}") from None
    if not isinstance(payload, dict):
        raise WebhookError("webhook body is not a JSON object")
    event = payload.get("webhookEvent")
    if not isinstance(event, str):
        raise WebhookError("webhook body has no webhookEvent")
    found = WebhookEvent(
        event=event,
        at=_at(payload.get("timestamp"), received_at),
        issue_ids=_issue_ids(payload),
        dedup=dedup_key(payload, body),
    )
    if event not in ISSUE_EVENTS:
        return found
    issue = _object(payload, "issue")
    key = issue.get("key") if issue is not None else None
    if not is_jira_key(key):
        raise WebhookError(f"{event} without an issue key")
    found = attrs.evolve(found, key=key)
    if event == "jira:issue_deleted":
        return found
    found = attrs.evolve(found, history=history_of(payload, str(key), found.at))
    try:
        return attrs.evolve(found, issue=issue_from_jira(issue, settings))
    except JiraAnswerError as error:
        return attrs.evolve(found, problem=error.message)


def in_policy(event: WebhookEvent, policy: AgentPolicy) -> bool:
    """Whether the agent relays the event: its issue's project is one it may read (an event naming no key is
    relayed: see the module docstring)."""
    return event.key is None or key_project(event.key) in policy.allow_projects


def signature_ok(body: bytes, header: str | None, secret: bytes) -> bool:
    """Whether ``X-Hub-Signature`` is ``sha256=<hex HMAC-SHA256 of body with secret>`` (compared in constant time)."""
    if header is None or not header.startswith("sha256="):
        return False
    wanted = hmac.new(secret, body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(header.removeprefix("sha256=").strip().lower(), wanted)


def webhook_secret(file_text: str) -> bytes:
    """The secret as a ``--webhook-secret-file`` holds it: its content without the trailing newline."""
    return file_text.removesuffix("\n").removesuffix("\r").encode()


class RecentEvents:
    """The de-duplication keys of the last ``size`` events relayed: bounded, so a burst keeps memory flat."""

    def __init__(self, size: int = 10_000) -> None:
        self._size = size
        self._seen: OrderedDict[str, None] = OrderedDict()

    def first_time(self, key: str | None) -> bool:
        """Whether ``key`` is new (and remember it); ``None`` (an empty body) is always new."""
        if key is None:
            return True
        if key in self._seen:
            self._seen.move_to_end(key)
            return False
        self._seen[key] = None
        if len(self._seen) > self._size:
            self._seen.popitem(last=False)
        return True


def wire_event(data: Any, what: str) -> WebhookEvent:
    """A wire event the agent sent (``POST /agent/events``; ``what`` names it in the 422: ``events[2]``)."""
    if not isinstance(data, dict) or set(data) - {"event", "key", "at", "issue", "history"}:
        raise ValidationError(f"{what}: ожидается объект {{event, key, at, issue?, history?}}")
    event, key, at = data.get("event"), data.get("key"), data.get("at")
    if event is not None and not isinstance(event, str):
        raise ValidationError(f"{what}: event — ожидается строка или null")
    if key is not None and not is_jira_key(key):
        raise ValidationError(f"{what}: key — ожидается ключ задачи Jira или null")
    if not isinstance(at, str) or updated_at(at) is None:
        raise ValidationError(f"{what}: at — ожидается время ISO-8601")
    issue = None
    if data.get("issue") is not None:
        issue = wire_issue(data["issue"], f"{what}.issue")
        if issue.key != key:
            raise ValidationError(f"{what}: issue.key — не тот ключ, что key")
    history = None
    if data.get("history") is not None:
        history = wire_history(data["history"], f"{what}.history")
        if history.key != key:
            raise ValidationError(f"{what}: history.key — не тот ключ, что key")
    return WebhookEvent(event=event, key=key, at=at, issue=issue, history=history)
