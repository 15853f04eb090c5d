"""The page in words (issue 27): results and parameters by the catalogue's Russian names with the JSON behind
«JSON» for experts."""

from __future__ import annotations

import pytest

from tests.hub.support import claim_ok, cmd, create_ok, done, issue

from .conftest import Api, Open
from .support import cells, element_text

pytestmark = pytest.mark.anyio


async def test_a_commands_result_and_parameters_in_words(browser: Open, api: Api) -> None:
    """«создана AURORA-1590» for a created issue; its parameters by label; the raw JSON still there."""
    batch = await create_ok(
        api, [cmd("ensure_issue", temp_key="new:1", summary="Сверка ОСВ", duedate="2026-12-15", labels=["x"])]
    )
    delivery = await claim_ok(api)
    await done(api, delivery["id"], {"key": "AURORA-1590", "created": True})
    person = await browser("interface")
    page = (await person.get(f"/commands/{delivery['id']}")).text
    assert element_text(page, "params").startswith(
        "Временный ключ «new:1» Тема «Сверка ОСВ» Срок 15.12.2026 Метки x JSON {"
    )
    assert element_text(page, "result") == 'создана AURORA-1590 JSON { "key": "AURORA-1590", "created": true }'
    assert '<details class="raw"><summary>JSON</summary>' in page
    rows = cells((await person.get(f"/batches/{batch['id']}")).text, "commands")
    assert rows[1][rows[0].index("Результат")] == 'создана AURORA-1590 JSON { "key": "AURORA-1590", "created": true }'


async def test_sprint_state_and_journal_in_russian(browser: Open, api: Api) -> None:
    """The issue's sprint «(активный)»; the journal's fields by their Russian names and dates as dates."""
    response = await api.post("/refresh", {"keys": ["AURORA-1"]})
    assert response.status_code == 201, response.text
    delivery = await claim_ok(api)
    items = [
        {"field": "duedate", "from": "2026-10-20", "from_string": "2026-10-20 00:00:00.0", "to": None},
        {"field": "status", "from": "1", "from_string": "Анализ", "to": "3", "to_string": "Разработка"},
        {"field": "Sprint", "from": None, "to": "5", "to_string": "Спринт 2"},
        {"field": "customfield_1", "from": None, "to": "x"},
    ]
    history = {"key": "AURORA-1", "id": "501", "created": "2026-10-21T08:00:00Z", "author": "petrov", "items": items}
    record = issue("AURORA-1", sprint={"id": 5, "name": "Спринт 2", "state": "active"})
    page = {"page": 1, "kind": "issues", "issues": [record], "history": [history]}
    assert (await api.pages(delivery["id"], page)).status_code == 200
    await done(api, delivery["id"], {"issues": 1, "neighbours": 0, "boards": {}})
    shown = (await (await browser("interface")).get("/issues/AURORA-1")).text
    assert "<dt>Спринт</dt><dd>Спринт 2 (активный)</dd>" in shown
    assert [row[2:] for row in cells(shown, "journal")[1:]] == [
        ["Срок", "20.10.2026", "—"],
        ["Статус", "Анализ", "Разработка"],
        ["Спринт", "—", "Спринт 2"],
        ["customfield_1", "—", "x"],
    ]


async def test_an_error_with_markup_is_shown_by_its_title(browser: Open, api: Api) -> None:
    """An error stored with Jira's HTML page (an older agent's report) shows as the page's title."""
    batch = await create_ok(api, [cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23")])
    delivery = await claim_ok(api)
    html = "<html><head><title>503 Service Unavailable</title></head><body>Service Unavailable</body></html>"
    report = {"status": "failed", "error": f"HTTP 503: {html}", "operations": []}
    assert (await api.report(delivery["id"], report)).status_code == 200
    person = await browser("interface")
    rows = cells((await person.get(f"/batches/{batch['id']}")).text, "commands")
    assert rows[1][rows[0].index("Ошибка")] == "HTTP 503: Service Unavailable"
    page = (await person.get(f"/commands/{delivery['id']}")).text
    assert '<p class="error-box">HTTP 503: Service Unavailable</p>' in page
    assert "&lt;html&gt;" not in page
