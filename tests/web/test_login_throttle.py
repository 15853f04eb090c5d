"""The login is throttled (DESIGN.md 5.7; issue 31 finding 10): after 5 wrong tokens in a minute from one client
address — or with one token prefix from anywhere — 429 with ``Retry-After``, each block twice the last up to
15 minutes; the right token works at once when the wait is over. The hub's clock is moved, nothing sleeps."""

from __future__ import annotations

import re
import secrets

import pytest

from hub_app.web.session import TOO_MANY

from .conftest import Api, Clock, OpenFrom
from .support import Browser

pytestmark = pytest.mark.anyio


async def _login(person: Browser, token: str) -> tuple[int, str | None]:
    response = await person.login(token)
    return response.status_code, response.headers.get("retry-after")


async def _wrong(person: Browser, times: int) -> list[int]:
    """``times`` wrong tokens, each of its own prefix (only the address counts them all)."""
    return [(await _login(person, secrets.token_urlsafe(16)))[0] for _ in range(times)]


async def test_five_wrong_tokens_then_429_until_the_wait_ends(browser_from: OpenFrom, api: Api, clock: Clock) -> None:
    """Five wrong tokens are 401; the sixth attempt, even with the right token, is 429 «повторите через 60 с»
    without the token being checked; a minute on, the right token logs in at once."""
    person = await browser_from("10.0.0.7")
    assert await _wrong(person, 5) == [401] * 5
    response = await person.login(api.tokens["interface"])
    assert (response.status_code, response.headers["retry-after"]) == (429, "60")
    assert TOO_MANY.format(seconds=60) in response.text
    assert (await person.get("/")).status_code == 303  # no session was opened
    clock.advance(seconds=59)
    assert await _login(person, api.tokens["interface"]) == (429, "1")
    clock.advance(seconds=1)
    assert await _login(person, api.tokens["interface"]) == (303, None)
    assert (await person.get("/")).status_code == 200


async def test_each_block_doubles_up_to_15_minutes(browser_from: OpenFrom, clock: Clock) -> None:
    """Five more wrong tokens after each wait: blocked 1, 2, 4, 8, then 15 and 15 minutes."""
    person = await browser_from("10.0.0.8")
    waits = []
    for _ in range(6):
        assert await _wrong(person, 5) == [401] * 5
        status, wait = await _login(person, "ещё один")
        assert status == 429 and wait is not None
        waits.append(int(wait))
        clock.advance(seconds=int(wait))
    assert waits == [60, 120, 240, 480, 900, 900]


async def test_a_quiet_quarter_hour_starts_over(browser_from: OpenFrom, clock: Clock) -> None:
    """Fifteen quiet minutes after a block's end, the next block is a minute again; failures more than a minute
    apart never block."""
    person = await browser_from("10.0.0.9")
    await _wrong(person, 5)
    clock.advance(minutes=1 + 15)
    await _wrong(person, 5)
    assert await _login(person, "снова") == (429, "60")
    clock.advance(minutes=1)
    for _ in range(8):
        assert await _wrong(person, 1) == [401]
        clock.advance(seconds=15)


async def test_another_address_is_not_blocked_nor_a_good_login(browser_from: OpenFrom, api: Api) -> None:
    """One address blocked leaves another free; a success clears its address's failures."""
    blocked, elsewhere = await browser_from("10.0.1.1"), await browser_from("10.0.1.2")
    await _wrong(blocked, 5)
    assert await _login(blocked, "x") == (429, "60")
    assert await _wrong(elsewhere, 4) == [401] * 4
    assert await _login(elsewhere, api.tokens["interface"]) == (303, None)
    assert await _wrong(elsewhere, 4) == [401] * 4


async def test_one_token_prefix_from_many_addresses_is_throttled(browser_from: OpenFrom, api: Api) -> None:
    """Guesses of one token's tail from five addresses: the prefix is blocked wherever the next comes from, and
    only it — the right token, another prefix, still logs in."""
    prefix = api.tokens["admin"][:8]
    for number in range(5):
        person = await browser_from(f"10.0.2.{number}")
        assert await _login(person, prefix + f"guess{number}") == (401, None)
    sixth = await browser_from("10.0.2.99")
    status, wait = await _login(sixth, prefix + "guess6")
    assert (status, wait) == (429, "60")
    assert re.fullmatch(r"\d+", wait or "")
    assert await _login(sixth, api.tokens["interface"]) == (303, None)
