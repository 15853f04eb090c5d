"""POST /batches refused by its validation: ``detail`` the seed's first message (as before), ``errors`` every error
found with its command's number and parameter, one error as well as several. Nothing is written."""

from __future__ import annotations

import pytest

from .conftest import Api
from .support import assert_refused, cmd, create

pytestmark = pytest.mark.anyio


async def test_every_error_comes_beside_the_first_detail(api: Api) -> None:
    """Three broken commands among good ones: ``errors`` names the three, the first is ``detail``."""
    commands = [
        cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23"),
        cmd("ensure_status", key="AURORA-1", status="Готово"),
        cmd("ensure_fields", key="AURORA-2", duedate="23.10"),
        cmd("ensure_comment", key="AURORA-3", marker="[plan]", body="текст"),
        cmd("ensure_link", source="AURORA-1", target="AURORA-1", link_type="связанные"),
    ]
    for path in ("/batches", "/batches?dry_run=true"):
        response = await api.post(path, {"author": "a", "title": "t", "commands": commands})
        assert response.status_code == 422
        answer = response.json()
        assert answer["detail"] == "команда 2 (ensure_status): нет target; ожидаются key, target"
        assert answer["errors"] == [
            {"command": 2, "param": "target", "message": answer["detail"]},
            {
                "command": 3,
                "param": "duedate",
                "message": "команда 3 (ensure_fields): duedate — ожидается дата ГГГГ-ММ-ДД",
            },
            {"command": 5, "param": "target", "message": "команда 5 (ensure_link): source и target — одна задача"},
        ]
    assert (await api.get("/batches")).json()["total"] == 0


async def test_one_error_comes_as_errors_too(api: Api) -> None:
    """A batch with one mistake: ``detail`` the seed's message, as before, and ``errors`` that one error."""
    response = await create(api, [cmd("ensure_status", key="AURORA-1", status="Готово")])
    detail = "команда 1 (ensure_status): нет target; ожидаются key, target"
    assert response.json() == {
        "status_code": 422,
        "detail": detail,
        "errors": [{"command": 1, "param": "target", "message": detail}],
    }
    assert (await api.get("/batches")).json()["total"] == 0


async def test_a_refusal_outside_a_batchs_validation_has_no_errors(api: Api) -> None:
    """A note refused on its own is not a batch: ``{status_code, detail}`` alone."""
    response = await api.post("/notes", {"key": "HR-1", "text": "зарплаты"})
    assert_refused(response, "HR-1 не в проекте Jira AURORA", batch=False)


async def test_the_batchs_own_fields_come_without_a_command(api: Api) -> None:
    """No title and a broken command: the title's error first (``command`` null, no ``param``), then the command's."""
    response = await api.post("/batches", {"author": "a", "commands": [{"type": "nope", "params": {}}]})
    answer = response.json()
    assert answer["detail"].startswith("нет title; ")
    assert [(e["command"], "param" in e) for e in answer["errors"]] == [(None, False), (1, False)]
    assert answer["errors"][1]["message"].startswith("команда 1: неизвестный тип nope; ожидаются ensure_issue")


@pytest.mark.parametrize("kind", [{}, [], 7, None, True])
async def test_a_type_that_is_not_a_string_is_refused_not_a_500(api: Api, kind: object) -> None:
    """A command whose ``type`` is an object, a list, a number or null (the fuzzer's find): 422 with the seed's
    message for an unknown type, through the dry run too; nothing written."""
    body = {"author": "a", "title": "t", "commands": [{"type": kind, "params": {}}]}
    for path in ("/batches", "/batches?dry_run=true"):
        response = await api.post(path, body)
        assert response.status_code == 422, response.text
        assert response.json()["errors"][0]["message"] == response.json()["detail"]
    assert (await api.get("/batches")).json()["total"] == 0
