"""Delivering the store's changes to its webhooks: asynchronously, at most once, unordered, as Jira DC 10 does.

After each REST request the ASGI app hands the changes the request made to :meth:`WebhookDispatcher.publish`:
it renders each change's body once (the issue as it is now, before another request can change it), picks the
webhooks that hear it, and posts each delivery from its own asyncio task with httpx, so the REST answer never
waits for a receiver. A delivery is signed ``X-Hub-Signature: sha256=<hex HMAC-SHA256 of the body>`` when its
webhook has a secret, and has no body when the webhook excludes it. Nothing is retried.

Injected faults (``POST /_sim/webhook_faults``) drop or duplicate the next deliveries, or delay each by the
injected clock's ``sleep`` (a test's fake clock does not wait). Every delivery is logged
(``GET /_sim/webhook_deliveries``); :meth:`WebhookDispatcher.settle` waits until none is pending, so an
in-process test needs no polling.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import math
import weakref
from collections.abc import Callable
from datetime import datetime
from typing import Any

import attrs
import httpx

from adapters.clock import Clock
from jira_sim.faults import stamp
from jira_sim.instance import BUILD_NUMBER, VERSION
from jira_sim.model import Change, Webhook
from jira_sim.render import Renderer
from jira_sim.webhook_payloads import payload
from jira_sim.webhooks import Webhooks

__all__ = ["WebhookDispatcher", "WebhookFaults", "signature"]

log = logging.getLogger(__name__)

_USER_AGENT = f"Atlassian HttpClient / JIRA-{'.'.join(map(str, VERSION))} ({BUILD_NUMBER}) / Default"
_TIMEOUT = httpx.Timeout(10.0)


def signature(secret: str, body: bytes) -> str:
    """The ``X-Hub-Signature`` value: ``sha256=`` and the hex HMAC-SHA256 of the body under the secret."""
    return "sha256=" + hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()


@attrs.define(kw_only=True)
class WebhookFaults:
    """The next ``drop`` deliveries are dropped, the next ``duplicate`` sent twice; each waits ``delay_ms``."""

    drop: int = 0
    duplicate: int = 0
    delay_ms: float = 0

    def set(self, *, drop: int | None = None, duplicate: int | None = None, delay_ms: float | None = None) -> None:
        """Replace the values given; ``ValueError`` names a bad one."""
        for name, value in (("drop", drop), ("duplicate", duplicate)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
                raise ValueError(f"webhook fault {name} must be a non-negative integer, not {value!r}")
        if delay_ms is not None and (
            isinstance(delay_ms, bool)
            or not isinstance(delay_ms, int | float)
            or not math.isfinite(delay_ms)
            or delay_ms < 0
        ):
            raise ValueError(f"webhook fault delay_ms must be a non-negative number, not {delay_ms!r}")
        self.drop = self.drop if drop is None else drop
        self.duplicate = self.duplicate if duplicate is None else duplicate
        self.delay_ms = self.delay_ms if delay_ms is None else float(delay_ms)

    def as_json(self) -> dict[str, Any]:
        return {"drop": self.drop, "duplicate": self.duplicate, "delay_ms": self.delay_ms}


class WebhookDispatcher:
    """Posts deliveries through ``transport`` (default: the network), timing delays with ``timer``."""

    def __init__(
        self, timer: Clock, now: Callable[[], datetime], transport: httpx.AsyncBaseTransport | None = None
    ) -> None:
        self.timer = timer
        self.now = now
        self.transport = transport
        self.faults = WebhookFaults()
        self._deliveries: list[dict[str, Any]] = []
        self._pending: set[asyncio.Task[None]] = set()
        # one client per event loop: a client's connections belong to the loop that opened them
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx.AsyncClient] = (
            weakref.WeakKeyDictionary()
        )

    @property
    def deliveries(self) -> list[dict[str, Any]]:
        """``[{id, url, event, key, status, at, duplicate}]`` in the order they were made.

        ``status`` is the receiver's HTTP status, ``None`` while pending, ``0`` when dropped by a fault or when
        the receiver could not be reached; ``at`` is when it was sent; ``duplicate`` marks a fault's copy.
        """
        return [dict(d) for d in self._deliveries]

    def clear_deliveries(self) -> None:
        self._deliveries.clear()

    def publish(self, store: Webhooks, base: str) -> None:
        """Deliver the changes ``store`` noted (and forget them); call from the event loop."""
        changes, store.changes = store.changes, []
        renderer = Renderer(store, base)
        for change in changes:
            body: bytes | None = None
            for webhook in store.subscribers(change):
                if webhook.exclude_body:
                    self._schedule(webhook, change, b"")
                    continue
                if body is None:
                    body = json.dumps(payload(change, renderer), ensure_ascii=False).encode("utf-8")
                self._schedule(webhook, change, body)

    async def settle(self) -> None:
        """Wait until every delivery made so far (and any made meanwhile) is done."""
        while self._pending:
            await asyncio.gather(*list(self._pending), return_exceptions=True)

    async def aclose(self) -> None:
        """Close the current event loop's client (the simulator may deliver again later with a new one)."""
        client = self._clients.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.aclose()

    def _schedule(self, webhook: Webhook, change: Change, body: bytes) -> None:
        entry = {
            "url": webhook.url,
            "event": change.event,
            "key": change.issue.key,
            "status": None,
            "at": None,
            "duplicate": False,
        }
        if self.faults.drop > 0:
            self.faults.drop -= 1
            self._log({**entry, "status": 0, "at": stamp(self.now())})
            return
        copies = 1
        if self.faults.duplicate > 0:
            self.faults.duplicate -= 1
            copies = 2
        loop = asyncio.get_running_loop()
        for copy in range(copies):
            logged = self._log({**entry, "duplicate": copy > 0})
            task = loop.create_task(self._send(logged, webhook, body, self.faults.delay_ms / 1000))
            self._pending.add(task)
            task.add_done_callback(self._pending.discard)

    def _log(self, entry: dict[str, Any]) -> dict[str, Any]:
        logged = {"id": len(self._deliveries) + 1, **entry}
        self._deliveries.append(logged)
        return logged

    async def _send(self, entry: dict[str, Any], webhook: Webhook, body: bytes, delay: float) -> None:
        if delay > 0:
            await self.timer.sleep(delay)
        headers = {"User-Agent": _USER_AGENT}
        if body:
            headers["Content-Type"] = "application/json; charset=UTF-8"
        if webhook.secret:
            headers["X-Hub-Signature"] = signature(webhook.secret, body)
        entry["at"] = stamp(self.now())
        try:
            response = await self._client().post(webhook.url, content=body, headers=headers)
        except Exception as exc:  # a receiver that fails is its own problem, as with Jira
            log.warning("webhook delivery %s to %s failed: %r", entry["id"], webhook.url, exc)
            entry["status"] = 0
            return
        entry["status"] = response.status_code

    def _client(self) -> httpx.AsyncClient:
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            client = self._clients[loop] = httpx.AsyncClient(transport=self.transport, timeout=_TIMEOUT)
        return client
