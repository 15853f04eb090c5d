"""What the agent tells the hub of Jira itself when it starts (DESIGN.md 8, round 3): its address from
``serverInfo`` and its user's time zone from ``myself``, with its claim — never a credential written into the
address, and not the address at all when the bank's policy hides it. Against the in-process simulator."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs
import httpx
import pytest

from adapters.clock import FakeClock
from adapters.jira_http import JiraHttp
from jira_sim import Simulator

from .agent_fakes import FakeHub
from .test_loop import AURORA_ONLY, Rig

pytestmark = pytest.mark.anyio


async def test_the_first_claim_says_where_jira_is_and_its_users_time_zone(tmp_path: Path) -> None:
    """serverInfo's baseUrl and myself's timeZone, read once at the start, go with every claim."""
    rig = Rig(tmp_path, FakeHub())
    await rig.agent.step(await rig.agent.context())
    await rig.agent.step(await rig.agent.context())
    await rig.close()
    assert [(c["jira_base_url"], c["jira_time_zone"]) for c in rig.hub.claims] == [
        ("http://jira", "Europe/Moscow"),
        ("http://jira", "Europe/Moscow"),
    ]
    assert rig.jira_transport.seen.count("GET /rest/api/2/serverInfo") == 1


async def test_a_policy_that_hides_jiras_address_is_obeyed(tmp_path: Path) -> None:
    """hide_jira_url: the claim says nothing of the address (null), and Jira is not even asked."""
    rig = Rig(tmp_path, FakeHub(), policy=attrs.evolve(AURORA_ONLY, hide_jira_url=True))
    await rig.agent.step(await rig.agent.context())
    await rig.close()
    assert rig.hub.claims[0]["jira_base_url"] is None
    assert rig.hub.claims[0]["jira_time_zone"] == "Europe/Moscow"
    assert "GET /rest/api/2/serverInfo" not in rig.jira_transport.seen


def _behind_a_proxy_naming_the_user(app: Any) -> Any:
    """Jira behind a proxy that puts the agent's credentials into the host Jira builds its baseUrl from."""

    async def proxied(scope: dict[str, Any], receive: Any, send: Any) -> None:
        headers = [(k, v) for k, v in scope.get("headers", []) if k != b"host"]
        await app({**scope, "headers": [*headers, (b"host", b"bridge:s3cret@jira.bank:8443")]}, receive, send)

    return proxied


async def test_a_base_url_with_userinfo_is_told_without_it() -> None:
    """A baseUrl carrying ``user:password@`` reaches the hub as the address alone."""
    sim = Simulator()
    transport = httpx.ASGITransport(app=_behind_a_proxy_naming_the_user(sim.asgi))
    jira = JiraHttp.connect("http://jira.test/", token="pat", clock=FakeClock(), transport=transport)
    try:
        ctx = await jira.exec_context()
    finally:
        await jira.aclose()
    assert ctx.jira_base_url == "http://jira.bank:8443"
    assert ctx.jira_time_zone == "Europe/Moscow"
