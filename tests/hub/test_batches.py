"""POST /batches: validation by the core with the seed's messages, storage, estimate and tail refresh."""

from __future__ import annotations

import hashlib

import pytest
from sqlalchemy import func, select

from adapters.storage.models import BatchRow, CommandRow, NoteRow
from hub_app.runtime.hub import Hub
from tests.support import cmd

from .conftest import Api
from .support import assert_refused, create, create_ok, issue, seed_mirror

pytestmark = pytest.mark.anyio


async def _written(hub: Hub) -> tuple[int, int, int]:
    async with hub.unit() as unit:
        counts = []
        for model in (BatchRow, CommandRow, NoteRow):
            counts.append(await unit.db.session.scalar(select(func.count()).select_from(model)) or 0)
        return counts[0], counts[1], counts[2]


async def _rejected(api: Api, hub: Hub, commands: list, detail: str, **extra: object) -> None:
    before = await _written(hub)
    assert_refused(await create(api, commands, **extra), detail, batch=True)
    assert await _written(hub) == before


async def test_batch_is_stored_with_tail_refresh_and_estimate(api: Api) -> None:
    """3 ensure_fields + 2 ensure_comment: seq in order, tail refresh by all keys, estimate = gaps + refresh."""
    commands = [
        cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23"),
        cmd("ensure_fields", key="AURORA-2", duedate="2026-10-23"),
        cmd("ensure_fields", key="AURORA-1", summary="Сверка"),
        cmd("ensure_comment", key="AURORA-3", marker="[plan]", body="текст"),
        cmd("ensure_comment", key="AURORA-2", marker="[plan]", body="текст"),
    ]
    batch = await create_ok(api, commands)
    assert batch["estimate_seconds"] == 3 * 120 + 2 * 30 + 2
    assert [c["seq"] for c in batch["commands"]] == [1, 2, 3, 4, 5, 6]
    assert [c["status"] for c in batch["commands"]] == ["queued"] * 6
    tail = batch["commands"][-1]
    assert tail["type"] == "refresh"
    assert tail["params"] == {"keys": ["AURORA-1", "AURORA-2", "AURORA-3"]}
    assert batch["author"] == "planner"
    assert batch["created_at"] == "2026-10-22T09:00:00Z"
    got = await api.get(f"/batches/{batch['id']}")
    assert got.json()["progress"] == {
        "total": 6,
        "finished": 0,
        "by_status": {"queued": 6},
        "remaining_seconds": 422,
        "elapsed_seconds": 0,
        "eta_seconds": 422,
        "approval_wait_seconds": None,
    }
    listed = (await api.get("/batches")).json()
    assert listed["total"] == 1
    assert listed["items"][0]["id"] == batch["id"]


async def test_refresh_only_batch_has_no_tail(api: Api) -> None:
    """A batch of refresh commands only gets no tail refresh."""
    batch = await create_ok(api, [cmd("refresh", keys=["AURORA-1"])])
    assert [c["type"] for c in batch["commands"]] == ["refresh"]


async def test_wrong_parameter_name(api: Api, hub: Hub) -> None:
    """ensure_status with status instead of target → the seed's message, nothing written."""
    await _rejected(
        api,
        hub,
        [cmd("ensure_status", key="AURORA-1", status="Готово")],
        "команда 1 (ensure_status): нет target; ожидаются key, target",
    )


async def test_extra_parameter_lists_optional(api: Api, hub: Hub) -> None:
    """An extra parameter on a type with optional ones names them."""
    await _rejected(
        api,
        hub,
        [cmd("ensure_link", source="AURORA-1", target="AURORA-2", link_type="связанные", force=True)],
        "команда 1 (ensure_link): лишние параметры force; ожидаются source, target, link_type; необязательные replace",
    )


async def test_parameter_of_wrong_type(api: Api, hub: Hub) -> None:
    """labels_add as a string → 422 naming labels_add."""
    await _rejected(
        api,
        hub,
        [cmd("ensure_fields", key="AURORA-1", labels_add="AWPCA")],
        "команда 1 (ensure_fields): labels_add — ожидается список строк",
    )


async def test_two_issues_with_one_summary(api: Api, hub: Hub) -> None:
    """Two ensure_issue with the same trimmed summary → 422 with the summary."""
    await _rejected(
        api,
        hub,
        [
            cmd("ensure_issue", temp_key="new:1", summary="Отчёт"),
            cmd("ensure_issue", temp_key="new:2", summary=" Отчёт "),
        ],
        "команда 2: задача с темой «Отчёт» уже создаётся в пакете (команда 1)",
    )


