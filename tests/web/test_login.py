"""Login with a token into a sealed session cookie, «Выйти», CSRF on every form, roles, and the API beside it."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from hub_app.operations import admin
from hub_app.runtime.hub import Hub
from hub_app.web.errors import CSRF_REFUSED
from hub_app.web.page import CONTENT_SECURITY_POLICY
from hub_app.web.session import KEY_FILE, session_key

from .conftest import Api, Open
from .support import HTML, element_text

pytestmark = pytest.mark.anyio


async def test_a_page_without_session_sends_to_login(browser: Open) -> None:
    """Every view without a session redirects to /login, keeping where the person was going."""
    person = await browser("")
    response = await person.get("/batches/7?x=1")
    assert response.status_code == 303
    assert response.headers["location"] == "/login?next=/batches/7%3Fx%3D1"
    assert (await person.get("/")).headers["location"] == "/login"


async def test_htmx_without_session_navigates_to_login(browser: Open) -> None:
    """A live fragment whose session ended asks htmx for a full navigation to /login, not a swapped-in form."""
    person = await browser("")
    response = await person.get("/", htmx=True)
    assert response.status_code == 200
    assert response.headers["hx-redirect"] == "/login"


async def test_login_form_has_one_token_field_and_a_csrf_field(browser: Open) -> None:
    """/login: one password field name="token", the button «Войти», a CSRF field, the self-only CSP."""
    person = await browser("")
    response = await person.get("/login")
    assert response.status_code == 200
    assert re.findall(r'<input type="password" id="token" name="token"', response.text)
    assert "Войти</button>" in response.text
    assert person.csrf()
    assert response.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert "script-src 'self'" in CONTENT_SECURITY_POLICY
    assert "<script>" not in response.text and "style=" not in response.text


async def test_wrong_token_is_refused(browser: Open) -> None:
    """A token the hub does not know → 401 and «неверный токен» on the form."""
    person = await browser("")
    await person.get("/login")
    response = await person.post("/login", {"token": "nope", "next": "/"})
    assert response.status_code == 401
    assert "неверный токен" in response.text
    assert (await person.get("/")).status_code == 303


async def test_agent_token_is_refused(browser: Open, api: Api) -> None:
    """An agent token opens no page: 403 «токен агента не открывает страницу»."""
    person = await browser("")
    await person.get("/login")
    response = await person.post("/login", {"token": api.tokens["agent"], "next": "/"})
    assert response.status_code == 403
    assert "токен агента не открывает страницу" in response.text
    assert (await person.get("/")).status_code == 303


async def test_login_sets_a_sealed_strict_httponly_cookie(browser: Open, api: Api) -> None:
    """A good token: 303 to where the person was going; the session cookie is HttpOnly and SameSite=Strict and
    does not carry the token."""
    person = await browser("")
    await person.get("/login?next=/projects")
    response = await person.post("/login", {"token": api.tokens["interface"], "next": "/projects"})
    assert response.status_code == 303
    assert response.headers["location"] == "/projects"
    cookie = next(c for c in response.headers.get_list("set-cookie") if c.startswith("hub_session="))
    assert "HttpOnly" in cookie
    assert "samesite=strict" in cookie.lower()
    assert api.tokens["interface"] not in cookie
    assert hashlib.sha256(api.tokens["interface"].encode()).hexdigest() not in cookie
    page = await person.get("/projects")
    assert page.status_code == 200
    assert "interface-token" in element_text(page.text, "who")


@pytest.mark.parametrize("target", ["//evil.example/x", "https://evil.example/", "/\\evil.example"])
async def test_login_never_sends_elsewhere(browser: Open, api: Api, target: str) -> None:
    """A ``next`` that leaves the hub is replaced by /."""
    person = await browser("")
    await person.get("/login")
    response = await person.post("/login", {"token": api.tokens["interface"], "next": target})
    assert response.headers["location"] == "/"


async def test_logout_ends_the_session(browser: Open) -> None:
    """«Выйти» clears the session: the next page asks for login again."""
    person = await browser("interface")
    await person.get("/")
    response = await person.post("/logout")
    assert response.status_code == 303
    assert response.headers["location"] == "/login"
    assert (await person.get("/")).status_code == 303


async def test_a_revoked_token_ends_its_sessions(browser: Open, hub: Hub) -> None:
    """Revoking the token logs its open sessions out at their next request."""
    person = await browser("interface")
    assert (await person.get("/")).status_code == 200
    async with hub.unit() as unit:
        await admin.revoke_token(unit, "interface-token")
    assert (await person.get("/")).status_code == 303


async def test_a_form_without_csrf_is_refused_and_changes_nothing(browser: Open, api: Api) -> None:
    """A POST without the page's CSRF field → 403 with the reason; the project is not created."""
    person = await browser("admin")
    await person.get("/projects")
    response = await person.post("/projects", {"name": "FORGED"}, csrf=False)
    assert response.status_code == 403
    assert CSRF_REFUSED in response.text
    response = await person.post("/projects", {"name": "FORGED", "_csrf_token": "0" * 128}, csrf=False)
    assert response.status_code == 403
    assert (await api.get("/projects")).json()["items"] == []


async def test_interface_may_not_change_projects(browser: Open, api: Api) -> None:
    """An interface token sees projects but its form POST is refused: 403 «это может только администратор»."""
    person = await browser("interface")
    page = await person.get("/projects")
    assert "project-add" not in page.text
    response = await person.post("/projects", {"name": "AWPCA"})
    assert response.status_code == 403
    assert "это может только администратор" in response.text
    assert (await api.get("/projects")).json()["items"] == []


async def test_the_api_answers_scripts_on_the_same_paths(browser: Open, api: Api) -> None:
    """A request with a bearer token gets the API's JSON even when it accepts HTML; without one, a script's
    request (no text/html) gets the API's 401."""
    response = await api.client.get("/batches/1", headers={**HTML, **api.auth("interface")})
    assert response.status_code == 404
    assert response.json() == {"status_code": 404, "detail": "пакета 1 нет"}
    response = await api.client.get("/settings")
    assert response.status_code == 401


async def test_an_unknown_page_is_a_page(browser: Open) -> None:
    """A path of the page that has no view answers 404 as a page in Russian; an unknown batch says which."""
    person = await browser("interface")
    response = await person.get("/batches/12345")
    assert response.status_code == 404
    assert element_text(response.text, "error") == "пакета 12345 нет"
    response = await person.get("/issues/AURORA-1/nothing/here")
    assert response.status_code == 404
    assert element_text(response.text, "error") == "такой страницы нет"


async def test_vendored_htmx_is_served_as_recorded(browser: Open) -> None:
    """/static/htmx.min.js is the file VENDORED.md names (version and sha256), served from the hub itself."""
    person = await browser("")
    response = await person.client.get("/static/htmx.min.js")
    assert response.status_code == 200
    recorded = (Path(__file__).parents[2] / "src/hub_app/web/static/VENDORED.md").read_text(encoding="utf-8")
    assert hashlib.sha256(response.content).hexdigest() in recorded
    assert 'version:"2.0.11"' in response.text.replace(" ", "")


def test_session_key_is_made_once_and_kept(tmp_path: Path) -> None:
    """The key is created on first use (owner-only), then read back the same; a damaged one is named."""
    key = session_key(tmp_path)
    assert len(key) == 32
    assert (tmp_path / KEY_FILE).stat().st_mode & 0o777 == 0o600
    assert session_key(tmp_path) == key
    (tmp_path / KEY_FILE).write_bytes(b"short")
    with pytest.raises(ValueError, match="ожидается ключ из 32 байт"):
        session_key(tmp_path)
