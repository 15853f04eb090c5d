"""How a command's execution ends when no executor report settles it, and the one ``command`` line it logs."""

from __future__ import annotations

import logging
from typing import Any

import attrs
import httpx

from adapters.clock import Clock
from adapters.hub_client import HubRefused
from adapters.jira_http import JiraAuthError, JiraError
from agent_app.drive import DriveOutcome
from agent_app.retry import Stopped
from reconcile.executors import Delivery, Report

__all__ = ["AgentFatal", "CommandLine", "Ending", "JiraUnreachable", "agent_report", "ended", "token_refused"]


class AgentFatal(Exception):
    """The agent cannot go on (the hub or Jira refused its credentials)."""


@attrs.frozen(kw_only=True)
class JiraUnreachable:
    """Jira did not answer while executing: the outcome is unknown, the command waits for re-delivery."""

    error: Exception


#: What executing a delivery comes to: a report to send, the outcome already logged (nothing to send), or Jira
#: away (the outcome logged; the agent waits for Jira before it claims again).
Ending = DriveOutcome | str | JiraUnreachable


@attrs.define(kw_only=True)
class CommandLine:
    """The one ``command`` event logged for a command, with its fields and duration."""

    clock: Clock
    started: float
    fields: dict[str, Any]
    log: logging.Logger

    @classmethod
    def of(cls, delivery: Delivery, clock: Clock, log: logging.Logger) -> CommandLine:
        key = delivery.params.get("key")
        fields = {
            "command_id": delivery.id,
            "type": delivery.type,
            **({"key": key} if isinstance(key, str) else {}),
            "deliveries": delivery.deliveries,
        }
        return cls(clock=clock, started=clock.monotonic(), fields=fields, log=log)

    def finish(self, outcome: str, **extra: Any) -> str:
        duration_ms = round((self.clock.monotonic() - self.started) * 1000)
        self.log.info("command", extra={**self.fields, "outcome": outcome, "duration_ms": duration_ms, **extra})
        return outcome


def agent_report(error: str) -> DriveOutcome:
    """A report the agent makes itself, without a Jira call: a delivery outside the bank's policy, or a bug."""
    return DriveOutcome(report=Report(status="failed", error=error), jira_calls=0)


def token_refused(error: HubRefused) -> AgentFatal | None:
    """The hub refused the agent's token (401/403): nothing could tell the hub why, so the agent stops."""
    if error.status_code in (401, 403):
        return AgentFatal(f"the hub refused the agent's token: {error}")
    return None


def ended(error: Exception, line: CommandLine) -> Ending:
    """What a drive that raised instead of returning a report comes to (logged); raises :class:`AgentFatal`
    when the hub refused the agent's token."""
    if isinstance(error, Stopped):
        return line.finish("abandoned", jira_calls=None)
    if isinstance(error, JiraAuthError):
        # Nothing was written by the refused call; the command is re-delivered once Jira takes the agent.
        line.finish("jira_refused", jira_calls=None, error=str(error))
        return JiraUnreachable(error=error)
    if isinstance(error, httpx.TransportError | JiraError):
        line.finish("jira_unreachable", jira_calls=None, error=f"{type(error).__name__}: {error}")
        return JiraUnreachable(error=error)
    if isinstance(error, HubRefused):
        if (fatal := token_refused(error)) is not None:
            raise fatal from error
        return line.finish("hub_refused", jira_calls=None, error=str(error))
    # A bug in the agent around the executor (the executor's own bugs end in its report) is deterministic:
    # re-delivery would crash the same way, so the command is reported failed with the error for a person to read
    # (and retry once fixed).
    line.log.error("executor_error", extra={"command_id": line.fields["command_id"]}, exc_info=error)
    return agent_report(f"ошибка агента: {type(error).__name__}: {error}")
