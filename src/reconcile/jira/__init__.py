"""Jira as the core sees it: its answers and issue model, the rate-limit bucket, the site's address,
webhook events and their registration, the mirror's upsert rule and its freshness, the records the hub takes
from the agent, what a write replaced.

The apps and other tools import from this face only; its modules are the inside."""

from __future__ import annotations

from reconcile.jira.agent_records import event_refusal, page_refusal
from reconcile.jira.bucket import BucketPacer
from reconcile.jira.freshness import EventOutcome, event_outcomes, staleness_seconds
from reconcile.jira.mirror_rule import Arrival, to_apply
from reconcile.jira.site import site_url
from reconcile.jira.webhook_events import (
    Need,
    RecentEvents,
    WebhookError,
    WebhookEvent,
    in_policy,
    parse_webhook,
    signature_ok,
    webhook_secret,
    wire_event,
)
from reconcile.jira.webhook_registration import (
    Listed,
    Registration,
    Step,
    listed,
    registration,
    registration_steps,
    unregistration_steps,
    webhooks_path,
)

__all__ = [
    "Arrival",
    "BucketPacer",
    "EventOutcome",
    "Listed",
    "Need",
    "RecentEvents",
    "Registration",
    "Step",
    "WebhookError",
    "WebhookEvent",
    "event_outcomes",
    "event_refusal",
    "in_policy",
    "listed",
    "page_refusal",
    "parse_webhook",
    "registration",
    "registration_steps",
    "signature_ok",
    "site_url",
    "staleness_seconds",
    "to_apply",
    "unregistration_steps",
    "webhook_secret",
    "webhooks_path",
    "wire_event",
]
