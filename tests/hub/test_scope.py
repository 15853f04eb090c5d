"""The hub's own scope over HTTP (DESIGN.md 5.5), on SQLite and PostgreSQL: a key of another Jira project is
refused with nothing written, a client's JQL is stored and delivered inside ``jira_project``, the base JQL of a
full refresh and the journal parameters are as before."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select

from adapters.storage.models import SyncRunRow
from hub_app.runtime.hub import Hub
from tests.support import BASE_AWPCA, cmd

from .conftest import Api
from .support import assert_refused, claim_ok, create, run_refresh

pytestmark = pytest.mark.anyio


async def _written(api: Api) -> tuple[int, int]:
    """How many batches and notes the hub holds."""
    batches = (await api.get("/batches")).json()["total"]
    notes = (await api.get("/notes")).json()["total"]
    return batches, notes


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/batches", {"author": "a", "title": "t", "commands": [cmd("ensure_fields", key="HR-1", summary="x")]}),
        (
            "/batches",
            {
                "author": "a",
                "title": "t",
                "commands": [cmd("ensure_comment", key="AURORA-1", marker="m", body="b")],
                "notes": [{"key": "HR-1", "text": "зарплаты"}],
            },
        ),
        ("/batches?dry_run=true", {"author": "a", "title": "t", "commands": [cmd("refresh", keys=["HR-1"])]}),
        ("/refresh", {"keys": ["AURORA-1", "HR-1"]}),
        ("/notes", {"key": "HR-1", "text": "зарплаты"}),
    ],
)
async def test_a_key_of_another_project_is_refused_and_nothing_written(api: Api, path: str, body: Any) -> None:
    """Batches, their notes, dry runs, refreshes by keys and notes: HR-1 → 422 «HR-1 не в проекте Jira AURORA»
    (a batch's validation with its ``errors``, a note alone without)."""
    response = await api.post(path, body)
    detail = "HR-1 не в проекте Jira AURORA"
    if "notes" in body:
        detail = f"заметка 1: {detail}"
    assert_refused(response, detail, batch=path != "/notes")
    assert await _written(api) == (0, 0)


async def test_a_client_jql_is_stored_and_delivered_inside_the_project(api: Api, hub: Hub) -> None:
    """POST /refresh {jql}: params.jql = project = AURORA AND (<jql>), delivered so and named so by its sync run;
    not a full refresh (history only with a mark, none here)."""
    await api.post("/projects", {"name": "AWPCA"}, role="admin")
    response = await api.post("/refresh", {"jql": "key = HR-1 OR labels = AWPCA"})
    assert response.status_code == 201, response.text
    wrapped = "project = AURORA AND (key = HR-1 OR labels = AWPCA)"
    assert response.json()["commands"][0]["params"] == {"jql": wrapped}
    delivery = await claim_ok(api)
    assert delivery["params"] == {"jql": wrapped, "boards": []}
    async with hub.unit() as unit:
        run = (await unit.db.session.scalars(select(SyncRunRow))).one()
    assert (run.query, run.full) == (wrapped, False)


async def test_a_clients_escapes_are_stored_as_the_parsed_tree(api: Api) -> None:
    """An escaped quote in a word (issue 31) is stored as a quoted value inside the project, never as the text
    sent; single quotes and ``||`` become the canonical spelling."""
    response = await api.post("/refresh", {"jql": "summary ~ x\\\" || key in (HR-1,'HR-2')"})
    assert response.status_code == 201, response.text
    assert response.json()["commands"][0]["params"] == {
        "jql": 'project = AURORA AND (summary ~ "x\\"" OR key in (HR-1, "HR-2"))'
    }


async def test_a_refresh_command_in_a_batch_is_wrapped_and_its_retry_is_not_wrapped_again(api: Api) -> None:
    """A refresh {jql} inside POST /batches is stored wrapped; retried, it is validated as new and stays the same."""
    created = await create(api, [cmd("refresh", jql="status = Готово")])
    assert created.status_code == 201, created.text
    [refresh] = created.json()["commands"]
    assert refresh["params"] == {"jql": "project = AURORA AND (status = Готово)"}
    assert (await api.post(f"/commands/{refresh['id']}/cancel", {})).status_code == 200
    retried = await api.post(f"/commands/{refresh['id']}/retry", {})
    assert retried.status_code == 201, retried.text
    assert retried.json()["commands"][0]["params"] == refresh["params"]


async def test_a_full_refresh_keeps_the_base_jql_and_its_journal(api: Api) -> None:
    """POST /refresh {} and {jql: <base JQL>} store the base JQL as it is: a full run, the journal's start JQL
    at delivery, and the second request is answered by the first (200)."""
    await api.post("/projects", {"name": "AWPCA"}, role="admin")
    first = await api.post("/refresh", {})
    again = await api.post("/refresh", {"jql": BASE_AWPCA})
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json() == first.json()
    assert first.json()["commands"][0]["params"] == {"jql": BASE_AWPCA}
    delivery = await claim_ok(api)
    start = f"({BASE_AWPCA}) AND sprint in openSprints() AND statusCategory != Done"
    assert delivery["params"] == {"jql": BASE_AWPCA, "boards": [], "history": {"jql": start}}
    await run_refresh(api, delivery, [], {"history": {"entries": 0}})
    client = await api.post("/refresh", {"jql": "key = AURORA-1"})
    assert client.status_code == 201
    delivered = await claim_ok(api)
    assert delivered["params"]["jql"] == "project = AURORA AND (key = AURORA-1)"
    assert delivered["params"]["history"] == {"since": "2026-10-22T08:45:00Z"}


@pytest.mark.parametrize(
    ("jql", "why"),
    [
        ("key = AURORA-1) OR (project = HR", "непарная закрывающая скобка (позиция 15)"),
        ('summary ~ x\\" ) OR project = HR OR ( summary ~ "a\\"b"', "непарная закрывающая скобка (позиция 15)"),
        ("project = HR ORDER BY key", "ORDER BY не допускается (позиция 14)"),
        ('summary ~ "x', "незакрытые кавычки (позиция 11)"),
    ],
)
async def test_a_jql_that_does_not_parse_is_refused_at_enqueue(api: Api, jql: str, why: str) -> None:
    """422 «команда 1 (refresh): JQL не принят: <why> (позиция N)», from POST /refresh and from a batch; nothing
    written."""
    for response in (
        await api.post("/refresh", {"jql": jql}),
        await create(api, [cmd("ensure_comment", key="AURORA-1", marker="m", body="b"), cmd("refresh", jql=jql)]),
    ):
        number = 1 if response.request.url.path == "/refresh" else 2
        assert_refused(response, f"команда {number} (refresh): JQL не принят: {why}", batch=True)
    assert await _written(api) == (0, 0)


async def test_jira_project_is_what_the_scope_follows(api: Api) -> None:
    """After PATCH jira_project = OPS, OPS keys are the hub's and AURORA's are not; a JQL fragment is no project."""
    assert (await api.patch("/settings", {"jira_project": "OPS"})).status_code == 200
    response = await create(api, [cmd("ensure_status", key="AURORA-1", target="Готово")])
    assert_refused(response, "AURORA-1 не в проекте Jira OPS", batch=True)
    assert (await create(api, [cmd("ensure_status", key="OPS-1", target="Готово")])).status_code == 201
    widened = await api.patch("/settings", {"jira_project": "OPS OR project = HR"})
    assert widened.json()["detail"] == (
        "настройки: jira_project — ключ проекта Jira: латинские заглавные буквы, цифры и _, первой — буква (AURORA)"
    )
