"""The httpx client of the hub's interface API (DESIGN.md 6): what a script or ``sdlc-hub batch …`` asks a hub.

Errors split by what the caller can do about them::

    InterfaceError
    ├── Unreachable     no answer (a transport error, a timeout), or a 5xx: the hub or a proxy in front of it
    │                   is down; retrying later may help
    └── Refused         the hub answered 4xx: ``status_code``, its Russian ``detail`` and, for a refused batch,
                        every error found (``errors``: ``{command, param?, message}``)

Every method returns the JSON the hub answered. A batch is created with an ``Idempotency-Key``
(:meth:`InterfaceClient.submit`), so a retried submission never queues it twice; :meth:`InterfaceClient.follow`
is one long poll (``GET /batches/{id}?wait=N&since=S``) that answers at the first change of the batch.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import quote

import attrs
import httpx

__all__ = ["Created", "Followed", "InterfaceClient", "InterfaceError", "Refused", "Unreachable"]

#: How long a request may take; a long poll adds its wait to it.
TIMEOUT = 30.0


class InterfaceError(Exception):
    """Base of the interface client's errors; ``str(error)`` is one line."""


class Unreachable(InterfaceError):
    """The hub did not answer (transport error, timeout) or answered 5xx."""


class Refused(InterfaceError):
    """The hub refused the request (4xx): its ``detail`` and, for a refused batch, each error found."""

    def __init__(self, status_code: int, detail: str, errors: tuple[dict[str, Any], ...] = ()) -> None:
        super().__init__(detail)
        self.status_code = status_code
        self.detail = detail
        self.errors = errors


@attrs.frozen(kw_only=True)
class Created:
    """A batch a submission answered: new (201), or one that was there (200; ``replayed``: the key's)."""

    batch: dict[str, Any]
    new: bool
    replayed: bool


@attrs.frozen(kw_only=True)
class Followed:
    """A batch as a long poll answered it, with its state stamp (``since`` of the next poll)."""

    batch: dict[str, Any]
    stamp: str | None


def _refusal(response: httpx.Response) -> Refused:
    try:
        body = response.json()
    except ValueError:
        body = None
    if not isinstance(body, dict) or not isinstance(body.get("detail"), str):
        return Refused(response.status_code, f"HTTP {response.status_code}: {response.text.strip()[:200]}")
    errors = tuple(e for e in body.get("errors") or () if isinstance(e, dict))
    return Refused(response.status_code, body["detail"], errors)


