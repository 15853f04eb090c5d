"""How the agent reaches each of its two targets, the hub and Jira (DESIGN.md 10): the one place httpx
clients are built, and the one place a failure to reach a target is put into words.

Per target: a CA bundle (else the OS trust store: OpenSSL's default paths, which ``SSL_CERT_FILE`` and
``SSL_CERT_DIR`` redirect for both targets), an optional client certificate and key for mutual TLS, an
optional proxy. A target without its own proxy follows the usual variables (``HTTPS_PROXY``, ``HTTP_PROXY``,
``ALL_PROXY``, ``NO_PROXY``); a target's own proxy is skipped when ``NO_PROXY`` names its host.

:func:`explain` turns an error into one line that names the URL and the fix (DESIGN.md 5.4): "All connection
attempts failed" or "HTTP 404" alone never tell an operator which setting is wrong.
"""

from __future__ import annotations

import ssl
import urllib.request
from typing import Any
from urllib.parse import urlsplit

import attrs
import httpx

from adapters.logs import redacted

__all__ = ["BadSetting", "Target", "explain", "explain_status", "http_client", "redacted", "shown", "ssl_context"]


class BadSetting(Exception):
    """A setting the agent cannot start with; the message names the setting and the fix."""


def shown(url: str) -> str:
    """``url`` fit for a message: its whole userinfo replaced by ``***`` — a user and password
    (``http://user:pass@proxy``) or a token written as the user (``http://PAT@jira``) — also in a URL written
    without its scheme (``PAT@jira.bank/jira``)."""
    if "://" not in url and "@" in url:
        return "***@" + url.rpartition("@")[2]
    return redacted(url)


