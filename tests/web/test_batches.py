"""A batch's page and a command's: statuses in Russian, «Отменить», «Отменить принудительно» after its
confirmation, «Повторить» after showing the batch it creates, refusals in the hub's words."""

from __future__ import annotations

from typing import Any

import pytest

from hub_app.web.labels import STATUS_LABELS
from hub_app.web.views.batches import STILL_WRITTEN
from tests.hub.support import approve, claim_ok, create_ok, done
from tests.support import cmd

from .conftest import Api, Clock, Open
from .support import cells, element_text

pytestmark = pytest.mark.anyio


async def _batch(api: Api) -> dict[str, Any]:
    return await create_ok(
        api,
        [
            cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23"),
            cmd("ensure_comment", key="AURORA-2", marker="m", body="текст"),
        ],
    )


def test_statuses_are_named_as_design_8_says() -> None:
    """The seven statuses in Russian, word for word."""
    assert STATUS_LABELS == {
        "queued": "в очереди",
        "claimed": "выполняется",
        "done": "выполнена",
        "failed": "ошибка",
        "skipped": "пропущена",
        "cancelled": "отменена",
        "confirmed_by_state": "подтверждена по состоянию",
    }


async def test_batch_page_lists_commands(browser: Open, api: Api, clock: Clock) -> None:
    """Commands with seq, type, key, Russian status, duration (from the delivery to the report), deliveries,
    result, error and their action."""
    batch = await _batch(api)
    delivery = await claim_ok(api)
    clock.advance(seconds=4)
    await done(api, delivery["id"], {"changed": ["duedate"]})
    delivery = await claim_ok(api)
    clock.advance(minutes=2, seconds=5)
    await api.report(delivery["id"], {"status": "failed", "error": "HTTP 404: задачи нет", "operations": []})
    person = await browser("interface")
    page = (await person.get(f"/batches/{batch['id']}")).text
    ids = [c["id"] for c in batch["commands"]]
    assert cells(page, "commands")[1:] == [
        [
            "1.",
            "Поля задачи",
            "ensure_fields",
            "AURORA-1",
            "выполнена",
            "4 с",
            "1",
            'срок → 23.10.2026 JSON { "changed": [ "duedate" ] }',
            "",
            "",
        ],
        [
            "2.",
            "Комментарий",
            "ensure_comment",
            "AURORA-2",
            "ошибка",
            "2 мин 5 с",
            "1",
            "не выполнена — см. ошибку",
            "HTTP 404: задачи нет",
            "Повторить",
        ],
        ["3.", "Обновление из Jira", "refresh", "AURORA-1, AURORA-2", "в очереди", "", "0", "", "", "Отменить"],
    ]
    for number, command_id in enumerate(ids, start=1):  # the position on screen, the command's id in its link
        assert f'<a href="/commands/{command_id}" class="position" title="команда {command_id}">{number}.</a>' in page


async def test_a_failed_command_shows_its_error_and_no_result_that_reads_like_success(browser: Open, api: Api) -> None:
    """A failed ``ensure_status`` that reported what it found («статус уже …» in words, were it done): the batch
    and the command pages show the error and keep those fields in the JSON only."""
    batch = await create_ok(api, [cmd("ensure_status", key="AURORA-1537", target="Нет такого")])
    delivery = await claim_ok(api)
    error = "нет перехода в «Нет такого» из «Разработка»; доступны: Тестирование"
    await api.report(delivery["id"], {"status": "failed", "error": error, "result": {"status": "Разработка"}})
    person = await browser("interface")
    page = (await person.get(f"/batches/{batch['id']}")).text
    row = cells(page, "commands")[1]
    assert (row[7], row[8]) == ('не выполнена — см. ошибку JSON { "status": "Разработка" }', error)
    command = (await person.get(f"/commands/{delivery['id']}")).text
    assert element_text(command, "result") == 'не выполнена — см. ошибку JSON { "status": "Разработка" }'
    assert "Что агент сообщил до ошибки" in command
    assert command.index("error-box") < command.index('id="result"')


