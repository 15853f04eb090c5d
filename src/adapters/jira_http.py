"""The httpx Jira client of the agent (DESIGN.md 5.2, 5.6): it sends, waits and counts.

:meth:`JiraHttp.send` sends one :class:`JiraCall` and tries it again after a 429/503 (after ``Retry-After``, by
the wait it is given: the agent's heartbeats, or a sleep on its clock), counting every try; :meth:`gap_left` and
:meth:`wait_gap` measure a pause from the last Jira call, and never end it before Jira's token bucket lets the next
call through (:class:`reconcile.jira.bucket.BucketPacer`); ``myself``, ``serverInfo`` and ``issueLinkType`` are read
once.

The pacer lives here, not in the driver: the bucket is the Jira user's, and this client sees every answer its
user gets — the commands' calls, the agent's own reads and probes, a webhook registration — so one pacer per
client is one per user across commands without anyone handing it round. It only reads answers; the waits it
asks for are the driver's (through the agent's heartbeating watch), like every other wait. It knows
nothing of executors, pages, files or the hub: the agent drives the executors (:mod:`agent_app.drive`) and asks
it only to send. Connection errors propagate as ``httpx.TransportError``, refused credentials of its own reads as
:class:`JiraAuthError`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Self

import attrs
import httpx

from adapters.clock import Clock, SystemClock
from adapters.targets import Target, explain, explain_status, http_client, shown
from reconcile.executors import ExecContext, JiraCall, JiraResponse
from reconcile.guard import JiraField, constant_for_run, fields_from_jira
from reconcile.jira import BucketPacer, site_url
from reconcile.vocabulary import body_text

__all__ = ["JiraAuthError", "JiraError", "JiraHttp", "Retry", "Sent", "explain_jira"]

_RETRY_STATUSES = frozenset({429, 503})


class JiraError(Exception):
    """Jira answered with an error that is the agent's to handle, not a command's failure (its own reads
    ``myself`` and ``issueLinkType``, a probe, refused credentials)."""

    def __init__(self, status: int, message: str, *, method: str = "GET", path: str = "") -> None:
        super().__init__(f"HTTP {status}: {message}" if message else f"HTTP {status}")
        self.status = status
        self.message = message
        self.method = method
        self.path = path

    @classmethod
    def answered(cls, call: JiraCall, answer: JiraResponse) -> Self:
        """The error of Jira's ``answer`` to ``call``, with Jira's words."""
        return cls(answer.status, _message(answer.json, answer.status), method=call.method, path=call.path)


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
class Sent:
    """Jira's last answer to a call and how many tries it took (each one counts in ``jira_calls``)."""

    answer: JiraResponse
    tries: int


@attrs.frozen(kw_only=True)
class Retry:
    """Jira answered ``status`` (429 or 503) to ``call``: try ``attempt`` of ``of`` follows in ``seconds``."""

    call: JiraCall
    status: int
    attempt: int
    of: int
    seconds: float


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


def _message(body: Any, status: int | None = None) -> str:
    if isinstance(body, Mapping):
        messages = body.get("errorMessages")
        parts = [str(m) for m in messages] if isinstance(messages, list) else [str(messages or "")]
        errors = body.get("errors")
        if isinstance(errors, Mapping):
            parts.extend(f"{k}: {v}" for k, v in errors.items())
        return "; ".join(p for p in parts if p)[:1000]
    return body_text(str(body or ""), status)[:500]


