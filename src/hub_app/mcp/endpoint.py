"""The MCP endpoint (DESIGN.md section 7): streamable HTTP at ``/mcp`` over the server of :mod:`hub_app.mcp.server`.

Stateless and with JSON answers, so any hub process can serve any call. Before anything else (the token too) a
request's ``Origin`` and ``Host`` are held to the hub's public URL (:mod:`hub_app.runtime.public_url`): 403 otherwise,
against DNS rebinding.

Auth is the hub's own: the mounted route carries ``opt={"roles": ("interface", "admin")}``, so the app's guard
answers 401 (no token, unknown or revoked) and 403 (an ``agent`` token) in the API's error shape and leaves the
caller in ``scope["state"]["caller"]``; the token's name becomes the batch's ``token_name``. Without that guard
the endpoint refuses every call (401) rather than serve unauthenticated.

Wiring (one line in :func:`hub_app.app.create_app`)::

    Litestar(..., plugins=[McpPlugin(public_url=...)])

The plugin mounts the route at ``/mcp`` and adds the lifespan that runs the SDK's session manager.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

from litestar import Litestar
from litestar.config.app import AppConfig
from litestar.datastructures import Headers
from litestar.enums import ScopeType
from litestar.handlers import ASGIRouteHandler, asgi
from litestar.plugins import InitPlugin
from litestar.types import ASGIApp, Receive, Scope, Send
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

from hub_app.mcp.clients import MCP_PATH
from hub_app.mcp.server import CALLER_SCOPE_KEY, build_server
from hub_app.mcp.tools import McpCaller, McpTool
from hub_app.runtime.hub import Hub
from hub_app.runtime.public_url import PublicUrl
from hub_app.runtime.roles import INTERFACE, Caller

__all__ = ["MCP_PATH", "MCP_ROLES", "McpEndpoint", "McpPlugin"]

log = logging.getLogger(__name__)

#: Roles whose tokens may use the MCP tools (DESIGN.md: «behind an interface token»; admin may do all).
MCP_ROLES = INTERFACE


def _plain_error(status: int, detail: str) -> tuple[dict[str, Any], bytes]:
    body = json.dumps({"status_code": status, "detail": detail}, ensure_ascii=False).encode()
    start = {
        "type": "http.response.start",
        "status": status,
        "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
    }
    return start, body


async def _send_error(send: Send, status: int, detail: str) -> None:
    start, body = _plain_error(status, detail)
    await send(start)  # type: ignore[arg-type]
    await send({"type": "http.response.body", "body": body, "more_body": False})


class McpEndpoint:
    """The MCP route (:attr:`route_handler`) and its :meth:`lifespan`; both are needed, see :class:`McpPlugin`.

    A new SDK session manager is made at every lifespan entry (the SDK runs one only once), so an app built
    with this endpoint can be started more than once.
    """

    def __init__(
        self, *, path: str = MCP_PATH, tool_set: tuple[McpTool, ...] | None = None, public_url: PublicUrl | None = None
    ) -> None:
        self.path = path
        self.server = build_server(tool_set)
        self.public_url = public_url or PublicUrl.of(None)
        self._manager: StreamableHTTPSessionManager | None = None
        self.route_handler: ASGIRouteHandler = asgi(
            path,
            is_mount=True,
            copy_scope=True,
            opt={"roles": MCP_ROLES},
            name="mcp",
            middleware=[self._checked_origin],  # runs before the guards: a foreign page learns nothing of tokens
        )(self._handle)

    def _checked_origin(self, app: ASGIApp) -> ASGIApp:
        """``app`` behind the ``Origin`` and ``Host`` checks (403 in the API's error shape)."""

        async def checked(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] == ScopeType.HTTP:
                headers = Headers.from_scope(scope)
                refusal = self.public_url.origin_refusal(headers.get("origin"))
                refusal = refusal or self.public_url.host_refusal(headers.get("host"))
                if refusal is not None:
                    log.warning("mcp_refused", extra={"reason": refusal})
                    await _send_error(send, 403, refusal)
                    return
            await app(scope, receive, send)

        return checked

    @contextlib.asynccontextmanager
    async def lifespan(self, _: Litestar | None = None) -> AsyncIterator[None]:
        manager = StreamableHTTPSessionManager(app=self.server, json_response=True, stateless=True)
        async with manager.run():
            self._manager = manager
            try:
                yield
            finally:
                self._manager = None

    async def _handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        token = scope.get("state", {}).get("caller")
        app = scope.get("app")
        hub = getattr(getattr(app, "state", None), "hub", None)
        if not isinstance(token, Caller) or token.role not in MCP_ROLES or not isinstance(hub, Hub):
            await _send_error(send, 401, "нужен заголовок Authorization: Bearer <токен>")
            return
        manager = self._manager
        if manager is None:
            await _send_error(send, 503, "MCP ещё не запущен: lifespan McpEndpoint не выполнен")
            return
        inner = dict(scope)
        inner[CALLER_SCOPE_KEY] = McpCaller(hub=hub, token=token, public_url=self.public_url)
        await manager.handle_request(inner, receive, send)  # type: ignore[arg-type]


class McpPlugin(InitPlugin):
    """Mounts :class:`McpEndpoint` at ``/mcp`` and adds its lifespan: ``Litestar(plugins=[McpPlugin()])``."""

    def __init__(
        self, *, path: str = MCP_PATH, tool_set: tuple[McpTool, ...] | None = None, public_url: PublicUrl | None = None
    ) -> None:
        self.endpoint = McpEndpoint(path=path, tool_set=tool_set, public_url=public_url)

    def on_app_init(self, app_config: AppConfig) -> AppConfig:
        app_config.route_handlers.append(self.endpoint.route_handler)
        app_config.lifespan.append(self.endpoint.lifespan)
        return app_config
