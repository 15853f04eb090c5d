"""The smaller pages of issue 32 in a real headless Chromium against real ``sdlc-hub serve``, ``jira-sim`` and
``sdlc-agent``: an admin's «Токены» (add with «нужно одобрение», the secret shown once, revoke after a confirmation),
an issue's page listing the commands that touched it, its journal in Russian, and its link to Jira leading to the
simulator's page of that issue. The stack, the browser and the check that every request the page made went to the
hub are those of ``test_browser``.

``SDLC_HUB_SCREENSHOTS=docs`` refreshes the README's picture of the tokens page.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from loopback.stack import Stack, wait_batch

from .browser_support import CHROMEDRIVER, CHROMIUM, click, shoot, text, wait_for
from .test_browser import _login, _Quiet, driver, only_the_hub, stack  # noqa: F401 — the module's fixtures

pytestmark = [
    pytest.mark.browser,
    pytest.mark.e2e,
    pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None, reason="chromium and chromium-driver not installed"),
]


def test_an_admin_adds_and_revokes_a_token(driver: WebDriver, stack: Stack, tmp_path: Path) -> None:  # noqa: F811
    """«Токены» in the menu; a token added with «нужно одобрение» shows its secret once and works at the API;
    «Отозвать…» asks, «Да, отозвать» revokes it, and the secret opens nothing any more."""
    driver.delete_all_cookies()
    _login(driver, stack, "admin")
    click(driver, By.ID, "nav-tokens")
    wait_for(driver, "the tokens page", lambda d: d.current_url == stack.hub_url + "/tokens")
    driver.find_element(By.ID, "token-name").send_keys("ассистент")
    driver.find_element(By.ID, "token-needs-approval").click()
    click(driver, By.ID, "token-add-button")
    wait_for(driver, "the secret", lambda d: d.find_elements(By.ID, "token-secret"))
    secret = text(driver, "token-secret")
    row = [r for r in driver.find_elements(By.CSS_SELECTOR, "#tokens tbody tr") if r.text.startswith("ассистент")]
    assert row and row[0].text.startswith("ассистент interface нужно")
    with httpx.Client(base_url=stack.hub_url, headers={"Authorization": f"Bearer {secret}"}, timeout=30) as client:
        assert client.get("/batches").status_code == 200
        shoot(driver, "web-tokens", tmp_path)
        row[0].find_element(By.CSS_SELECTOR, "a.button").click()
        wait_for(driver, "the confirmation", lambda d: d.find_elements(By.ID, "confirm"))
        assert text(driver, "warning").startswith("Программы и люди с этим токеном больше не войдут в хаб")
        click(driver, By.CSS_SELECTOR, "#confirm button.danger")
        wait_for(driver, "revoked", lambda d: "токен ассистент отозван" in d.find_element(By.TAG_NAME, "main").text)
        assert client.get("/batches").status_code == 401
    assert not driver.find_elements(By.ID, "token-secret")


def test_an_issue_lists_its_commands_and_leads_to_jira(driver: WebDriver, stack: Stack) -> None:  # noqa: F811
    """A batch links AURORA-1541 to AURORA-1542: the issue's page lists that command with its batch, its journal
    line says the link in Russian, and its Jira link opens the simulator's page of AURORA-1541."""
    link = {"source": "AURORA-1541", "target": "AURORA-1542", "link_type": "блокирует начало", "replace": True}
    with stack.client() as api:
        created = api.post(
            "/batches",
            json={"author": "браузер", "title": "Связь", "commands": [{"type": "ensure_link", "params": link}]},
        )
        assert created.status_code == 201, created.text
        wait_batch(api, created.json()["id"], out=_Quiet(), timeout=60)
    _login(driver, stack)
    driver.get(stack.hub_url + "/issues/AURORA-1541")
    listed = text(driver, "touches")
    assert f"{created.json()['id']} Связь браузер" in listed
    assert "1. Связь ensure_link выполнена" in listed
    journal = text(driver, "journal")
    assert "блокирует начало AURORA-1542" in journal and "This issue" not in journal
    jira = driver.find_element(By.CSS_SELECTOR, "#title ~ * a.jira-link, a.jira-link").get_attribute("href") or ""
    assert jira == stack.sim_url + "/browse/AURORA-1541"
    with httpx.Client(timeout=30) as browser:
        page = browser.get(jira)
    assert page.status_code == 200
    assert '<span id="key">AURORA-1541</span>' in page.text