class JiraHttp:
    """The agent's Jira: one httpx client, its auth, the retries of a 429/503, the time of the last call."""

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
        self.clock = clock
        self._retry_default = retry_default_seconds
        self._max_retries = max_retries
        self._started_at = clock.monotonic()
        self._last_call_at: float | None = None
        self.pacer = BucketPacer()
        self._myself: tuple[str, str | None] | None = None
        self._base_url: tuple[str | None] | None = None
        self._link_types: tuple[frozenset[str], frozenset[str]] | None = None
        self._fields: dict[str, JiraField] | None = None
        #: Answers kept for the run (:func:`reconcile.guard.paths.constant_for_run`: the boards' own reads).
        self._kept: dict[str, JiraResponse] = {}

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
        """What is left of ``seconds`` since the last Jira call (or since construction), or longer while Jira's
        bucket asks for a wait before the next call (``gap_left(0)``: the bucket's wait alone); ``0`` when over."""
        since = self._last_call_at if self._last_call_at is not None else self._started_at
        now = self.clock.monotonic()
        return max(since + seconds - now, self.pacer.wait_seconds(now=now), 0.0)

    async def wait_gap(self, seconds: float, *, sleep: Callable[[float], Awaitable[None]] | None = None) -> None:
        """Wait until ``seconds`` have passed since the last Jira call (or since construction), by ``sleep``
        (the agent's wait, which tells the hub it is alive) or on the client's clock."""
        remaining = self.gap_left(seconds)
        if remaining > 0:
            await (sleep or self.clock.sleep)(remaining)

    async def send(self, call: JiraCall, *, wait: Callable[[Retry], Awaitable[None]] | None = None) -> Sent:
        """One call with the 429/503 retries, each waited by ``wait`` (the agent's, which tells the hub it is alive
        and why it waits) or slept on the client's clock; returns the last answer and the number of tries (``0``:
        an answer kept for the run, not asked again)."""
        keep = constant_for_run(call.method, call.path) and not call.params
        if keep and call.path in self._kept:
            return Sent(answer=self._kept[call.path], tries=0)
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
            self._last_call_at = self.clock.monotonic()
            answer = JiraResponse(status=response.status_code, json=_body(response), headers=dict(response.headers))
            self.pacer = self.pacer.answered(answer.headers, status=answer.status, answered_at=self._last_call_at)
            if answer.status not in _RETRY_STATUSES or tries > self._max_retries:
                if keep and answer.ok:
                    self._kept[call.path] = answer
                return Sent(answer=answer, tries=tries)
            # Measured from the answer, so a retry never comes earlier than Jira asked (nor its bucket allows).
            seconds = max(
                _retry_after(answer.headers, self._retry_default),
                self.pacer.wait_seconds(now=self._last_call_at),
            )
            retry = Retry(call=call, status=answer.status, attempt=tries, of=self._max_retries, seconds=seconds)
            await (wait or self._sleep_out)(retry)

    async def _sleep_out(self, retry: Retry) -> None:
        await self.clock.sleep(retry.seconds)

    async def _get(self, path: str) -> Any:
        call = JiraCall(method="GET", path=path)
        answer = (await self.send(call)).answer
        if answer.status in (401, 403):
            raise JiraAuthError.answered(call, answer)
        if not answer.ok:
            raise JiraError.answered(call, answer)
        return answer.json

    async def myself(self) -> tuple[str, str | None]:
        """(``name``, ``timeZone``) of the agent's Jira user; read once, then cached."""
        if self._myself is None:
            body = await self._get("/rest/api/2/myself")
            body = body if isinstance(body, Mapping) else {}
            name, zone = body.get("name"), body.get("timeZone")
            self._myself = (name if isinstance(name, str) else "", zone if isinstance(zone, str) and zone else None)
        return self._myself

    async def base_url(self) -> str | None:
        """Jira's own address from ``serverInfo`` (``baseUrl``), without userinfo; ``None`` when Jira does not say
        (an answer other than 200, a value that is no web address). Read once, then cached."""
        if self._base_url is None:
            answer = (await self.send(JiraCall(method="GET", path="/rest/api/2/serverInfo"))).answer
            body = answer.json if answer.ok and isinstance(answer.json, Mapping) else {}
            self._base_url = (site_url(body.get("baseUrl")),)
        return self._base_url[0]

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

    async def jira_fields(self, *, fresh: bool = False) -> dict[str, JiraField]:
        """Jira's field list by id (``GET /rest/api/2/field``): read once, then cached; ``fresh`` reads it again
        (a delivery names a field id the last list did not hold: DESIGN.md 5.7)."""
        if self._fields is None or fresh:
            self._fields = fields_from_jira(await self._get("/rest/api/2/field"))
        return self._fields

    async def symmetric_link_types(self) -> frozenset[str]:
        """Names of the link types whose ``inward == outward`` (change 000); read once, then cached."""
        return (await self.link_types())[1]

    async def exec_context(self, *, base_url: bool = True) -> ExecContext:
        """Jira's user, time zone, link types and (unless ``base_url`` is false: not even asked) its address."""
        name, zone = await self.myself()
        names, symmetric = await self.link_types()
        return ExecContext(
            jira_user=name or None,
            jira_time_zone=zone,
            jira_base_url=await self.base_url() if base_url else None,
            symmetric_link_types=symmetric,
            link_types=names,
        )

    async def aclose(self) -> None:
        await self._client.aclose()
