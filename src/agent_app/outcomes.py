"""How a command's execution ends when no executor report settles it, and the one ``command`` line it logs."""

from __future__ import annotations

import logging
from typing import Any

import attrs

from adapters.clock import Clock
from reconcile.plans.base import Delivery, Report

__all__ = ["CommandLine", "Crashed", "JiraUnreachable"]


@attrs.frozen(kw_only=True)
class Crashed:
    """A report the agent made itself: a bug around the executor, or a delivery outside the bank's policy."""

    report: Report
    jira_calls: int


@attrs.frozen(kw_only=True)
class JiraUnreachable:
    """Jira did not answer while executing: the outcome is unknown, the command waits for re-delivery."""

    error: Exception


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
