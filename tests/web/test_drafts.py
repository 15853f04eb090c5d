"""Drafts of «Новый пакет» kept over a login only for a session the hub issued (DESIGN.md 5.7; issue 31 finding
4): an anonymous POST stores nothing and goes to the login; a session ended more than a day ago keeps nothing; at
most 5 drafts a session (the newest), 2 MB each; after the login each /new opens the newest left."""

from __future__ import annotations

import json
import re
import secrets

import pytest
from sqlalchemy import func, select

from adapters.storage.models import WebDraftRow, table_of
from hub_app.runtime.hub import Hub
from hub_app.web.cookies import SESSION_COOKIE
from reconcile.guard.web_drafts import MAX_DRAFT_BYTES

from .conftest import Api, Clock, Open
from .support import Browser, has_element

pytestmark = pytest.mark.anyio

_DRAFT = table_of(WebDraftRow)


def _batch(title: str, padding: int = 0) -> dict[str, str]:
    """The JSON view's form: a batch titled ``title`` (``padding`` characters of description make it larger)."""
    body = {"title": title, "commands": [{"type": "ensure_comment", "params": {"key": "AURORA-5", "marker": "m"}}]}
    if padding:
        body["commands"][0]["params"]["body"] = "x" * padding  # type: ignore[index]
    return {"batch": json.dumps(body, ensure_ascii=False), "author": "a"}


async def _drafts(hub: Hub) -> tuple[int, int]:
    """How many drafts the hub keeps, and their bytes."""
    async with hub.database.engine.connect() as conn:
        found = (await conn.execute(select(func.count(), func.coalesce(func.sum(_DRAFT.c.size), 0)))).one()
    return int(found[0]), int(found[1])


async def _ended(browser: Open, clock: Clock) -> Browser:
    """A person whose session has just ended (12 h after the login) with /new still open in the browser."""
    person = await browser("interface")
    await person.get("/new")
    clock.advance(hours=12, seconds=1)
    return person


async def _opened_titles(person: Browser, api: Api, times: int) -> list[str | None]:
    """Log in, then open /new ``times``: the title of the draft each opens (``None``: the example, no draft)."""
    assert (await person.login(api.tokens["interface"], target="/new")).status_code == 303
    titles = []
    for _ in range(times):
        page = (await person.get("/new")).text
        title = re.search(r'name="title" value="([^"]*)"', page)
        titles.append(title.group(1) if title and has_element(page, "draft-restored") else None)
    return titles


async def test_an_anonymous_post_stores_nothing(browser: Open, hub: Hub) -> None:
    """Finding 4: posts of 2 MB with no cookie at all, or a cookie the hub never issued (more of them than the five
    drafts a session keeps): each is sent to the login, and not a byte is stored."""
    stranger = await browser("")
    await stranger.get("/login")
    for number in range(7):
        if number % 2:
            stranger.client.cookies.set(SESSION_COOKIE, secrets.token_urlsafe(32))
        response = await stranger.post("/new", _batch(f"мусор {number}", padding=MAX_DRAFT_BYTES - 200), csrf=False)
        assert (response.status_code, response.headers["location"]) == (303, "/login")
    assert await _drafts(hub) == (0, 0)


async def test_a_session_ended_over_a_day_ago_keeps_nothing(browser: Open, api: Api, clock: Clock, hub: Hub) -> None:
    """A form posted 24 h after the session ended is sent to the login with nothing kept; a minute earlier it
    would have been."""
    person = await _ended(browser, clock)
    clock.advance(hours=23, minutes=59)
    await person.post("/new", _batch("ещё можно"))
    clock.advance(minutes=1)
    response = await person.post("/new", _batch("поздно"))
    assert response.status_code == 303
    assert (await _drafts(hub))[0] == 1
    assert await _opened_titles(person, api, 2) == ["ещё можно", None]


async def test_five_drafts_a_session_the_newest_first(browser: Open, api: Api, clock: Clock, hub: Hub) -> None:
    """Seven posts after the session ended keep the newest five; after the login /new opens them newest first,
    once each, then the example."""
    person = await _ended(browser, clock)
    for number in range(7):
        assert (await person.post("/new", _batch(f"черновик {number}"))).status_code == 303
    assert (await _drafts(hub))[0] == 5
    opened = await _opened_titles(person, api, 6)
    assert opened == ["черновик 6", "черновик 5", "черновик 4", "черновик 3", "черновик 2", None]
    assert await _drafts(hub) == (0, 0)


async def test_a_draft_over_2_mb_is_not_kept(browser: Open, api: Api, clock: Clock, hub: Hub) -> None:
    """A draft past 2 MB (its UTF-8 bytes) is not kept; the person is sent to log in all the same."""
    person = await _ended(browser, clock)
    response = await person.post("/new", _batch("большой", padding=MAX_DRAFT_BYTES))
    assert response.status_code == 303
    assert await _drafts(hub) == (0, 0)
    assert await _opened_titles(person, api, 1) == [None]
