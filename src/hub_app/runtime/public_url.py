"""The hub's public URL (DESIGN.md 7): what every link the hub hands out is built from, and what ``/mcp`` holds a
request's ``Origin`` and ``Host`` to — never the request's own ``Host``.

``sdlc-hub serve --public-url URL`` (``SDLC_HUB_PUBLIC_URL``); by default ``http://<host>:<port>`` of ``serve``.

- ``Origin``, when present, must be the public URL's origin (scheme, host, port): a page of any other site that
  makes a browser call ``/mcp`` is refused (the MCP transport's rule against DNS rebinding).
- ``Host`` must be the public URL's host and port — or, when the hub can be reached on loopback (it listens on a
  loopback address, or on every address: ``0.0.0.0``, ``::``), a loopback name (``localhost``, ``127.0.0.0/8``,
  ``[::1]``) with any port: a reverse proxy on the same machine passes ``Host: 127.0.0.1:8700`` by default
  (nginx), a container's published port and a tunnel (``ssh -L``) their own port. That stays safe: DNS rebinding
  makes the browser send the attacker's own name as ``Host``, never a loopback one — a browser sends ``Host:
  localhost`` only for a page it loaded from the person's own machine, and such a page's calls carry its
  ``Origin``, which must be the public URL's.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import SplitResult, urlsplit

import attrs

__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "PublicUrl", "PublicUrlError", "is_loopback", "is_unspecified"]

#: ``sdlc-hub serve``'s defaults, and so the public URL of an app built without one.
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8700
_DEFAULT_PORTS = {"http": 80, "https": 443}
#: How much of a refused header a message repeats.
_SHOWN = 200


class PublicUrlError(ValueError):
    """The public URL given is not an ``http(s)://host[:port][/path]`` URL."""


def is_loopback(host: str) -> bool:
    """``localhost``, an address of ``127.0.0.0/8`` or ``::1`` (brackets allowed)."""
    name = host.strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def is_unspecified(host: str) -> bool:
    """``0.0.0.0`` or ``::``: listening on every address (loopback included)."""
    try:
        return ipaddress.ip_address(host.strip("[]")).is_unspecified
    except ValueError:
        return False


def _authority(host: str, port: int | None, scheme: str) -> str:
    shown = f"[{host}]" if ":" in host else host
    return shown if port in (None, _DEFAULT_PORTS[scheme]) else f"{shown}:{port}"


def _split(value: str) -> SplitResult | None:
    """The parts of a URL (or ``//host:port``), ``None`` when its port is no port."""
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 — raises on a port that is no number or out of range
    except ValueError:
        return None
    return parts


@attrs.frozen(kw_only=True)
class PublicUrl:
    """The public URL's parts (``host`` lower case, ``port`` always set, ``path`` without a trailing slash) and
    whether a loopback ``Host`` is accepted too (``loopback``: the hub can be reached on loopback)."""

    scheme: str
    host: str
    port: int
    path: str = ""
    loopback: bool = False

    @classmethod
    def of(cls, value: str | None, *, listen_host: str = DEFAULT_HOST, listen_port: int = DEFAULT_PORT) -> PublicUrl:
        """The public URL given (``None``: ``http://<listen_host>:<listen_port>``); :class:`PublicUrlError` when it
        is no ``http(s)`` URL with a host, or carries a user, a query or a fragment."""
        if value is None:
            value = f"http://{_authority(listen_host.strip('[]'), listen_port, 'http')}"
        parts = _split(value.strip())
        if (
            parts is None
            or parts.scheme not in _DEFAULT_PORTS
            or not parts.hostname
            or parts.username is not None
            or parts.query
            or parts.fragment
        ):
            raise PublicUrlError(f"--public-url {value!r}: expected http(s)://host[:port][/path]")
        return cls(
            scheme=parts.scheme,
            host=parts.hostname.lower(),
            port=parts.port or _DEFAULT_PORTS[parts.scheme],
            path=parts.path.rstrip("/"),
            loopback=is_loopback(listen_host) or is_unspecified(listen_host) or is_loopback(parts.hostname),
        )

    @property
    def origin(self) -> str:
        """``scheme://host[:port]`` (the port only when it is not the scheme's own)."""
        return f"{self.scheme}://{_authority(self.host, self.port, self.scheme)}"

    @property
    def url(self) -> str:
        return self.origin + self.path

    def link(self, path: str) -> str:
        """The public URL of the hub's ``path`` (``/batches/7``)."""
        return self.url + path

    def origin_refusal(self, origin: str | None) -> str | None:
        """Why a request with this ``Origin`` header is refused (403); ``None`` when absent or the hub's own."""
        if origin is None:
            return None
        parts = _split(origin)
        if parts is not None and parts.scheme in _DEFAULT_PORTS and parts.hostname and not parts.path:
            port = parts.port or _DEFAULT_PORTS[parts.scheme]
            if (parts.scheme, parts.hostname.lower(), port) == (self.scheme, self.host, self.port):
                return None
        return f"Origin {origin[:_SHOWN]} не принят: MCP хаба принимает запросы только со страниц {self.origin}"

    def host_refusal(self, host: str | None) -> str | None:
        """Why a request with this ``Host`` header is refused (403); ``None`` for the public URL's host and port, or
        a loopback name when the hub can be reached on loopback."""
        parts = _split(f"//{host}") if host and not set(host) & set("/@?#\\") else None
        if parts is not None and parts.hostname:
            name = parts.hostname.lower()
            if (name, parts.port or _DEFAULT_PORTS[self.scheme]) == (self.host, self.port):
                return None
            if self.loopback and is_loopback(name):
                return None
        shown = (host or "")[:_SHOWN]
        return f"Host {shown} не принят: MCP хаба отвечает по адресу {self.origin}"
