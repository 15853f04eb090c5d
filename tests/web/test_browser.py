"""The web page in a real headless Chromium against real ``sdlc-hub serve``, ``jira-sim`` and ``sdlc-agent``
processes: log in, watch a batch reach «выполнена», plan then queue, force-cancel, retry a failed command, add a
note; a form carrying an anonymous login's CSRF token is refused, «Выйти» ends every copy of the session, and
``/schema`` works offline. After every test, every request the browser made went to the hub's own origin and the
console holds no script error and no Content-Security-Policy refusal.

Skipped where Debian's ``chromium`` and ``chromium-driver`` are not installed (``.ci/run`` installs them).
``SDLC_HUB_SCREENSHOTS=docs`` refreshes the README's screenshots.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from hub_app.web.cookies import CSRF_REFUSED
from hub_app.web.views.batches import STILL_WRITTEN
from loopback.stack import DEMO_PACING, Stack, start_stack, wait_batch

from .browser_support import (
    CHROMEDRIVER,
    CHROMIUM,
    chromium,
    click,
    console_errors,
    requests_seen,
    shoot,
    text,
    wait_for,
)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.e2e,
    pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None, reason="chromium and chromium-driver not installed"),
]


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """Hub, simulator and agent on loopback with the sample projects, the mirror filled by a full refresh."""
    running = start_stack(tmp_path_factory.mktemp("stack"), pacing=DEMO_PACING, claim_wait_seconds=1.0)
    try:
        running.start_agent()
        with running.client() as client:
            refresh = client.post("/refresh", json={})
            assert refresh.status_code in (200, 201), refresh.text  # 200: the automatic one answers
            wait_batch(client, refresh.json()["id"], out=_Quiet(), timeout=60)
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


@pytest.fixture(autouse=True)
def only_the_hub(driver: WebDriver, stack: Stack) -> Iterator[None]:
    """Every request of the test's pages went to the hub itself; no script error, no CSP refusal."""
    requests_seen(driver)
    console_errors(driver)
    yield
    urls = requests_seen(driver)
    assert urls
    assert [url for url in urls if not url.startswith(stack.hub_url + "/")] == []
    assert console_errors(driver) == []


class _Quiet:
    def write(self, _: str) -> int:
        return 0

    def flush(self) -> None:
        pass


def _login(driver: WebDriver, stack: Stack, role: str = "interface") -> None:
    driver.get(stack.hub_url + "/login")
    driver.find_element(By.ID, "token").send_keys(stack.tokens[role])
    driver.find_element(By.CSS_SELECTOR, "form[action='/login'] button").click()
    wait_for(driver, "logged in", lambda d: d.current_url == stack.hub_url + "/")
    assert text(driver, "who").startswith(f"demo-{role}")


def _submit(stack: Stack, commands: list[dict[str, Any]], title: str) -> dict[str, Any]:
    with stack.client() as client:
        response = client.post("/batches", json={"author": "браузер", "title": title, "commands": commands})
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def _paste(driver: WebDriver, body: dict[str, Any]) -> None:
    """A batch pasted in the JSON view: the editor draws it (htmx, at the change), its commands ready to check."""
    driver.execute_script(
        "arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('change', {bubbles: true}))",
        driver.find_element(By.ID, "batch"),
        json.dumps(body, ensure_ascii=False, indent=1),
    )
    count = len(body["commands"])
    wait_for(driver, "the editor drawn from the JSON", lambda d: d.find_elements(By.ID, f"cmd-{count}"))


def _statuses(driver: WebDriver) -> list[str]:
    rows = driver.find_elements(By.CSS_SELECTOR, "#commands tbody tr")
    return [row.find_elements(By.TAG_NAME, "td")[4].text for row in rows]


def _api(stack: Stack, path: str) -> Any:
    with stack.client() as client:
        response = client.get(path)
    assert response.status_code == 200, response.text
    return response.json()


