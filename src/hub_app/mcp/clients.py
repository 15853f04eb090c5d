"""Ready configuration of the common MCP clients for the hub's ``/mcp`` (docs/assistants.md): streamable HTTP at
the hub's public URL (:mod:`hub_app.runtime.public_url`) with the token as bearer.

``sdlc-hub token add NAME --role interface --print-mcp-config [CLIENT]`` prints them with the new secret. This
module imports neither the web framework nor the MCP library: an admin command stays quick to start.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from enum import StrEnum

import attrs

from hub_app.runtime.public_url import PublicUrl

__all__ = ["ALL", "KEY_NOTE", "MCP_PATH", "SERVER_NAME", "McpClient", "Snippet", "bearer", "snippets"]

MCP_PATH = "/mcp"
#: The name the hub's server is given in a client's configuration.
SERVER_NAME = "sdlc-hub"
#: ``--print-mcp-config``'s choice of every client.
ALL = "all"


class McpClient(StrEnum):
    CLAUDE_CODE = "claude-code"
    VSCODE = "vscode"
    CURSOR = "cursor"


@attrs.frozen(kw_only=True)
class Snippet:
    """One client's configuration: where it goes (``where``), and its text — a JSON document (``is_json``) or a
    shell command."""

    client: McpClient
    where: str
    text: str
    is_json: bool


def bearer(secret: str) -> dict[str, str]:
    """The header every request to ``/mcp`` carries."""
    return {"Authorization": f"Bearer {secret}"}


def _json(document: dict[str, object]) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False)


def _claude_code(url: str, secret: str) -> str:
    (header,) = (f"{name}: {value}" for name, value in bearer(secret).items())
    return shlex.join(["claude", "mcp", "add", "--transport", "http", SERVER_NAME, url, "--header", header])


def _vscode(url: str, secret: str) -> str:
    return _json({"servers": {SERVER_NAME: {"type": "http", "url": url, "headers": bearer(secret)}}})


def _cursor(url: str, secret: str) -> str:
    return _json({"mcpServers": {SERVER_NAME: {"url": url, "headers": bearer(secret)}}})


@attrs.frozen
class _Entry:
    where: str
    render: Callable[[str, str], str]  # (the /mcp URL, the secret) -> the snippet's text
    is_json: bool


_CLIENTS: dict[McpClient, _Entry] = {
    McpClient.CLAUDE_CODE: _Entry(
        "Claude Code: run once in a terminal (add --scope user before the name for every project)", _claude_code, False
    ),
    McpClient.VSCODE: _Entry(
        "VS Code: .vscode/mcp.json of the workspace, or the user's mcp.json (MCP: Open User Configuration)",
        _vscode,
        True,
    ),
    McpClient.CURSOR: _Entry("Cursor: ~/.cursor/mcp.json, or .cursor/mcp.json of a project", _cursor, True),
}


def snippets(which: str, public_url: PublicUrl, secret: str) -> list[Snippet]:
    """The configuration of the client ``which`` (a :class:`McpClient` value, or :data:`ALL`: every client)."""
    url = public_url.link(MCP_PATH)
    chosen = list(McpClient) if which == ALL else [McpClient(which)]
    return [
        Snippet(client=client, where=entry.where, text=entry.render(url, secret), is_json=entry.is_json)
        for client in chosen
        for entry in (_CLIENTS[client],)
    ]


#: What the printed configuration adds for every client (issue 34): how an assistant keeps a batch single.
KEY_NOTE = (
    "Every client — batches are created once",
    "batch_create and refresh take idempotency_key: the assistant passes a new key (a UUID) for each batch it "
    "intends, and the same key when it re-issues a call whose answer was lost; the hub then answers the batch "
    "that key made (replayed: true) instead of queueing a second one (tool descriptions say so too).",
)
