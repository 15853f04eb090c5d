"""The httpx client the agent uses to talk to the hub's ``/agent/*`` endpoints (DESIGN.md section 6).

Errors split by what the caller can do about them::

    HubError
    ├── HubUnreachable      no answer: a transport error, or a 5xx (the hub or a proxy in front of it is
    │                       down); retrying later may help
    └── HubRefused          the hub answered 4xx: ``status_code`` and ``detail``; retrying the same request
        └── ClaimConflict   will not help
                            409 on claim: another agent process is active (``retry_after``: when it
                            would count as away)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import attrs
import httpx

from adapters.targets import Target, explain, explain_status, http_client
from reconcile.executors import Delivery, Operation, Page, Report
from reconcile.vocabulary import body_text, converter, issue_to_wire

__all__ = [
    "UNKNOWN_COMMAND",
    "ClaimConflict",
    "CommandHeld",
    "HubClient",
    "HubError",
    "HubRefused",
    "HubUnreachable",
    "ReportAck",
    "page_to_wire",
    "report_from_wire",
    "report_to_wire",
]


class HubError(Exception):
    """Base of the hub client's errors."""


class HubUnreachable(HubError):
    """The hub did not answer (transport error or a 5xx): the request may or may not have been processed."""


class HubRefused(HubError):
    """The hub answered with a 4xx: the request is wrong for the hub's current state."""

    def __init__(self, status_code: int, detail: str, *, explained: str | None = None) -> None:
        super().__init__(f"HTTP {status_code}: {detail}")
        self.status_code = status_code
        self.detail = detail
        #: One line naming the hub's URL and the fix, for answers that point at a setting (404, 401, 403).
        self.explained = explained


class ClaimConflict(HubRefused):
    """409 on claim: another agent process is active (DESIGN.md 5.4, «Exactly one agent may be active»)."""

    def __init__(self, status_code: int, detail: str, retry_after: float | None = None) -> None:
        super().__init__(status_code, detail)
        self.retry_after = retry_after


#: The status :meth:`HubClient.command_held` gives a command the hub does not have (404).
UNKNOWN_COMMAND = "unknown"


@attrs.frozen(kw_only=True)
class CommandHeld:
    """The hub's answer before a write: the command's status, whether this process still holds it, and the
    number of its latest delivery (``None`` from a hub that does not say)."""

    status: str
    held: bool
    deliveries: int | None = None


@attrs.frozen(kw_only=True)
class ReportAck:
    """The hub's answer to a report: whether it changed the command, and the command's status now."""

    accepted: bool
    status: str


def page_to_wire(page: Page) -> dict[str, Any]:
    return {
        "page": page.page,
        "kind": page.kind,
        "issues": [issue_to_wire(issue) for issue in page.issues],
        "history": [converter.unstructure(entry) for entry in page.history],
    }


def report_to_wire(report: Report, jira_calls: int, *, difference: Sequence[Mapping[str, Any]] = ()) -> dict[str, Any]:
    """A report as the hub takes it; with ``difference``, the ``stale_plan`` outcome (DESIGN.md 6.5)."""
    body: dict[str, Any] = {
        "status": report.status,
        "result": dict(report.result),
        "jira_calls": jira_calls,
        "operations": [op.to_json() for op in report.operations],
    }
    if report.error is not None:
        body["error"] = report.error
    if difference:
        body["outcome"] = "stale_plan"
        body["difference"] = [dict(item) for item in difference]
    return body


def report_from_wire(data: dict[str, Any]) -> tuple[Report, int]:
    """The inverse of :func:`report_to_wire` (the agent's journal stores the wire form)."""
    report = Report(
        status=data["status"],
        result=data.get("result") or {},
        error=data.get("error"),
        operations=tuple(Operation(**op) for op in data.get("operations") or ()),
    )
    return report, int(data.get("jira_calls") or 0)


