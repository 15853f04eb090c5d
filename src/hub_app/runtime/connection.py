"""What a request carries, whichever door it came through (the API, the page, MCP's endpoint): the hub it runs on
(the app's state) and the caller the guard or the page's session authenticated.

:data:`HubRequest` is the request every handler takes; the hub's handlers read nothing else of Litestar's request
generics.
"""

from __future__ import annotations

from typing import Any, TypeAlias

from litestar import Request
from litestar.connection import ASGIConnection

from hub_app.runtime.hub import Hub
from hub_app.runtime.roles import Caller

__all__ = ["HubConnection", "HubRequest", "caller_of", "hub_of"]

HubRequest: TypeAlias = Request[Any, Any, Any]
#: A request, or what a guard or a middleware sees of one.
HubConnection: TypeAlias = ASGIConnection[Any, Any, Any, Any]


def hub_of(connection: HubConnection) -> Hub:
    hub: Hub = connection.app.state.hub
    return hub


def caller_of(connection: HubConnection) -> Caller:
    caller: Caller = connection.state.caller
    return caller
