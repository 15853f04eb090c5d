"""«Новый пакет»'s editor in a real headless Chromium against real ``sdlc-hub serve``, ``jira-sim`` and
``sdlc-agent``: a batch of every command type composed through the form only (the attachment's file chosen with the
picker), «Проверить» showing three mistakes at once next to their commands in the labels on screen, queued once
fixed, and «Повторить все с ошибкой» opening the editor prefilled with what failed; a wrong-typed value pasted as
JSON reported as the API reports it. Every request went to the hub; no script error, no CSP refusal.

``SDLC_HUB_SCREENSHOTS=docs`` refreshes the README's picture of the editor.
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.select import Select

from loopback.stack import Stack
from reconcile.vocabulary.catalogue import CATALOGUE

from . import test_browser as _browser
from .browser_support import CHROMEDRIVER, CHROMIUM, SCREENSHOTS, choose, click, text, wait_for

# The browser tests' fixtures, shared: the stack (hub, simulator, agent, the mirror filled), Chromium, and the check
# that every request went to the hub with no script error.
stack, driver, only_the_hub = _browser.stack, _browser.driver, _browser.only_the_hub
_login = _browser._login

pytestmark = [
    pytest.mark.browser,
    pytest.mark.e2e,
    pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None, reason="chromium and chromium-driver not installed"),
]

ATTACHMENT = "Отчёт редактора\n".encode()


def _commands(driver: WebDriver) -> int:
    return len(driver.find_elements(By.CSS_SELECTOR, "#editor-commands > li"))


def _add(driver: WebDriver, command_type: str) -> int:
    """«Добавить команду» of a type; the number of the new command once the editor shows it."""
    count = _commands(driver)

    def chosen_and_added(d: WebDriver) -> bool:
        # Looked up again in one go: the editor's save of the previous change may swap the select under us.
        Select(d.find_element(By.ID, "add_type")).select_by_value(command_type)
        d.find_element(By.ID, "add").click()
        return True

    wait_for(driver, f"add a {command_type}", chosen_and_added, timeout=10)
    wait_for(driver, f"command {count + 1} added", lambda d: _commands(d) == count + 1)
    return count + 1


def _type(driver: WebDriver, field: str, value: str) -> None:
    element = driver.find_element(By.ID, field)
    element.clear()
    element.send_keys(value)


def _date(driver: WebDriver, field: str, value: str) -> None:
    """A date picked (a date input takes its value in the browser's own format: set as the picker would)."""
    driver.execute_script(
        "arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('change', {bubbles: true}))",
        driver.find_element(By.ID, field),
        value,
    )


def _compose(driver: WebDriver, summary: str) -> None:
    """Every type of the catalogue through the form, three of them wrong."""
    wait_for(driver, "an empty editor", lambda d: d.find_elements(By.ID, "editor-empty"))
    _type(driver, "title", "Редактор: все типы")
    choose(driver, "project", "AWPCA")
    for command_type in CATALOGUE:
        index = _add(driver, command_type)
        fill = _FILL[command_type]
        fill(driver, index, summary)


def _issue(driver: WebDriver, i: int, summary: str) -> None:
    assert driver.find_element(By.ID, f"c{i}.temp_key").get_attribute("value") == "new:1"
    _type(driver, f"c{i}.summary", summary)


def _fields(driver: WebDriver, i: int, _: str) -> None:
    choose(driver, f"c{i}.key.new", "new:1")
    _date(driver, f"c{i}.duedate", "2026-12-15")


def _comment(driver: WebDriver, i: int, _: str) -> None:
    _type(driver, f"c{i}.key", "AURORA-1537")
    _type(driver, f"c{i}.marker", "[редактор]")
    _type(driver, f"c{i}.body", "Собран в редакторе")


def _status(driver: WebDriver, i: int, _: str) -> None:
    choose(driver, f"c{i}.key.new", "new:1")  # mistake 1: no target


def _link(driver: WebDriver, i: int, _: str) -> None:
    _type(driver, f"c{i}.source", "AURORA-1537")
    _type(driver, f"c{i}.target", "AURORA-1537")  # mistake 2: the same issue
    choose(driver, f"c{i}.link_type", "связанные")


def _sprint(driver: WebDriver, i: int, _: str) -> None:
    choose(driver, f"c{i}.key.new", "new:1")
    _type(driver, f"c{i}.sprint", "Спринт 2")


def _attachment(driver: WebDriver, i: int, _: str) -> None:
    _type(driver, f"c{i}.key", "AURORA-1537")
    _type(driver, f"c{i}.file", "0" * 64)  # mistake 3: a file not uploaded
    _type(driver, f"c{i}.filename", "отчёт редактора.txt")


def _refresh(driver: WebDriver, i: int, _: str) -> None:
    _type(driver, f"c{i}.keys", "AURORA-1533")


_FILL = {
    "ensure_issue": _issue,
    "ensure_fields": _fields,
    "ensure_comment": _comment,
    "ensure_status": _status,
    "ensure_link": _link,
    "ensure_sprint": _sprint,
    "ensure_attachment": _attachment,
    "refresh": _refresh,
}


def _shoot(driver: WebDriver, last: str) -> None:
    """The editor from the page's top to the bottom of the element ``last``, as ``web-editor.png`` into
    ``$SDLC_HUB_SCREENSHOTS``."""
    driver.execute_script("window.scrollTo(0, 0)")  # the JSON view is sticky: at the top with the page's top
    bottom = driver.execute_script(
        "return arguments[0].getBoundingClientRect().bottom", driver.find_element(By.ID, last)
    )
    clip = {"x": 0, "y": 0, "width": 1366, "height": bottom + 16, "scale": 0.75}
    shot = driver.execute_cdp_cmd(  # type: ignore[attr-defined]
        "Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True, "clip": clip}
    )
    folder = Path(SCREENSHOTS or ".")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "web-editor.png").write_bytes(base64.b64decode(shot["data"]))


