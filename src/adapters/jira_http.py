"""The httpx Jira client that drives the sans-I/O executors (DESIGN.md 5.1, 5.2).

It carries out the steps an executor yields: :class:`JiraCall` over HTTP (429/503 retried after
``Retry-After``, every try counted in ``jira_calls``), :class:`Pause` measured from the last Jira call,
:class:`FetchFile` through the agent's hub client, :class:`Page` through the agent's page sender. It keeps
no log of its own: the executor checks the fetched bytes and its report lists the writes made. Connection
errors propagate as ``httpx.TransportError`` and a 401 as :class:`JiraAuthError`: the agent decides (the
command is then re-delivered, never failed for it).

What happens around the calls is the agent's, through a :class:`Watch` (DESIGN.md 5.5, 5.6): every wait of a
command (its pauses, the waits before a 429/503 is tried again) and the word before each write (the delivery
check, the write budget). Without one the driver only sleeps on its clock.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol

import attrs
import httpx

from adapters.clock import Clock, SystemClock
from adapters.targets import Target, explain, explain_status, http_client, shown
from reconcile.plans.base import (
    Dropped,
    ExecContext,
    Executor,
    FetchFile,
    JiraCall,
    JiraResponse,
    Page,
    Pause,
    Report,
)

__all__ = ["DriveOutcome", "JiraAuthError", "JiraError", "JiraHttp", "Retry", "Watch", "explain_jira"]

_RETRY_STATUSES = frozenset({429, 503})


class JiraError(Exception):
    """Jira answered a call outside any command (``myself``, ``issueLinkType``) with an error."""

    def __init__(self, status: int, message: str, *, method: str = "GET", path: str = "") -> None:
        super().__init__(f"HTTP {status}: {message}" if message else f"HTTP {status}")
        self.status = status
        self.message = message
        self.method = method
        self.path = path


class JiraAuthError(JiraError):
    """Jira refused the agent's credentials: 401 on any call, 403 on ``myself``/``issueLinkType``."""


def explain_jira(target: Target, error: Exception) -> str:
    """One line for an error of the agent's Jira client: the URL, what happened, the setting to check."""
    if isinstance(error, httpx.TransportError):
        return explain(target, error)
    if isinstance(error, JiraError):
        return explain_status(target, error.method, error.path, error.status, error.message)
    return f"{target.name} at {shown(target.base_url)}: {type(error).__name__}: {error}"


@attrs.frozen(kw_only=True)
class DriveOutcome:
    report: Report
    jira_calls: int


@attrs.frozen(kw_only=True)
class Retry:
    """Jira answered ``status`` (429 or 503) to ``call``: try ``attempt`` of ``of`` follows in ``seconds``."""

    call: JiraCall
    status: int
    attempt: int
    of: int
    seconds: float


class Watch(Protocol):
    """What the agent does around one command's calls (DESIGN.md 5.5, 5.6)."""

    async def pause(self, seconds: float) -> None:
        """Wait out an executor's :class:`Pause`: ``seconds`` are what is left of it (``0``: already over)."""

    async def retry(self, retry: Retry) -> None:
        """Wait before trying ``retry.call`` again."""

    async def before_write(self, call: JiraCall) -> str | None:
        """Asked before every write: ``None`` lets it go, a message drops the command there."""