async def test_a_cancelled_batch_counts_what_was_cancelled_and_done(browser: Open, api: Api) -> None:
    """Cancelled after one command was done and with one at the agent: «отменено: 2, выполнено: 1, выполняется: 1»
    (the other comment and the tail refresh) and «отменён, команда у агента дописывается», never «3/4 ·
    выполняется»; once that one ends, «отменён» with «отменено: 2, выполнено: 2»."""
    batch = await create_ok(
        api,
        [
            cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23"),
            cmd("ensure_comment", key="AURORA-2", marker="[m]", body="b"),
            cmd("ensure_comment", key="AURORA-3", marker="[m]", body="b"),
        ],
    )
    await done(api, (await claim_ok(api))["id"], {"changed": ["duedate"]})
    running = await claim_ok(api)
    assert (await api.post(f"/batches/{batch['id']}/cancel", {"force": False})).status_code == 200
    person = await browser("interface")
    page = (await person.get(f"/batches/{batch['id']}")).text
    assert '<span class="small told">отменено: 2, выполнено: 1, выполняется: 1</span>' in page
    assert "отменён, команда у агента дописывается</span>" in page
    assert "3/4" not in page
    await done(api, running["id"], {"changed": []})
    page = (await person.get(f"/batches/{batch['id']}")).text
    assert '<span class="small told">отменено: 2, выполнено: 2</span>' in page
    assert 'data-state="cancelled">отменён</span>' in page


async def test_cancel_leaves_the_claimed_command_and_says_so(browser: Open, api: Api) -> None:
    """«Отменить»: queued commands are cancelled; the one with the agent keeps running, and the page says so."""
    batch = await _batch(api)
    claimed = await claim_ok(api)
    person = await browser("interface")
    await person.get(f"/batches/{batch['id']}")
    response = await person.post(f"/batches/{batch['id']}/cancel")
    assert response.headers["location"] == f"/batches/{batch['id']}"
    page = (await person.follow(response)).text
    assert (
        f"отменено команд: 2; команда {claimed['id']} уже у агента и выполняется "
        "(«Отменить принудительно» отменит и её)"
    ) in page
    assert [row[4] for row in cells(page, "commands")[1:]] == ["выполняется", "отменена", "отменена"]


async def test_force_cancel_is_confirmed_first(browser: Open, api: Api) -> None:
    """«Отменить принудительно» opens a confirmation that explains a command with the agent may still be
    written and names it; confirming cancels it too."""
    batch = await _batch(api)
    claimed = await claim_ok(api)
    person = await browser("interface")
    confirm = (await person.get(f"/batches/{batch['id']}/cancel")).text
    assert STILL_WRITTEN in confirm
    assert element_text(confirm, "claimed") == f"команда {claimed['id']} · ensure_fields · AURORA-1"
    response = await person.post(f"/batches/{batch['id']}/cancel", {"force": "true"})
    page = (await person.follow(response)).text
    assert "отменено команд: 3" in page
    assert [row[4] for row in cells(page, "commands")[1:]] == ["отменена"] * 3
    assert (await api.get(f"/batches/{batch['id']}")).json()["progress"]["by_status"] == {"cancelled": 3}


async def test_cancelling_a_claimed_command_without_force_is_refused(browser: Open, api: Api) -> None:
    """A command already with the agent is not cancelled by «Отменить»: the hub's 409 is shown on the page."""
    batch = await _batch(api)
    claimed = await claim_ok(api)
    person = await browser("interface")
    await person.get(f"/batches/{batch['id']}")
    response = await person.post(f"/commands/{claimed['id']}/cancel", {"back": f"/batches/{batch['id']}"})
    assert response.headers["location"] == f"/batches/{batch['id']}"
    page = (await person.follow(response)).text
    refusal = (await api.post(f"/commands/{claimed['id']}/cancel", {})).json()["detail"]
    assert refusal in page
    assert cells(page, "commands")[1][4] == "выполняется"


async def test_retry_shows_the_new_batch_then_creates_it(browser: Open, api: Api) -> None:
    """«Повторить» shows the parameters of the batch it will create; confirming creates it and opens it."""
    batch = await _batch(api)
    delivery = await claim_ok(api)
    await api.report(delivery["id"], {"status": "failed", "error": "HTTP 503", "operations": []})
    person = await browser("interface")
    confirm = (await person.get(f"/commands/{delivery['id']}/retry")).text
    assert element_text(confirm, "retry-params") == '{ "key": "AURORA-1", "duedate": "2026-10-23" }'
    assert f"повтор команды {delivery['id']}: план" in confirm
    response = await person.post(f"/commands/{delivery['id']}/retry")
    created = (await api.get("/batches")).json()["items"][0]
    assert created["id"] != batch["id"]
    assert response.headers["location"] == f"/batches/{created['id']}"
    assert created["token_name"] == "interface-token"
    assert [c["type"] for c in created["commands"]] == ["ensure_fields", "refresh"]
    assert f"создан пакет {created['id']}: повтор команды {delivery['id']}" in (await person.follow(response)).text