async def test_bug_without_issue_type_setting(api: Api, hub: Hub) -> None:
    """ensure_issue of type bug with no issue_types.bug → 422."""
    response = await api.patch("/settings", {"issue_types": {"bug": None}})  # merged: null removes the entry
    assert response.json()["issue_types"] == {"task": {"name": "Задача"}, "epic": {"name": "Эпик"}}
    await _rejected(
        api,
        hub,
        [cmd("ensure_issue", temp_key="new:1", issue_type="bug", summary="ОСВ 60 не распознана")],
        "команда 1: нет настройки issue_types.bug",
    )


async def test_attachment_without_uploaded_file(api: Api, hub: Hub) -> None:
    """ensure_attachment naming a file the hub does not have → 422 «файл <sha> не загружен: POST /files»."""
    sha = "a" * 64
    await _rejected(
        api,
        hub,
        [cmd("ensure_attachment", key="AURORA-1", file=sha, filename="a.xlsx")],
        f"команда 1: файл {sha} не загружен: POST /files",
    )


async def test_attachment_size_from_client_is_refused(api: Api, hub: Hub) -> None:
    """The client never passes size: it is an extra parameter."""
    content = b"xlsx"
    await api.client.post("/files", content=content, headers=api.auth("interface"))
    sha = hashlib.sha256(content).hexdigest()
    await _rejected(
        api,
        hub,
        [cmd("ensure_attachment", key="AURORA-1", file=sha, filename="a.xlsx", size=4)],
        "команда 1 (ensure_attachment): лишние параметры size; ожидаются key, file, filename",
    )


async def test_temp_key_outside_its_batch(api: Api, hub: Hub) -> None:
    """A temp key with no ensure_issue in the batch → 422."""
    await _rejected(
        api,
        hub,
        [cmd("ensure_comment", key="new:7", marker="m", body="b")],
        "команда 1: временный ключ new:7 — в пакете нет ensure_issue с этим temp_key",
    )


async def test_board_id_from_client_is_refused(api: Api, hub: Hub) -> None:
    """board_id is the hub's to add: from the client it is 422."""
    await _rejected(
        api,
        hub,
        [cmd("ensure_sprint", key="AURORA-1", sprint="Спринт 2", board_id=4216)],
        "команда 1 (ensure_sprint): лишние параметры board_id; ожидаются key, sprint",
    )


async def test_bad_top_level_fields(api: Api, hub: Hub) -> None:
    """Unknown top-level fields and wrong types are 422 with a readable detail."""
    before = await _written(hub)
    response = await api.post("/batches", {"author": "a", "title": "t", "commands": [], "colour": 1})
    assert response.status_code == 422
    assert response.json()["detail"] == (
        "лишние поля colour; ожидаются author, title, commands; необязательные project, notes"
    )
    response = await api.post("/batches", {"author": 5, "title": "t", "commands": []})
    assert response.json()["detail"] == "author — ожидается непустая строка"
    response = await api.post("/batches", [1, 2])
    assert response.status_code == 422
    assert await _written(hub) == before


async def test_project_label_appended(api: Api) -> None:
    """A project batch appends the project label to ensure_issue labels."""
    await api.post("/projects", {"name": "STOCKS_DRRK"}, role="admin")
    batch = await create_ok(
        api,
        [cmd("ensure_issue", temp_key="new:1", summary="Сверка остатков", labels=["kind-dev"])],
        project="STOCKS_DRRK",
    )
    assert batch["commands"][0]["params"]["labels"] == ["kind-dev", "STOCKS_DRRK"]
    assert batch["project"] == "STOCKS_DRRK"


async def test_label_of_another_project(api: Api, hub: Hub) -> None:
    """A label of another project (any case) in a project batch → 422."""
    await api.post("/projects", {"name": "AWPCA"}, role="admin")
    await api.post("/projects", {"name": "STOCKS_DRRK"}, role="admin")
    await _rejected(
        api,
        hub,
        [cmd("ensure_issue", temp_key="new:1", summary="С", labels=["awpca"])],
        "метка другого проекта: awpca",
        project="STOCKS_DRRK",
    )


async def test_issue_of_another_project(api: Api, hub: Hub) -> None:
    """ensure_fields on a mirror issue without the project label → «<key> не в проекте P»."""
    await api.post("/projects", {"name": "AWPCA"}, role="admin")
    await api.post("/projects", {"name": "STOCKS_DRRK"}, role="admin")
    await seed_mirror(api, [issue("AURORA-1538", labels=["AWPCA"])])
    await _rejected(
        api,
        hub,
        [cmd("ensure_fields", key="AURORA-1538", duedate="2026-10-23")],
        "AURORA-1538 не в проекте STOCKS_DRRK",
        project="STOCKS_DRRK",
    )


