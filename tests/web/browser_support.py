"""A real headless Chromium from the system's packages, driven by selenium, and what it saw on the network.

Chromium starts with a fresh profile and its background traffic off, so every request in its performance log is
one the page made; :func:`requests_seen` reads them, and the browser tests assert each went to the hub.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from selenium import webdriver
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.select import Select
from selenium.webdriver.support.wait import WebDriverWait

__all__ = [
    "CHROMEDRIVER",
    "CHROMIUM",
    "chromium",
    "click",
    "console_errors",
    "requests_seen",
    "shoot",
    "text",
    "wait_for",
]

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")

#: Where screenshots go: ``SDLC_HUB_SCREENSHOTS=docs`` refreshes the README's pictures.
SCREENSHOTS = os.environ.get("SDLC_HUB_SCREENSHOTS")


def chromium(profile: Path) -> WebDriver:
    """Headless Chromium with a fresh profile, logging the page's network requests and console."""
    assert CHROMIUM is not None and CHROMEDRIVER is not None
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--window-size=1366,900",
        "--lang=ru-RU",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    return webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))


def requests_seen(driver: WebDriver) -> list[str]:
    """The network requests (http, https, ws, wss) made since the last call (Chromium's performance log); the
    browser's own ``chrome://`` resources and ``data:`` URLs leave no machine and are not counted."""
    urls = []
    for entry in driver.get_log("performance"):
        message: dict[str, Any] = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.requestWillBeSent":
            url: str = message["params"]["request"]["url"]
            if url.split(":", 1)[0].lower() in ("http", "https", "ws", "wss"):
                urls.append(url)
    return urls


def console_errors(driver: WebDriver) -> list[str]:
    """Console messages that are script errors or Content-Security-Policy refusals since the last call."""
    return [
        entry["message"]
        for entry in driver.get_log("browser")
        if entry.get("source") == "javascript" or "Content Security Policy" in entry["message"]
    ]


def wait_for(driver: WebDriver, what: str, probe: Callable[[WebDriver], Any], timeout: float = 40.0) -> Any:
    """Poll ``probe`` until it gives something true; fail naming ``what``. An element htmx swapped out under the
    probe (live parts are replaced every 2 s) just means: look again."""
    waiting = WebDriverWait(
        driver, timeout, poll_frequency=0.1, ignored_exceptions=(NoSuchElementException, StaleElementReferenceException)
    )
    return waiting.until(probe, message=what)


def click(driver: WebDriver, by: str, value: str) -> None:
    """Click an element, looking it up again if a live swap replaced it in between."""

    def clicked(d: WebDriver) -> bool:
        d.find_element(by, value).click()
        return True

    wait_for(driver, f"click {value}", clicked, timeout=10)


def choose(driver: WebDriver, element_id: str, value: str) -> None:
    """Pick ``value`` in the ``<select>`` with ``id``, looking it up again if a swap replaced it in between."""

    def chosen(d: WebDriver) -> bool:
        Select(d.find_element(By.ID, element_id)).select_by_value(value)
        return True

    wait_for(driver, f"choose {value} in {element_id}", chosen, timeout=10)


def text(driver: WebDriver, element_id: str) -> str:
    """The visible text of the element with ``id`` (whitespace collapsed)."""
    return " ".join(driver.find_element(By.ID, element_id).text.split())


def shoot(driver: WebDriver, name: str, fallback: Path) -> Path:
    """A PNG of the whole page: into ``$SDLC_HUB_SCREENSHOTS`` when set (``docs``), else into ``fallback``."""
    folder = Path(SCREENSHOTS) if SCREENSHOTS else fallback
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.png"
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})  # type: ignore[attr-defined]
    path.write_bytes(base64.b64decode(shot["data"]))
    return path