@attrs.frozen(kw_only=True)
class Target:
    """One target the agent talks to: ``name`` is ``hub`` or ``jira`` (the prefix of its flags)."""

    name: str
    url: str
    ca_bundle: str | None = None
    client_cert: str | None = None
    client_key: str | None = None
    proxy: str | None = None

    @property
    def base_url(self) -> str:
        """The URL requests go to; as :func:`shown` in every message."""
        return self.url.rstrip("/")

    def flag(self, what: str = "") -> str:
        """The command-line flag of one of this target's settings: ``--jira``, ``--hub-ca-bundle``…"""
        return f"--{self.name}-{what}" if what else f"--{self.name}"

    def check(self) -> None:
        """Raise :class:`BadSetting` for a URL without scheme or host, or a certificate file that cannot be read."""
        self.check_urls()
        if self.ca_bundle or self.client_cert:
            ssl_context(self)  # reads the files (the OS trust store alone takes ~90 ms to load and cannot fail)

    def check_urls(self) -> None:
        """Raise :class:`BadSetting` for a target or proxy URL the agent cannot use."""
        parts = urlsplit(self.url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            url = shown(self.url)
            raise BadSetting(
                f"{self.flag()} {url!r} is not an http(s) URL: write it with its scheme, "
                f"e.g. https://{url.split('://')[-1] or 'host'}"
            )
        if self.client_key and not self.client_cert:
            raise BadSetting(f"{self.flag('client-key')} needs {self.flag('client-cert')}")
        if self.proxy is not None and urlsplit(self.proxy).scheme not in ("http", "https"):
            raise BadSetting(
                f"{self.flag('proxy')} {shown(self.proxy)!r} is not a proxy URL: e.g. http://proxy.bank:3128"
            )


def ssl_context(target: Target) -> ssl.SSLContext:
    """The TLS context of a target: its CA bundle or the OS trust store, plus its client certificate."""
    try:
        context = ssl.create_default_context(cafile=target.ca_bundle)
    except (OSError, ssl.SSLError) as exc:
        raise BadSetting(f"{target.flag('ca-bundle')} {target.ca_bundle}: cannot read a PEM CA bundle ({exc})") from exc
    if target.client_cert:
        try:
            context.load_cert_chain(target.client_cert, target.client_key)
        except (OSError, ssl.SSLError) as exc:
            raise BadSetting(
                f"{target.flag('client-cert')} {target.client_cert}: cannot load the client certificate and key "
                f"({exc}); give a PEM certificate and an unencrypted PEM key ({target.flag('client-key')})"
            ) from exc
    return context


def _proxy(target: Target) -> tuple[str | None, bool]:
    """(the proxy to use, whether httpx should read the proxy variables itself)."""
    if target.proxy is None:
        return None, True
    host = urlsplit(target.url).netloc.rpartition("@")[2]
    if urllib.request.proxy_bypass(host):
        return None, False
    return target.proxy, False


def http_client(
    target: Target,
    *,
    headers: dict[str, str] | None = None,
    auth: httpx.Auth | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    timeout: float,
) -> httpx.AsyncClient:
    """The httpx client of one target (``transport`` replaces the network in tests)."""
    target.check_urls()
    proxy, trust_env = _proxy(target)
    options: dict[str, Any] = {}
    if transport is None:
        options = {"verify": ssl_context(target), "proxy": proxy, "trust_env": trust_env}
    return httpx.AsyncClient(
        base_url=target.base_url, headers=headers, auth=auth, transport=transport, timeout=timeout, **options
    )


def _chain(error: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and current not in seen:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def _proxy_hint(target: Target) -> str:
    if target.proxy:
        return f"the proxy {shown(target.proxy)} ({target.flag('proxy')}, NO_PROXY)"
    return f"the proxy ({target.flag('proxy')} or HTTPS_PROXY/NO_PROXY)"


def explain(target: Target, error: BaseException) -> str:
    """One line for an error reaching ``target``: what failed at which URL, and which setting fixes it."""
    where = f"{target.name} at {shown(target.base_url)}"
    chain = _chain(error)
    verify = next((e for e in chain if isinstance(e, ssl.SSLCertVerificationError)), None)
    if verify is not None:
        reason = getattr(verify, "verify_message", None) or str(verify)
        source = f"the CA bundle {target.ca_bundle}" if target.ca_bundle else "the OS trust store"
        return (
            f"TLS verification of {where} failed ({reason}) with {source}: give the CA that signed its "
            f"certificate with {target.flag('ca-bundle')} (or SDLC_AGENT_{target.name.upper()}_CA_BUNDLE)"
        )
    tls = next((e for e in chain if isinstance(e, ssl.SSLError)), None)
    if tls is not None:
        return (
            f"TLS handshake with {where} failed ({tls}): if it requires a client certificate, give "
            f"{target.flag('client-cert')} and {target.flag('client-key')}"
        )
    detail = redacted(f"{type(error).__name__}: {error}" if str(error) else type(error).__name__)
    secure = target.base_url.startswith("https://")
    if isinstance(error, httpx.ConnectTimeout | httpx.ConnectError):
        return (
            f"cannot connect to {where} ({detail}): check the host and port in {target.flag()} "
            f"and {_proxy_hint(target)}"
        )
    if isinstance(error, httpx.ProxyError):
        return f"the proxy refused the way to {where} ({detail}): check {_proxy_hint(target)}"
    if isinstance(error, httpx.TimeoutException):
        return f"{where} did not answer in time ({detail}): check that it is up and {_proxy_hint(target)}"
    if isinstance(error, httpx.ReadError | httpx.RemoteProtocolError | httpx.WriteError) and secure:
        cert = "" if target.client_cert else f"; if it requires a client certificate, give {target.flag('client-cert')}"
        return f"{where} closed the connection ({detail}){cert}"
    return f"{where}: {detail}"


def explain_status(target: Target, method: str, path: str, status: int, message: str = "") -> str:
    """One line for an HTTP answer that points at a setting (404 at the base URL, 401/403)."""
    where = f"{target.name} at {shown(target.base_url)}"
    said = f"HTTP {status}: {message}" if message else f"HTTP {status}"
    if status == 404:
        fix = (
            "check the Jira base URL and its context path (e.g. https://host/jira)"
            if target.name == "jira"
            else "check the hub's base URL (and the path a reverse proxy puts it under)"
        )
        return f"{where} answered {method} {path} with {said}: {fix} in {target.flag()}"
    if status in (401, 403):
        if target.name == "hub":
            fix = "check the agent-role token (SDLC_AGENT_HUB_TOKEN or SDLC_AGENT_HUB_TOKEN_FILE)"
        else:
            fix = "check the token (SDLC_AGENT_JIRA_TOKEN or SDLC_AGENT_JIRA_TOKEN_FILE) or the user and password"
            if status == 403:
                fix += "; or the user is locked out (CAPTCHA) or lacks the permission"
        return f"{where} refused the agent's credentials on {method} {path} ({said}): {fix}"
    return f"{where} answered {method} {path} with {said}"
