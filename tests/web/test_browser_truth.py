"""Progress that tells the truth and keys that lead somewhere, in a real headless Chromium against real
``sdlc-hub serve``, ``jira-sim`` and ``sdlc-agent`` processes (DESIGN.md 8, round 3): a batch's bar turns red on
a failure and its state reads «завершён с ошибками»; ``new:1`` leads to the issue it became; an issue not yet in
the mirror is read with «Обновить из Jira»; the issue links to Jira itself (the address the agent reported from
``serverInfo``). Every request the browser made went to the hub (the autouse fixture of ``test_browser``).

``SDLC_HUB_SCREENSHOTS=docs`` refreshes the README's pictures of them.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from loopback.stack import Stack

from .browser_support import CHROMEDRIVER, CHROMIUM, click, shoot, text, wait_for
from .test_browser import _api, _login, _submit, driver, only_the_hub, stack  # noqa: F401 — the shared stack

pytestmark = [
    pytest.mark.browser,
    pytest.mark.e2e,
    pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None, reason="chromium and chromium-driver not installed"),
]


def _state(page: WebDriver) -> str:
    return page.find_element(By.CSS_SELECTOR, "#batch-live .batch-state").get_attribute("data-state") or ""


def _bar(page: WebDriver) -> dict[str, float]:
    """The batch page's bar: the width (percent) of each coloured part."""
    parts = page.find_elements(By.CSS_SELECTOR, "#batch-live svg.bar rect[data-count]")
    return {(p.get_attribute("class") or "").removeprefix("bar-"): float(p.get_attribute("width") or 0) for p in parts}


def test_a_failure_turns_the_bar_red_and_new_1_leads_to_its_issue(
    driver: WebDriver,  # noqa: F811 — the fixture imported above
    stack: Stack,  # noqa: F811
    tmp_path: Path,
) -> None:
    """A batch creating an issue, commenting on it by its temp key and writing to an issue Jira lacks: the bar
    ends part red, never all green, and the state reads «завершён с ошибками»; «new:1» links to the real key,
    whose page links to Jira's own ``/browse/KEY``."""
    _login(driver, stack)
    batch = _submit(
        stack,
        [
            {"type": "ensure_issue", "params": {"temp_key": "new:1", "summary": "Задача из браузера"}},
            {"type": "ensure_comment", "params": {"key": "new:1", "marker": "[браузер]", "body": "Создана"}},
            {"type": "ensure_fields", "params": {"key": "AURORA-999999", "duedate": "2026-12-01"}},
        ],
        "честный прогресс",
    )
    driver.get(f"{stack.hub_url}/batches/{batch['id']}")
    wait_for(driver, "the batch over", lambda d: _state(d) == "done_with_errors", timeout=60)
    assert "завершён с ошибками" in text(driver, "batch-live")
    bar = _bar(driver)
    assert bar["failed"] > 0
    assert bar.get("done", 0) < 100
    shoot(driver, "web-batch-with-errors", tmp_path)

    real = _api(stack, f"/batches/{batch['id']}")["temp_keys"]["new:1"]
    assert driver.find_elements(By.CSS_SELECTOR, "a[href='/issues/new:1']") == []
    click(driver, By.CSS_SELECTOR, "#commands a.temp-key[data-temp-key='new:1']")
    wait_for(driver, "the real issue's page", lambda d: d.current_url == f"{stack.hub_url}/issues/{real}")
    assert text(driver, "title").startswith(f"{real}: Задача из браузера")
    jira = driver.find_element(By.CSS_SELECTOR, "#issue-actions a.jira-link").get_attribute("href")
    assert jira == f"{stack.sim_url}/browse/{real}"


def test_an_issue_not_in_the_mirror_is_read_from_jira(
    driver: WebDriver,  # noqa: F811 — the fixture imported above
    stack: Stack,  # noqa: F811
    tmp_path: Path,
) -> None:
    """AURORA-1560 carries no project's label, so the full refresh never read it: its page says «ещё нет в
    зеркале»; «Обновить из Jira» queues its refresh, and the page then shows the issue."""
    _login(driver, stack)
    driver.get(f"{stack.hub_url}/issues/AURORA-1560")
    assert text(driver, "missing-text").startswith("Задачи AURORA-1560 ещё нет в зеркале")
    shoot(driver, "web-issue-missing", tmp_path)
    click(driver, By.ID, "refresh-from-jira")
    wait_for(driver, "the refresh queued", lambda d: "обновление из Jira поставлено в очередь" in d.page_source)
    batch_id = int(driver.find_element(By.CSS_SELECTOR, "p.message").text.rsplit(" ", 1)[1])

    def read(d: WebDriver) -> bool:
        if _api(stack, f"/batches/{batch_id}")["state"] != "done":
            return False
        d.refresh()
        return bool(d.find_elements(By.ID, "title"))

    wait_for(driver, "the issue read from Jira", read, timeout=60)
    assert text(driver, "title").startswith("AURORA-1560:")
