"""«Расхождения»: what Jira no longer shows of done commands, with who changed it, and «Вернуть» per item or for
a selection."""

from __future__ import annotations

import pytest

from tests.hub.test_drift import HAND_EDITS, JOURNAL, full_refresh, run_batch

from .conftest import Api, Clock, Open
from .support import cells, element_text

pytestmark = pytest.mark.anyio


async def test_drift_lists_what_changed_by_whom(browser: Open, api: Api, clock: Clock) -> None:
    """Each drifted aspect: the issue, its command and batch, wanted and now, who changed it and when; and how
    fresh the mirror is."""
    batch = await run_batch(api)
    ids = [c["id"] for c in batch["commands"]]
    clock.advance(minutes=30)
    await full_refresh(api, HAND_EDITS, JOURNAL)
    person = await browser("interface")
    page = (await person.get("/drift?project=AWPCA")).text
    assert element_text(page, "freshness").endswith("Зеркало верно на полное обновление 22.10.2026 09:30:00 UTC.")
    b = batch["id"]
    assert cells(page, "drift")[1:] == [
        ["", "AURORA-1", f"{ids[0]} ensure_fields, пакет {b}", "Срок", "23.10.2026", "30.11.2026", "petrova",
         "22.10.2026 09:10:00 UTC", "Вернуть"],
        ["", "AURORA-1", f"{ids[2]} ensure_link, пакет {b}", "Связь",
         "«Связанные» AURORA-1 → AURORA-2", "нет связи", "petrova",
         "22.10.2026 09:12:00 UTC", "Вернуть"],
        ["", "AURORA-2", f"{ids[1]} ensure_status, пакет {b}", "Статус", "«Готово»", "«Разработка»", "petrova",
         "22.10.2026 09:11:00 UTC", "Вернуть"],
    ]  # fmt: skip


async def test_put_back_one_item(browser: Open, api: Api, clock: Clock) -> None:
    """«Вернуть» on one item: a batch re-asserting that command opens; its page says what it is."""
    batch = await run_batch(api)
    status_command = batch["commands"][1]["id"]
    clock.advance(minutes=30)
    await full_refresh(api, HAND_EDITS, JOURNAL)
    person = await browser("interface")
    await person.get("/drift")
    response = await person.post("/drift/reapply", {"one": str(status_command)})
    created = (await api.get("/batches")).json()["items"][0]
    assert response.headers["location"] == f"/batches/{created['id']}"
    assert [c["type"] for c in created["commands"]] == ["ensure_status", "refresh"]
    assert created["token_name"] == "interface-token"
    page = (await person.follow(response)).text
    assert f"создан пакет {created['id']}: возврат расхождений: команды {status_command}" in page


async def test_put_back_a_selection(browser: Open, api: Api, clock: Clock) -> None:
    """«Вернуть выбранные»: the checked commands in one batch."""
    batch = await run_batch(api)
    ids = [c["id"] for c in batch["commands"]]
    clock.advance(minutes=30)
    await full_refresh(api, HAND_EDITS, JOURNAL)
    person = await browser("interface")
    await person.get("/drift")
    response = await person.post("/drift/reapply", {"selected": [str(ids[0]), str(ids[2])]})
    assert response.status_code == 303
    created = (await api.get("/batches")).json()["items"][0]
    assert created["title"] == f"возврат расхождений: команды {ids[0]}, {ids[2]}"
    assert [c["type"] for c in created["commands"]] == ["ensure_fields", "ensure_link", "refresh"]


async def test_nothing_chosen_or_nothing_to_put_back_is_said(browser: Open, api: Api) -> None:
    """No item checked, or a command that shows no drift: the hub's refusal on the page, no batch made."""
    batch = await run_batch(api)
    before = (await api.get("/batches")).json()["total"]
    person = await browser("interface")
    await person.get("/drift")
    page = (await person.follow(await person.post("/drift/reapply", {}))).text
    assert "command_ids — ожидается непустой список номеров команд" in page
    command = batch["commands"][0]["id"]
    page = (await person.follow(await person.post("/drift/reapply", {"one": str(command)}))).text
    assert f"команда {command}: Jira показывает то, что она задала, — возвращать нечего" in page
    assert "Расхождений нет" in page
    assert (await api.get("/batches")).json()["total"] == before