def _pick_file(driver: WebDriver, index: int, folder: Path) -> None:
    """The attachment's file chosen with the picker: uploaded at once, its sha256 in «Файл», name and size shown
    (the name typed before stays)."""
    chosen = folder / "отчёт редактора.txt"
    chosen.write_bytes(ATTACHMENT)
    driver.find_element(By.ID, f"c{index}.file.upload").send_keys(str(chosen))
    sha = hashlib.sha256(ATTACHMENT).hexdigest()
    wait_for(
        driver, "the sha256 filled", lambda d: d.find_element(By.ID, f"c{index}.file").get_attribute("value") == sha
    )
    assert text(driver, f"c{index}.file.shown") == f"отчёт редактора.txt, {len(ATTACHMENT)} байт"
    assert driver.find_element(By.ID, f"c{index}.filename").get_attribute("value") == "отчёт редактора.txt"
    wait_for(
        driver, "the JSON view names the file", lambda d: sha in d.find_element(By.ID, "batch").get_attribute("value")
    )


def _statuses(driver: WebDriver) -> list[str]:
    rows = driver.find_elements(By.CSS_SELECTOR, "#commands tbody tr")
    return [row.find_elements(By.TAG_NAME, "td")[4].text for row in rows]


def test_compose_check_queue_and_retry_what_failed(driver: WebDriver, stack: Stack, tmp_path: Path) -> None:
    """Eight types through the form; «Проверить» shows the three mistakes at once next to their commands; fixed,
    the batch is queued; the comment Jira refuses fails, and «Повторить все с ошибкой» opens the editor with it."""
    _login(driver, stack)
    driver.get(stack.hub_url + "/new")
    summary = f"Редактор {time.time_ns()}"
    _compose(driver, summary)
    types = list(CATALOGUE)
    position = {name: number for number, name in enumerate(types, start=1)}
    click(driver, By.ID, "editor-check")
    wait_for(driver, "the errors", lambda d: d.find_elements(By.ID, "editor-summary"))
    assert text(driver, "editor-summary").startswith("Ошибок: 3 — у команд ")
    status, link, attachment = position["ensure_status"], position["ensure_link"], position["ensure_attachment"]
    assert text(driver, f"cmd-{status}-errors") == (
        f"команда {status} (ensure_status): нет «Статус или путь»; ожидаются «Задача», «Статус или путь»"
    )
    assert text(driver, f"cmd-{link}-errors") == f"команда {link} (ensure_link): «Откуда» и «Куда» — одна задача"
    assert text(driver, f"cmd-{attachment}-errors") == f"команда {attachment}: файл {'0' * 64} не загружен: POST /files"
    marked = driver.find_elements(By.CSS_SELECTOR, ".command-edit.has-error")
    assert [element.get_attribute("id") for element in marked] == [f"cmd-{n}" for n in (status, link, attachment)]
    assert "has-error" in (driver.find_element(By.ID, f"c{status}-target-field").get_attribute("class") or "")
    if SCREENSHOTS:
        _shoot(driver, f"cmd-{link}")

    _type(driver, f"c{status}.target", "Разработка")
    _type(driver, f"c{link}.target", "AURORA-1538")
    _pick_file(driver, attachment, tmp_path)
    with stack.sim() as sim:
        fault = {"method": "POST", "path_regex": "/issue/AURORA-1537/comment$", "status": 503, "retry_after": 0.05}
        assert sim.post("/_sim/faults", json={**fault, "times": 6}).status_code == 201
    click(driver, By.ID, "editor-enqueue")
    wait_for(driver, "the batch's page", lambda d: "/batches/" in d.current_url)
    assert "поставлен в очередь" in driver.find_element(By.CSS_SELECTOR, "p.message").text
    final = {"выполнена", "ошибка", "пропущена", "отменена", "подтверждена по состоянию"}
    wait_for(driver, "the batch finished", lambda d: set(_statuses(d)) <= final, timeout=90)
    assert _statuses(driver)[position["ensure_comment"] - 1] == "ошибка"

    click(driver, By.ID, "retry-failed")
    wait_for(driver, "the editor", lambda d: d.current_url.startswith(stack.hub_url + "/new?retry_failed="))
    prefilled = [
        (element.get_attribute("value"), driver.find_element(By.ID, f"c{n}.key").get_attribute("value"))
        for n, element in enumerate(driver.find_elements(By.CSS_SELECTOR, "input[name$='.type']"), start=1)
        if element.get_attribute("value") == "ensure_comment"
    ]
    assert prefilled == [("ensure_comment", "AURORA-1537")]
    assert driver.find_element(By.ID, "title").get_attribute("value").startswith("повтор ошибок пакета ")


