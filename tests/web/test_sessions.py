"""The page's session lives on the server: its CSRF token is bound to it (and changes at login), «Выйти» ends it
for every copy of its cookie, it lasts 12 hours from login however much it is used, and every hub process on the
database knows it."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import httpx
import pytest
from sqlalchemy import select

from adapters.files import FileStore
from adapters.storage.database import Database
from adapters.storage.engine import make_engine
from adapters.storage.models import WebSessionRow, table_of
from hub_app.app import create_app
from hub_app.runtime.hub import Hub
from hub_app.web.cookies import CSRF_COOKIE, CSRF_REFUSED, SESSION_COOKIE
from tests.hub.support import create_ok
from tests.support import cmd

from .conftest import Api, Clock, Open
from .support import Browser, element_text

pytestmark = pytest.mark.anyio


async def _anonymous_token(browser: Open) -> str:
    """What anyone gets from ``GET /login`` without a session: the form's CSRF token (and its cookie's)."""
    stranger = await browser("")
    await stranger.get("/login")
    return stranger.csrf()


async def _statuses(api: Api, batch_id: int) -> list[str]:
    return [c["status"] for c in (await api.get(f"/batches/{batch_id}")).json()["commands"]]


def _copy(person: Browser, other: Browser) -> None:
    """``other`` gets ``person``'s session cookie, as copied out of their browser."""
    other.client.cookies.set(SESSION_COOKIE, person.client.cookies[SESSION_COOKIE], domain="hub.test")


async def test_an_anonymous_login_token_does_not_post_with_a_session(browser: Open, api: Api) -> None:
    """The issue's attack: a sibling subdomain tosses the CSRF cookie and field of an anonymous ``GET /login`` into
    a logged-in browser and posts a force-cancel: 403 with the reason, the batch is untouched."""
    batch = await create_ok(api, [cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23")])
    tossed = await _anonymous_token(browser)
    victim = await browser("interface")
    victim.client.cookies.delete(CSRF_COOKIE)
    victim.client.cookies.set(CSRF_COOKIE, tossed, domain="hub.test")
    response = await victim.client.post(
        f"/batches/{batch['id']}/cancel",
        data={"force": "true", "_csrf_token": tossed},
        headers={"Accept": "text/html"},
    )
    assert response.status_code == 403
    assert element_text(response.text, "error") == CSRF_REFUSED
    assert await _statuses(api, batch["id"]) == ["queued", "queued"]


async def test_the_token_changes_at_login_and_the_old_one_is_refused(browser: Open, api: Api) -> None:
    """The login form's token is not the session's; after login only the session's opens a form."""
    person = await browser("")
    await person.get("/login")
    before = person.csrf()
    response = await person.post("/login", {"token": api.tokens["admin"], "next": "/projects"})
    assert response.status_code == 303
    await person.get("/projects")
    assert person.csrf() != before
    refused = await person.post("/projects", {"name": "FORGED", "_csrf_token": before}, csrf=False)
    assert refused.status_code == 403
    assert (await api.get("/projects")).json()["items"] == []


async def test_a_second_login_ends_the_first_session(browser: Open, api: Api) -> None:
    """Logging in again makes a new session cookie; a copy of the old one opens nothing."""
    person, copy = await browser("interface"), await browser("")
    _copy(person, copy)
    assert (await copy.get("/")).status_code == 200
    assert (await person.login(api.tokens["admin"])).status_code == 303
    assert person.client.cookies[SESSION_COOKIE] != copy.client.cookies[SESSION_COOKIE]
    assert (await person.get("/")).status_code == 200
    assert (await copy.get("/")).headers["location"] == "/login"


async def test_a_form_from_another_site_is_refused(browser: Open, api: Api) -> None:
    """A browser that says the form came from another site (``Sec-Fetch-Site: same-site``, a sibling subdomain)
    is refused even with the session's own token; nothing is created."""
    person = await browser("admin")
    await person.get("/projects")
    response = await person.client.post(
        "/projects",
        data={"name": "AWPCA", "_csrf_token": person.csrf()},
        headers={"Accept": "text/html", "Sec-Fetch-Site": "same-site"},
    )
    assert response.status_code == 403
    assert element_text(response.text, "error") == CSRF_REFUSED
    assert (await api.get("/projects")).json()["items"] == []


async def test_logout_ends_every_copy_of_the_cookie(browser: Open, api: Api) -> None:
    """A cookie copied before «Выйти» opens no page and posts no batch afterwards (the form's token with it)."""
    person, copy = await browser("interface"), await browser("")
    _copy(person, copy)
    await copy.get("/new")
    token = copy.csrf()
    await person.get("/")
    assert (await person.post("/logout")).headers["location"] == "/login"
    assert (await copy.get("/")).headers["location"] == "/login"
    body = '{"title": "после выхода", "commands": [{"type": "refresh", "params": {"keys": ["AURORA-1"]}}]}'
    posted = await copy.post("/new", {"batch": body, "author": "x", "_csrf_token": token}, csrf=False)
    assert posted.status_code == 303
    assert posted.headers["location"] == "/login"
    assert (await api.get("/batches")).json()["total"] == 0


async def test_a_session_lasts_twelve_hours_from_login_however_used(browser: Open, clock: Clock) -> None:
    """Used all day, the session still ends 12 h after login; no page sets the cookie again."""
    person = await browser("interface")
    clock.advance(hours=11, minutes=59)
    page = await person.get("/")
    assert page.status_code == 200
    assert page.headers.get_list("set-cookie") == []
    clock.advance(minutes=1)
    assert (await person.get("/")).headers["location"] == "/login"


async def test_the_database_keeps_the_cookies_digest_not_the_cookie(browser: Open, hub: Hub) -> None:
    """The ``web_session`` row holds the cookie's sha256 and the token's, never either secret."""
    person = await browser("interface")
    cookie = person.client.cookies[SESSION_COOKIE]
    async with hub.database.engine.connect() as conn:
        rows = (await conn.execute(select(table_of(WebSessionRow)))).all()
    assert [row.id_sha256 for row in rows] == [hashlib.sha256(cookie.encode()).hexdigest()]
    assert cookie not in str(rows)


async def test_sessions_are_shared_by_hub_processes(browser: Open, hub_url: str, tmp_path: Path, clock: Clock) -> None:
    """A session opened on one hub process opens pages on another on the same database, whose «Выйти» ends it
    for the first too (no key shared between them)."""
    person = await browser("interface")
    other = Hub(database=Database(make_engine(hub_url)), files=FileStore(tmp_path / "other"), now=clock)
    app = create_app(other, mcp=False, web_key=os.urandom(32))
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://hub.test") as client:
            elsewhere = Browser(client=client)
            _copy(person, elsewhere)
            assert (await elsewhere.get("/")).status_code == 200
            assert (await elsewhere.post("/logout")).headers["location"] == "/login"
    finally:
        await other.close()
    assert (await person.get("/")).headers["location"] == "/login"
