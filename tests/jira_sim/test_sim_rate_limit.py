"""Jira DC's REST rate limit in the simulator: a token bucket per user, its headers, 429 and the control API."""

from __future__ import annotations

import base64
from collections.abc import Callable
from datetime import datetime

import httpx
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from adapters.clock import FakeClock
from jira_sim import Simulator
from jira_sim.rate_limit import RateLimiter, RateLimitPolicy

pytestmark = pytest.mark.anyio

HEADERS = ("x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-fillrate", "x-ratelimit-interval-seconds")
IVANOV = "Basic " + base64.b64encode(b"ivanov:any").decode()


@pytest.fixture
def sim(clock: Callable[[], datetime], timer: FakeClock) -> Simulator:
    """The sample, its buckets timed by the fake clock (``jira`` and ``make_client`` use it)."""
    return Simulator(clock=clock, timer=timer)


def bucket(response: httpx.Response) -> tuple[str, ...]:
    """Limit, remaining, fill rate, interval and Retry-After of an answer."""
    return tuple(response.headers.get(h, "-") for h in (*HEADERS, "retry-after"))


async def test_off_by_default_no_headers(jira: httpx.AsyncClient) -> None:
    """Without POST /_sim/rate_limit no answer carries a rate-limit header."""
    response = await jira.get("/rest/api/2/myself")
    assert (response.status_code, bucket(response)) == (200, ("-",) * 5)


async def test_bucket_counts_down_then_429_then_refills(jira: httpx.AsyncClient, timer: FakeClock) -> None:
    """fill 2/s, max 3: Remaining 2, 1, 0 (Retry-After 0, 0, 1), then 429; half a second later one token is back
    (Jira's tokens come one at a time, every Interval / FillRate), and the next one half a second after it."""
    created = await jira.post("/_sim/rate_limit", json={"fill_per_second": 2, "max": 3})
    assert (created.status_code, created.json()) == (201, {"fill_rate": 2, "interval_seconds": 1, "max": 3})
    answers = [await jira.get("/rest/api/2/myself") for _ in range(4)]
    assert [(a.status_code, *bucket(a)) for a in answers] == [
        (200, "3", "2", "2", "1", "0"),
        (200, "3", "1", "2", "1", "0"),
        (200, "3", "0", "2", "1", "1"),
        (429, "3", "0", "2", "1", "1"),
    ]
    refused = answers[-1]
    assert refused.headers["content-type"] == "text/html;charset=utf-8"
    assert "<p><b>Message</b> Rate limit exceeded.</p>" in refused.text
    timer.advance(0.499)
    assert (await jira.get("/rest/api/2/myself")).status_code == 429
    timer.advance(0.001)
    again = await jira.get("/rest/api/2/myself")
    assert (again.status_code, *bucket(again)) == (200, "3", "0", "2", "1", "1")
    timer.advance(1.0)
    later = await jira.get("/rest/api/2/myself")
    assert (later.status_code, *bucket(later)) == (200, "3", "1", "2", "1", "0")


async def test_a_fraction_per_second_is_a_whole_number_per_interval(jira: httpx.AsyncClient, timer: FakeClock) -> None:
    """fill 0.5/s is FillRate 1 every 2 s; Retry-After is the whole seconds left until the next token (ceil)."""
    await jira.post("/_sim/rate_limit", json={"fill_per_second": 0.5, "max": 1})
    first = await jira.get("/rest/api/2/myself")
    assert bucket(first) == ("1", "0", "1", "2", "2")
    timer.advance(1.5)
    waiting = await jira.get("/rest/api/2/myself")
    assert (waiting.status_code, waiting.headers["retry-after"]) == (429, "1")
    timer.advance(0.5)
    assert (await jira.get("/rest/api/2/myself")).status_code == 200


async def test_one_bucket_per_user(jira: httpx.AsyncClient, sim: Simulator, make_client) -> None:
    """The bearer token's user (bridge-user) emptying its bucket leaves ivanov's (basic auth) full."""
    sim.set_rate_limit(1, 1)
    assert (await jira.get("/rest/api/2/myself")).status_code == 200
    assert (await jira.get("/rest/api/2/myself")).status_code == 429
    async with make_client(Authorization=IVANOV) as ivanov:
        response = await ivanov.get("/rest/api/2/myself")
    assert (response.status_code, response.headers["x-ratelimit-remaining"]) == (200, "0")
    assert [c["status"] for c in sim.calls] == [200, 429, 200]


