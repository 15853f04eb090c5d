"""``/schema``: the API's operations as a page of the hub itself, linking the OpenAPI document.

No documentation viewer is served (Redoc, Swagger UI, Elements and RapiDoc all load scripts from public CDNs,
which a bank without internet never reaches, and Redoc's styles need ``'unsafe-inline'``): the page is rendered
by the hub from the same document, readable without JavaScript and under the page's self-only CSP, and script
authors take ``/schema/openapi.json`` to their own generator or viewer.
"""

from __future__ import annotations

from typing import Any

from litestar.openapi.plugins import OpenAPIRenderPlugin

from hub_app.runtime.connection import HubRequest
from hub_app.web.render import environment

__all__ = ["JSON_PATH", "OperationsPage", "operations"]

#: Where the OpenAPI document is, under ``/schema``.
JSON_PATH = "/openapi.json"
_METHODS = frozenset({"get", "put", "post", "delete", "options", "head", "patch", "trace"})


def operations(document: dict[str, Any]) -> list[dict[str, str]]:
    """Every operation of the document in its order: method, path and the first paragraph of what it does."""
    found = []
    for path, item in document.get("paths", {}).items():
        for method, operation in item.items():
            if method in _METHODS and isinstance(operation, dict):
                about = operation.get("description") or operation.get("summary") or ""
                first = " ".join(about.strip().split("\n\n", 1)[0].split())
                found.append({"method": method.upper(), "path": path, "about": first})
    return found


class OperationsPage(OpenAPIRenderPlugin):
    """The root of ``/schema``: the hub's own page listing the operations (the JSON is Litestar's)."""

    def __init__(self) -> None:
        super().__init__(path="/")

    def render(self, request: HubRequest, openapi_schema: dict[str, Any]) -> bytes:
        page = (
            environment()
            .get_template("schema.html")
            .render(
                caller=None,
                is_admin=False,
                here="/schema",
                messages=[],
                title=openapi_schema.get("info", {}).get("title", ""),
                version=openapi_schema.get("info", {}).get("version", ""),
                json_url=request.url.path.rstrip("/") + JSON_PATH,
                operations=operations(openapi_schema),
            )
        )
        return page.encode()
