"""Test doubles of the *outside world* of the agent: a hub speaking DESIGN.md section 6's agent endpoints,
and a transport that loses requests or answers on the way (the network, not our code).

The fake hub keeps its state in plain dicts the tests can poke, but decides as the real hub does, with the
core's own rules: the claim by :func:`reconcile.queue.claim.decide_claim` (one command in flight, re-delivery of a
``claimed`` command with ``deliveries + 1``, failed at the delivery limit), the report by
:func:`reconcile.queue.reports.decide_report` (idempotent), whether a process still holds its command by
:func:`reconcile.queue.agents.holds_claim`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from typing import Any

import attrs
import httpx

from reconcile.config.settings import Settings
from reconcile.guard.policy import AgentPolicy
from reconcile.queue.agents import holds_claim
from reconcile.queue.claim import (
    Action,
    ClaimedCommand,
    ClaimSnapshot,
    FailCommand,
    Issue,
    QueuedCommand,
    Redeliver,
    decide_claim,
)
from reconcile.queue.reports import decide_report
from tests.support import T0

#: How long before a pause's end the agent asks the hub whether it may write (the fence's lead on a clock where
#: the hub answers at once: :mod:`agent_app.fence`).
LEAD = 0.05

#: The policy of an agent allowed only the seed's Jira project.
AURORA_ONLY = AgentPolicy(allow_projects=("AURORA",))


def waited(sleeps: list[float]) -> list[float]:
    """The fake clock's sleeps without float noise (a pause cut at its heartbeats and at the fence's lead)."""
    return [round(s, 9) for s in sleeps]


def command(command_id: int, type: str, params: dict[str, Any], pause_seconds: float = 0.0) -> dict[str, Any]:
    return {
        "id": command_id,
        "type": type,
        "params": params,
        "pause_seconds": pause_seconds,
        "deliveries": 0,
        "context": Settings().agent_context(),
    }


@attrs.define
class FakeHub:
    """The hub's agent endpoints over ``httpx.MockTransport``; ``requests`` lists ``"METHOD path"`` in order."""

    queue: list[dict[str, Any]] = attrs.field(factory=list)
    files: dict[str, bytes] = attrs.field(factory=dict)
    claimed: dict[str, Any] | None = None
    reports: list[tuple[int, dict[str, Any]]] = attrs.field(factory=list)
    pages: list[tuple[int, dict[str, Any]]] = attrs.field(factory=list)
    claims: list[dict[str, Any]] = attrs.field(factory=list)
    #: The bodies of ``POST /agent/status`` (what stalls the agent, its ``last_error``).
    problems: list[dict[str, Any]] = attrs.field(factory=list)
    requests: list[str] = attrs.field(factory=list)
    statuses: dict[int, str] = attrs.field(factory=dict)
    #: Every command the hub issued, by id (its type and deliveries).
    issued: dict[int, dict[str, Any]] = attrs.field(factory=dict)
    #: The process the last claim came from: the one holding the command in flight.
    active_instance: str | None = None
    #: Answers forced on the next claims, e.g. ``[409]``; a callable is awaited instead (a long poll).
    claim_answers: list[int | Callable[[], Awaitable[None]]] = attrs.field(factory=list)
    #: The ``Retry-After`` header of a forced 409 (the hub's seconds until the active agent counts as away).
    retry_after: str | None = None
    #: The agent's clock, when given: ``timeline`` then lists ``(time, "METHOD path")`` of every request.
    clock: Callable[[], float] | None = None
    timeline: list[tuple[float, str]] = attrs.field(factory=list)

    async def handle(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(f"{request.method} {request.url.path}")
        if self.clock is not None:
            self.timeline.append((self.clock(), self.requests[-1]))
        if request.headers.get("authorization") != "Bearer agent-secret":
            return httpx.Response(401, json={"status_code": 401, "detail": "нет токена"})
        path = request.url.path
        if path == "/agent/claim":
            body = json.loads(request.content)
            self.claims.append(body)
            if self.claim_answers:
                forced = self.claim_answers.pop(0)
                if callable(forced):
                    await forced()
                else:
                    headers = {"Retry-After": self.retry_after} if forced == 409 and self.retry_after else {}
                    body = {"status_code": forced, "detail": "другой агент активен"}
                    return httpx.Response(forced, json=body, headers=headers)
            self.active_instance = body.get("instance")
            for action in decide_claim(self._snapshot()).actions:
                self._carry_out(action)
            if self.claimed is None:
                return httpx.Response(204)
            return httpx.Response(200, json=self.claimed)
        if path == "/agent/status":
            self.problems.append(json.loads(request.content))
            return httpx.Response(204)
        if match := re.fullmatch(r"/agent/commands/(\d+)/report", path):
            command_id = int(match.group(1))
            body = json.loads(request.content)
            self.reports.append((command_id, body))
            if command_id not in self.issued:
                return httpx.Response(404, json={"status_code": 404, "detail": f"команды {command_id} нет"})
            return httpx.Response(200, json=self._report(self.issued[command_id], body))
        if match := re.fullmatch(r"/agent/commands/(\d+)", path):
            command_id = int(match.group(1))
            status = self.statuses.get(command_id)
            if status is None:
                return httpx.Response(404, json={"status_code": 404, "detail": f"команды {command_id} нет"})
            instance = request.url.params.get("instance")
            held = status == "claimed" and holds_claim(instance, active_instance=self.active_instance)
            deliveries = self.issued[command_id]["deliveries"]
            return httpx.Response(
                200, json={"id": command_id, "status": status, "held": held, "deliveries": deliveries}
            )
        if match := re.fullmatch(r"/agent/commands/(\d+)/pages", path):
            self.pages.append((int(match.group(1)), json.loads(request.content)))
            return httpx.Response(200, json={"accepted": True})
        if match := re.fullmatch(r"/agent/files/([0-9a-f]{64})", path):
            content = self.files.get(match.group(1))
            if content is None:
                return httpx.Response(404, json={"status_code": 404, "detail": "файла нет"})
            return httpx.Response(200, content=content)
        return httpx.Response(404, json={"status_code": 404, "detail": "Not Found"})

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)

    def _snapshot(self) -> ClaimSnapshot:
        """The queue as :func:`decide_claim` reads it: one batch, the command in flight, the queued in order."""
        claimed = self.claimed
        return ClaimSnapshot(
            claimed=()
            if claimed is None
            else (ClaimedCommand(id=claimed["id"], claimed_at=T0, deliveries=claimed["deliveries"]),),
            queued_head=tuple(
                QueuedCommand(
                    id=queued["id"],
                    batch_id=1,
                    type=queued["type"],
                    params=queued["params"],
                    temp_key=queued["params"].get("temp_key") if queued["type"] == "ensure_issue" else None,
                )
                for queued in self.queue
            ),
        )

    def _carry_out(self, action: Action) -> None:
        if isinstance(action, FailCommand):
            self.statuses[action.id] = "failed"
            self.claimed = None
        elif isinstance(action, Redeliver):
            assert self.claimed is not None
            self.claimed["deliveries"] = action.deliveries
        elif isinstance(action, Issue):
            [issued] = [queued for queued in self.queue if queued["id"] == action.id]
            self.queue.remove(issued)
            self.claimed = self.issued[action.id] = {**issued, "params": action.params, "deliveries": 1}
            self.statuses[action.id] = "claimed"
        else:
            self.queue = [queued for queued in self.queue if queued["id"] != action.id]
            self.statuses[action.id] = "skipped"

    def _report(self, issued: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
        """The hub's answer to a report of a command it issued."""
        decision = decide_report(
            command_type=issued["type"],
            current_status=self.statuses[issued["id"]],
            current_error=None,
            reported_status=body["status"],
            result=body.get("result") or {},
            refresh_finished=True,
        )
        if decision.record:
            self.statuses[issued["id"]] = body["status"]
            if self.claimed is not None and self.claimed["id"] == issued["id"]:
                self.claimed = None
        return {"accepted": decision.accepted, "status": decision.status}


Hook = Callable[[httpx.Request], Awaitable[None] | None]


@attrs.define
class Fault:
    """On requests matching ``method`` and ``path_regex``: ``before`` raises instead of sending, ``after``
    sends, then raises (the answer is lost), ``status`` answers that code instead of sending; ``times``."""

    method: str
    path_regex: str
    mode: str  # "before" | "after" | "status" | "pass" (only the hook)
    times: int = 1
    status: int = 503
    error: type[httpx.TransportError] = httpx.ConnectError
    hook: Hook | None = None

    def matches(self, request: httpx.Request) -> bool:
        return (
            self.times > 0
            and request.method == self.method
            and re.search(self.path_regex, request.url.path) is not None
        )


class FlakyTransport(httpx.AsyncBaseTransport):
    """Wraps a real transport and applies :class:`Fault` s; ``hook`` runs on every matching request."""

    def __init__(self, inner: httpx.AsyncBaseTransport, faults: list[Fault] | None = None) -> None:
        self.inner = inner
        self.faults = faults or []
        self.seen: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(f"{request.method} {request.url.path}")
        fault = next((f for f in self.faults if f.matches(request)), None)
        if fault is None:
            return await self.inner.handle_async_request(request)
        fault.times -= 1
        if fault.hook is not None:
            result = fault.hook(request)
            if result is not None:
                await result
        if fault.mode == "before":
            raise fault.error("fault injected before sending", request=request)
        if fault.mode == "pass":
            return await self.inner.handle_async_request(request)
        if fault.mode == "status":
            return httpx.Response(fault.status, json={"status_code": fault.status, "detail": "fault"})
        response = await self.inner.handle_async_request(request)
        await response.aread()
        raise fault.error("fault injected after the answer", request=request)

    async def aclose(self) -> None:
        await self.inner.aclose()
