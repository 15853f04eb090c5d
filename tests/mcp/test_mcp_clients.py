"""``sdlc-hub token add … --print-mcp-config``: the printed configuration of Claude Code, VS Code and Cursor, and the
official MCP client connecting to a served hub with exactly the URL and headers each of them says."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client

from hub_app.cli import main

from .mcp_support import Served, tool_json

pytestmark = pytest.mark.anyio

CLAUDE = "Claude Code: run once in a terminal (add --scope user before the name for every project)"
VSCODE = "VS Code: .vscode/mcp.json of the workspace, or the user's mcp.json (MCP: Open User Configuration)"
CURSOR = "Cursor: ~/.cursor/mcp.json, or .cursor/mcp.json of a project"
KEYS = "Every client — batches are created once"


def printed(out: str) -> tuple[str, dict[str, str], str]:
    """The first line, each snippet by the line naming where it goes, and the secret (the last line)."""
    first, *blocks, last = out.rstrip("\n").split("\n\n")
    head, secret = last.split("\n")
    assert head == "its secret, shown only now:"
    snippets = {}
    for block in blocks:
        where, text = block.split(":\n", 1)
        snippets[where] = text
    assert snippets.pop(KEYS).startswith(
        "batch_create and refresh take idempotency_key: the assistant passes a new key"
    )
    return first, snippets, secret


def connection(where: str, text: str) -> tuple[str, dict[str, str]]:
    """The URL and headers a snippet gives the client."""
    if where == CLAUDE:
        argv = shlex.split(text)
        assert argv[:5] == ["claude", "mcp", "add", "--transport", "http"]
        assert argv[5] == "sdlc-hub" and argv[7] == "--header" and len(argv) == 9
        name, value = argv[8].split(": ", 1)
        return argv[6], {name: value}
    document = json.loads(text)
    if where == VSCODE:
        (server,) = document["servers"].values()
        assert server["type"] == "http"
    else:
        (server,) = document["mcpServers"].values()
    assert set(server) <= {"type", "url", "headers"}
    return server["url"], server["headers"]


def token_add(tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["token", "add", *args, "--data-dir", str(tmp_path)]) == 0
    return capsys.readouterr().out


def test_each_client_is_told_the_mcp_url_and_the_bearer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """All three snippets, built from --public-url (its path kept) + /mcp and the new secret; the JSON ones parse;
    the secret stays alone on the last line."""
    out = token_add(
        tmp_path, capsys, "claude", "--role", "interface", "--needs-approval", "--print-mcp-config",
        "--public-url", "https://hub.example/tools/",
    )  # fmt: skip
    first, snippets, secret = printed(out)
    assert first == (
        "token claude (interface, approval: required) created; the MCP configuration below holds its secret: keep "
        "it private"
    )
    assert list(snippets) == [CLAUDE, VSCODE, CURSOR]
    assert json.loads(snippets[VSCODE]) == {
        "servers": {
            "sdlc-hub": {
                "type": "http",
                "url": "https://hub.example/tools/mcp",
                "headers": {"Authorization": f"Bearer {secret}"},
            }
        }
    }
    assert json.loads(snippets[CURSOR]) == {
        "mcpServers": {
            "sdlc-hub": {"url": "https://hub.example/tools/mcp", "headers": {"Authorization": f"Bearer {secret}"}}
        }
    }
    assert snippets[CLAUDE] == (
        f"claude mcp add --transport http sdlc-hub https://hub.example/tools/mcp --header 'Authorization: Bearer "
        f"{secret}'"
    )
    for where, text in snippets.items():
        assert connection(where, text) == ("https://hub.example/tools/mcp", {"Authorization": f"Bearer {secret}"})


def test_one_client_from_the_public_url_variable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """--print-mcp-config vscode prints VS Code's alone; SDLC_HUB_PUBLIC_URL gives the URL."""
    monkeypatch.setenv("SDLC_HUB_PUBLIC_URL", "https://hub.example:8443")
    out = token_add(tmp_path, capsys, "editor", "--role", "admin", "--print-mcp-config", "vscode")
    _, snippets, secret = printed(out)
    assert list(snippets) == [VSCODE]
    assert connection(VSCODE, snippets[VSCODE]) == (
        "https://hub.example:8443/mcp",
        {"Authorization": f"Bearer {secret}"},
    )


async def _tools(url: str, headers: dict[str, str]) -> tuple[list[str], dict[str, Any]]:
    """The tools an official client lists with this URL and these headers, and a batch it creates."""
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        names = [tool.name for tool in (await client.list_tools()).tools]
        body = {
            "author": "claude",
            "title": "срок",
            "commands": [{"type": "ensure_fields", "params": {"key": "AURORA-1", "duedate": "2026-10-23"}}],
        }
        created = tool_json(await client.call_tool("batch_create", body))
    return names, created


async def test_the_official_client_connects_with_what_each_snippet_says(
    served: Served, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A token added to the running hub's database with --needs-approval --print-mcp-config: with each snippet's URL
    and headers, and nothing else, the MCP client lists the hub's tools, and the batch it creates waits for a person
    at the batch's page on the public URL."""
    args = ["claude", "--role", "interface", "--needs-approval", "--print-mcp-config", "--public-url", served.base_url]
    out = await anyio.to_thread.run_sync(lambda: token_add(tmp_path / "hub", capsys, *args))
    _, snippets, _ = printed(out)
    assert list(snippets) == [CLAUDE, VSCODE, CURSOR]
    for where, text in snippets.items():
        url, headers = connection(where, text)
        assert url == served.mcp_url
        names, created = await _tools(url, headers)
        assert names[:2] == ["batch_create", "batch_plan"], where
        assert created["approval"]["state"] == "pending"
        assert created["approval_url"] == f"{served.base_url}/batches/{created['id']}"
