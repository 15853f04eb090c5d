"""A batch waiting for a person: its plan on the page with «Одобрить» and «Отклонить» (four eyes), and the
approval state on «Очередь»."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from hub_app.web.editor.new import WAITS
from tests.hub.support import create_ok, issue, seed_mirror
from tests.support import cmd

from .conftest import Api, Open
from .support import cells, element_text, has_element

pytestmark = pytest.mark.anyio


async def _pending(api: Api) -> dict[str, Any]:
    """A batch created through the HTTP door while it requires approval (by the interface token)."""
    assert (await api.patch("/settings", {"approval": {"http": True}})).status_code == 200
    await seed_mirror(api, [issue("AURORA-1", duedate="2026-10-01")])
    batch = await create_ok(api, [cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23")])
    assert batch["approval"]["state"] == "pending"
    return batch


def shown_digest(page: str) -> str:
    """The digest of the plan the page shows, which «Одобрить» sends."""
    found = re.search(r'name="plan" value="([0-9a-f]{64})"', page)
    assert found is not None, "«Одобрить» sends no plan"
    return found.group(1)


async def test_a_pending_batch_shows_its_plan_and_the_two_buttons(browser: Open, api: Api) -> None:
    """The batch's page: the plan (~ field old → new), «Одобрить» and «Отклонить» with a reason field; the
    queue page shows «ждёт одобрения» and counts the waiting batch apart from the agent's depth."""
    batch = await _pending(api)
    person = await browser("admin")
    page = (await person.get(f"/batches/{batch['id']}")).text
    assert element_text(page, "plan-command-1") == (
        f"1. ensure_fields · AURORA-1 (команда {batch['commands'][0]['id']}, в очереди) ~ срок: 01.10 → 23.10"
    )
    assert "Одобрить</button>" in page
    assert shown_digest(page) == (await api.get(f"/batches/{batch['id']}/plan")).json()["digest"]
    assert has_element(page, "reject") and 'name="reason"' in page
    assert element_text(page, "approval-state") == "ждёт одобрения"
    queue = (await person.get("/")).text
    assert cells(queue, "batches")[1][6] == "ждёт одобрения"
    assert "Ждут одобрения пакетов: 1, команд: 2" in element_text(queue, "queue-depth")


async def test_the_creator_cannot_approve_their_own_batch(browser: Open, api: Api) -> None:
    """The creator's page says the batch waits for another person instead of offering «Одобрить» (they may still
    withdraw it); a «Одобрить» posted all the same: «нельзя одобрить свой пакет», it stays pending."""
    batch = await _pending(api)
    person = await browser("interface")
    own = (await person.get(f"/batches/{batch['id']}")).text
    assert element_text(own, "approve") == "Ваш пакет ждёт одобрения другим человеком: одобрить свой пакет нельзя."
    assert "Одобрить</button>" not in own and has_element(own, "reject")
    digest = (await api.get(f"/batches/{batch['id']}/plan")).json()["digest"]
    response = await person.post(f"/batches/{batch['id']}/approve", {"plan": digest})
    page = (await person.follow(response)).text
    assert "нельзя одобрить свой пакет" in page
    assert (await api.get(f"/batches/{batch['id']}")).json()["approval"]["state"] == "pending"


async def test_another_person_approves(browser: Open, api: Api) -> None:
    """«Одобрить» by another token: approved by that name; the plan and the buttons are gone."""
    batch = await _pending(api)
    person = await browser("admin")
    shown = (await person.get(f"/batches/{batch['id']}")).text
    response = await person.post(f"/batches/{batch['id']}/approve", {"plan": shown_digest(shown)})
    page = (await person.follow(response)).text
    assert f"пакет {batch['id']} одобрен" in page
    assert element_text(page, "approval-state") == "одобрен admin-token, 22.10.2026 09:00:00 UTC"
    assert not has_element(page, "approval")
    assert "1. AURORA-1 ~ срок: 01.10 → 23.10" in element_text(page, "approved-plan")


