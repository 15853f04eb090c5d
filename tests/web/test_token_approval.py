"""Approval follows the token on the page (DESIGN.md 6): a person logged in with a ``needs_approval`` token gets
pending batches from «Новый пакет», «Повторить» and «Вернуть» with approval.http off, and cannot «Одобрить»;
a person's «Повторить» or «Вернуть» of a command whose batch waited waits again."""

from __future__ import annotations

import json

import pytest

from hub_app.web.acting import WAITS
from tests.hub.support import create_ok
from tests.hub.test_token_approval import ASSISTANT, drifted
from tests.hub.test_token_approval import assistant as assistant  # noqa: PLC0414 — the fixture, shared
from tests.support import cmd

from .conftest import Api, Open
from .support import element_text

pytestmark = pytest.mark.anyio

BODY = {"title": "t", "commands": [{"type": "ensure_fields", "params": {"key": "AURORA-1", "duedate": "2026-10-23"}}]}


async def test_a_batch_from_the_page_waits_for_the_token(browser: Open, assistant: Api) -> None:
    """«В очередь» with the token: pending although approval.http is off, and the page says it waits."""
    person = await browser(ASSISTANT)
    await person.get("/new")
    response = await person.post("/new", {"author": "a", "batch": json.dumps(BODY)})
    page = (await person.follow(response)).text
    created = (await assistant.get("/batches")).json()["items"][0]
    assert (created["token_name"], created["approval"]["state"]) == ("claude", "pending")
    assert f"пакет {created['id']} {WAITS}" in page


async def test_retry_on_the_page_waits_for_the_token_and_for_a_batch_that_waited(browser: Open, assistant: Api) -> None:
    """«Повторить» of a cancelled command of a batch that waited: pending, by the token and by a person."""
    held = (await assistant.post("/batches", {"author": "a", **BODY}, role=ASSISTANT)).json()
    command_id = held["commands"][0]["id"]
    await assistant.post(f"/batches/{held['id']}/cancel", {}, role=ASSISTANT)
    for role in (ASSISTANT, "interface"):
        person = await browser(role)
        await person.get(f"/commands/{command_id}/retry")
        page = (await person.follow(await person.post(f"/commands/{command_id}/retry"))).text
        created = (await assistant.get("/batches")).json()["items"][0]
        assert created["approval"]["state"] == "pending"
        assert f"создан пакет {created['id']}: повтор команды {command_id}; пакет {WAITS}" in page


async def test_put_back_on_the_page_waits_when_the_batch_waited(browser: Open, assistant: Api) -> None:
    """«Вернуть» by a person, of a command the token's (approved) batch set: the new batch waits again."""
    command_id = await drifted(assistant, ASSISTANT)
    person = await browser("interface")
    await person.get("/drift")
    page = (await person.follow(await person.post("/drift/reapply", {"one": str(command_id)}))).text
    created = (await assistant.get("/batches")).json()["items"][0]
    assert (created["token_name"], created["approval"]["state"]) == ("interface-token", "pending")
    assert f"пакет {WAITS}" in page


async def test_the_token_cannot_approve_on_the_page(browser: Open, assistant: Api) -> None:
    """«Одобрить» with the token: its 403 shown, the batch still pending."""
    await assistant.patch("/settings", {"approval": {"http": True}})
    batch = await create_ok(assistant, [cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23")])
    person = await browser(ASSISTANT)
    shown = (await person.get(f"/batches/{batch['id']}")).text
    assert (
        element_text(shown, "approve") == "токен claude сам требует одобрения своих пакетов и одобрять пакеты не может"
    )
    digest = (await assistant.get(f"/batches/{batch['id']}/plan")).json()["digest"]
    page = (await person.follow(await person.post(f"/batches/{batch['id']}/approve", {"plan": digest}))).text
    assert "токен claude сам требует одобрения своих пакетов и одобрять пакеты не может" in page
    assert (await assistant.get(f"/batches/{batch['id']}")).json()["approval"]["state"] == "pending"


async def test_a_retry_from_the_editor_waits_when_the_batch_waited(browser: Open, assistant: Api) -> None:
    """«Изменить и повторить» then «Поставить в очередь» by a person, of a command whose batch waited: pending."""
    held = (await assistant.post("/batches", {"author": "a", **BODY}, role=ASSISTANT)).json()
    command_id = held["commands"][0]["id"]
    await assistant.post(f"/batches/{held['id']}/cancel", {}, role=ASSISTANT)
    person = await browser("interface")
    page = (await person.get(f"/new?retry={command_id}")).text
    fields = {
        "author": "a",
        "title": "повтор",
        "c1.type": "ensure_fields",
        "c1.key": "AURORA-1",
        "c1.duedate": "2026-10-24",
        "retry_of": str(command_id),
        "op": "queue",
    }
    assert f'name="retry_of" value="{command_id}"' in page
    response = await person.post("/new/edit", fields)
    assert response.status_code == 303, response.text
    created = (await assistant.get("/batches")).json()["items"][0]
    assert (created["token_name"], created["approval"]["state"]) == ("interface-token", "pending")