async def test_link_to_a_neighbour(api: Api) -> None:
    """A link from a project issue to another project's issue is allowed."""
    await api.post("/projects", {"name": "AWPCA"}, role="admin")
    await api.post("/projects", {"name": "STOCKS_DRRK"}, role="admin")
    await seed_mirror(api, [issue("AURORA-1", labels=["STOCKS_DRRK"]), issue("AURORA-1538", labels=["AWPCA"])])
    await create_ok(
        api,
        [cmd("ensure_link", source="AURORA-1", target="AURORA-1538", link_type="связанные")],
        project="STOCKS_DRRK",
    )


async def test_unknown_project(api: Api, hub: Hub) -> None:
    """A batch for a project that does not exist → 422."""
    await _rejected(api, hub, [cmd("refresh", keys=["AURORA-1"])], "нет проекта NOPE", project="NOPE")


async def test_sprint_board_from_project(api: Api) -> None:
    """ensure_sprint gets board_id of the issue's project at enqueue."""
    await api.post("/projects", {"name": "AWPCA", "board_id": 4216, "board_type": "scrum"}, role="admin")
    await seed_mirror(api, [issue("AURORA-1538", labels=["AWPCA"])])
    batch = await create_ok(api, [cmd("ensure_sprint", key="AURORA-1538", sprint="Спринт 2")])
    assert batch["commands"][0]["params"] == {"key": "AURORA-1538", "sprint": "Спринт 2", "board_id": 4216}


async def test_sprint_on_kanban(api: Api, hub: Hub) -> None:
    """ensure_sprint on a kanban project → 422 «у проекта P канбан-доска, спринтов нет»."""
    await api.post("/projects", {"name": "STOCKS_DRRK", "board_id": 5120, "board_type": "kanban"}, role="admin")
    await seed_mirror(api, [issue("AURORA-1", labels=["STOCKS_DRRK"])])
    await _rejected(
        api,
        hub,
        [cmd("ensure_sprint", key="AURORA-1", sprint="Спринт 2")],
        "у проекта STOCKS_DRRK канбан-доска, спринтов нет",
    )


async def test_sprint_with_unknown_board_type(api: Api, hub: Hub) -> None:
    """A board whose type is not known yet → 422 asking to wait for a refresh."""
    await api.post("/projects", {"name": "STOCKS_DRRK", "board_id": 5120}, role="admin")
    await seed_mirror(api, [issue("AURORA-1", labels=["STOCKS_DRRK"])])
    await _rejected(
        api,
        hub,
        [cmd("ensure_sprint", key="AURORA-1", sprint="Спринт 2")],
        "тип доски проекта STOCKS_DRRK ещё не известен — дождитесь обновления из Jira",
    )


async def test_notes_of_a_batch_are_stored(api: Api) -> None:
    """Notes given with a batch are kept under their keys, temp keys included."""
    batch = await create_ok(
        api,
        [cmd("ensure_issue", temp_key="new:5", summary="Отчёт")],
        notes=[{"key": "new:5", "text": "зачем"}, {"key": "AURORA-9", "text": "контекст"}],
    )
    got = (await api.get(f"/batches/{batch['id']}")).json()
    assert [(n["key"], n["text"]) for n in got["notes"]] == [("new:5", "зачем"), ("AURORA-9", "контекст")]


async def test_dry_run_writes_nothing(api: Api, hub: Hub) -> None:
    """?dry_run=true validates the same way and writes nothing."""
    response = await api.post(
        "/batches?dry_run=true",
        {"author": "a", "title": "t", "commands": [cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23")]},
    )
    assert response.status_code == 200
    assert response.json()["estimate_seconds"] == 122
    assert await _written(hub) == (0, 0, 0)
    bad = await api.post(
        "/batches?dry_run=true", {"author": "a", "title": "t", "commands": [cmd("ensure_status", key="AURORA-1")]}
    )
    assert bad.status_code == 422


async def test_dry_run_predicts_writes_from_the_mirror(api: Api, hub: Hub) -> None:
    """?dry_run=true runs each command against the mirror: no write where the mirror already agrees."""
    await seed_mirror(api, [issue("AURORA-1", duedate="2026-10-23"), issue("AURORA-2", duedate="2026-10-01")])
    before = await _written(hub)
    body = {
        "author": "a",
        "title": "t",
        "commands": [
            cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23"),
            cmd("ensure_fields", key="AURORA-2", duedate="2026-10-23"),
        ],
    }
    response = await api.post("/batches?dry_run=true", body)
    assert response.status_code == 200, response.text
    predictions = [c["prediction"] for c in response.json()["commands"]]
    assert predictions[0]["writes"] == []
    assert [(w["method"], w["path"]) for w in predictions[1]["writes"]] == [("PUT", "/rest/api/2/issue/AURORA-2")]
    assert predictions[2]["type"] == "refresh"
    assert await _written(hub) == before