def test_login_and_watch_a_batch_reach_done(driver: WebDriver, stack: Stack, tmp_path: Path) -> None:
    """Log in with a token; a batch created meanwhile appears on «Очередь» and reaches «выполнена» there while
    the page stays loaded (htmx swaps the live part every 2 s)."""
    driver.delete_all_cookies()
    driver.get(stack.hub_url + "/")
    assert driver.current_url == stack.hub_url + "/login"
    _login(driver, stack)
    driver.execute_script("window.sdlcHubStay = 'still here'")
    batch = _submit(
        stack, [{"type": "ensure_fields", "params": {"key": "AURORA-1533", "duedate": "2026-11-20"}}], "срок"
    )
    wait_for(
        driver,
        "the batch done on the queue page",
        lambda d: "выполнена: 2" in d.find_element(By.ID, f"batch-{batch['id']}").text,
    )
    assert driver.execute_script("return window.sdlcHubStay") == "still here"
    assert "в сети" in text(driver, "agent-card")
    assert text(driver, f"batch-{batch['id']}").startswith(f"{batch['id']} срок браузер")
    shoot(driver, "web-queue", tmp_path)


def test_live_parts_poll_only_while_the_tab_is_visible(driver: WebDriver, stack: Stack) -> None:
    """«Очередь» asks the hub again and again (every 2 s); while the tab is hidden it asks nothing; shown again,
    it asks at once."""
    _login(driver, stack)
    seen: list[str] = []

    def polls() -> int:
        seen.extend(url for url in requests_seen(driver) if url == stack.hub_url + "/")
        return len(seen)

    wait_for(driver, "two polls", lambda _: polls() >= 2, timeout=10)
    driver.execute_script("Object.defineProperty(document, 'hidden', {value: true, configurable: true})")
    polls()
    seen.clear()
    # An observation window, not a wait for something: two and a half polling periods must pass unasked.
    time.sleep(5)
    assert polls() == 0
    driver.execute_script(
        "Object.defineProperty(document, 'hidden', {value: false, configurable: true});"
        "document.dispatchEvent(new Event('visibilitychange'))"
    )
    wait_for(driver, "a poll once shown", lambda _: polls() >= 1, timeout=1)
    driver.refresh()


def test_plan_then_queue(driver: WebDriver, stack: Stack, tmp_path: Path) -> None:
    """«Новый пакет»: «Проверить» shows the predicted writes without creating anything; «В очередь» creates the
    batch, opens its page, and the page follows it to «выполнена»."""
    _login(driver, stack)
    before = _api(stack, "/batches")["total"]
    driver.get(stack.hub_url + "/new")
    assert driver.find_element(By.ID, "editor-author").get_attribute("value") == "demo-interface"
    body = {
        "title": "сроки и комментарий",
        "project": "AWPCA",
        "commands": [
            {"type": "ensure_fields", "params": {"key": "AURORA-1537", "duedate": "2026-12-01"}},
            {"type": "ensure_comment", "params": {"key": "AURORA-1537", "marker": "[план]", "body": "Срок согласован"}},
        ],
    }
    _paste(driver, body)
    driver.find_element(By.ID, "editor-check").click()
    wait_for(driver, "the plan", lambda d: d.find_elements(By.ID, "plan-result"))
    assert text(driver, "plan-command-1") == "1. ensure_fields · AURORA-1537 ~ срок: пусто → 01.12.2026"
    assert text(driver, "plan-command-2").startswith(
        "2. ensure_comment · AURORA-1537 + комментарий «[план] ⏎ Срок согласован» (?)"
    )
    assert driver.current_url == stack.hub_url + "/new"
    assert _api(stack, "/batches")["total"] == before
    shoot(driver, "web-new-plan", tmp_path)

    driver.find_element(By.ID, "editor-enqueue").click()
    wait_for(driver, "the batch's page", lambda d: "/batches/" in d.current_url)
    assert "поставлен в очередь" in driver.find_element(By.CSS_SELECTOR, "p.message").text
    wait_for(driver, "every command done", lambda d: _statuses(d) == ["выполнена"] * 3)
    shoot(driver, "web-batch", tmp_path)


