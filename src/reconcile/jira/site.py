"""Jira's own address, as the page links to it (DESIGN.md 8: every issue links to ``<base URL>/browse/KEY``).

The agent reads ``baseUrl`` from Jira's ``serverInfo`` and reports it with its claim; the hub keeps it in the
agent's status. Both hold it to :func:`site_url` — the agent so that it never tells the hub a credential
written into the URL (``https://user:secret@jira.bank``), the hub so that the page never links to anything but
a web address (no ``javascript:``): an address that is not one is not kept (``None``, no links to Jira).
"""

from __future__ import annotations

from urllib.parse import quote, urlsplit, urlunsplit

__all__ = ["browse_url", "site_url"]

_SCHEMES = frozenset({"http", "https"})
#: The longest address kept (a real one is far shorter).
_MAX_CHARS = 2000


def site_url(url: object) -> str | None:
    """``url`` as a link's base: ``http``/``https`` with a host, its userinfo, query and fragment dropped, no
    trailing ``/``; ``None`` when it is not such an address."""
    if not isinstance(url, str) or not url or len(url) > _MAX_CHARS or any(c.isspace() for c in url):
        return None
    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port
    except ValueError:
        return None
    if parts.scheme.lower() not in _SCHEMES or not host:
        return None
    netloc = f"[{host}]" if ":" in host else host
    if port is not None:
        netloc += f":{port}"
    return urlunsplit((parts.scheme.lower(), netloc, parts.path.rstrip("/"), "", ""))


def browse_url(base: str, key: str) -> str:
    """The issue's own page in Jira."""
    return f"{base}/browse/{quote(key, safe='')}"
