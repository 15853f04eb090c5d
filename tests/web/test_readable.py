"""The page in words (issue 27): results and parameters by the catalogue's Russian names with the JSON behind
«JSON» for experts."""

from __future__ import annotations

import pytest

from hub.support import claim_ok, cmd, create_ok, done

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
    assert rows[1][6] == 'создана AURORA-1590 JSON { "key": "AURORA-1590", "created": true }'
