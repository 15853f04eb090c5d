"""«Очередь» filtered (issue 27): by state, token, project and text through a GET form that works without
JavaScript, the filter kept in the URL (the pager and the live fragment keep it), the hub's automatic refreshes
hidden unless asked."""

from __future__ import annotations

import pytest

from tests.hub.support import claim_ok, cmd, create_ok, done

from .conftest import Api, Clock, Open
from .support import cells, element_text

pytestmark = pytest.mark.anyio


async def _three_batches_and_an_auto_refresh(api: Api, clock: Clock) -> None:
    assert (await api.post("/projects", {"name": "AWPCA"}, role="admin")).status_code == 201
    delivery = await claim_ok(api)  # the queue is empty: the hub's automatic refresh
    await done(api, delivery["id"], {"issues": 0, "neighbours": 0, "boards": {}})
    clock.advance(seconds=1)
    await create_ok(api, [cmd("ensure_fields", key="AURORA-1590", duedate="2026-12-15")], title="Сроки")
    clock.advance(seconds=1)
    await create_ok(api, [cmd("ensure_issue", temp_key="new:1", summary="Сверка ОСВ")], title="Новая", project="AWPCA")
    clock.advance(seconds=1)
    body = {
        "author": "lead",
        "title": "Администратор",
        "commands": [cmd("ensure_comment", key="AURORA-2", marker="m", body="b")],
    }
    assert (await api.post("/batches", body, role="admin")).status_code == 201


def _titles(page: str) -> list[str]:
    return [row[1].split(" ")[0] for row in cells(page, "batches")[1:]]


async def test_the_hubs_refreshes_are_hidden_unless_asked(browser: Open, api: Api, clock: Clock) -> None:
    """The queue shows people's batches; «показать автоматические обновления» (``auto=1``) adds the hub's."""
    await _three_batches_and_an_auto_refresh(api, clock)
    person = await browser("interface")
    page = (await person.get("/")).text
    assert _titles(page) == ["Администратор", "Новая", "Сроки"]
    assert element_text(page, "batches-hidden") == "Скрыто автоматических обновлений хаба: 1 — показать"
    assert "показать</a>" in page and '<a href="/?auto=1">' in page
    assert element_text((await person.get("/?status=done")).text, "batches-hidden").startswith(
        "Скрыто автоматических обновлений хаба: 1"
    )
    shown = (await person.get("/?auto=1")).text
    assert _titles(shown) == ["Администратор", "Новая", "Сроки", "автообновление"]
    assert element_text(shown, "batches-found") == "Найдено пакетов: 4"
    assert 'id="queue-auto" name="auto" value="1" checked' in shown
    assert "batches-hidden" not in shown


async def test_filter_by_state_token_project_and_text(browser: Open, api: Api, clock: Clock) -> None:
    """Each field alone and together; the form offers the tokens and projects the batches have and shows what
    is asked; nothing found says so."""
    await _three_batches_and_an_auto_refresh(api, clock)
    person = await browser("interface")
    assert _titles((await person.get("/?author=admin-token")).text) == ["Администратор"]
    assert _titles((await person.get("/?project=AWPCA")).text) == ["Новая"]
    assert _titles((await person.get("/?q=aurora-1590")).text) == ["Сроки"]
    assert _titles((await person.get("/?q=%D0%BE%D1%81%D0%B2")).text) == ["Новая"]  # «осв»
    assert _titles((await person.get("/?status=queued&author=interface-token")).text) == ["Новая", "Сроки"]
    assert _titles((await person.get("/?status=done&auto=1")).text) == ["автообновление"]
    empty = (await person.get("/?status=done")).text
    assert cells(empty, "batches")[1] == ["Таких пакетов нет: измените фильтр."]
    page = (await person.get("/?author=interface-token&project=AWPCA")).text
    form = element_text(page, "queue-filter")
    states = "ждёт одобрения в очереди выполняется завершён завершён с ошибками отменён отклонён"
    assert form.startswith(f"Состояние любое {states}")
    assert "Автор любой admin-token interface-token lead planner" in form
    assert "Проект любой AWPCA" in form
    assert '<option value="interface-token" selected>' in page
    assert '<option value="AWPCA" selected>' in page
    assert 'href="/" id="queue-filter-reset"' in page


async def test_the_author_filter_offers_the_batches_authors_too(browser: Open, api: Api, clock: Clock) -> None:
    """Issue 32: the page shows a batch's ``author`` (``lead`` through the admin's token): the filter offers it
    beside the token names (never the hub's own «hub»), and finds a batch by either."""
    await _three_batches_and_an_auto_refresh(api, clock)
    person = await browser("interface")
    page = (await person.get("/")).text
    offered = page[page.index('id="queue-author"') :].split("</select>")[0]
    assert offered.count("<option") == 5 and 'value="hub"' not in offered
    assert _titles((await person.get("/?author=lead")).text) == ["Администратор"]
    assert _titles((await person.get("/?author=planner")).text) == ["Новая", "Сроки"]
    assert _titles((await person.get("/?author=admin-token")).text) == ["Администратор"]


async def test_the_filter_stays_in_the_pager_and_the_live_fragment(browser: Open, api: Api, clock: Clock) -> None:
    """Page 2 of a filtered queue is that filter's; the live fragment polls the same filtered URL."""
    for n in range(22):
        clock.advance(seconds=1)
        await create_ok(api, [cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23")], title=f"пакет{n}")
    await create_ok(api, [cmd("ensure_fields", key="AURORA-9", duedate="2026-10-23")], title="другой")
    person = await browser("interface")
    first = (await person.get("/?q=aurora-1")).text
    assert element_text(first, "batches-found") == "Найдено пакетов: 22"
    assert 'href="/?page=2&amp;q=aurora-1"' in first
    assert 'hx-get="/?q=aurora-1"' in first
    second = (await person.get("/?page=2&q=aurora-1")).text
    assert _titles(second) == ["пакет1", "пакет0"]
    assert 'hx-get="/?q=aurora-1&amp;page=2"' in second
    live = await person.get("/?q=aurora-1&page=2", htmx=True)
    assert _titles(live.text) == ["пакет1", "пакет0"]


async def test_a_bad_filter_is_a_clear_refusal(browser: Open) -> None:
    """An unknown state is a 422 page naming it; nothing else is shown."""
    person = await browser("interface")
    response = await person.get("/?status=finished")
    assert response.status_code == 422
    assert "status — неизвестное состояние пакета finished" in response.text


async def test_the_forms_empty_fields_leave_the_address(browser: Open, api: Api) -> None:
    """The form as submitted (empty fields too) lands on the address that names only what is asked; htmx is told
    to push that address."""
    person = await browser("interface")
    response = await person.get("/?status=&author=&project=&q=aurora-1")
    assert (response.status_code, response.headers["location"]) == (303, "/?q=aurora-1")
    response = await person.get("/?status=&author=&project=&q=", htmx=True)
    assert (response.status_code, response.headers["hx-push-url"]) == (200, "/")
    assert "hx-push-url" not in (await person.get("/?q=x", htmx=True)).headers