class InterfaceClient:
    """``with InterfaceClient(hub_url, token) as hub:`` — the hub's interface API with a bearer token."""

    def __init__(self, hub_url: str, token: str, *, transport: httpx.BaseTransport | None = None) -> None:
        self.hub_url = hub_url.rstrip("/")
        self._http = httpx.Client(
            base_url=self.hub_url,
            headers={"Authorization": f"Bearer {token}", "Accept": "application/json"},
            timeout=TIMEOUT,
            transport=transport,
        )

    def __enter__(self) -> InterfaceClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def _send(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        try:
            response = self._http.request(method, path, **kwargs)
        except httpx.TimeoutException:
            raise Unreachable(f"the hub at {self.hub_url} did not answer in time") from None
        except httpx.HTTPError as exc:
            raise Unreachable(f"cannot reach the hub at {self.hub_url}: {exc or type(exc).__name__}") from None
        return self._check(response)

    def _check(self, response: httpx.Response) -> httpx.Response:
        if response.status_code >= 500:
            raise Unreachable(f"the hub at {self.hub_url} answered HTTP {response.status_code}")
        if response.status_code >= 400:
            raise _refusal(response)
        return response

    def _json(self, method: str, path: str, **kwargs: Any) -> Any:
        response = self._send(method, path, **kwargs)
        return response.json() if response.content else None

    def submit(self, body: Any, *, key: str) -> Created:
        """``POST /batches`` with ``Idempotency-Key: key``."""
        response = self._send("POST", "/batches", json=body, headers={"Idempotency-Key": key})
        replayed = response.headers.get("Idempotent-Replayed", "").lower() == "true"
        return Created(batch=response.json(), new=response.status_code == 201, replayed=replayed)

    def dry_run(self, body: Any) -> dict[str, Any]:
        """``POST /batches?dry_run=true``: each command's predicted writes; nothing is stored."""
        answer: dict[str, Any] = self._json("POST", "/batches", params={"dry_run": "true"}, json=body)
        return answer

    def batch(self, batch_id: int) -> dict[str, Any]:
        return self.follow(batch_id).batch

    def follow(self, batch_id: int, *, wait: float = 0, since: str | None = None) -> Followed:
        """``GET /batches/{id}``; with ``wait``, once a command's status changed from ``since`` (or the deadline)."""
        params: dict[str, Any] = {"wait": wait} if wait else {}
        if since is not None:
            params["since"] = since
        response = self._send("GET", f"/batches/{int(batch_id)}", params=params, timeout=TIMEOUT + wait)
        return Followed(batch=response.json(), stamp=response.headers.get("Batch-State"))

    def batches(self, *, state: str | None = None, author: str | None = None, limit: int = 100) -> dict[str, Any]:
        """``GET /batches``, newest first, filtered by state and by the token that created them."""
        params = {"limit": limit, "status": state or "", "author": author or ""}
        answer: dict[str, Any] = self._json("GET", "/batches", params={k: v for k, v in params.items() if v})
        return answer

    def plan(self, batch_id: int) -> dict[str, Any]:
        answer: dict[str, Any] = self._json("GET", f"/batches/{int(batch_id)}/plan")
        return answer

    def cancel(self, batch_id: int, *, force: bool = False) -> dict[str, Any]:
        answer: dict[str, Any] = self._json("POST", f"/batches/{int(batch_id)}/cancel", json={"force": force})
        return answer

    def approve(self, batch_id: int, body: Mapping[str, Any]) -> dict[str, Any]:
        answer: dict[str, Any] = self._json("POST", f"/batches/{int(batch_id)}/approve", json=dict(body))
        return answer

    def undo(self, batch_id: int, *, dry_run: bool) -> dict[str, Any]:
        """``POST /batches/{id}/undo``: the inverse batch's plan (``dry_run``) or the inverse batch created."""
        params = {"dry_run": "true"} if dry_run else {}
        answer: dict[str, Any] = self._json("POST", f"/batches/{int(batch_id)}/undo", params=params, json={})
        return answer

    def audit(self, params: Mapping[str, Any], out: Callable[[bytes], object]) -> None:
        """``GET /audit`` (admin) streamed into ``out`` as the hub sends it, JSON lines or CSV."""
        try:
            with self._http.stream("GET", "/audit", params=dict(params), timeout=None) as response:
                if response.status_code >= 400:
                    response.read()
                    self._check(response)
                for chunk in response.iter_bytes():
                    out(chunk)
        except httpx.HTTPError as exc:
            raise Unreachable(f"cannot reach the hub at {self.hub_url}: {exc or type(exc).__name__}") from None

    def reject(self, batch_id: int, reason: str) -> dict[str, Any]:
        answer: dict[str, Any] = self._json("POST", f"/batches/{int(batch_id)}/reject", json={"reason": reason})
        return answer

    def settings(self) -> dict[str, Any]:
        answer: dict[str, Any] = self._json("GET", "/settings")
        return answer

    def patch_settings(self, body: Mapping[str, Any]) -> dict[str, Any]:
        answer: dict[str, Any] = self._json("PATCH", "/settings", json=dict(body))
        return answer

    def projects(self) -> dict[str, Any]:
        answer: dict[str, Any] = self._json("GET", "/projects")
        return answer

    def add_project(self, body: Mapping[str, Any]) -> dict[str, Any]:
        answer: dict[str, Any] = self._json("POST", "/projects", json=dict(body))
        return answer

    def remove_project(self, name: str) -> None:
        self._send("DELETE", f"/projects/{quote(name, safe='')}")

    def issue(self, key: str) -> dict[str, Any]:
        answer: dict[str, Any] = self._json("GET", f"/issues/{quote(key, safe='')}")
        return answer