async def test_a_plan_that_changed_since_it_was_shown_is_not_approved(browser: Open, api: Api) -> None:
    """The mirror moved after the page showed the plan: «план изменился — посмотрите и одобрите заново», the
    batch still waits and the page shows the plan now."""
    batch = await _pending(api)
    person = await browser("admin")
    shown = (await person.get(f"/batches/{batch['id']}")).text
    await seed_mirror(api, [issue("AURORA-1", duedate="2026-10-05")])
    response = await person.post(f"/batches/{batch['id']}/approve", {"plan": shown_digest(shown)})
    page = (await person.follow(response)).text
    assert "план изменился — посмотрите и одобрите заново" in page
    assert "~ срок: 05.10 → 23.10" in element_text(page, "plan-command-1")
    assert shown_digest(page) != shown_digest(shown)
    assert (await api.get(f"/batches/{batch['id']}")).json()["approval"]["state"] == "pending"


async def test_reject_with_a_reason(browser: Open, api: Api) -> None:
    """«Отклонить» with a reason: the commands are cancelled with «пакет отклонён: <reason>»."""
    batch = await _pending(api)
    person = await browser("admin")
    await person.get(f"/batches/{batch['id']}")
    response = await person.post(f"/batches/{batch['id']}/reject", {"reason": "не тот срок"})
    page = (await person.follow(response)).text
    assert f"пакет {batch['id']} отклонён: не тот срок" in page
    assert element_text(page, "approval-state") == "отклонён admin-token, 22.10.2026 09:00:00 UTC: не тот срок"
    assert [(row[4], row[8]) for row in cells(page, "commands")[1:]] == [
        ("отменена", "пакет отклонён: не тот срок"),
        ("отменена", "пакет отклонён: не тот срок"),
    ]


async def test_a_batch_from_the_page_waits_when_the_door_requires_it(browser: Open, api: Api) -> None:
    """With approval.http on, «В очередь» creates a pending batch and says it waits for another person."""
    assert (await api.patch("/settings", {"approval": {"http": True}})).status_code == 200
    person = await browser("interface")
    await person.get("/new")
    body = {
        "title": "t",
        "commands": [{"type": "ensure_fields", "params": {"key": "AURORA-1", "duedate": "2026-10-23"}}],
    }
    response = await person.post("/new", {"author": "a", "batch": json.dumps(body)})
    page = (await person.follow(response)).text
    created = (await api.get("/batches")).json()["items"][0]
    assert f"пакет {created['id']} {WAITS}" in page
    assert created["approval"]["state"] == "pending"


async def test_a_stale_plan_shows_its_difference_and_the_approved_plan_stays_beside_the_results(
    browser: Open, api: Api
) -> None:
    """The agent found AURORA-1's date moved after approval: the page says why the batch waits again, in the hub's
    words, with the plan now and «Одобрить»."""
    batch = await _pending(api)
    person = await browser("admin")
    shown = (await person.get(f"/batches/{batch['id']}")).text
    await person.post(f"/batches/{batch['id']}/approve", {"plan": shown_digest(shown)})
    delivery = (await api.claim()).json()
    now = {"key": "AURORA-1", "aspect": "duedate", "from": "2026-10-05", "to": "2026-10-23"}
    approved = {"key": "AURORA-1", "aspect": "duedate", "from": "2026-10-01", "to": "2026-10-23"}
    body = {
        "status": "failed",
        "operations": [],
        "outcome": "stale_plan",
        "difference": [{"now": now, "approved": approved}],
    }
    assert (await api.report(delivery["id"], body)).json() == {"accepted": True, "status": "queued"}
    page = (await person.get(f"/batches/{batch['id']}")).text
    assert "AURORA-1: duedate изменилась в Jira после одобрения" in element_text(page, "stale-plan")
    assert "Одобрить</button>" in page
