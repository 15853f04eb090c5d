"""«Обновить из Jira» (DESIGN.md 8, round 3): an issue not yet in the mirror says so and offers it, as issue and
project pages do; a plain form post (no JavaScript) with the page's CSRF field that queues ``POST /refresh``."""

from __future__ import annotations

import pytest

from tests.hub.support import claim_ok, issue, run_refresh, seed_mirror

from .conftest import Api, Open
from .support import element_text, has_element

pytestmark = pytest.mark.anyio


async def test_a_missing_issue_is_refreshed_from_its_page(browser: Open, api: Api) -> None:
    """The missing issue's page says «ещё нет в зеркале» with the button; pressing it queues a refresh of that
    key (the flash names its batch); once the agent read it, the page shows the issue."""
    person = await browser("interface")
    missing = await person.get("/issues/AURORA-1590")
    assert missing.status_code == 404
    assert element_text(missing.text, "missing-text").startswith("Задачи AURORA-1590 ещё нет в зеркале")
    assert 'action="/issues/AURORA-1590/refresh"' in missing.text
    response = await person.post("/issues/AURORA-1590/refresh")
    assert response.headers["location"] == "/issues/AURORA-1590"
    after = await person.follow(response)
    batch = (await api.get("/batches")).json()["items"][0]
    assert f"обновление из Jira поставлено в очередь: пакет {batch['id']}" in after.text
    assert [(c["type"], c["params"]) for c in batch["commands"]] == [("refresh", {"keys": ["AURORA-1590"]})]
    assert batch["author"] == "interface-token"
    await run_refresh(api, await claim_ok(api), [issue("AURORA-1590", labels=["AWPCA"])])
    shown = await person.get("/issues/AURORA-1590")
    assert shown.status_code == 200
    assert element_text(shown.text, "title") == "AURORA-1590: Задача AURORA-1590"
    assert has_element(shown.text, "refresh-from-jira")


async def test_the_button_needs_the_pages_csrf_field(browser: Open, api: Api) -> None:
    """A post without the form's CSRF field is refused and queues nothing."""
    person = await browser("interface")
    await person.get("/issues/AURORA-1")
    response = await person.post("/issues/AURORA-1/refresh", csrf=False)
    assert response.status_code == 403
    assert (await api.get("/batches")).json()["total"] == 0


async def test_a_temp_key_offers_no_refresh(browser: Open) -> None:
    """new:1 is no Jira key: its page explains it and offers nothing to refresh."""
    person = await browser("interface")
    page = await person.get("/issues/new:1")
    assert page.status_code == 404
    assert "временный ключ пакета" in element_text(page.text, "missing-text")
    assert not has_element(page.text, "refresh-from-jira")


async def test_a_project_page_refreshes_its_label(browser: Open, api: Api) -> None:
    """The project's «Обновить из Jira» queues a refresh by the JQL of its label; asked again while it is
    queued, the same full refresh is answered (one project: its JQL is the base JQL)."""
    assert (await api.post("/projects", {"name": "AWPCA"}, role="admin")).status_code == 201
    await seed_mirror(api, [issue("AURORA-1", labels=["AWPCA"])])
    person = await browser("interface")
    await person.get("/projects/AWPCA")
    response = await person.post("/projects/AWPCA/refresh")
    assert response.headers["location"] == "/projects/AWPCA"
    page = (await person.follow(response)).text
    batch = (await api.get("/batches")).json()["items"][0]
    assert f"обновление из Jira поставлено в очередь: пакет {batch['id']}" in page
    assert batch["commands"][0]["params"] == {"jql": 'project = AURORA AND labels in ("AWPCA")'}
    again = await person.follow(await person.post("/projects/AWPCA/refresh"))
    assert f"обновление из Jira уже в очереди: пакет {batch['id']}" in again.text
