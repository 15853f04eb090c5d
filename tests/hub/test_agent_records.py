"""What the hub takes of the agent's records (DESIGN.md 5.7, issue 31 findings 7 and 8; issue 32 item 11): pages
and events outside the hub's Jira project are refused and write nothing; an event from more than 300 s in the
future is refused; an event applies only when strictly newer, a page's equal ``updated`` applies, and a full
refresh writes what Jira says whatever the row's ``updated``."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Api
from .support import claim_ok, done, issue, seed_mirror

pytestmark = pytest.mark.anyio

PAGE = {"page": 1, "kind": "issues", "history": []}


def event(key: str, updated: str, **fields: Any) -> dict[str, Any]:
    return {"event": "jira:issue_updated", "key": key, "at": updated, "issue": issue(key, updated=updated, **fields)}


async def events(api: Api, *sent: dict[str, Any]) -> Any:
    return await api.post("/agent/events", {"events": list(sent)}, role="agent")


async def mirrored(api: Api, key: str) -> dict[str, Any] | None:
    response = await api.get(f"/issues/{key}")
    return response.json() if response.status_code == 200 else None  # type: ignore[no-any-return]


async def test_an_event_outside_the_hubs_project_is_refused(api: Api) -> None:
    """An agent token sending HR-1 (finding 7): 422 naming the event, nothing stored — not even the good one
    beside it — and the events counted refused."""
    good = event("AURORA-7", "2026-10-22T09:01:00Z")
    response = await events(api, good, event("HR-1", "2026-10-22T09:01:00Z"))
    assert (response.status_code, response.json()["detail"]) == (422, "events[1]: HR-1 не в проекте Jira AURORA")
    assert (await mirrored(api, "HR-1"), await mirrored(api, "AURORA-7")) == (None, None)
    deleted = await events(api, {"event": "jira:issue_deleted", "key": "HR-2", "at": "2026-10-22T09:01:00Z"})
    assert deleted.json()["detail"] == "events[0]: HR-2 не в проекте Jira AURORA"
    assert 'sdlc_hub_webhook_events_total{outcome="refused"} 3.0' in (await api.get("/metrics")).text


async def test_a_page_outside_the_hubs_project_is_refused(api: Api) -> None:
    """A refresh page naming HR-1, in its issues or its journal: 422, and the page's other records not written."""
    assert (await api.post("/refresh", {"keys": ["AURORA-7"]})).status_code == 201
    refresh = await claim_ok(api)
    page = {**PAGE, "issues": [issue("AURORA-7"), issue("HR-1")]}
    response = await api.pages(refresh["id"], page)
    assert (response.status_code, response.json()["detail"]) == (422, "issues[1]: HR-1 не в проекте Jira AURORA")
    entry = {"key": "HR-1", "id": "5", "created": "2026-10-22T08:00:00Z", "author": "x", "items": []}
    journal = await api.pages(refresh["id"], {**PAGE, "kind": "history", "issues": [], "history": [entry]})
    assert journal.json()["detail"] == "history[0]: HR-1 не в проекте Jira AURORA"
    assert (await mirrored(api, "HR-1"), await mirrored(api, "AURORA-7")) == (None, None)


async def test_an_event_from_the_future_is_refused(api: Api) -> None:
    """The hub's clock is 09:00: an ``updated`` 300 s ahead is taken (clocks differ), 301 s ahead is refused
    (finding 8: it would hold the row against every later event)."""
    far = await events(api, event("AURORA-7", "2026-10-22T09:05:01Z", summary="из будущего"))
    assert (far.status_code, far.json()["detail"]) == (
        422,
        "events[0]: updated 2026-10-22T09:05:01Z позже часов хаба (2026-10-22T09:00:00Z) больше чем на 300 с",
    )
    assert await mirrored(api, "AURORA-7") is None
    near = await events(api, event("AURORA-7", "2026-10-22T09:05:00Z", summary="почти сейчас"))
    assert near.status_code == 200, near.text


async def test_an_event_needs_a_newer_updated_a_page_does_not(api: Api) -> None:
    """Two states within one second, told apart by the millisecond: the late event of the earlier one stays out;
    an event with the row's own ``updated`` is not written; a page with it is (a read shows Jira's last)."""
    await seed_mirror(api, [issue("AURORA-7", status="Разработка", updated="2026-10-22T08:59:59.870Z")])
    late = await events(api, event("AURORA-7", "2026-10-22T08:59:59.340Z", status="Ожидание разработки"))
    assert late.json()["stale"] == 1
    same = await events(api, event("AURORA-7", "2026-10-22T08:59:59.870Z", status="Готово"))
    assert same.json() == {"applied": 0, "duplicate": 1, "stale": 0, "refresh_command_id": None}
    assert (await mirrored(api, "AURORA-7") or {})["status"] == "Разработка"
    await seed_mirror(api, [issue("AURORA-7", status="Готово", updated="2026-10-22T08:59:59.870Z")])
    row = await mirrored(api, "AURORA-7") or {}
    assert (row["status"], row["updated"]) == ("Готово", "2026-10-22T08:59:59.870Z")


async def test_a_full_refresh_writes_what_jira_says(api: Api) -> None:
    """A row an event made newer than Jira (a clock ahead, within the limit) is corrected by the next full
    refresh's page, though that page's ``updated`` is older; a keys refresh's older page leaves it."""
    assert (await api.post("/projects", {"name": "AWPCA"}, role="admin")).status_code == 201
    full = await claim_ok(api)
    assert full["params"]["jql"] == 'project = AURORA AND labels in ("AWPCA")'
    ahead = event("AURORA-7", "2026-10-22T09:04:00Z", labels=["AWPCA"], summary="часы впереди")
    assert (await events(api, ahead)).status_code == 200
    jira = issue("AURORA-7", labels=["AWPCA"], summary="как в Jira", updated="2026-10-22T08:30:00Z")
    assert (await api.pages(full["id"], {**PAGE, "issues": [jira]})).status_code == 200
    await done(api, full["id"], {"issues": 1, "neighbours": 0, "boards": {}, "history": {"entries": 0}})
    assert (await mirrored(api, "AURORA-7") or {})["summary"] == "как в Jira"
    assert (await events(api, ahead)).json()["applied"] == 1
    await seed_mirror(api, [{**jira, "summary": "старое чтение"}])
    assert (await mirrored(api, "AURORA-7") or {})["summary"] == "часы впереди"
