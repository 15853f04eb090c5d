"""What stalls the agent (DESIGN.md 5.4, 6): ``POST /agent/status`` keeps its ``last_error``, ``/agent-status``
and the page show it, the next claim clears it; a second agent cannot write over the active one's."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Api, Clock
from .support import claim_none

pytestmark = pytest.mark.anyio

TLS = (
    "TLS verification of jira at https://jira.bank/jira failed (unable to get local issuer certificate) with the "
    "OS trust store: give the CA that signed its certificate with --jira-ca-bundle (or SDLC_AGENT_JIRA_CA_BUNDLE)"
)


async def problem(api: Api, last_error: str | None, **extra: Any) -> Any:
    body = {"agent_id": "agent-1", "version": "1.2", "instance": "A", "last_error": last_error, **extra}
    return await api.post("/agent/status", body, role="agent")


async def test_last_error_is_shown_until_the_next_claim(api: Api, clock: Clock) -> None:
    """An agent stuck on Jira says why; /agent-status shows it (the agent is alive: online); a claim clears it."""
    assert (await api.get("/agent-status")).json()["last_error"] is None
    answer = await problem(api, TLS)
    assert (answer.status_code, answer.content) == (204, b"")
    status = (await api.get("/agent-status")).json()
    assert (status["agent_id"], status["version"], status["online"], status["last_error"]) == (
        "agent-1",
        "1.2",
        True,
        TLS,
    )
    assert status["last_claim_at"] is None
    clock.advance(seconds=5)
    await claim_none(api, instance="A")
    assert (await api.get("/agent-status")).json()["last_error"] is None


async def test_null_clears_it(api: Api) -> None:
    await problem(api, TLS)
    assert (await problem(api, None)).status_code == 204
    assert (await api.get("/agent-status")).json()["last_error"] is None


async def test_a_second_agent_cannot_write_over_the_active_ones(api: Api) -> None:
    """The same who-may-act rule as a claim: another live agent gets 409 and nothing changes."""
    await claim_none(api, instance="A")
    answer = await problem(api, TLS, agent_id="agent-2", instance="Z")
    assert answer.status_code == 409
    status = (await api.get("/agent-status")).json()
    assert (status["agent_id"], status["last_error"]) == ("agent-1", None)


async def test_a_long_error_is_cut_and_bad_bodies_are_refused(api: Api) -> None:
    await problem(api, "x" * 5000)
    assert len((await api.get("/agent-status")).json()["last_error"]) == 2000
    assert (await problem(api, 42)).status_code == 422
    missing = await api.post("/agent/status", {"agent_id": "agent-1"}, role="agent")
    assert missing.status_code == 422
    assert (await api.post("/agent/status", {"agent_id": "a", "last_error": None})).status_code == 403


async def test_a_stalled_agent_counts_as_online_between_its_backoff_waits(api: Api, clock: Clock) -> None:
    """A stalled agent reports at each backoff wait (up to a minute) instead of claiming every long poll: it
    is online for two of those waits; an agent that only claims, for two long polls (2 × 25 s)."""
    await problem(api, TLS)
    clock.advance(seconds=119)
    assert (await api.get("/agent-status")).json()["online"] is True
    clock.advance(seconds=2)
    assert (await api.get("/agent-status")).json()["online"] is False
    await claim_none(api, instance="A")
    clock.advance(seconds=51)
    assert (await api.get("/agent-status")).json()["online"] is False
