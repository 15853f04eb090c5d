"""«Очередь» filtered in a real headless Chromium against real ``sdlc-hub serve``, ``jira-sim`` and ``sdlc-agent``
(issue 27): typing a key narrows the batches as the person types, the URL keeps the filter (a reload, a bookmark
shows the same), and «показать автоматические обновления» adds to it. The stack, the browser and the check that
every request went to the hub are those of ``test_browser``.

``SDLC_HUB_SCREENSHOTS=docs`` refreshes the README's picture of it.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from loopback.stack import Stack, wait_batch

from .browser_support import CHROMEDRIVER, CHROMIUM, click, shoot, text, wait_for
from .test_browser import driver, only_the_hub, stack  # noqa: F401 — the stack, its browser and the origin check

pytestmark = [
    pytest.mark.browser,
    pytest.mark.e2e,
    pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None, reason="chromium and chromium-driver not installed"),
]


def _batch(running: Stack, title: str, command: dict[str, Any]) -> None:
    with running.client() as client:
        created = client.post("/batches", json={"author": "браузер", "title": title, "commands": [command]})
        assert created.status_code == 201, created.text
        wait_batch(client, created.json()["id"], out=io.StringIO(), timeout=60)


def _titles(browser: WebDriver) -> list[str]:
    rows = browser.find_elements(By.CSS_SELECTOR, "#batches tbody tr")
    return [row.find_elements(By.TAG_NAME, "td")[1].text.split("\n")[0] for row in rows]


def _numbers(browser: WebDriver) -> list[str]:
    return [
        row.find_element(By.TAG_NAME, "td").text for row in browser.find_elements(By.CSS_SELECTOR, "#batches tbody tr")
    ]


def _query(browser: WebDriver) -> dict[str, list[str]]:
    return parse_qs(urlsplit(browser.current_url).query)


def test_filter_the_queue_and_keep_it_in_the_url(driver: WebDriver, stack: Stack, tmp_path: Path) -> None:  # noqa: F811
    """A key typed in «Текст» narrows the batches to that one and puts ``q`` in the URL; a reload shows the same;
    the hub's own batches (its automatic refreshes) show only when asked, and the URL says so too."""
    _batch(stack, "Сроки отчёта", {"type": "ensure_fields", "params": {"key": "AURORA-1533", "duedate": "2026-11-20"}})
    comment = {"key": "AURORA-1537", "marker": "[план]", "body": "готов"}
    _batch(stack, "Комментарий к стенду", {"type": "ensure_comment", "params": comment})
    driver.delete_all_cookies()
    driver.get(stack.hub_url + "/login")
    driver.find_element(By.ID, "token").send_keys(stack.tokens["interface"])
    driver.find_element(By.CSS_SELECTOR, "form[action='/login'] button").click()
    wait_for(driver, "logged in", lambda d: d.current_url == stack.hub_url + "/")
    wait_for(driver, "both batches listed", lambda d: {"Сроки отчёта", "Комментарий к стенду"} <= set(_titles(d)))
    with stack.client() as client:
        own = [b["id"] for b in client.get("/batches").json()["items"] if b["token_name"] is None]
    assert not set(own) & {int(n) for n in _numbers(driver)}

    driver.find_element(By.ID, "queue-q").send_keys("aurora-1537")
    wait_for(driver, "the URL keeps the text", lambda d: d.current_url == stack.hub_url + "/?q=aurora-1537")
    wait_for(driver, "only the comment's batch", lambda d: _titles(d) == ["Комментарий к стенду"])

    driver.refresh()
    assert _query(driver) == {"q": ["aurora-1537"]}
    assert driver.find_element(By.ID, "queue-q").get_attribute("value") == "aurora-1537"
    assert _titles(driver) == ["Комментарий к стенду"]
    shoot(driver, "web-queue-filtered", tmp_path)

    driver.find_element(By.ID, "queue-q").clear()
    click(driver, By.ID, "queue-auto")
    wait_for(driver, "the URL asks for the automatic ones", lambda d: d.current_url == stack.hub_url + "/?auto=1")
    with stack.client() as client:
        every = client.get("/batches").json()["total"]  # the API lists the hub's own batches too
    wait_for(driver, "every batch shown", lambda d: text(d, "batches-found") == f"Найдено пакетов: {every}")
