"""Which requests reach the page and which the API, on the URLs they share."""

from __future__ import annotations

from typing import Any

import pytest

from hub_app.web.page import wants_page


def _scope(method: str, path: str, **headers: str) -> Any:
    return {
        "type": "http",
        "method": method,
        "path": path,
        "headers": [(name.replace("_", "-").encode(), value.encode()) for name, value in headers.items()],
    }


@pytest.mark.parametrize(
    ("method", "path", "headers", "page"),
    [
        ("GET", "/batches/7", {"accept": "text/html,application/xhtml+xml"}, True),
        ("GET", "/batches/7", {"accept": "text/html", "authorization": "Bearer s"}, False),
        ("GET", "/batches/7", {"accept": "*/*"}, False),
        ("GET", "/batches/7", {"hx_request": "true"}, True),
        ("POST", "/batches/7/cancel", {"content_type": "application/x-www-form-urlencoded"}, True),
        ("POST", "/new", {"content_type": "multipart/form-data; boundary=x"}, True),
        ("POST", "/batches", {"content_type": "application/json"}, False),
        ("GET", "/", {}, True),
        ("GET", "/login", {"accept": "*/*"}, True),
        ("GET", "/schema", {"accept": "text/html"}, False),
        ("GET", "/static/htmx.min.js", {"accept": "text/html"}, False),
        ("GET", "/mcp", {"accept": "text/html"}, False),
        ("GET", "/drift", {"accept": "text/html"}, True),
    ],
)
def test_a_browser_gets_the_page_a_script_the_api(method: str, path: str, headers: dict[str, str], page: bool) -> None:
    """Without a bearer token, a browser's request (HTML accepted, htmx, a posted form) to a page's URL is the
    page's; anything with a bearer token, or not asking for HTML, or off the page's URLs, is the API's."""
    assert wants_page(_scope(method, path, **headers)) is page
