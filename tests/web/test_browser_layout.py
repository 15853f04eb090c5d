"""The page's layout measured in a real headless Chromium (issue 32): at every common desktop width no timestamp and
no issue key wraps — on «Очередь»'s cards and table, a batch's commands and a project's slice — and «Пакеты» is
above the fold at 1400×757, the size a newcomer's laptop showed it below. The stack, the browser and the check that
every request went to the hub are those of ``test_browser``.

``SDLC_HUB_SCREENSHOTS=docs`` refreshes the README's picture of the queue at that size.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from loopback.stack import Stack, wait_batch

from .browser_support import CHROMEDRIVER, CHROMIUM, shoot, wait_for
from .test_browser import _login, _Quiet, driver, only_the_hub, stack  # noqa: F401 — the module's fixtures

pytestmark = [
    pytest.mark.browser,
    pytest.mark.e2e,
    pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None, reason="chromium and chromium-driver not installed"),
]

WIDTHS = (1280, 1366, 1400, 1600, 1920)
#: What must stay on one line: every moment, every issue key (with its way to Jira).
ONE_LINE = "time, .issue-ref"

#: The lines each element of ``selector`` inside ``root`` takes, by its text: its height over its line height.
_LINES = """
const [root, selector] = arguments;
return [...document.querySelectorAll(root + ' ' + selector)].map(element => {
  const style = getComputedStyle(element);
  const line = parseFloat(style.lineHeight) || parseFloat(style.fontSize) * 1.45;
  return [element.textContent.trim(), Math.round(element.getBoundingClientRect().height / line * 100) / 100];
});
"""


@pytest.fixture
def viewport(driver: WebDriver) -> Iterator[None]:  # noqa: F811
    """The device metrics set by the test are cleared after it (the module's other tests keep the window's)."""
    yield
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})  # type: ignore[attr-defined]


def _size(driver: WebDriver, width: int, height: int = 757) -> None:  # noqa: F811
    metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)  # type: ignore[attr-defined]


def _wrapped(driver: WebDriver, root: str) -> list[tuple[str, float]]:  # noqa: F811
    """The elements of :data:`ONE_LINE` in ``root`` that take more than one line."""
    measured: list[tuple[str, float]] = driver.execute_script(_LINES, root, ONE_LINE)
    assert measured, f"nothing to measure in {root}"
    return [(shown, lines) for shown, lines in measured if lines > 1.5]


def _batch(running: Stack) -> int:
    commands = [
        {"type": "ensure_issue", "params": {"temp_key": "new:1", "summary": f"Раскладка {time.time_ns()}"}},
        {"type": "ensure_fields", "params": {"key": "AURORA-1533", "duedate": "2026-12-20"}},
        {"type": "ensure_link", "params": {"source": "AURORA-1537", "target": "AURORA-1538", "link_type": "связанные"}},
    ]
    with running.client() as client:
        created = client.post("/batches", json={"author": "раскладка", "title": "Сроки и связи", "commands": commands})
        assert created.status_code == 201, created.text
        wait_batch(client, created.json()["id"], out=_Quiet(), timeout=60)
    number: int = created.json()["id"]
    return number


def test_no_time_or_key_wraps_and_the_batches_show_above_the_fold(
    driver: WebDriver,  # noqa: F811
    stack: Stack,  # noqa: F811
    viewport: None,
    tmp_path: Path,
) -> None:
    """1280–1920 px wide: each moment and key of the queue, a batch (its results in words too: «создана
    AURORA-1590») and a project's slice takes one line (and htmx
    finds every trigger of these pages well-formed); at 1400×757 the heading «Пакеты» and the first batch are in
    view without scrolling."""
    number = _batch(stack)
    _login(driver, stack)
    for width in WIDTHS:
        _size(driver, width)
        driver.get(stack.hub_url + "/")
        wait_for(driver, "the batch listed", lambda d: d.find_elements(By.ID, f"batch-{number}"))
        assert _wrapped(driver, "#queue-live") == [], width
        driver.get(f"{stack.hub_url}/batches/{number}")
        assert _wrapped(driver, "main") == [], width
        driver.get(stack.hub_url + "/projects/AWPCA")
        assert _wrapped(driver, "#issues") == [], width

    logged = driver.get_log("browser")  # htmx says a trigger it cannot parse only on the console
    assert [e["message"] for e in logged if "htmx:" in e["message"] or e.get("source") == "javascript"] == []

    _size(driver, 1400)
    driver.get(stack.hub_url + "/")
    wait_for(driver, "the batch listed", lambda d: d.find_elements(By.ID, f"batch-{number}"))
    heading = driver.find_element(By.ID, "batches-title").rect
    first = driver.find_element(By.CSS_SELECTOR, "#batches tbody tr").rect
    assert driver.execute_script("return [window.innerWidth, window.innerHeight, window.scrollY]") == [1400, 757, 0]
    assert heading["y"] + heading["height"] <= 757
    assert first["y"] + first["height"] <= 757
    shoot(driver, "web-queue-1400x757", tmp_path)
