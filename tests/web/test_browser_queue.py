"""«Очередь» filtered in a real headless Chromium against real ``sdlc-hub serve``, ``jira-sim`` and ``sdlc-agent``
(issue 27): typing a key narrows the batches as the person types, the URL keeps the filter (a reload, a bookmark
shows the same), and «показать автоматические обновления» adds to it. Every request went to the hub.

``SDLC_SCREENSHOTS=1`` saves ``docs/screenshots/queue.png``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from loopback.stack import DEMO_PACING, Stack, start_stack, wait_batch

from .browser_support import CHROMEDRIVER, CHROMIUM, chromium, click, console_errors, requests_seen, shoot, wait_for

pytestmark = [
    pytest.mark.browser,
    pytest.mark.e2e,
    pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None, reason="chromium and chromium-driver not installed"),
]

DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


class _Quiet:
    def write(self, _: str) -> int:
        return 0

    def flush(self) -> None:
        pass


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """Hub, simulator and agent on loopback with the sample projects, and two batches done."""
    running = start_stack(tmp_path_factory.mktemp("stack"), pacing=DEMO_PACING, claim_wait_seconds=1.0)
    try:
        running.start_agent()
        with running.client() as client:
            for title, command in (
                ("Сроки отчёта", {"type": "ensure_fields", "params": {"key": "AURORA-1533", "duedate": "2026-11-20"}}),
                (
                    "Комментарий к стенду",
                    {"type": "ensure_comment", "params": {"key": "AURORA-1537", "marker": "[план]", "body": "готов"}},
                ),
            ):
                created = client.post("/batches", json={"author": "браузер", "title": title, "commands": [command]})
                assert created.status_code == 201, created.text
                wait_batch(client, created.json()["id"], out=_Quiet(), timeout=60)
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory, stack: Stack) -> Iterator[WebDriver]:
    browser = chromium(tmp_path_factory.mktemp("profile"))
    try:
        yield browser
    finally:
        browser.quit()


def _titles(driver: WebDriver) -> list[str]:
    rows = driver.find_elements(By.CSS_SELECTOR, "#batches tbody tr")
    return [row.find_elements(By.TAG_NAME, "td")[1].text.split("\n")[0] for row in rows]


def _query(driver: WebDriver) -> dict[str, list[str]]:
    return parse_qs(urlsplit(driver.current_url).query)


def test_filter_the_queue_and_keep_it_in_the_url(driver: WebDriver, stack: Stack, tmp_path: Path) -> None:
    """A key typed in «Текст» narrows the batches to that one and puts ``q`` in the URL; a reload shows the same;
    the automatic refreshes show only when asked, and the URL says so too."""
    requests_seen(driver)
    driver.get(stack.hub_url + "/login")
    driver.find_element(By.ID, "token").send_keys(stack.tokens["interface"])
    driver.find_element(By.CSS_SELECTOR, "form[action='/login'] button").click()
    wait_for(driver, "logged in", lambda d: d.current_url == stack.hub_url + "/")
    wait_for(driver, "both batches listed", lambda d: {"Сроки отчёта", "Комментарий к стенду"} <= set(_titles(d)))
    assert not any(title.startswith("автообновление") for title in _titles(driver))

    driver.find_element(By.ID, "queue-q").send_keys("aurora-1537")
    wait_for(driver, "the URL keeps the text", lambda d: _query(d).get("q") == ["aurora-1537"])
    wait_for(driver, "only the comment's batch", lambda d: _titles(d) == ["Комментарий к стенду"])

    driver.refresh()
    assert _query(driver) == {"q": ["aurora-1537"]}
    assert driver.find_element(By.ID, "queue-q").get_attribute("value") == "aurora-1537"
    assert _titles(driver) == ["Комментарий к стенду"]

    driver.find_element(By.ID, "queue-q").clear()
    click(driver, By.ID, "queue-auto")
    wait_for(driver, "the URL asks for the automatic ones", lambda d: _query(d).get("auto") == ["1"])
    wait_for(driver, "the hub's own refreshes shown", lambda d: any(t.startswith("автообновление") for t in _titles(d)))
    if os.environ.get("SDLC_SCREENSHOTS") == "1":
        shoot(driver, "queue", DOCS)
    else:
        shoot(driver, "queue", tmp_path)

    urls = requests_seen(driver)
    assert urls and [url for url in urls if not url.startswith(stack.hub_url + "/")] == []
    assert console_errors(driver) == []
