"""The hub's change-only refresh over HTTP (DESIGN.md 6.2), and every journal scenario of seed 001 («Журнал
изменений в refresh») again with it in play: what is created when, what is delivered, what moves the mark."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select

from adapters.storage.models import SyncRunRow
from hub_app.runtime.hub import Hub
from tests.support import BASE_AWPCA, cmd

from .conftest import Api, Clock
from .support import claim_none, claim_ok, create, create_ok, done, issue, run_refresh, seed_mirror

pytestmark = pytest.mark.anyio

START = f"({BASE_AWPCA}) AND sprint in openSprints() AND statusCategory != Done"
JOURNAL = {"history": {"entries": 0}}


async def _project(api: Api, name: str) -> None:
    response = await api.post("/projects", {"name": name}, role="admin")
    assert response.status_code == 201, response.text


async def _runs(hub: Hub) -> list[SyncRunRow]:
    async with hub.unit() as unit:
        return list((await unit.db.session.scalars(select(SyncRunRow).order_by(SyncRunRow.id))).all())


async def _latest_batch(api: Api) -> dict[str, Any]:
    latest: dict[str, Any] = (await api.get("/batches")).json()["items"][0]
    return (await api.get(f"/batches/{latest['id']}")).json()  # type: ignore[no-any-return]


async def _marked_full_refresh(api: Api) -> None:
    """AWPCA, and the first automatic refresh at 09:00 done with its journal: the mark is 09:00."""
    await _project(api, "AWPCA")
    await run_refresh(api, await claim_ok(api), [], JOURNAL)


async def test_first_refresh_after_rollout(api: Api, clock: Clock) -> None:
    """«Первый refresh после выкатки»: no mark → the automatic refresh is full with {jql: start JQL}; one done
    without a journal sets no mark, so the next one is full again, never change-only."""
    await _project(api, "AWPCA")
    first = await claim_ok(api)
    assert first["params"] == {"jql": BASE_AWPCA, "boards": [], "history": {"jql": START}}
    await run_refresh(api, first, [])
    clock.advance(minutes=16)
    again = await claim_ok(api)
    assert again["params"] == {"jql": BASE_AWPCA, "boards": [], "history": {"jql": START}}
    assert (await _latest_batch(api))["title"] == "автообновление"


async def test_regular_refresh_is_change_only(api: Api, hub: Hub, clock: Clock) -> None:
    """«Регулярный refresh»: mark at 09:00 by the base JQL → 16 minutes later the hub's change-only refresh,
    delivered with since 08:45Z; stored as {jql, changes}; its run is not full and has the base JQL as query."""
    await _marked_full_refresh(api)
    clock.advance(minutes=15)
    await claim_none(api)
    clock.advance(minutes=1)
    delivery = await claim_ok(api)
    assert delivery["params"] == {
        "jql": BASE_AWPCA,
        "changes": True,
        "boards": [],
        "history": {"since": "2026-10-22T08:45:00Z"},
    }
    batch = await _latest_batch(api)
    assert (batch["author"], batch["title"]) == ("hub", "автообновление (изменения)")
    assert batch["commands"][0]["params"] == {"jql": BASE_AWPCA, "changes": True}
    run = (await _runs(hub))[-1]
    assert (run.full, run.query) == (False, BASE_AWPCA)


async def test_a_change_only_run_moves_the_mark(api: Api, hub: Hub, clock: Clock) -> None:
    """Done with its journal, a change-only run is the new mark: the next one reads since its start − 15 min."""
    await _marked_full_refresh(api)
    clock.advance(minutes=16)
    await run_refresh(api, await claim_ok(api), [], {"history": {"entries": 2}, "changes": True})
    assert (await _runs(hub))[-1].history_at is not None
    clock.advance(minutes=16)
    assert (await claim_ok(api))["params"]["history"] == {"since": "2026-10-22T09:01:00Z"}


async def test_journal_not_read_through_by_a_change_only_run(api: Api, hub: Hub, clock: Clock) -> None:
    """«Журнал не дочитан»: the 10:00 change-only run done with history.error sets no mark; the next full
    refresh reads since the 09:00 run."""
    await _marked_full_refresh(api)
    clock.advance(hours=1)
    ten = await claim_ok(api)
    assert ten["params"]["changes"] is True
    await run_refresh(api, ten, [], {"history": {"error": "HTTP 500"}, "changes": True})
    assert [run.history_at is not None for run in await _runs(hub)] == [True, False]
    clock.advance(minutes=1)
    await api.post("/refresh", {})
    full = await claim_ok(api)
    assert "changes" not in full["params"]
    assert full["params"]["history"] == {"since": "2026-10-22T08:45:00Z"}


async def test_new_project_makes_the_next_automatic_refresh_full(api: Api, clock: Clock) -> None:
    """«Новый проект»: the mark is by the AWPCA-only JQL; after STOCKS_DRRK is added the automatic refresh is
    full, with {since, jql: <start JQL by the new base JQL>}."""
    await _marked_full_refresh(api)
    await _project(api, "STOCKS_DRRK")
    clock.advance(minutes=16)
    delivery = await claim_ok(api)
    both = 'project = AURORA AND labels in ("AWPCA", "STOCKS_DRRK")'
    assert delivery["params"] == {
        "jql": both,
        "boards": [],
        "history": {
            "since": "2026-10-22T08:45:00Z",
            "jql": f"({both}) AND sprint in openSprints() AND statusCategory != Done",
        },
    }
    assert (await _latest_batch(api))["title"] == "автообновление"


async def test_tail_refresh_after_a_change_only_mark(api: Api, hub: Hub, clock: Clock) -> None:
    """«Хвост пакета»: with the mark set by a change-only run, a tail refresh {keys} reads since it; done with
    result.history its run's history_at stays NULL."""
    await _marked_full_refresh(api)
    clock.advance(minutes=16)
    await run_refresh(api, await claim_ok(api), [], {"history": {"entries": 0}, "changes": True})
    await create_ok(api, [cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23")])
    await done(api, (await claim_ok(api))["id"], {"changed": ["duedate"]})
    tail = await claim_ok(api)
    assert tail["params"] == {"keys": ["AURORA-1"], "boards": [], "history": {"since": "2026-10-22T09:01:00Z"}}
    await run_refresh(api, tail, [issue("AURORA-1", labels=["AWPCA"])], {"history": {"entries": 1}})
    assert (await _runs(hub))[-1].history_at is None


async def test_tail_refresh_before_the_first_mark(api: Api, clock: Clock) -> None:
    """«Хвост пакета до первой отметки»: no mark (the full refresh had no journal), so no change-only refresh
    either; a tail refresh {keys} is delivered without history."""
    await _project(api, "AWPCA")
    await run_refresh(api, await claim_ok(api), [])
    await create_ok(api, [cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23")])
    await done(api, (await claim_ok(api))["id"], {"changed": []})
    assert (await claim_ok(api))["params"] == {"keys": ["AURORA-1"], "boards": []}


async def test_a_change_only_refresh_judges_no_vanished_issues(api: Api, clock: Clock) -> None:
    """Only a full refresh vanishes: a change-only one that returns AURORA-1 alone leaves AURORA-2 in the slice."""
    await _project(api, "AWPCA")
    both = [issue("AURORA-1", labels=["AWPCA"]), issue("AURORA-2", labels=["AWPCA"])]
    await run_refresh(api, await claim_ok(api), both, JOURNAL)
    clock.advance(minutes=16)
    changes = await claim_ok(api)
    await run_refresh(api, changes, [issue("AURORA-1", labels=["AWPCA"])], {**JOURNAL, "changes": True})
    assert (await api.get("/issues/AURORA-2")).json()["vanished_at"] is None
    slice_ = (await api.get("/issues?project=AWPCA")).json()["items"]
    assert [i["key"] for i in slice_] == ["AURORA-1", "AURORA-2"]


async def test_a_full_refresh_every_full_refresh_hours(api: Api, clock: Clock) -> None:
    """Change-only refreshes in between; once no full refresh started within full_refresh_hours, a full one."""
    assert (await api.patch("/settings", {"full_refresh_hours": 1})).status_code == 200
    await _marked_full_refresh(api)
    for _ in range(3):
        clock.advance(minutes=16)
        delivery = await claim_ok(api)
        assert delivery["params"]["changes"] is True
        await run_refresh(api, delivery, [], {**JOURNAL, "changes": True})
    clock.advance(minutes=16)
    full = await claim_ok(api)
    assert "changes" not in full["params"]
    assert full["params"]["history"] == {"since": "2026-10-22T09:33:00Z"}


async def test_post_refresh_is_full_while_a_change_only_one_runs(api: Api, clock: Clock) -> None:
    """POST /refresh {} is always full: a change-only refresh in flight does not answer it; a new batch is made."""
    await _marked_full_refresh(api)
    clock.advance(minutes=16)
    changes = await claim_ok(api)
    response = await api.post("/refresh", {})
    assert response.status_code == 201
    assert response.json()["commands"][0]["params"] == {"jql": BASE_AWPCA}
    assert response.json()["commands"][0]["id"] != changes["id"]


async def test_a_client_may_not_ask_for_a_change_only_refresh(api: Api) -> None:
    """changes is the hub's own parameter: a client's batch naming it is 422 and writes nothing."""
    await _project(api, "AWPCA")
    response = await create(api, [cmd("refresh", jql=BASE_AWPCA, changes=True)])
    assert response.status_code == 422
    assert response.json()["detail"] == "команда 1 (refresh): лишние параметры changes; необязательные keys, jql"
    assert (await api.get("/batches")).json()["total"] == 0


async def test_full_refresh_hours_setting(api: Api) -> None:
    """full_refresh_hours defaults to 24 and is a positive number of hours up to ten years (else 422)."""
    assert (await api.get("/settings")).json()["full_refresh_hours"] == 24
    refused = await api.patch("/settings", {"full_refresh_hours": 0})
    assert refused.status_code == 422
    assert refused.json()["detail"] == "настройки: full_refresh_hours — положительное число не больше 87600"
    assert (await api.patch("/settings", {"full_refresh_hours": 0.5})).json()["full_refresh_hours"] == 0.5


async def test_a_page_older_than_the_mirror_row_leaves_it(api: Api) -> None:
    """The mirror's upsert rule over HTTP: a page read before a newer state was stored (a late page) writes
    nothing of that issue; a page as new or newer is written."""
    newer = issue("AURORA-1", summary="Новее", labels=["AWPCA"], updated="2026-10-22T10:00:00Z")
    await seed_mirror(api, [newer])
    await seed_mirror(
        api, [issue("AURORA-1", summary="Старее", labels=["STOCKS_DRRK"], updated="2026-10-22T09:59:59Z")]
    )
    row = (await api.get("/issues/AURORA-1")).json()
    assert (row["summary"], row["labels"], row["updated"]) == ("Новее", ["AWPCA"], "2026-10-22T10:00:00Z")
    await seed_mirror(api, [issue("AURORA-1", summary="Тот же миг", labels=["AWPCA"], updated="2026-10-22T10:00:00Z")])
    assert (await api.get("/issues/AURORA-1")).json()["summary"] == "Тот же миг"