def test_a_wrong_typed_value_pasted_as_json_is_reported(driver: WebDriver, stack: Stack) -> None:
    """``"labels_add": "x"`` pasted in the JSON view: the editor draws it as JSON (not a list), and «Проверить»
    reports every error the API reports for that JSON — the same count, beside the same commands."""
    body = {
        "author": "браузер",
        "title": "не того типа",
        "commands": [
            {"type": "ensure_fields", "params": {"key": "AURORA-1533", "labels_add": "x"}},
            {"type": "ensure_comment", "params": {"key": "AURORA-1537", "marker": "[m]"}},
            {"type": "ensure_status", "params": {"key": "AURORA-1537", "target": "Готово", "status": "Готово"}},
        ],
    }
    with stack.client() as client:
        expected = client.post("/batches", json=body).json()["errors"]  # 422: nothing made
    assert [e["command"] for e in expected] == [1, 2, 3]
    _login(driver, stack)
    driver.get(stack.hub_url + "/new")
    driver.execute_script(
        "arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('change', {bubbles: true}))",
        driver.find_element(By.ID, "batch"),
        json.dumps(body, ensure_ascii=False),
    )
    wait_for(driver, "the editor drawn from the JSON", lambda d: d.find_elements(By.ID, "cmd-3"))
    assert driver.find_element(By.ID, "c1.x.labels_add").get_attribute("value") == '"x"'
    click(driver, By.ID, "editor-check")
    wait_for(driver, "the errors", lambda d: d.find_elements(By.ID, "editor-summary"))
    assert text(driver, "editor-summary") == "Ошибок: 3 — у команд 1, 2, 3. Каждая показана у своей команды."
    assert text(driver, "cmd-1-errors") == "команда 1 (ensure_fields): «Добавить метки» — ожидается список строк"
    assert text(driver, "cmd-2-errors").startswith("команда 2 (ensure_comment): нет «Текст комментария»")
    assert text(driver, "plan") == ""
