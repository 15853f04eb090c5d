"""Refresh: pages into the mirror, board types, the history parameter and journal mark, vanished issues,
confirmation by state, the auto refresh, and the mirror's read API."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select

from adapters.storage.models import SyncRunRow
from hub_app.runtime.hub import Hub
from tests.support import BASE_AWPCA, cmd

from .conftest import Api, Clock
from .support import claim_none, claim_ok, create_ok, done, issue, link, run_refresh, seed_mirror

pytestmark = pytest.mark.anyio

START_AWPCA = f"({BASE_AWPCA}) AND sprint in openSprints() AND statusCategory != Done"


async def _project(api: Api, name: str, **extra: Any) -> None:
    response = await api.post("/projects", {"name": name, **extra}, role="admin")
    assert response.status_code == 201, response.text


async def _runs(hub: Hub) -> list[SyncRunRow]:
    async with hub.unit() as unit:
        return list((await unit.db.session.scalars(select(SyncRunRow).order_by(SyncRunRow.id))).all())


async def test_full_refresh_without_projects_is_422(api: Api) -> None:
    """POST /refresh {} with no projects: no base JQL, nothing written."""
    response = await api.post("/refresh", {})
    assert response.status_code == 422
    assert response.json() == {"status_code": 422, "detail": "нет проектов — полное обновление невозможно"}
    assert (await api.get("/batches")).json()["total"] == 0


async def test_refresh_body_errors(api: Api) -> None:
    """keys and jql together, or a wrong type, are 422."""
    both = await api.post("/refresh", {"keys": ["AURORA-1"], "jql": "x"})
    assert both.json()["detail"] == "только одно из keys, jql"
    wrong = await api.post("/refresh", {"keys": "AURORA-1"})
    assert wrong.json()["detail"] == "keys — ожидается список строк"


async def test_full_refresh_stores_base_jql(api: Api) -> None:
    """POST /refresh {} stores params = {jql: <base JQL at creation>}."""
    await _project(api, "AWPCA")
    batch = (await api.post("/refresh", {})).json()
    assert batch["commands"][0]["params"] == {"jql": BASE_AWPCA}


async def test_first_full_refresh_reads_journal_from_start_jql(api: Api, hub: Hub) -> None:
    """No mark yet: history = {jql: <start JQL>} at delivery; params in the database stay without it."""
    await _project(api, "AWPCA")
    batch = (await api.post("/refresh", {})).json()
    delivery = await claim_ok(api)
    assert delivery["params"] == {"jql": BASE_AWPCA, "boards": [], "history": {"jql": START_AWPCA}}
    stored = (await api.get(f"/batches/{batch['id']}")).json()["commands"][0]["params"]
    assert stored == {"jql": BASE_AWPCA}
    run = (await _runs(hub))[0]
    assert run.full is True
    assert run.query == BASE_AWPCA


async def test_regular_auto_refresh_reads_journal_since_mark(api: Api, hub: Hub, clock: Clock) -> None:
    """A full run with an accepted journal at 09:00 → the next auto refresh (change-only) has since = 08:45:00Z."""
    await _project(api, "AWPCA")
    first = await claim_ok(api)
    assert first["params"]["history"] == {"jql": START_AWPCA}
    await run_refresh(api, first, [], {"history": {"entries": 3}})
    assert (await _runs(hub))[0].history_at is not None
    clock.advance(minutes=10)
    await claim_none(api)
    clock.advance(minutes=6)
    second = await claim_ok(api)
    assert second["params"]["history"] == {"since": "2026-10-22T08:45:00Z"}
    batch = (await api.get("/batches")).json()["items"][0]
    assert (batch["author"], batch["title"]) == ("hub", "автообновление (изменения)")


async def test_journal_error_keeps_older_mark(api: Api, hub: Hub, clock: Clock) -> None:
    """A run done with history.error sets no mark: since comes from the earlier accepted run."""
    await _project(api, "AWPCA")
    await run_refresh(api, await claim_ok(api), [], {"history": {"entries": 0}})
    clock.advance(hours=1)
    ten = await claim_ok(api)
    assert ten["params"]["history"] == {"since": "2026-10-22T08:45:00Z"}
    await run_refresh(api, ten, [], {"history": {"error": "HTTP 500"}})
    assert [r.history_at is not None for r in await _runs(hub)] == [True, False]
    clock.advance(hours=1)
    eleven = await claim_ok(api)
    assert eleven["params"]["history"] == {"since": "2026-10-22T08:45:00Z"}


async def test_new_project_adds_start_jql(api: Api, clock: Clock) -> None:
    """Mark by a query with AWPCA only; STOCKS_DRRK added → {since, jql: <start JQL by the new base>}."""
    await _project(api, "AWPCA")
    await run_refresh(api, await claim_ok(api), [], {"history": {"entries": 0}})
    clock.advance(minutes=1)
    await _project(api, "STOCKS_DRRK")
    await api.post("/refresh", {})
    delivery = await claim_ok(api)
    base = 'project = AURORA AND labels in ("AWPCA", "STOCKS_DRRK")'
    assert delivery["params"]["jql"] == base
    assert delivery["params"]["history"] == {
        "since": "2026-10-22T08:45:00Z",
        "jql": f"({base}) AND sprint in openSprints() AND statusCategory != Done",
    }


async def test_tail_refresh_reads_journal_since_mark_and_sets_no_mark(api: Api, hub: Hub) -> None:
    """A tail refresh {keys} gets history = {since}; done with result.history, its run's history_at stays NULL."""
    await _project(api, "AWPCA")
    await run_refresh(api, await claim_ok(api), [], {"history": {"entries": 0}})
    await create_ok(api, [cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23")])
    await done(api, (await claim_ok(api))["id"], {"changed": ["duedate"]})
    tail = await claim_ok(api)
    assert tail["params"] == {
        "keys": ["AURORA-1"],
        "boards": [],
        "history": {"since": "2026-10-22T08:45:00Z"},
    }
    await run_refresh(api, tail, [issue("AURORA-1", labels=["AWPCA"])], {"history": {"entries": 1}})
    runs = await _runs(hub)
    assert runs[-1].full is False
    assert runs[-1].query == "key in (AURORA-1)"
    assert runs[-1].history_at is None


async def test_tail_refresh_before_first_mark_has_no_history(api: Api) -> None:
    """No mark yet: a tail refresh {keys} is delivered without history."""
    await create_ok(api, [cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23")])
    await done(api, (await claim_ok(api))["id"], {"changed": []})
    tail = await claim_ok(api)
    assert tail["params"] == {"keys": ["AURORA-1"], "boards": []}


async def test_board_type_learnt_from_refresh(api: Api) -> None:
    """A board of unknown type is delivered as {id, type: null}; the reported kanban type is recorded."""
    await _project(api, "STOCKS_DRRK", board_id=5120)
    await _project(api, "AWPCA", board_id=4216, board_type="scrum")
    delivery = await claim_ok(api)
    assert delivery["params"]["boards"] == [{"id": 5120, "type": None}, {"id": 4216, "type": "scrum"}]
    await run_refresh(api, delivery, [], {"boards": {"5120": "kanban", "4216": None}})
    projects = {p["name"]: p["board_type"] for p in (await api.get("/projects")).json()["items"]}
    assert projects == {"STOCKS_DRRK": "kanban", "AWPCA": "scrum"}


async def test_pages_fill_the_mirror_and_replace_links(api: Api) -> None:
    """Pages upsert issues with normalised links; a later refresh of the issue replaces its links."""
    await _project(api, "AWPCA")
    x = issue(
        "AURORA-1538",
        labels=["AWPCA"],
        description="а\r\nб",
        sprint={"id": 7, "name": "Спринт 2", "state": "active"},
        links=[link("10007", "Связанные", "AURORA-1537", "AURORA-1538")],
    )
    await seed_mirror(api, [x])
    got = (await api.get("/issues/AURORA-1538")).json()
    assert got["description"] == "а\r\nб"
    assert got["sprint"] == {"id": 7, "name": "Спринт 2", "state": "active"}
    assert got["links"] == [{"id": "10007", "type": "Связанные", "source": "AURORA-1537", "target": "AURORA-1538"}]
    assert got["refreshed_at"] == "2026-10-22T09:00:00Z"
    assert got["vanished_at"] is None
    await seed_mirror(api, [{**x, "links": []}])
    assert (await api.get("/issues/AURORA-1538")).json()["links"] == []
    slice_ = (await api.get("/issues?project=AWPCA")).json()
    assert [i["key"] for i in slice_["items"]] == ["AURORA-1538"]
    assert (await api.get("/issues/AURORA-404")).status_code == 404


async def test_pages_with_bad_records_are_422(api: Api) -> None:
    """A page whose issue record has the wrong shape is refused and nothing is stored."""
    response = await api.post("/refresh", {"keys": ["AURORA-1"]})
    delivery = await claim_ok(api)
    assert response.status_code == 201
    bad = await api.pages(delivery["id"], {"page": 1, "issues": [{"key": "AURORA-1", "labels": "x"}]})
    assert bad.status_code == 422
    assert bad.json()["detail"] == "issues[0]: labels — ожидается список строк"
    assert (await api.get("/issues")).json()["total"] == 0
    queued = await create_ok(api, [cmd("refresh", keys=["AURORA-2"])])
    not_issued = await api.pages(queued["commands"][0]["id"], {"page": 1, "issues": []})
    assert not_issued.status_code == 409


async def test_history_pages_and_issue_history(api: Api) -> None:
    """History pages are upserted by (issue, id) and read back per issue."""
    await api.post("/refresh", {"keys": ["AURORA-1"]})
    delivery = await claim_ok(api)
    entry = {
        "key": "AURORA-1",
        "id": "501",
        "created": "2026-10-22T08:50:00Z",
        "author": "ivanov",
        "items": [
            {"field": "status", "from": "1", "from_string": "Ожидание разработки", "to": "3", "to_string": "Разработка"}
        ],
    }
    for _ in range(2):
        response = await api.pages(delivery["id"], {"page": 2, "kind": "history", "history": [entry]})
        assert response.status_code == 200
    history = (await api.get("/issues/AURORA-1/history")).json()
    assert history == {"items": [entry], "total": 1}


async def test_full_refresh_marks_vanished_issues(api: Api, clock: Clock) -> None:
    """After a full refresh, project issues it did not return are vanished and leave the slice."""
    await _project(api, "AWPCA")
    full = await claim_ok(api)
    await run_refresh(api, full, [issue("AURORA-1", labels=["AWPCA"]), issue("AURORA-2", labels=["AWPCA"])])
    clock.advance(minutes=20)
    again = await claim_ok(api)
    await run_refresh(api, again, [issue("AURORA-1", labels=["AWPCA"])])
    gone = (await api.get("/issues/AURORA-2")).json()
    assert gone["vanished_at"] == "2026-10-22T09:20:00Z"
    assert [i["key"] for i in (await api.get("/issues?project=AWPCA")).json()["items"]] == ["AURORA-1"]
    await seed_mirror(api, [issue("AURORA-2", labels=["AWPCA"])])
    assert (await api.get("/issues/AURORA-2")).json()["vanished_at"] is None


async def test_auto_refresh_waits_for_its_interval(api: Api, clock: Clock) -> None:
    """With projects and an empty queue, a claim creates the auto refresh; not again within the interval."""
    await _project(api, "AWPCA")
    auto = await claim_ok(api)
    assert auto["params"]["jql"] == BASE_AWPCA
    await run_refresh(api, auto, [])
    clock.advance(minutes=15)
    await claim_none(api)
    clock.advance(seconds=1)
    assert (await claim_ok(api))["type"] == "refresh"


async def _confirm_case(
    api: Api, commands: list[dict[str, Any]], seen: list[dict[str, Any]], **claim_extra: Any
) -> dict[str, Any]:
    """A refresh failed at the delivery limit, then a command claimed; the refresh's late report shows ``seen``.

    Returns the command as it stands after the late report.
    """
    refresh = (await api.post("/refresh", {"keys": [i["key"] for i in seen]})).json()
    refresh_id = refresh["commands"][0]["id"]
    batch = await create_ok(api, commands)
    for _ in range(3):
        assert (await claim_ok(api, **claim_extra))["id"] == refresh_id
    claimed = await claim_ok(api, **claim_extra)
    assert claimed["id"] == batch["commands"][0]["id"]
    await run_refresh(api, {"id": refresh_id, "type": "refresh"}, seen)
    assert (await api.get(f"/commands/{refresh_id}")).json()["status"] == "failed"
    command: dict[str, Any] = (await api.get(f"/commands/{claimed['id']}")).json()
    return command


async def test_lost_sprint_report_confirmed_by_state(api: Api) -> None:
    """ensure_sprint claimed, the mirror shows the issue in that sprint → confirmed_by_state."""
    await _project(api, "AWPCA", board_id=4216, board_type="scrum")
    await seed_mirror(api, [issue("AURORA-1538", labels=["AWPCA"])])
    await run_refresh(api, await claim_ok(api), [issue("AURORA-1538", labels=["AWPCA"])])
    seen = issue("AURORA-1538", labels=["AWPCA"], sprint={"id": 7, "name": "Спринт 2", "state": "active"})
    command = await _confirm_case(api, [cmd("ensure_sprint", key="AURORA-1538", sprint="Спринт 2")], [seen])
    assert command["status"] == "confirmed_by_state"
    assert command["finished_at"] == "2026-10-22T09:00:00Z"


async def test_crlf_description_confirmed_by_state(api: Api) -> None:
    """ensure_fields description "a\\nb" against "a\\r\\nb" in the mirror → confirmed_by_state."""
    command = await _confirm_case(
        api, [cmd("ensure_fields", key="AURORA-1", description="a\nb")], [issue("AURORA-1", description="a\r\nb")]
    )
    assert command["status"] == "confirmed_by_state"


async def test_null_equals_empty_in_confirmation(api: Api) -> None:
    """ensure_fields clearing a field (null) against an empty string in the mirror → confirmed_by_state."""
    command = await _confirm_case(
        api, [cmd("ensure_fields", key="AURORA-1", description=None)], [issue("AURORA-1", description="")]
    )
    assert command["status"] == "confirmed_by_state"


async def test_different_field_is_not_confirmed(api: Api) -> None:
    """A field that differs in the mirror leaves the command claimed."""
    command = await _confirm_case(
        api, [cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23")], [issue("AURORA-1", duedate="2026-10-24")]
    )
    assert command["status"] == "claimed"


async def test_symmetric_link_backwards_confirmed(api: Api) -> None:
    """ensure_link A→B of a symmetric type, only B→A in the mirror → confirmed_by_state."""
    seen = [issue("AURORA-1445", links=[link("1", "Связанные", "AURORA-1446", "AURORA-1445")])]
    command = await _confirm_case(
        api,
        [cmd("ensure_link", source="AURORA-1445", target="AURORA-1446", link_type="связанные")],
        seen,
        symmetric_link_types=["Связанные"],
    )
    assert command["status"] == "confirmed_by_state"


async def test_asymmetric_link_backwards_not_confirmed(api: Api) -> None:
    """The same backwards link of a type the agent did not call symmetric is a conflict: stays claimed."""
    seen = [issue("AURORA-1445", links=[link("1", "Связанные", "AURORA-1446", "AURORA-1445")])]
    command = await _confirm_case(
        api, [cmd("ensure_link", source="AURORA-1445", target="AURORA-1446", link_type="связанные")], seen
    )
    assert command["status"] == "claimed"


async def test_creation_confirmed_by_jira_user(api: Api) -> None:
    """ensure_issue: the mirror has our issue (same summary, reporter = jira_user, created today) → confirmed
    with its key, and the note moves to it."""
    seen = [
        issue("AURORA-1600", summary="Шахматка: комментарии", reporter="bridge-user", created="2026-10-22T08:59:00Z")
    ]
    refresh = (await api.post("/refresh", {"keys": ["AURORA-1600"]})).json()
    batch = await create_ok(
        api,
        [cmd("ensure_issue", temp_key="new:4", summary="Шахматка: комментарии")],
        notes=[{"key": "new:4", "text": "из плана"}],
    )
    for _ in range(3):
        await claim_ok(api, jira_user="bridge-user")
    claimed = await claim_ok(api, jira_user="bridge-user")
    assert claimed["id"] == batch["commands"][0]["id"]
    await run_refresh(api, {"id": refresh["commands"][0]["id"], "type": "refresh"}, seen)
    command = (await api.get(f"/commands/{claimed['id']}")).json()
    assert command["status"] == "confirmed_by_state"
    assert command["result"]["key"] == "AURORA-1600"
    assert [n["text"] for n in (await api.get("/notes?key=AURORA-1600")).json()["items"]] == ["из плана"]


async def test_creation_not_confirmed_without_jira_user(api: Api) -> None:
    """While the agent's jira_user is unknown, ensure_issue is never confirmed by state."""
    seen = [issue("AURORA-1600", summary="Отчёт", reporter="bridge-user", created="2026-10-22T08:59:00Z")]
    command = await _confirm_case(api, [cmd("ensure_issue", temp_key="new:1", summary="Отчёт")], seen)
    assert command["status"] == "claimed"


async def test_notes_api(api: Api) -> None:
    """POST /notes stores a note by the token's name; GET /notes?key= lists them; temp keys are refused."""
    created = await api.post("/notes", {"key": "AURORA-1", "text": "важно"})
    assert created.status_code == 201
    assert created.json()["author"] == "interface-token"
    listed = (await api.get("/notes?key=AURORA-1")).json()
    assert [n["text"] for n in listed["items"]] == ["важно"]
    bad = await api.post("/notes", {"key": "new:1", "text": "x"})
    assert bad.status_code == 422
    assert bad.json()["detail"] == "key — ожидается ключ задачи Jira (AURORA-1538); new:<n> — только в пакете"


async def test_no_base_jql_no_history(api: Api) -> None:
    """With a mark but no projects left (no base JQL), a refresh is delivered without history."""
    await _project(api, "AWPCA")
    await run_refresh(api, await claim_ok(api), [], {"history": {"entries": 0}})
    assert (await api.delete("/projects/AWPCA")).status_code == 204
    await api.post("/refresh", {"keys": ["AURORA-1"]})
    delivery = await claim_ok(api)
    assert delivery["params"] == {"keys": ["AURORA-1"], "boards": []}


async def test_late_full_refresh_does_not_vanish_what_a_newer_one_saw(api: Api, clock: Clock) -> None:
    """A full refresh reported late (after the delivery limit) vanishes only issues nobody saw since it began."""
    await _project(api, "AWPCA")
    await run_refresh(
        api,
        await claim_ok(api),
        [issue("AURORA-1", labels=["AWPCA"]), issue("AURORA-2", labels=["AWPCA"]), issue("AURORA-3", labels=["AWPCA"])],
    )
    clock.advance(minutes=20)
    old = await claim_ok(api)
    for _ in range(2):
        clock.advance(seconds=1)
        assert (await claim_ok(api))["id"] == old["id"]
    clock.advance(seconds=1)
    await api.post("/refresh", {})
    newer = await claim_ok(api)
    assert newer["id"] != old["id"]
    await run_refresh(api, newer, [issue("AURORA-1", labels=["AWPCA"]), issue("AURORA-2", labels=["AWPCA"])])
    assert (await api.get("/issues/AURORA-3")).json()["vanished_at"] is not None
    clock.advance(seconds=1)
    await run_refresh(api, old, [issue("AURORA-1", labels=["AWPCA"])])
    assert (await api.get(f"/commands/{old['id']}")).json()["status"] == "failed"
    assert (await api.get("/issues/AURORA-2")).json()["vanished_at"] is None


async def test_a_page_with_both_sides_of_a_link_stores_it_once(api: Api) -> None:
    """A link seen from both of its issues in one page is one mirror link; repeating the page changes nothing."""
    shared = link("10008", "Блокирует начало", "AURORA-1537", "AURORA-1538")
    pair = [
        issue("AURORA-1537", labels=["AWPCA"], links=[shared]),
        issue("AURORA-1538", labels=["AWPCA"], links=[shared]),
    ]
    await seed_mirror(api, pair)
    await seed_mirror(api, pair)
    for key in ("AURORA-1537", "AURORA-1538"):
        assert (await api.get(f"/issues/{key}")).json()["links"] == [
            {"id": "10008", "type": "Блокирует начало", "source": "AURORA-1537", "target": "AURORA-1538"}
        ]
    await seed_mirror(api, [issue("AURORA-1538", labels=["AWPCA"], links=[])])
    assert (await api.get("/issues/AURORA-1537")).json()["links"] == []
