"""The hub's Litestar application: the API's routes by role, the guard, the error mapping, MCP at ``/mcp``."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from importlib import metadata
from typing import Any

from litestar import Litestar

from hub_app.api import admin, agent, audit, batches, drift, mirror
from hub_app.api.auth import guard
from hub_app.api.errors import exception_handlers
from hub_app.api.json_body import TypedBodies
from hub_app.api.openapi import CommandSchemaPlugin, DocumentedAttrsPlugin, openapi_config
from hub_app.mcp.endpoint import McpPlugin
from hub_app.runtime.hub import Hub
from hub_app.runtime.metrics import http_metrics_middleware
from hub_app.runtime.public_url import PublicUrl
from hub_app.runtime.request_text import check_path_and_query
from hub_app.web import WebPage
from hub_app.web.views.schema_page import OperationsPage

__all__ = ["MAX_JSON_BODY", "ROUTES", "create_app", "hub_version"]

#: Largest JSON body the API reads (file uploads have their own limit, ``max_file_bytes``).
MAX_JSON_BODY = 10 * 1024 * 1024

ROUTES = [*batches.ROUTES, *mirror.ROUTES, *drift.ROUTES, *admin.ROUTES, *agent.ROUTES, *audit.ROUTES]


def hub_version() -> str:
    try:
        return metadata.version("sdlc-hub")
    except metadata.PackageNotFoundError:  # pragma: no cover - a bare checkout
        return "0+unknown"


def create_app(
    hub: Hub,
    *,
    extra_route_handlers: Sequence[Any] = (),
    close_hub: bool = False,
    mcp: bool = True,
    web_key: bytes | None = None,
    public_url: PublicUrl | None = None,
) -> Litestar:
    """The Litestar app over ``hub``: the API, the MCP endpoint at ``/mcp`` unless ``mcp=False``, the web page.

    ``extra_route_handlers`` lets other parts mount; ``close_hub`` closes the hub on shutdown; ``web_key`` is
    the page's session key (``sdlc-hub serve`` keeps it in the data dir; a fresh one when not given);
    ``public_url`` is where the hub is reached (default: ``serve``'s default address, on loopback).
    """

    @asynccontextmanager
    async def lifespan(_: Litestar) -> AsyncIterator[None]:
        await hub.start_listening()
        try:
            yield
        finally:
            hub.begin_shutdown()
            if close_hub:
                await hub.close()

    plugins: list[Any] = [TypedBodies(), DocumentedAttrsPlugin(), CommandSchemaPlugin()]
    if mcp:
        plugins.append(McpPlugin(public_url=public_url))
    page = WebPage(key=web_key or os.urandom(32))
    plugins.append(page)
    app = Litestar(
        route_handlers=[*ROUTES, *extra_route_handlers],
        guards=[guard],
        before_request=check_path_and_query,
        exception_handlers=exception_handlers(),
        openapi_config=openapi_config(version=hub_version(), page=OperationsPage()),
        lifespan=[lifespan],
        request_max_body_size=MAX_JSON_BODY,
        plugins=plugins,
        middleware=[http_metrics_middleware],
    )
    app.state.hub = hub
    page.attach(app)
    return app