def test_force_cancel(driver: WebDriver, stack: Stack) -> None:
    """A command the agent holds (it waits out the comment's gap, set to an hour so that no page speed can outrun
    it) is cancelled with «Отменить принудительно» after a confirmation that says it may still be written; the
    agent's late report is not accepted, the agent restarted meanwhile never gets it back, Jira gets no comment."""
    _login(driver, stack)
    with stack.client("admin") as admin:
        held = {"pacing": {**DEMO_PACING, "ensure_comment": 3600}}  # the whole object: a partial one resets the rest
        assert admin.patch("/settings", json=held).status_code == 200
    try:
        comment = {"key": "AURORA-1542", "marker": "[отмена]", "body": "не писать"}
        commands = [
            {"type": "ensure_fields", "params": {"key": "AURORA-1542", "duedate": "2026-12-10"}},
            {"type": "ensure_comment", "params": comment},
        ]
        batch = _submit(stack, commands, "отменить")
        held_id = batch["commands"][1]["id"]
        driver.get(f"{stack.hub_url}/batches/{batch['id']}")
        wait_for(driver, "the comment with the agent", lambda d: _statuses(d)[:2] == ["выполнена", "выполняется"])
        click(driver, By.ID, "force-cancel")
        assert " ".join(STILL_WRITTEN.split()) in text(driver, "warning")
        assert text(driver, "claimed") == f"команда {held_id} · ensure_comment · AURORA-1542"
        driver.find_element(By.CSS_SELECTOR, "button.danger").click()
        wait_for(driver, "back on the batch", lambda d: d.current_url.endswith(f"/batches/{batch['id']}"))
        assert driver.find_element(By.CSS_SELECTOR, "p.message").text == "отменено команд: 2"
        assert _statuses(driver) == ["выполнена", "отменена", "отменена"]
        cancelled_at = _api(stack, f"/commands/{held_id}")["finished_at"]
        # A report that comes late (the agent finished what it held) changes nothing.
        with stack.client("agent") as agent:
            late = {"status": "done", "result": {"comment_id": "1"}, "jira_calls": 1, "operations": []}
            assert agent.post(f"/agent/commands/{held_id}/report", json=late).json() == {
                "accepted": False,
                "status": "cancelled",
            }
        # The agent, stopped in its hour-long gap and started again, is back at the queue without the command.
        _restart_agent(stack)
        wait_for(
            driver,
            "the agent back at the queue",
            lambda _: (_api(stack, "/agent-status")["last_claim_at"] or "") > cancelled_at,
            timeout=30,
        )
        driver.refresh()
        assert _statuses(driver) == ["выполнена", "отменена", "отменена"]
        assert _api(stack, f"/commands/{held_id}")["deliveries"] == 1
        with stack.sim() as sim:
            calls = sim.get("/_sim/calls").json()
        assert [c for c in calls if c["method"] == "POST" and c["path"].endswith("/AURORA-1542/comment")] == []
    finally:
        with stack.client("admin") as admin:
            admin.patch("/settings", json={"pacing": DEMO_PACING})


def _restart_agent(stack: Stack) -> None:
    """Stop the module's agent (wherever it waits) and start it again on the same journal: the same instance."""
    stack.procs["sdlc-agent"].stop()
    stack.start_agent()


def test_retry_a_failed_command(driver: WebDriver, stack: Stack) -> None:
    """Jira refuses the write until the agent gives up (503 six times): «ошибка»; «Повторить» shows the
    parameters, creates the new batch and opens it, and that one reaches «выполнена»."""
    _login(driver, stack)
    with stack.sim() as sim:
        fault = {"method": "PUT", "path_regex": "/issue/AURORA-1538$", "status": 503, "retry_after": 0.05, "times": 6}
        assert sim.post("/_sim/faults", json=fault).status_code == 201
    batch = _submit(
        stack, [{"type": "ensure_fields", "params": {"key": "AURORA-1538", "duedate": "2026-12-05"}}], "503"
    )
    driver.get(f"{stack.hub_url}/batches/{batch['id']}")
    wait_for(driver, "the command failed", lambda d: _statuses(d)[:1] == ["ошибка"])
    click(driver, By.LINK_TEXT, "Повторить")
    assert json.loads(driver.find_element(By.ID, "retry-params").text) == {
        "key": "AURORA-1538",
        "duedate": "2026-12-05",
    }
    driver.find_element(By.CSS_SELECTOR, "button.primary").click()
    wait_for(driver, "the new batch", lambda d: not d.current_url.endswith(f"/batches/{batch['id']}"))
    assert f"повтор команды {batch['commands'][0]['id']}" in driver.find_element(By.CSS_SELECTOR, "p.message").text
    wait_for(driver, "the retry done", lambda d: _statuses(d) == ["выполнена", "выполнена"])


