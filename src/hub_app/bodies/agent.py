"""Bodies the agent sends: its claim, what keeps it from claiming, a refresh's pages, a delivery's report."""

from __future__ import annotations

from typing import Any, Literal

import attrs

from hub_app.bodies.parsing import HIDDEN, is_db_int, meta
from reconcile.jira import WebhookEvent, wire_event
from reconcile.types import Difference, WriteLine
from reconcile.vocabulary import HistoryEntry, MirrorIssue, ValidationError, wire_history, wire_issue

__all__ = ["AgentProblemIn", "ClaimIn", "EventIn", "EventsIn", "OperationIn", "PagesIn", "ReportIn"]


@attrs.frozen(kw_only=True)
class ClaimIn:
    agent_id: str = attrs.field(metadata=meta("nonempty"))
    version: str | None = attrs.field(default=None, metadata=meta("str?"))
    jira_user: str | None = attrs.field(default=None, metadata=meta("str?"))
    jira_time_zone: str | None = attrs.field(default=None, metadata=meta("str?"))
    jira_base_url: str | None = attrs.field(
        default=None, metadata=meta("str?", "baseUrl из serverInfo Jira: страница ссылается на задачи в Jira")
    )
    symmetric_link_types: list[str] | None = attrs.field(default=None, metadata=meta("list[str]"))
    wait: float | None = attrs.field(default=None, metadata=meta("number", "секунды долгого запроса"))
    instance: str | None = attrs.field(
        default=None,
        metadata=meta("str?", "процесс агента (из его журнала): второй процесс с тем же agent_id получает 409"),
    )
    policy: dict[str, Any] | None = attrs.field(
        default=None,
        metadata=meta(
            "dict?",
            'темп агента по его политике банка: {min_gap: {тип: секунды, "*": секунды}, max_writes_per_hour}; '
            "оценки пакета идут в этом темпе",
        ),
    )
    given: frozenset[str] = attrs.field(default=frozenset(), metadata=HIDDEN)


@attrs.frozen(kw_only=True)
class AgentProblemIn:
    """What keeps the agent from claiming (``POST /agent/status``): one line naming the URL and the fix."""

    agent_id: str = attrs.field(metadata=meta("nonempty"))
    version: str | None = attrs.field(default=None, metadata=meta("str?"))
    instance: str | None = attrs.field(default=None, metadata=meta("str?", "процесс агента (из его журнала)"))
    last_error: str | None = attrs.field(
        metadata=meta("str?", "почему агент не может работать; null — больше ничего не мешает")
    )
    pause_command_id: int | None = attrs.field(
        default=None, metadata=meta("int?", "команда, паузу перед которой агент сейчас выжидает")
    )
    pause_left_seconds: float | None = attrs.field(
        default=None, metadata=meta("number", "сколько секунд паузы перед этой командой осталось")
    )
    policy: dict[str, Any] | None = attrs.field(
        default=None,
        metadata=meta(
            "dict?",
            'темп агента по его политике банка: {min_gap: {тип: секунды, "*": секунды}, max_writes_per_hour}; '
            "оценки пакета идут в этом темпе",
        ),
    )
    given: frozenset[str] = attrs.field(default=frozenset(), metadata=HIDDEN)


@attrs.frozen(kw_only=True)
class PagesIn:
    """One page of a refresh; the records are checked strictly by :func:`reconcile.vocabulary.records.wire_issue`."""

    page: int = attrs.field(metadata=meta("int"))
    kind: Literal["issues", "neighbours", "history"] | None = attrs.field(default=None, metadata=meta("str"))
    issues: list[MirrorIssue] | None = attrs.field(default=None, metadata=meta("list", item=wire_issue))
    history: list[HistoryEntry] | None = attrs.field(default=None, metadata=meta("list", item=wire_history))


@attrs.frozen(kw_only=True)
class OperationIn:
    """A write the agent made in Jira."""

    method: str
    path: str
    status: int


def _operation(value: Any, what: str) -> OperationIn:
    if not (
        isinstance(value, dict)
        and set(value) == {"method", "path", "status"}
        and isinstance(value["method"], str)
        and isinstance(value["path"], str)
        and is_db_int(value["status"])
    ):
        raise ValidationError(f"{what}: ожидается объект {{method, path, status}}")
    return OperationIn(method=value["method"], path=value["path"], status=value["status"])


def _difference(value: Any, what: str) -> dict[str, Any]:
    """One write the agent found not approved (:class:`reconcile.types.write_lines.Difference`), its words the hub's."""
    lines = {name: value.get(name) for name in ("now", "approved")} if isinstance(value, dict) else {}
    if not (
        isinstance(value, dict)
        and isinstance(lines["now"], dict)
        and (lines["approved"] is None or isinstance(lines["approved"], dict))
        and all(isinstance(line.get(k), str) for line in lines.values() if line is not None for k in ("key", "aspect"))
    ):
        raise ValidationError(f"{what}: ожидается объект {{now: {{key, aspect, from?, to}}, approved}}")
    approved = None if lines["approved"] is None else WriteLine.from_json(lines["approved"])
    return Difference(found=WriteLine.from_json(lines["now"]), approved=approved).to_json()


@attrs.frozen(kw_only=True)
class ReportIn:
    status: Literal["done", "failed"] = attrs.field(metadata=meta("str"))
    result: dict[str, Any] | None = attrs.field(default=None, metadata=meta("dict?"))
    error: str | None = attrs.field(default=None, metadata=meta("str?"))
    jira_calls: int | None = attrs.field(default=None, metadata=meta("int?"))
    operations: list[OperationIn] | None = attrs.field(default=None, metadata=meta("list", item=_operation))
    outcome: str | None = attrs.field(
        default=None,
        metadata=meta(
            "str?", "stale_plan: команда не выполнена — запись, которой нет в одобренном плане (DESIGN.md 6.5)"
        ),
    )
    difference: list[dict[str, Any]] | None = attrs.field(
        default=None, metadata=meta("list", "записи, которых нет в одобренном плане", item=_difference)
    )


@attrs.frozen(kw_only=True)
class EventIn:
    """A Jira webhook event as the agent relays it (DESIGN.md 6.2), checked by
    :func:`reconcile.jira.webhook_events.wire_event`."""

    event: str | None = attrs.field(metadata=meta("str?", "webhookEvent; null: a delivery without a body"))
    key: str | None = attrs.field(metadata=meta("str?", "the issue's key, when the payload names it"))
    at: str = attrs.field(metadata=meta("str", "the event's time (Jira's timestamp), UTC ISO-8601"))
    issue: MirrorIssue | None = attrs.field(default=None, metadata=meta("dict?", "the issue, as a search page's"))
    history: HistoryEntry | None = attrs.field(
        default=None, metadata=meta("dict?", "the change it announces (user, changelog) as a journal entry")
    )

    @property
    def hint(self) -> WebhookEvent:
        return WebhookEvent(event=self.event, key=self.key, at=self.at, issue=self.issue, history=self.history)


def _event(value: Any, what: str) -> EventIn:
    found = wire_event(value, what)
    return EventIn(event=found.event, key=found.key, at=found.at, issue=found.issue, history=found.history)


@attrs.frozen(kw_only=True)
class EventsIn:
    """Jira's webhook events the agent received (``POST /agent/events``)."""

    events: list[EventIn] = attrs.field(metadata=meta("list", item=_event))
