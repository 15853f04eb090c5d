"""The public face of the simulator: state, recorded calls, injected faults, the rate limit, webhook deliveries
and the ASGI app."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import httpx

from adapters.clock import Clock, SystemClock
from jira_sim import control
from jira_sim.asgi import App, make_app
from jira_sim.control import Controls
from jira_sim.faults import FaultBook
from jira_sim.rate_limit import RateLimiter, RateLimitPolicy
from jira_sim.render import Renderer
from jira_sim.seed import load_sample
from jira_sim.store import Store
from jira_sim.webhook_delivery import WebhookDispatcher

__all__ = ["Simulator"]


def _real_clock() -> datetime:
    return datetime.now(UTC)


class Simulator:
    """An in-memory Jira Data Center 10.3.

    ``seed`` is a seed dict (``None``: the built-in sample); ``clock`` returns aware UTC datetimes and stamps
    every change, ``created``/``updated`` and relative JQL dates. ``timer`` (monotonic time and sleep, default
    the system's) runs the rate-limit buckets and the webhook delays, so a test with a
    :class:`adapters.clock.FakeClock` never waits. Webhook deliveries go through ``webhook_transport`` (default:
    the network), e.g. an ``httpx.ASGITransport`` of an in-process receiver.
    """

    def __init__(
        self,
        seed: dict[str, Any] | None = None,
        *,
        clock: Callable[[], datetime] | None = None,
        timer: Clock | None = None,
        webhook_transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.store = Store(seed if seed is not None else load_sample(), clock or _real_clock)
        timer = timer or SystemClock()
        self.controls = Controls(
            faults=FaultBook(),
            rate_limit=RateLimiter(timer),
            webhooks=WebhookDispatcher(timer, self.store.now, webhook_transport),
        )
        self.faults = self.controls.faults
        self.asgi: App = make_app(self.store, self.controls)
        # the controls' operations, offered as the simulator's own (see FaultBook.add for the arguments)
        self.add_fault = self.faults.add
        self.clear_faults = self.faults.clear_faults
        self.clear_calls = self.faults.clear_calls

    @property
    def calls(self) -> list[dict[str, Any]]:
        """Every ``/rest/*`` call in order: ``{method, path, status, at}`` (``status`` 0 = dropped)."""
        return self.faults.calls

    def reset(self) -> None:
        """Back to the seed: issues, counters, calls, faults, no rate limit, no webhooks or deliveries."""
        control.reset(self.store, self.controls)

    def raw_issue(self, key: str) -> dict[str, Any]:
        """The stored issue with its changelog, as plain JSON values."""
        return control.raw_issue(self.store, key)

    def issue_json(self, key: str) -> dict[str, Any]:
        """What ``GET /rest/api/2/issue/{key}`` would answer (all fields, no changelog)."""
        return Renderer(self.store, "http://jira.test").issue(self.store.issue(key))

    def set_rate_limit(self, fill_per_second: float, max_tokens: int) -> RateLimitPolicy:
        """A token bucket per user: ``fill_per_second`` tokens a second (in Jira's whole-number form), ``max``."""
        return self.controls.rate_limit.configure(fill_per_second, max_tokens)

    def clear_rate_limit(self) -> None:
        self.controls.rate_limit.off()

    def set_webhook_faults(
        self, *, drop: int | None = None, duplicate: int | None = None, delay_ms: float | None = None
    ) -> None:
        """Drop or duplicate the next deliveries, or delay each (the values given replace the current ones)."""
        self.controls.webhooks.faults.set(drop=drop, duplicate=duplicate, delay_ms=delay_ms)

    @property
    def webhook_deliveries(self) -> list[dict[str, Any]]:
        """``[{id, url, event, key, status, at, duplicate}]`` (``status`` ``None`` = pending, 0 = not delivered)."""
        return self.controls.webhooks.deliveries

    async def settle_webhooks(self) -> None:
        """Wait until every webhook delivery made so far is done (in-process tests: call from the same loop)."""
        await self.controls.webhooks.settle()

    async def aclose(self) -> None:
        """Close the webhook client of the current event loop."""
        await self.controls.webhooks.aclose()