def test_add_a_note_and_read_the_project(driver: WebDriver, stack: Stack, tmp_path: Path) -> None:
    """«Добавить заметку» on an issue shows the note under the person's token; the project's slice filters."""
    _login(driver, stack)
    driver.get(f"{stack.hub_url}/issues/AURORA-1533")
    driver.find_element(By.ID, "text").send_keys("Сверить срок с бухгалтерией")
    driver.find_element(By.CSS_SELECTOR, "#note-add button").click()
    wait_for(driver, "the note", lambda d: "Сверить срок с бухгалтерией" in text(d, "notes"))
    assert "demo-interface" in text(driver, "notes")
    assert driver.find_element(By.CSS_SELECTOR, "p.message").text == "заметка добавлена"
    shoot(driver, "web-issue", tmp_path)

    driver.get(f"{stack.hub_url}/projects/AWPCA")
    keys = [
        row.find_element(By.TAG_NAME, "td").text for row in driver.find_elements(By.CSS_SELECTOR, "#issues tbody tr")
    ]
    assert "AURORA-1533" in keys
    driver.find_element(By.ID, "q").send_keys("шахматка")
    wait_for(
        driver,
        "the filtered slice",
        lambda d: (
            [r.find_element(By.TAG_NAME, "td").text for r in d.find_elements(By.CSS_SELECTOR, "#issues tbody tr")]
            == ["AURORA-1533", "AURORA-1542"]
        ),
    )
    shoot(driver, "web-project", tmp_path)


def test_approve_a_pending_batch_with_a_second_token(driver: WebDriver, stack: Stack, tmp_path: Path) -> None:
    """With approval required for the page's door, a planner's batch waits; «Выйти», another person logs in,
    reads the plan and «Одобрить»: the batch runs to «выполнена»."""
    with stack.client("admin") as admin:
        assert admin.patch("/settings", json={"approval": {"http": True}}).status_code == 200
    try:
        _login(driver, stack)
        driver.get(stack.hub_url + "/new")
        body = {
            "title": "на одобрение",
            "commands": [{"type": "ensure_fields", "params": {"key": "AURORA-1541", "duedate": "2026-12-20"}}],
        }
        _paste(driver, body)
        driver.find_element(By.ID, "editor-enqueue").click()
        wait_for(driver, "the batch's page", lambda d: "/batches/" in d.current_url)
        batch_url = driver.current_url
        assert "ждёт одобрения" in driver.find_element(By.CSS_SELECTOR, "p.message").text
        click(driver, By.CSS_SELECTOR, "form[action='/logout'] button")
        wait_for(driver, "logged out", lambda d: d.current_url == stack.hub_url + "/login")

        _login(driver, stack, "admin")
        driver.get(batch_url)
        assert text(driver, "plan-command-1").endswith("~ срок: пусто → 20.12.2026")
        shoot(driver, "web-approval", tmp_path)
        click(driver, By.CSS_SELECTOR, "#approval button.primary")
        wait_for(driver, "approved", lambda d: text(d, "approval-state").startswith("одобрен demo-admin"))
        wait_for(driver, "the approved batch done", lambda d: _statuses(d) == ["выполнена", "выполнена"])
    finally:
        with stack.client("admin") as admin:
            admin.patch("/settings", json={"approval": {"http": False}})


