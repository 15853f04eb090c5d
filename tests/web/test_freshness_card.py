"""«Очередь» shows how fresh the mirror is (DESIGN.md 6.2): the card «Зеркало» beside the agent's, its staleness
said as the time since everything was read, with what that means in place (issue 32: not an alarm beside an event
of a second ago)."""

from __future__ import annotations

import pytest

from tests.hub.support import claim_ok, run_refresh

from .conftest import Api, Clock, Open
from .support import element_text

pytestmark = pytest.mark.anyio


async def test_no_refresh_yet(browser: Open) -> None:
    """Before any refresh every time is «—», and nothing was read yet."""
    page = (await (await browser("interface")).get("/")).text
    assert element_text(page, "mirror-freshness").startswith(
        "Зеркало Полное чтение — Чтение изменений — Событие Jira — Всё прочитано ещё ни разу "
    )


async def test_after_a_full_refresh_and_an_event(browser: Open, api: Api, clock: Clock) -> None:
    """The full refresh's start, the last webhook event, and the staleness since that refresh started."""
    assert (await api.post("/projects", {"name": "AWPCA"}, role="admin")).status_code == 201
    await run_refresh(api, await claim_ok(api), [], {"history": {"entries": 0}})
    clock.advance(seconds=75)
    event = {"event": "issuelink_created", "key": None, "at": "2026-10-22T09:01:15Z"}
    assert (await api.post("/agent/events", {"events": [event]}, role="agent")).status_code == 200
    page = (await (await browser("interface")).get("/")).text
    assert element_text(page, "mirror-freshness") == (
        "Зеркало Полное чтение 22.10.2026 09:00:00 UTC Чтение изменений — "
        "Событие Jira 22.10.2026 09:01:15 UTC Всё прочитано 1 мин 15 с назад "
        "Всё, что изменилось в Jira до этого, уже в зеркале. События Jira приносят правки задач сразу, но Jira может "
        "их потерять — за них зеркало не ручается."
    )
