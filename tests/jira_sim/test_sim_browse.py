"""``/browse/KEY`` (issue 32): the page every «open in Jira» link of the hub's page leads to, served by the
simulator as a small HTML page naming the issue, to anyone (a browser has no Jira token); an unknown key is Jira's
404 page. Not a REST call: the call log the tests count stays empty."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from jira_sim.simulator import Simulator

pytestmark = pytest.mark.anyio


async def test_an_issue_has_its_page(make_client: Callable[..., httpx.AsyncClient], sim: Simulator) -> None:
    """Anonymous: 200 HTML with the key, summary and status of the issue as the store has it now."""
    async with make_client() as browser, make_client(Authorization="Bearer t") as jira:
        issue = (await jira.get("/rest/api/2/issue/AURORA-1533")).json()
        await jira.delete("/_sim/calls")
        page = await browser.get("/browse/AURORA-1533")
        assert page.status_code == 200
        assert page.headers["content-type"] == "text/html; charset=utf-8"
        assert f'<span id="key">AURORA-1533</span> <span id="summary">{issue["fields"]["summary"]}</span>' in page.text
        assert f'<span id="status">{issue["fields"]["status"]["name"]}</span>' in page.text
        assert (await jira.get("/_sim/calls")).json() == []


async def test_an_unknown_key_is_jiras_404(make_client: Callable[..., httpx.AsyncClient]) -> None:
    """A key no issue has: 404 «Issue does not exist», the key escaped."""
    async with make_client() as browser:
        page = await browser.get("/browse/AURORA-999999%3Cb%3E")
    assert page.status_code == 404
    assert (
        '<h1 id="missing">Issue does not exist</h1><p>AURORA-999999&lt;b&gt;: the issue does not exist.</p>'
        in page.text
    )
