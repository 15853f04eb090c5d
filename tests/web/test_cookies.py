"""The page's cookies over HTTPS and over plain HTTP: ``Secure`` exactly when the request came over HTTPS."""

from __future__ import annotations

import httpx
import pytest

from hub_app.app import create_app
from hub_app.runtime.hub import Hub
from tests.hub.conftest import Api, Clock, api, clock, hub  # noqa: F401 — the API's fixtures, shared

from .support import Browser

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(("scheme", "secure"), [("https", True), ("http", False)])
async def test_session_cookie_is_secure_over_https(api: Api, hub: Hub, scheme: str, secure: bool) -> None:  # noqa: F811
    """Logging in over HTTPS sets the session and CSRF cookies ``Secure``; over HTTP (a trial on loopback) not."""
    app = create_app(hub, mcp=False)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url=f"{scheme}://hub.test") as client:
        person = Browser(client=client)
        form = await person.get("/login?next=/")
        response = await person.login(api.tokens["interface"])
    assert response.status_code == 303, response.text
    cookies = [*form.headers.get_list("set-cookie"), *response.headers.get_list("set-cookie")]
    names = {cookie.split("=", 1)[0] for cookie in cookies}
    assert {"hub_session", "hub_csrf"} <= names
    assert all(("; Secure" in cookie) is secure for cookie in cookies)