def _anonymous_csrf(stack: Stack) -> tuple[str, str]:
    """What anyone gets from an anonymous ``GET /login``: the CSRF cookie and the form's token."""
    with httpx.Client(base_url=stack.hub_url, timeout=30) as stranger:
        form = stranger.get("/login", headers={"Accept": "text/html"})
    token = re.search(r'name="_csrf_token" value="([^"]+)"', form.text)
    assert token is not None
    return form.cookies["hub_csrf"], token.group(1)


def test_a_token_from_an_anonymous_login_does_not_post_with_a_session(driver: WebDriver, stack: Stack) -> None:
    """A logged-in browser whose force-cancel form carries an anonymous login form's token (and that token's
    cookie, as a sibling subdomain would toss it in): the hub refuses it and the batch stays queued."""
    _login(driver, stack)
    with stack.client("admin") as admin:
        assert admin.patch("/settings", json={"approval": {"http": True}}).status_code == 200
    try:
        batch = _submit(
            stack, [{"type": "ensure_fields", "params": {"key": "AURORA-1533", "duedate": "2027-01-15"}}], "чужой"
        )
    finally:
        with stack.client("admin") as admin:
            admin.patch("/settings", json={"approval": {"http": False}})
    cookie, token = _anonymous_csrf(stack)
    driver.execute_cdp_cmd(  # type: ignore[attr-defined]
        "Network.setCookie",
        {"name": "hub_csrf", "value": cookie, "url": stack.hub_url + "/", "httpOnly": True, "sameSite": "Strict"},
    )
    driver.get(f"{stack.hub_url}/batches/{batch['id']}/cancel")
    driver.execute_script(
        "document.querySelector('form[action$=\"/cancel\"] input[name=_csrf_token]').value = arguments[0]", token
    )
    driver.find_element(By.CSS_SELECTOR, "button.danger").click()
    wait_for(driver, "the refusal", lambda d: d.find_elements(By.ID, "error"))
    assert text(driver, "error") == CSRF_REFUSED
    assert [c["status"] for c in _api(stack, f"/batches/{batch['id']}")["commands"]] == ["queued", "queued"]
    with stack.client("admin") as admin:
        admin.post(f"/batches/{batch['id']}/reject", json={"reason": "тест"})


def test_logout_ends_a_copied_session(driver: WebDriver, stack: Stack) -> None:
    """A session cookie copied before «Выйти» opens no page afterwards, in the browser or anywhere else, and
    posts no batch with the form's token it had."""
    _login(driver, stack)
    driver.get(stack.hub_url + "/new")
    copied = driver.get_cookie("hub_session")
    assert copied is not None
    token = driver.find_element(By.CSS_SELECTOR, "#new-batch input[name=_csrf_token]").get_attribute("value")
    before = _api(stack, "/batches")["total"]
    click(driver, By.CSS_SELECTOR, "form[action='/logout'] button")
    wait_for(driver, "logged out", lambda d: d.current_url == stack.hub_url + "/login")

    driver.add_cookie({"name": "hub_session", "value": copied["value"], "path": "/"})
    driver.get(stack.hub_url + "/")
    assert driver.current_url == stack.hub_url + "/login"
    with httpx.Client(base_url=stack.hub_url, cookies={"hub_session": copied["value"]}, timeout=30) as copy:
        body = json.dumps({"title": "после выхода", "commands": [{"type": "refresh", "params": {"keys": ["A-1"]}}]})
        posted = copy.post("/new", data={"batch": body, "author": "x", "_csrf_token": token or ""})
    assert posted.status_code == 303
    assert posted.headers["location"] == "/login"
    assert _api(stack, "/batches")["total"] == before


def test_schema_works_without_internet(driver: WebDriver, stack: Stack) -> None:
    """/schema shows the API's operations and links the OpenAPI document, all from the hub itself."""
    driver.get(stack.hub_url + "/schema")
    rows = driver.find_elements(By.CSS_SELECTOR, "#operations tbody tr")
    assert len(rows) > 20
    assert "POST /batches" in [" ".join(r.text.split()[:2]) for r in rows]
    assert driver.find_element(By.ID, "openapi-json").get_attribute("href") == stack.hub_url + "/schema/openapi.json"
