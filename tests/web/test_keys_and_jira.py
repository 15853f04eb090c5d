"""Keys lead somewhere (DESIGN.md 8, round 3): a temp key links to the real issue once its ensure_issue created
it and to nothing before; every issue links to Jira itself once the agent reported Jira's address."""

from __future__ import annotations

from typing import Any

import pytest

from tests.hub.support import claim_ok, cmd, create_ok, done, issue, link, seed_mirror

from .conftest import Api, Open
from .support import cells, element_text

pytestmark = pytest.mark.anyio


async def _new_issue_and_comment(api: Api) -> dict[str, Any]:
    return await create_ok(
        api,
        [
            cmd("ensure_issue", temp_key="new:1", summary="Новая задача"),
            cmd("ensure_comment", key="new:1", marker="[m]", body="текст"),
        ],
    )


async def test_a_temp_key_links_to_its_real_issue_once_known(browser: Open, api: Api) -> None:
    """Before the ensure_issue is done, new:1 is plain text (its page would be a 404); after, both the creating
    command, the one using the key and the tail refresh link to AURORA-1590's page."""
    batch = await _new_issue_and_comment(api)
    person = await browser("interface")
    before = (await person.get(f"/batches/{batch['id']}")).text
    assert "/issues/new:1" not in before and "/issues/new%3A1" not in before
    assert [row[3] for row in cells(before, "commands")[1:3]] == ["«Новая задача» (new:1)", "new:1"]
    await done(api, (await claim_ok(api))["id"], {"key": "AURORA-1590", "created": True})
    after = (await person.get(f"/batches/{batch['id']}")).text
    assert [row[3] for row in cells(after, "commands")[1:3]] == [
        "«Новая задача» (new:1 → AURORA-1590)",
        "AURORA-1590 (new:1)",
    ]
    assert after.count('href="/issues/AURORA-1590"') == 3  # the tail refresh names it too
    assert (await api.get(f"/batches/{batch['id']}")).json()["temp_keys"] == {"new:1": "AURORA-1590"}
    comment = batch["commands"][1]["id"]
    assert 'href="/issues/AURORA-1590"' in (await person.get(f"/commands/{comment}")).text


async def test_the_agent_reports_jiras_address_and_the_hub_keeps_it(api: Api) -> None:
    """The claim's jira_base_url is kept (without userinfo) and shown by /agent-status; one that is no web
    address is not kept; a later claim without it keeps the last one."""
    await claim_ok_or_none(api, jira_base_url="https://bridge:s3cret@jira.bank/jira/", jira_time_zone="Asia/Omsk")
    status = (await api.get("/agent-status")).json()
    assert (status["jira_base_url"], status["jira_time_zone"]) == ("https://jira.bank/jira", "Asia/Omsk")
    await claim_ok_or_none(api)
    assert (await api.get("/agent-status")).json()["jira_base_url"] == "https://jira.bank/jira"
    await claim_ok_or_none(api, jira_base_url="javascript:alert(1)")
    assert (await api.get("/agent-status")).json()["jira_base_url"] is None


async def test_the_agent_card_names_jira_and_its_time_zone(browser: Open, api: Api) -> None:
    """«Агент» says where Jira is (its address whole in the link and on hover, without the scheme on screen: it
    never wraps) and whose time the page shows."""
    await claim_ok_or_none(api, jira_base_url="https://jira.bank/jira", jira_time_zone="Europe/Moscow")
    person = await browser("interface")
    page = (await person.get("/")).text
    assert element_text(page, "jira-base-url") == "jira.bank/jira"
    assert 'href="https://jira.bank/jira" id="jira-base-url" class="one-line" title="https://jira.bank/jira"' in page
    assert "Jira jira.bank/jira Часовой пояс Europe/Moscow" in element_text(page, "agent-card")


async def claim_ok_or_none(api: Api, **extra: Any) -> None:
    response = await api.claim(**extra)
    assert response.status_code in (200, 204), response.text


async def test_every_issue_links_to_jira_itself(browser: Open, api: Api) -> None:
    """With the address known, an issue's key on the batch page links to <base>/browse/KEY; unknown, no link."""
    batch = await create_ok(api, [cmd("ensure_fields", key="AURORA-7", duedate="2026-10-23")])
    person = await browser("interface")
    assert "/browse/" not in (await person.get(f"/batches/{batch['id']}")).text
    await claim_ok_or_none(api, jira_base_url="https://jira.bank/jira")
    page = (await person.get(f"/batches/{batch['id']}")).text
    assert 'href="https://jira.bank/jira/browse/AURORA-7"' in page
    assert 'aria-label="Открыть AURORA-7 в Jira"' in page
    assert cells(page, "commands")[1][3] == "AURORA-7"  # an icon: the key reads as before


async def test_the_issue_page_links_itself_its_epic_and_its_links_to_jira(browser: Open, api: Api) -> None:
    """Every key on an issue's page has its way to Jira; without the address, none has."""
    await seed_mirror(
        api,
        [
            issue("AURORA-2", epic_key="AURORA-1", links=[link("10", "Связанные", "AURORA-2", "AURORA-3")]),
        ],
    )
    person = await browser("interface")
    assert "/browse/" not in (await person.get("/issues/AURORA-2")).text
    await claim_ok_or_none(api, jira_base_url="https://jira.bank")
    page = (await person.get("/issues/AURORA-2")).text
    for key in ("AURORA-1", "AURORA-2", "AURORA-3"):
        assert f'href="https://jira.bank/browse/{key}"' in page
