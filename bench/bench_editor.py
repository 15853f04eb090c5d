"""Benchmark of «Новый пакет»'s editor in a real headless Chromium: a 1 000-command batch drawn and checked.

Run: ``python bench/bench_editor.py [--commands 1000] [--repeat 5]``. Starts ``jira-sim`` and ``sdlc-hub serve``
(no agent: nothing runs), logs in, puts a batch of N commands of every type into the JSON view (the editor is
redrawn from it), then times in the browser, from the click until the answer is drawn:

- «Проверить» of the N commands, valid: the hub's validation and plan, the editor and the plan drawn;
- «Проверить» with three mistakes among them: every error drawn next to its command;
- «Добавить команду» to the N (a big draft's buttons load the whole page): until the new command shows.

Medians of ``--repeat`` runs (the first, warming up, not counted). A measurement, not a test.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from loopback.stack import DEMO_PACING, start_stack
from tests.web.browser_support import chromium, wait_for


def _batch(count: int, *, mistakes: bool) -> dict[str, Any]:
    kinds = [
        lambda n: {"type": "ensure_fields", "params": {"key": f"AURORA-{1533 + n % 5}", "duedate": "2026-12-01"}},
        lambda n: {"type": "ensure_comment", "params": {"key": "AURORA-1537", "marker": f"[{n}]", "body": "текст"}},
        lambda n: {"type": "ensure_status", "params": {"key": "AURORA-1538", "target": ["Разработка", "Готово"]}},
        lambda n: {
            "type": "ensure_link",
            "params": {"source": "AURORA-1537", "target": "AURORA-1538", "link_type": "связанные"},
        },
    ]
    commands = [kinds[n % len(kinds)](n) for n in range(count)]
    if mistakes:
        for position in (10, count // 2, count - 1):
            commands[position] = {"type": "ensure_status", "params": {"key": "AURORA-1538"}}
    return {"title": "большой пакет", "commands": commands}


def _load(driver: WebDriver, body: dict[str, Any], count: int) -> float:
    """The JSON view set and changed: the editor redrawn from it; seconds until the last command shows."""
    area = driver.find_element(By.ID, "batch")
    start = time.perf_counter()
    driver.execute_script(
        "arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('change', {bubbles: true}))",
        area,
        json.dumps(body, ensure_ascii=False),
    )
    wait_for(driver, "the editor drawn", lambda d: d.find_elements(By.ID, f"cmd-{count}"), timeout=120)
    return time.perf_counter() - start


def _check(driver: WebDriver, *, expect: str) -> float:
    """«Проверить» clicked: seconds until the answer (``expect``: the element it draws) is on the page."""
    driver.execute_script("document.querySelectorAll('#plan-result, #editor-summary').forEach(e => e.remove())")
    start = time.perf_counter()
    driver.find_element(By.ID, "editor-check").click()
    wait_for(driver, expect, lambda d: d.find_elements(By.ID, expect), timeout=120)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commands", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        stack = start_stack(Path(work), pacing=DEMO_PACING)
        driver = chromium(Path(work) / "profile")
        try:
            with stack.client("admin") as admin:
                admin.patch("/settings", json={"max_batch_commands": max(args.commands, 1000)})
            driver.get(stack.hub_url + "/login")
            driver.find_element(By.ID, "token").send_keys(stack.tokens["interface"])
            driver.find_element(By.CSS_SELECTOR, "form[action='/login'] button").click()
            wait_for(driver, "logged in", lambda d: d.current_url == stack.hub_url + "/")
            for mistakes, expect in ((False, "plan-result"), (True, "editor-summary")):
                driver.get(stack.hub_url + "/new")
                loaded = _load(driver, _batch(args.commands, mistakes=mistakes), args.commands)
                runs = [_check(driver, expect=expect) for _ in range(args.repeat + 1)][1:]
                what = "with 3 mistakes" if mistakes else "valid"
                print(
                    f"{args.commands} commands, {what}: editor drawn from JSON {loaded:.2f} s; "
                    f"«Проверить» median {statistics.median(runs):.2f} s, max {max(runs):.2f} s"
                )
            start = time.perf_counter()
            driver.find_element(By.ID, "add").click()
            wait_for(driver, "added", lambda d: d.find_elements(By.ID, f"cmd-{args.commands + 1}"), timeout=120)
            print(f"«Добавить команду» to {args.commands}: {time.perf_counter() - start:.2f} s")
        finally:
            driver.quit()
            stack.stop()


if __name__ == "__main__":
    main()