class _Sleeping:
    """The watch of a driver used alone (tests, benchmarks): its waits are sleeps on its clock."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock

    async def pause(self, seconds: float) -> None:
        if seconds > 0:
            await self._clock.sleep(seconds)

    async def retry(self, retry: Retry) -> None:
        await self._clock.sleep(retry.seconds)

    async def before_write(self, call: JiraCall) -> str | None:
        return None


def _retry_after(headers: Mapping[str, str], default: float) -> float:
    """Seconds from ``Retry-After`` (delta-seconds form); the default when absent or a date."""
    value = headers.get("retry-after")
    if value is None:
        return default
    try:
        return max(float(value.strip()), 0.0)
    except ValueError:
        return default


def _body(response: httpx.Response) -> Any:
    if not response.content:
        return None
    try:
        return response.json()
    except ValueError:
        return response.text


def _message(body: Any) -> str:
    if isinstance(body, Mapping):
        messages = body.get("errorMessages")
        parts = [str(m) for m in messages] if isinstance(messages, list) else [str(messages or "")]
        errors = body.get("errors")
        if isinstance(errors, Mapping):
            parts.extend(f"{k}: {v}" for k, v in errors.items())
        return "; ".join(p for p in parts if p)[:1000]
    return str(body or "")[:500]


class JiraHttp:
    def __init__(
        self,
        client: httpx.AsyncClient,
        *,
        clock: Clock,
        target: Target | None = None,
        retry_default_seconds: float = 30,
        max_retries: int = 5,
    ) -> None:
        self._client = client
        self.target = target or Target(name="jira", url=str(client.base_url))
        self._clock = clock
        self._retry_default = retry_default_seconds
        self._max_retries = max_retries
        self._started_at = clock.monotonic()
        self._last_call_at: float | None = None
        self._myself: tuple[str, str | None] | None = None
        self._link_types: tuple[frozenset[str], frozenset[str]] | None = None

    @classmethod
    def connect(
        cls,
        base_url: str | Target,
        *,
        token: str | None = None,
        user: str | None = None,
        password: str | None = None,
        clock: Clock | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        timeout: float = 60,
        retry_default_seconds: float = 30,
        max_retries: int = 5,
    ) -> JiraHttp:
        """A client for Jira at ``base_url`` (with its TLS and proxy settings when a :class:`Target`): a personal
        access token (Bearer) or basic auth."""
        target = base_url if isinstance(base_url, Target) else Target(name="jira", url=base_url)
        headers = {"Accept": "application/json"}
        auth: httpx.BasicAuth | None = None
        if token:
            headers["Authorization"] = f"Bearer {token}"
        elif user is not None:
            auth = httpx.BasicAuth(user, password or "")
        client = http_client(target, headers=headers, auth=auth, transport=transport, timeout=timeout)
        return cls(
            client,
            clock=clock or SystemClock(),
            target=target,
            retry_default_seconds=retry_default_seconds,
            max_retries=max_retries,
        )

    @property
    def last_call_at(self) -> float | None:
        """``clock.monotonic()`` when the last Jira call was answered (``None`` before any)."""
        return self._last_call_at

    def gap_left(self, seconds: float) -> float:
        """What is left of ``seconds`` since the last Jira call (or since construction); ``0`` when over."""
        since = self._last_call_at if self._last_call_at is not None else self._started_at
        return max(since + seconds - self._clock.monotonic(), 0.0)

    async def wait_gap(self, seconds: float, *, sleep: Callable[[float], Awaitable[None]] | None = None) -> None:
        """Wait until ``seconds`` have passed since the last Jira call (or since construction), by ``sleep``
        (the agent's wait, which tells the hub it is alive) or on the driver's clock."""
        remaining = self.gap_left(seconds)
        if remaining > 0:
            await (sleep or self._clock.sleep)(remaining)

    async def _send(self, call: JiraCall, watch: Watch | None = None) -> tuple[JiraResponse, int]:
        """One call with the 429/503 retries; returns the last answer and the number of tries."""
        headers: dict[str, str] = {}
        files: Any = None
        if call.upload is not None:
            headers["X-Atlassian-Token"] = "no-check"
            files = {"file": (call.upload.filename, call.upload.content, call.upload.content_type)}
        tries = 0
        while True:
            response = await self._client.request(
                call.method,
                call.path,
                params=dict(call.params) if call.params else None,
                json=call.json if call.upload is None and call.json is not None else None,
                files=files,
                headers=headers,
            )
            tries += 1
            self._last_call_at = self._clock.monotonic()
            answer = JiraResponse(status=response.status_code, json=_body(response), headers=dict(response.headers))
            if answer.status not in _RETRY_STATUSES or tries > self._max_retries:
                return answer, tries
            # Measured from the answer, so a retry never comes earlier than Jira asked.
            seconds = _retry_after(answer.headers, self._retry_default)
            retry = Retry(call=call, status=answer.status, attempt=tries, of=self._max_retries, seconds=seconds)
            await (watch or _Sleeping(self._clock)).retry(retry)

    async def _get(self, path: str) -> Any:
        answer, _ = await self._send(JiraCall(method="GET", path=path))
        if answer.status in (401, 403):
            raise JiraAuthError(answer.status, _message(answer.json), path=path)
        if not answer.ok:
            raise JiraError(answer.status, _message(answer.json), path=path)
        return answer.json

    async def myself(self) -> tuple[str, str | None]:
        """(``name``, ``timeZone``) of the agent's Jira user; read once, then cached."""
        if self._myself is None:
            body = await self._get("/rest/api/2/myself")
            body = body if isinstance(body, Mapping) else {}
            name, zone = body.get("name"), body.get("timeZone")
            self._myself = (name if isinstance(name, str) else "", zone if isinstance(zone, str) and zone else None)
        return self._myself

    async def link_types(self) -> tuple[frozenset[str], frozenset[str]]:
        """(names of all link types, those whose ``inward == outward``: change 000); read once, then cached."""
        if self._link_types is None:
            body = await self._get("/rest/api/2/issueLinkType")
            types = body.get("issueLinkTypes") if isinstance(body, Mapping) else None
            listed = types if isinstance(types, list) else []
            named = [t for t in listed if isinstance(t, Mapping) and isinstance(t.get("name"), str) and t["name"]]
            self._link_types = (
                frozenset(t["name"] for t in named),
                frozenset(t["name"] for t in named if t.get("inward") == t.get("outward")),
            )
        return self._link_types

    async def symmetric_link_types(self) -> frozenset[str]:
        """Names of the link types whose ``inward == outward`` (change 000); read once, then cached."""
        return (await self.link_types())[1]

    async def exec_context(self) -> ExecContext:
        name, zone = await self.myself()
        names, symmetric = await self.link_types()
        return ExecContext(
            jira_user=name or None, jira_time_zone=zone, symmetric_link_types=symmetric, link_types=names
        )

    async def drive(
        self,
        executor: Executor,
        *,
        fetch_file: Callable[[str, int | None], Awaitable[bytes | None]],
        on_page: Callable[[Page], Awaitable[None]],
        watch: Watch | None = None,
    ) -> DriveOutcome:
        """Carry out the executor's steps until it returns its report (which lists the writes it made).

        ``watch`` waits the pauses and the retries and is asked before every write: a message drops the command
        there (:class:`Dropped` is thrown into the executor, which reports the writes made so far).
        """
        watching = watch or _Sleeping(self._clock)
        calls = 0
        value: Any = None
        try:
            step = executor.send(None)
            while True:
                value = None
                if isinstance(step, JiraCall) and step.is_write:
                    reason = await watching.before_write(step)
                    if reason is not None:
                        step = executor.throw(Dropped(reason))
                        continue
                if isinstance(step, JiraCall):
                    value, tries = await self._send(step, watching)
                    calls += tries
                    if value.status == 401:
                        # Refused credentials are the agent's problem, not the command's: it must not fail.
                        raise JiraAuthError(401, _message(value.json), method=step.method, path=step.path)
                elif isinstance(step, Pause):
                    await watching.pause(self.gap_left(step.seconds))
                elif isinstance(step, FetchFile):
                    value = await fetch_file(step.sha256, step.size)
                else:
                    await on_page(step)
                step = executor.send(value)
        except StopIteration as stop:
            report: Report = stop.value
            return DriveOutcome(report=report, jira_calls=calls)
        finally:
            executor.close()

    async def aclose(self) -> None:
        await self._client.aclose()