async def test_retry_of_a_done_command_is_refused(browser: Open, api: Api) -> None:
    """A done command cannot be retried: the confirmation page answers the hub's 409 in its words."""
    await _batch(api)
    delivery = await claim_ok(api)
    await done(api, delivery["id"], {"changed": []})
    person = await browser("interface")
    response = await person.get(f"/commands/{delivery['id']}/retry")
    assert response.status_code == 409
    assert element_text(response.text, "error") == (
        f"команда {delivery['id']} в статусе done — повтор только после failed, skipped, cancelled"
    )


async def test_command_page_shows_its_writes(browser: Open, api: Api) -> None:
    """A command's page: parameters, deliveries, times, Jira calls and the operations it made, in order."""
    await _batch(api)
    delivery = await claim_ok(api)
    operation = {"method": "PUT", "path": "/rest/api/2/issue/AURORA-1", "status": 204}
    await done(api, delivery["id"], {"changed": ["duedate"]}, jira_calls=2, operations=[operation])
    person = await browser("interface")
    page = (await person.get(f"/commands/{delivery['id']}")).text
    assert cells(page, "operations")[1:] == [["1", "PUT", "/rest/api/2/issue/AURORA-1", "204"]]
    assert "Вызовов Jira</dt><dd>2</dd>" in page
    assert "выполнена" in page


async def test_a_finished_batch_stops_polling(browser: Open, api: Api) -> None:
    """While commands are unfinished the batch's part polls every 2 s; once all are final it does not."""
    batch = await _batch(api)
    person = await browser("interface")
    live = (await person.get(f"/batches/{batch['id']}", htmx=True)).text
    assert 'hx-trigger="every 2s, live"' in live
    await api.post(f"/batches/{batch['id']}/cancel", {})
    finished = (await person.get(f"/batches/{batch['id']}", htmx=True)).text
    assert "hx-trigger" not in finished
    assert "<html" not in finished


async def test_the_batch_shows_its_estimate_and_the_live_figures(browser: Open, api: Api, clock: Clock) -> None:
    """«Оценка» is the seed's 152 s (120 + 30 + 2); «Осталось» counts down as the first command's gap runs
    (120 − 45 + 30 + 2 = 107 s); «Прошло» since the first delivery (45 s, not the 50 since creation); «Ожидается»
    is the whole run, 45 + 107; a finished batch shows no «Осталось» and no wait for approval it never had."""
    batch = await _batch(api)
    person = await browser("interface")
    clock.advance(seconds=5)
    await claim_ok(api)
    clock.advance(seconds=45)
    page = (await person.get(f"/batches/{batch['id']}")).text
    assert (element_text(page, "remaining"), element_text(page, "elapsed")) == ("1 мин 47 с", "45 с")
    assert element_text(page, "eta") == "2 мин 32 с (в темпе агента)"
    assert "2 мин 32 с" in page  # the estimate: 120 + 30 + 2
    await api.post(f"/batches/{batch['id']}/cancel", {"force": True})
    finished = (await person.get(f"/batches/{batch['id']}")).text
    assert "Осталось" not in finished
    assert element_text(finished, "elapsed") == "45 с"
    assert "одобрения" not in finished


async def test_the_wait_for_approval_is_shown_apart_from_the_run(browser: Open, api: Api, clock: Clock) -> None:
    """A batch approved 36 s after its creation and delivered 4 s later: «Прошло 7 с (ждал одобрения 36 с)»;
    while it waits, «ждёт одобрения»."""
    assert (await api.patch("/settings", {"approval": {"http": True}})).status_code == 200
    batch = await _batch(api)
    person = await browser("interface")
    clock.advance(seconds=12)
    waiting = (await person.get(f"/batches/{batch['id']}")).text
    assert element_text(waiting, "elapsed") == "0 с (ждёт одобрения 12 с)"
    clock.advance(seconds=24)
    assert (await approve(api, batch["id"])).status_code == 200
    clock.advance(seconds=4)
    await claim_ok(api)
    clock.advance(seconds=7)
    page = (await person.get(f"/batches/{batch['id']}")).text
    assert element_text(page, "elapsed") == "7 с (ждал одобрения 36 с)"