async def test_control_api_and_anonymous_calls_are_not_limited(
    jira: httpx.AsyncClient, sim: Simulator, make_client
) -> None:
    """With an empty bucket /_sim/* still answers, and anonymous or refused calls carry no bucket."""
    sim.set_rate_limit(1, 1)
    await jira.get("/rest/api/2/myself")
    assert (await jira.get("/_sim/calls")).status_code == 200
    assert "x-ratelimit-limit" not in (await jira.get("/_sim/calls")).headers
    async with make_client() as anonymous:
        info = await anonymous.get("/rest/api/2/serverInfo")
        refused = await anonymous.get("/rest/api/2/myself")
    assert (info.status_code, bucket(info)) == (200, ("-",) * 5)
    assert (refused.status_code, bucket(refused)) == (401, ("-",) * 5)


async def test_every_rest_answer_carries_the_bucket(jira: httpx.AsyncClient, sim: Simulator) -> None:
    """Errors count too: a 404 takes a token and says so."""
    sim.set_rate_limit(10, 5)
    missing = await jira.get("/rest/api/2/issue/AURORA-99999")
    assert (missing.status_code, bucket(missing)) == (404, ("5", "4", "10", "1", "0"))


async def test_delete_turns_the_limit_off(jira: httpx.AsyncClient, sim: Simulator) -> None:
    """DELETE /_sim/rate_limit: no headers, no 429 any more; reset does the same."""
    sim.set_rate_limit(1, 1)
    await jira.get("/rest/api/2/myself")
    assert (await jira.delete("/_sim/rate_limit")).status_code == 204
    response = await jira.get("/rest/api/2/myself")
    assert (response.status_code, bucket(response)) == (200, ("-",) * 5)
    sim.set_rate_limit(1, 1)
    sim.reset()
    assert sim.controls.rate_limit.policy is None


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"fill_per_second": 0, "max": 1}, "fill_per_second must be positive, not 0"),
        ({"fill_per_second": "fast", "max": 1}, "fill_per_second must be a number, not 'fast'"),
        ({"fill_per_second": 1, "max": 0}, "max must be a positive integer, not 0"),
        ({"fill_per_second": 1}, "rate limit needs fill_per_second and max"),
        ({"fill_per_second": 1, "max": 1, "burst": 2}, "unknown rate limit keys: burst"),
    ],
)
async def test_rate_limit_control_refuses_bad_bodies(jira: httpx.AsyncClient, body: dict, message: str) -> None:
    """A bad rate-limit body is 400 naming the problem, and the limit stays off."""
    response = await jira.post("/_sim/rate_limit", json=body)
    assert (response.status_code, response.json()) == (400, {"errorMessages": [message], "errors": {}})
    assert "x-ratelimit-limit" not in (await jira.get("/rest/api/2/myself")).headers


@pytest.mark.parametrize(
    ("per_second", "expected"),
    [(20, (20, 1)), (0.5, (1, 2)), (2.5, (5, 2)), (1 / 3, (1, 3)), (1 / 60, (1, 60))],
)
def test_rates_in_jiras_whole_number_form(per_second: float, expected: tuple[int, int]) -> None:
    """A rate per second is Jira's FillRate tokens every Interval-Seconds, both whole numbers."""
    policy = RateLimitPolicy.per_second(per_second, 10)
    assert (policy.fill_rate, policy.interval) == expected


@settings(max_examples=200, deadline=None)
# 1.3 + 0.3 + 0.7 lands a hair off 2.3 in floats: the empty bucket refills "now", yet Retry-After is ≥ 1
@example(fill=1, interval=1, max_tokens=1, steps=[(1.3, 1), (0.3, 1), (0.7, 1), (0.3, 1)])
@given(
    fill=st.integers(1, 5),
    interval=st.integers(1, 3),
    max_tokens=st.integers(1, 6),
    steps=st.lists(st.tuples(st.floats(0, 2.5), st.integers(0, 4)), max_size=25),
)
def test_no_more_requests_pass_than_the_bucket_holds(
    fill: int, interval: int, max_tokens: int, steps: list[tuple[float, int]]
) -> None:
    """By any time T at most max + ⌊T·fill/interval⌋ requests pass (a token every interval/fill); Remaining stays
    in [0, max]; a refusal says when (Retry-After ≥ 1) and an answer with tokens left says 0."""
    timer = FakeClock()
    limiter = RateLimiter(timer)
    policy = limiter.configure(fill / interval, max_tokens)
    passed = 0
    for wait, burst in steps:
        timer.advance(wait)
        for _ in range(burst):
            admission = limiter.admit("bridge-user")
            assert admission is not None
            passed += admission.allowed
            assert 0 <= admission.remaining <= max_tokens
            assert (admission.retry_after == 0) == (admission.remaining > 0)
            assert admission.allowed or admission.retry_after >= 1
        assert passed <= max_tokens + int(timer.monotonic() * policy.fill_rate / policy.interval + 1e-9)
