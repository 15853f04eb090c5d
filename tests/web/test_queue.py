"""«Очередь»: the agent card, the command in flight with its pause, depth and ETA, the batches with progress;
the live fragment htmx fetches every 2 s."""

from __future__ import annotations

import pytest

from tests.hub.support import claim_ok, create_ok, done
from tests.support import cmd

from .conftest import Api, Clock, Open
from .support import cells, element_text, has_element

pytestmark = pytest.mark.anyio


async def test_empty_hub(browser: Open) -> None:
    """No agent yet and no batches: «не в сети», nothing in flight, depth 0, and an invitation to create one."""
    person = await browser("interface")
    page = (await person.get("/")).text
    assert element_text(page, "agent-card") == (
        "Агент Состояние не в сети Последний раз — Версия — Пользователь Jira —"
    )
    assert element_text(page, "in-flight") == "Выполняется Агент сейчас ничего не выполняет."
    assert element_text(page, "queue-depth") == "В очереди Команд 0 Оценка —"
    assert cells(page, "batches")[1] == ["Пакетов пока нет: создайте первый на странице «Новый пакет»."]


async def test_agent_in_flight_depth_eta_and_batches(browser: Open, api: Api, clock: Clock) -> None:
    """The agent online with its version and Jira user; the claimed command with what is left of its pause (at
    most the pause less the time since the delivery: the agent has not said); the queued ones counted with the
    pacing estimate; batches newest first with progress, state and counts by status in Russian."""
    first = await create_ok(
        api,
        [
            cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23"),
            cmd("ensure_status", key="AURORA-1", target="Готово"),
        ],
        title="первый",
    )
    clock.advance(seconds=1)
    await create_ok(api, [cmd("ensure_comment", key="AURORA-2", marker="m", body="b")], title="второй")
    delivery = await claim_ok(api, jira_user="bridge-user")
    await done(api, delivery["id"], {"changed": ["duedate"]})
    delivery = await claim_ok(api, jira_user="bridge-user")
    person = await browser("interface")
    page = (await person.get("/")).text
    assert element_text(page, "agent-card") == (
        "Агент Состояние в сети Последний раз 22.10.2026 09:00:01 UTC Версия 1.0 Пользователь Jira bridge-user "
        "Агент agent-1"
    )
    assert element_text(page, "in-flight") == (
        f"Выполняется команда {delivery['id']} · ensure_status · AURORA-1 пакет {first['id']}, "
        "выдана 22.10.2026 09:00:01 UTC, выдач: 1 до записи осталось не больше 30 с (пауза 30 с)"
    )
    # The agent's outlook: ensure_status in flight (30 s), the first batch's tail refresh (2 s), the second
    # batch's comment (30 s) and refresh (2 s).
    assert element_text(page, "queue-depth") == "В очереди Команд 4 Оценка 1 мин 4 с"
    rows = cells(page, "batches")
    assert rows[0] == ["№", "Название", "Автор", "Создан", "Выполнено", "Команды", "Одобрение"]
    assert rows[1][:4] == ["2", "второй", "planner", "22.10.2026 09:00:01 UTC"]
    assert rows[1][4:] == ["0/2 в очереди", "в очереди: 2", ""]
    assert rows[2][:2] == ["1", "первый"]
    assert rows[2][4:] == ["1/3 выполняется", "в очереди: 1 выполняется: 1 выполнена: 1", ""]


async def test_live_fragment_polls_every_two_seconds(browser: Open, api: Api) -> None:
    """htmx gets only the live part (no page around it), which asks again every 2 s and on «live»."""
    await create_ok(api, [cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23")])
    person = await browser("interface")
    response = await person.get("/", htmx=True)
    assert response.status_code == 200
    assert response.text.lstrip().startswith('<div id="queue-live" data-live hx-get="/" hx-trigger="every 2s, live"')
    assert "<html" not in response.text and "Выйти" not in response.text
    assert cells(response.text, "batches")[1][5] == "в очереди: 2"
    assert "vary" in response.headers and "HX-Request" in response.headers["vary"]


async def test_batches_are_paged(browser: Open, api: Api, clock: Clock) -> None:
    """20 batches a page, newest first; page 2 holds the oldest and polls its own page."""
    for n in range(21):
        clock.advance(seconds=1)
        await create_ok(api, [cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23")], title=f"пакет {n}")
    person = await browser("interface")
    first = (await person.get("/")).text
    assert len(cells(first, "batches")) == 21
    assert cells(first, "batches")[1][1] == "пакет 20"
    assert "страница 1 из 2" in first
    second = (await person.get("/?page=2")).text
    assert [row[1] for row in cells(second, "batches")[1:]] == ["пакет 0"]
    assert 'hx-get="/?page=2"' in second
    assert (await person.get("/?page=0")).status_code == 400
    assert has_element(second, "agent-card")


async def test_the_agent_card_says_what_stalls_the_agent(browser: Open, api: Api) -> None:
    """The agent's ``last_error`` (DESIGN.md 5.4) is shown on its card, so the planners see why the queue waits."""
    line = "cannot connect to jira at https://jira.bank (ConnectError: All connection attempts failed): check --jira"
    body = {"agent_id": "agent-1", "version": "1.2", "last_error": line}
    assert (await api.post("/agent/status", body, role="agent")).status_code == 204
    page = (await (await browser("interface")).get("/")).text
    assert element_text(page, "agent-card") == (
        "Агент Состояние в сети Последний раз 22.10.2026 09:00:00 UTC Версия 1.2 Пользователь Jira — "
        f"Агент agent-1 {line}"
    )