def _detail(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return body_text(response.text, response.status_code)[:500]  # a proxy's HTML page: by its title
    if isinstance(body, dict) and "detail" in body:
        return str(body["detail"])
    return str(body)[:500]


class HubClient:
    """``Authorization: Bearer <agent token>``; one instance per agent process."""

    def __init__(
        self,
        base_url: str | Target,
        token: str,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        timeout: float = 30.0,
    ) -> None:
        self._timeout = timeout
        self.target = base_url if isinstance(base_url, Target) else Target(name="hub", url=base_url)
        self._http = http_client(
            self.target, headers={"Authorization": f"Bearer {token}"}, transport=transport, timeout=timeout
        )

    async def __aenter__(self) -> HubClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def _request(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        read_seconds: float | None = None,
        refusal: Callable[[httpx.Response, str], HubRefused] | None = None,
        allow: Iterable[int] = (),
        params: dict[str, str] | None = None,
    ) -> httpx.Response:
        try:
            response = await self._http.request(
                method,
                path,
                json=json,
                params=params,
                timeout=read_seconds if read_seconds is not None else self._timeout,
            )
        except httpx.TransportError as exc:
            raise HubUnreachable(f"{method} {path}: {explain(self.target, exc)}") from exc
        if response.status_code >= 500:
            raise HubUnreachable(f"{method} {path}: HTTP {response.status_code}: {_detail(response)}")
        if response.status_code >= 400 and response.status_code not in set(allow):
            detail = _detail(response)
            error = refusal(response, detail) if refusal is not None else HubRefused(response.status_code, detail)
            if response.status_code in (401, 403, 404) and not isinstance(error, ClaimConflict):
                error.explained = explain_status(self.target, method, path, response.status_code, detail)
            raise error
        return response

    async def claim(
        self,
        *,
        agent_id: str,
        version: str,
        instance: str | None = None,
        jira_user: str | None = None,
        jira_time_zone: str | None = None,
        jira_base_url: str | None = None,
        symmetric_link_types: Iterable[str] = (),
        wait: float | None = None,
        policy: dict[str, Any] | None = None,
    ) -> Delivery | None:
        """``POST /agent/claim``: the delivered command, or ``None`` when the hub had nothing (204).

        The agent claims only once Jira answers, so the hub clears the agent's ``last_error`` on a claim."""
        body: dict[str, Any] = {
            "agent_id": agent_id,
            "version": version,
            "jira_user": jira_user,
            "jira_time_zone": jira_time_zone,
            "jira_base_url": jira_base_url,
            "symmetric_link_types": sorted(symmetric_link_types),
        }
        if instance is not None:
            body["instance"] = instance
        if wait is not None:
            body["wait"] = wait
        if policy is not None:
            body["policy"] = policy
        # The long poll holds the request up to ``wait`` seconds: the read timeout must outlast it.
        response = await self._request(
            "POST",
            "/agent/claim",
            json=body,
            read_seconds=self._timeout + (wait or 0),
            refusal=_claim_refusal,
        )
        if response.status_code == 204:
            return None
        data = response.json()
        return Delivery(
            id=int(data["id"]),
            type=str(data["type"]),
            params=data.get("params") or {},
            pause_seconds=float(data.get("pause_seconds") or 0),
            deliveries=int(data.get("deliveries") or 1),
            context=data.get("context") or {},
        )

    async def report_problem(
        self,
        *,
        agent_id: str,
        version: str,
        instance: str | None,
        last_error: str | None,
        read_seconds: float | None = None,
        pause_command_id: int | None = None,
        pause_left_seconds: float | None = None,
        policy: dict[str, Any] | None = None,
    ) -> None:
        """``POST /agent/status``: the agent is alive (a heartbeat), and what keeps it waiting (``None``: nothing),
        shown by ``/agent-status`` and the page; the command it holds with what is left of its pause; and its
        pace (``policy``: its bank's floors and write budget). ``read_seconds``: the longest this may take."""
        body: dict[str, Any] = {"agent_id": agent_id, "version": version, "last_error": last_error}
        if instance is not None:
            body["instance"] = instance
        if pause_command_id is not None and pause_left_seconds is not None:
            body["pause_command_id"] = pause_command_id
            body["pause_left_seconds"] = pause_left_seconds
        if policy is not None:
            body["policy"] = policy
        await self._request("POST", "/agent/status", json=body, refusal=_claim_refusal, read_seconds=read_seconds)

    async def check(self) -> None:
        """For ``sdlc-agent check``: the hub answers at this base URL and takes the token (raises otherwise)."""
        await self._request("GET", "/health")
        # A command that cannot exist: the hub answers 404 once the token is taken, 401/403 otherwise.
        await self._request("GET", "/agent/commands/0", allow=(404,))

    async def command_held(self, command_id: int, instance: str | None) -> CommandHeld:
        """``GET /agent/commands/{id}``: asked before writing; a command the hub no longer has is not held."""
        params = {"instance": instance} if instance is not None else None
        response = await self._request("GET", f"/agent/commands/{command_id}", params=params, allow=(404,))
        if response.status_code == 404:
            return CommandHeld(status=UNKNOWN_COMMAND, held=False)
        data = response.json()
        deliveries = data.get("deliveries")
        return CommandHeld(
            status=str(data.get("status")),
            held=data.get("held") is True,
            deliveries=deliveries if isinstance(deliveries, int) and not isinstance(deliveries, bool) else None,
        )

    async def post_page(self, command_id: int, page: Page) -> None:
        """``POST /agent/commands/{id}/pages``: one page of a refresh (idempotent upserts on the hub)."""
        await self._request("POST", f"/agent/commands/{command_id}/pages", json=page_to_wire(page))

    async def report(self, command_id: int, report: Report, jira_calls: int) -> ReportAck:
        """``POST /agent/commands/{id}/report`` (idempotent on the hub)."""
        return await self.report_wire(command_id, report_to_wire(report, jira_calls))

    async def report_wire(self, command_id: int, body: dict[str, Any]) -> ReportAck:
        """The same as :meth:`report` with the body already in wire form (as the journal keeps it)."""
        response = await self._request("POST", f"/agent/commands/{command_id}/report", json=body)
        data = response.json()
        return ReportAck(accepted=bool(data.get("accepted")), status=str(data.get("status")))

    async def post_events(self, events: list[dict[str, Any]]) -> dict[str, Any]:
        """``POST /agent/events``: Jira's webhook events as wire events (idempotent on the hub); its answer."""
        response = await self._request("POST", "/agent/events", json={"events": events})
        data = response.json()
        return data if isinstance(data, dict) else {}

    async def fetch_file(self, sha256: str) -> bytes | None:
        """``GET /agent/files/{sha}``: the bytes, or ``None`` when the hub no longer has the file (404)."""
        response = await self._request("GET", f"/agent/files/{sha256}", allow=(404,))
        if response.status_code == 404:
            return None
        return response.content


def _retry_after(response: httpx.Response) -> float | None:
    try:
        seconds = float(response.headers.get("retry-after", ""))
    except ValueError:
        return None
    return seconds if math.isfinite(seconds) and seconds >= 0 else None


def _claim_refusal(response: httpx.Response, detail: str) -> HubRefused:
    if response.status_code == 409:
        return ClaimConflict(response.status_code, detail, _retry_after(response))
    return HubRefused(response.status_code, detail)
