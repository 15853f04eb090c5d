"""``POST /refresh {}`` while a full refresh is queued or running answers that one (200) and stores nothing."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Api, Clock
from .support import claim_ok, issue, run_refresh

pytestmark = pytest.mark.anyio


async def _project(api: Api, name: str) -> None:
    response = await api.post("/projects", {"name": name}, role="admin")
    assert response.status_code == 201, response.text


async def _batches(api: Api) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = (await api.get("/batches")).json()["items"]
    return items


async def test_a_queued_full_refresh_answers_a_second_request(api: Api) -> None:
    """The second ``{}`` (or the base JQL itself) gets the first batch, 200; nothing new is stored."""
    await _project(api, "AWPCA")
    first = await api.post("/refresh", {})
    assert first.status_code == 201
    again = await api.post("/refresh", {})
    same_jql = await api.post("/refresh", {"jql": first.json()["commands"][0]["params"]["jql"]})
    assert (again.status_code, same_jql.status_code) == (200, 200)
    assert again.json() == first.json() == same_jql.json()
    assert [b["id"] for b in await _batches(api)] == [first.json()["id"]]


async def test_the_hubs_running_auto_refresh_answers_a_request(api: Api) -> None:
    """After the hub's automatic full refresh was claimed, ``{}`` answers it; once done, a new one is made."""
    await _project(api, "AWPCA")
    auto = await claim_ok(api)
    answered = await api.post("/refresh", {})
    assert answered.status_code == 200
    assert answered.json()["commands"][0]["id"] == auto["id"]
    assert len(await _batches(api)) == 1
    await run_refresh(api, auto, [issue("AURORA-1", labels=["AWPCA"])])
    after = await api.post("/refresh", {})
    assert after.status_code == 201
    assert after.json()["id"] != answered.json()["id"]


async def test_other_refreshes_are_always_new(api: Api) -> None:
    """Refreshes by keys or by another JQL are never answered by another; a full refresh under an older base JQL
    (a project was added since) does not answer a request for the current one."""
    await _project(api, "AWPCA")
    full = (await api.post("/refresh", {})).json()
    for body in (
        {"keys": ["AURORA-1"]},
        {"keys": ["AURORA-1"]},
        {"jql": "project = AURORA"},
        {"jql": "project = AURORA"},
    ):
        assert (await api.post("/refresh", body)).status_code == 201
    await _project(api, "STOCKS_DRRK")
    wider = await api.post("/refresh", {})
    assert wider.status_code == 201
    assert wider.json()["id"] != full["id"]
    assert (await api.post("/refresh", {})).json()["id"] == wider.json()["id"]
    assert len(await _batches(api)) == 6


async def test_a_refresh_out_of_deliveries_does_not_answer(api: Api, clock: Clock) -> None:
    """A claimed full refresh delivered three times without a report is failed by the next claim: a new
    request makes a new one."""
    await _project(api, "AWPCA")
    first = (await api.post("/refresh", {})).json()
    for _ in range(3):
        clock.advance(seconds=1)
        assert (await claim_ok(api))["id"] == first["commands"][0]["id"]
    fresh = await api.post("/refresh", {})
    assert fresh.status_code == 201
    assert fresh.json()["id"] != first["id"]
