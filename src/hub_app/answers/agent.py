"""Answers to the agent and about it: a delivery, the acknowledgements of pages and reports, whether it still
holds a command, and its status with the queue it sees."""

from __future__ import annotations

from typing import Any

import attrs

from adapters.storage.records import AgentStatusRecord
from hub_app.answers.wire import iso

__all__ = [
    "AgentStatusView",
    "CommandHeld",
    "DeliveryView",
    "EventsAck",
    "MirrorFreshness",
    "PagesAck",
    "QueueOutlook",
    "ReportAck",
]


@attrs.frozen(kw_only=True)
class QueueOutlook:
    """The queue as the agent sees it: ``depth`` commands it can be given (queued outside batches waiting for
    approval, and the one in flight) and their ETA by the pacing policy; ``awaiting_approval`` batches (with
    ``awaiting_commands`` commands) wait for a person and count in neither."""

    depth: int
    eta_seconds: float
    awaiting_approval: int
    awaiting_commands: int


@attrs.frozen(kw_only=True)
class MirrorFreshness:
    """How fresh the mirror is (DESIGN.md 6.2; :mod:`reconcile.jira.freshness`): when the latest finished full and
    change-only refreshes started, when the agent last relayed a webhook event, and the staleness in seconds
    (since the later of the two refreshes; ``null`` before the first)."""

    last_full_refresh_at: str | None
    last_changes_refresh_at: str | None
    last_webhook_event_at: str | None
    staleness_seconds: float | None


@attrs.frozen(kw_only=True)
class AgentStatusView:
    agent_id: str | None
    instance: str | None
    version: str | None
    jira_user: str | None
    jira_time_zone: str | None
    #: Jira's own address (``serverInfo``'s ``baseUrl``): the page links each issue to ``<it>/browse/KEY``.
    jira_base_url: str | None
    symmetric_link_types: list[str]
    last_seen_at: str | None
    last_claim_at: str | None
    online: bool
    #: What keeps the agent from working, as it reported it (a TLS failure, a wrong Jira URL…); cleared by
    #: its next claim.
    last_error: str | None
    #: The pace the agent reported (its bank's floors per type and write budget), ``null`` when it reports none.
    policy: dict[str, Any] | None
    queue: QueueOutlook
    mirror: MirrorFreshness

    @classmethod
    def of(
        cls, status: AgentStatusRecord | None, *, online: bool, queue: QueueOutlook, mirror: MirrorFreshness
    ) -> AgentStatusView:
        if status is None:
            return cls(
                agent_id=None,
                instance=None,
                version=None,
                jira_user=None,
                jira_time_zone=None,
                jira_base_url=None,
                symmetric_link_types=[],
                last_seen_at=None,
                last_claim_at=None,
                online=False,
                last_error=None,
                policy=None,
                queue=queue,
                mirror=mirror,
            )
        return cls(
            agent_id=status.agent_id,
            instance=status.instance,
            version=status.version,
            jira_user=status.jira_user,
            jira_time_zone=status.jira_time_zone,
            jira_base_url=status.jira_base_url,
            symmetric_link_types=list(status.symmetric_link_types),
            last_seen_at=iso(status.last_seen_at),
            last_claim_at=iso(status.last_claim_at),
            online=online,
            last_error=status.last_error,
            policy=status.policy.to_wire() if status.policy is not None else None,
            queue=queue,
            mirror=mirror,
        )


@attrs.frozen(kw_only=True)
class DeliveryView:
    """A command handed to the agent: params completed at delivery, the pause to keep, the settings it needs."""

    id: int
    type: str
    params: dict[str, Any]
    pause_seconds: float
    deliveries: int
    context: dict[str, Any]


@attrs.frozen(kw_only=True)
class PagesAck:
    accepted: bool
    issues: int
    history: int


@attrs.frozen(kw_only=True)
class CommandHeld:
    """``GET /agent/commands/{id}``: the command's status, whether the asking agent process still holds it
    (claimed and issued to it), and its ``deliveries``: only a process holding the latest delivery may write to
    Jira (DESIGN.md 5.4, 5.6: the fencing of deliveries)."""

    id: int
    status: str
    held: bool
    deliveries: int


@attrs.frozen(kw_only=True)
class ReportAck:
    """Whether the report changed the command, and the command's status now."""

    accepted: bool
    status: str


@attrs.frozen(kw_only=True)
class EventsAck:
    """What the hub did with the events (``POST /agent/events``): how many had each outcome
    (:class:`reconcile.jira.freshness.EventOutcome`), and the hub's refresh that reads what they could not bring, if
    one was queued or given more keys."""

    applied: int
    duplicate: int
    stale: int
    refresh_command_id: int | None
