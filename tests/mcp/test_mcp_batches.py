"""batch_create over MCP: the catalogue's schema and description, the seed's scenarios, refusals, the queue."""

from __future__ import annotations

import json
from typing import Any

import attrs
import jsonschema
import pytest

from hub_app.bodies.admin import ProjectIn
from hub_app.bodies.parsing import parse
from hub_app.mcp.tools import KEY_HINT, with_key
from hub_app.operations import admin
from reconcile.vocabulary.catalogue import CATALOGUE, Editor, Format, Param
from reconcile.vocabulary.commands import batch_create_description, batch_create_schema
from tests.support import cmd

from .mcp_support import Served, batch, claim, load_mirror, tool_error, tool_json, upload

pytestmark = pytest.mark.anyio

TOOLS = [
    "batch_create",
    "batch_plan",
    "batch_status",
    "batch_cancel",
    "batch_undo",
    "command_retry",
    "issues_list",
    "issue_get",
    "drift_list",
    "note_add",
    "refresh",
]
SHA = "0" * 64


async def listed_tools(served: Served) -> dict[str, Any]:
    async with served.mcp() as client:
        listing = await client.list_tools()
    return {tool.name: tool for tool in listing.tools}


# Every valid command of the seed's scenarios (X, Y of the seed are real-looking keys here).
SEED_VALID = {
    "повтор уже выполненной команды": batch(cmd("ensure_fields", key="AURORA-1533", duedate="2026-10-23")),
    "описание отличается переводами строк": batch(cmd("ensure_fields", key="AURORA-1540", description="а\nб")),
    "очистка поля null": batch(cmd("ensure_fields", key="AURORA-1540", assignee=None, duedate=None)),
    "замена связи": batch(
        cmd("ensure_link", source="AURORA-1537", target="AURORA-1538", link_type="связанные", replace=True)
    ),
    "связь-конфликт без replace": batch(
        cmd("ensure_link", source="AURORA-1537", target="AURORA-1538", link_type="связанные", replace=False)
    ),
    "переход по пути": batch(cmd("ensure_status", key="AURORA-1540", target=["Разработка", "Готово"])),
    "переход в статус": batch(cmd("ensure_status", key="AURORA-1540", target="Готово")),
    "создание ошибки": batch(
        cmd("ensure_issue", temp_key="new:1", issue_type="bug", summary="ОСВ 60 не распознана", labels=["AWPCA"])
    ),
    "вложение": batch(cmd("ensure_attachment", key="AURORA-1540", file=SHA, filename="ОСВ 60.xlsx")),
    "спринт задачи проекта": batch(cmd("ensure_sprint", key="AURORA-1538", sprint="Спринт 2")),
    "спринт на канбане": batch(cmd("ensure_sprint", key="AURORA-1", sprint="Спринт 2")),
    "создать и привязать": batch(
        cmd("ensure_issue", temp_key="new:60", summary="Сверка"),
        cmd("ensure_link", source="new:60", target="AURORA-1537", link_type="блокирует начало"),
    ),
    "создание отменено": batch(
        cmd("ensure_issue", temp_key="new:901", summary="Шахматка"),
        cmd("ensure_comment", key="new:901", marker="[план]", body="текст"),
    ),
    "оценка длительности": batch(
        *[cmd("ensure_fields", key=f"AURORA-{n}", priority="Major") for n in (1, 2, 3)],
        *[cmd("ensure_comment", key=f"AURORA-{n}", marker="[m]", body="b") for n in (1, 2)],
    ),
    "ошибка с вложением одним пакетом": batch(
        cmd("ensure_issue", temp_key="new:1", issue_type="bug", summary="ОСВ 60 не распознана"),
        cmd("ensure_sprint", key="new:1", sprint="Спринт 2"),
        cmd("ensure_attachment", key="new:1", file=SHA, filename="ОСВ 60.xlsx"),
        project="AWPCA",
    ),
    "метка проекта дописана": batch(
        cmd("ensure_issue", temp_key="new:1", summary="Сверка остатков", labels=["kind-dev"]), project="STOCKS_DRRK"
    ),
    "связь с соседом": batch(
        cmd("ensure_link", source="AURORA-1", target="AURORA-1538", link_type="связанные"), project="STOCKS_DRRK"
    ),
    "обновление по ключам": batch(cmd("refresh", keys=["AURORA-1538", "new:1"])),
    "обновление по jql": batch(cmd("refresh", jql="project = AURORA")),
    "с заметками": batch(
        cmd("ensure_issue", temp_key="new:1", summary="Отчёт"),
        notes=[{"key": "new:1", "text": "почему"}, {"key": "AURORA-1538", "text": "рядом"}],
        project=None,
    ),
}

# The seed's invalid commands whose fault is their shape: the schema already refuses them.
SEED_SHAPE_INVALID = {
    "неверное имя параметра": batch(cmd("ensure_status", key="AURORA-1540", status="Готово")),
    "лишний параметр": batch(
        cmd("ensure_link", source="AURORA-1", target="AURORA-2", link_type="связанные", force=True)
    ),
    "параметр не того типа": batch(cmd("ensure_fields", key="AURORA-1533", labels_add="AWPCA")),
    "board_id от клиента": batch(cmd("ensure_sprint", key="AURORA-1538", sprint="Спринт 2", board_id=4216)),
    "size от клиента": batch(cmd("ensure_attachment", key="AURORA-1", file=SHA, filename="a.xlsx", size=1)),
}


async def test_tools_are_listed(served: Served) -> None:
    """tools/list names the nine tools; batch_create's description and schema are the catalogue's, exactly, with
    the idempotency key added, and batch_plan takes the same input."""
    tools = await listed_tools(served)
    assert list(tools) == TOOLS
    assert tools["batch_create"].description == batch_create_description() + KEY_HINT
    assert tools["batch_create"].input_schema == with_key(batch_create_schema())
    assert tools["batch_plan"].input_schema == with_key(batch_create_schema())
    for tool in tools.values():
        assert tool.input_schema["type"] == "object"
        jsonschema.Draft202012Validator.check_schema(tool.input_schema)


async def test_description_tells_the_assistant_how_batches_work(served: Served) -> None:
    """The listed description says: desired states, new:<n> links commands, estimate_seconds, asynchronous."""
    description = (await listed_tools(served))["batch_create"].description
    for phrase in ("ЖЕЛАЕМОЕ СОСТОЯНИЕ", "new:<n>", "estimate_seconds", "асинхронно", "batch_status"):
        assert phrase in description


@pytest.mark.parametrize("body", SEED_VALID.values(), ids=SEED_VALID.keys())
def test_catalogue_schema_accepts_the_seeds_valid_commands(body: dict[str, Any]) -> None:
    """The batch_create schema accepts every valid command of the seed's scenarios."""
    jsonschema.Draft202012Validator(batch_create_schema()).validate(body)


@pytest.mark.parametrize("body", SEED_SHAPE_INVALID.values(), ids=SEED_SHAPE_INVALID.keys())
def test_catalogue_schema_refuses_the_seeds_misshapen_commands(body: dict[str, Any]) -> None:
    """The schema refuses what the seed refuses for its shape (unknown or missing parameter, wrong type)."""
    assert not jsonschema.Draft202012Validator(batch_create_schema()).is_valid(body)


async def test_listed_schema_accepts_the_seeds_valid_commands(served: Served) -> None:
    """The schema an assistant gets from tools/list accepts every valid command of the seed's scenarios."""
    validator = jsonschema.Draft202012Validator((await listed_tools(served))["batch_create"].input_schema)
    for name, body in SEED_VALID.items():
        assert validator.is_valid(body), name


async def _projects(served: Served, *projects: dict[str, Any]) -> None:
    async with served.hub.unit() as unit:
        for project in projects:
            await admin.create_project(unit, parse(ProjectIn, project))


async def test_seed_batch_with_bug_and_attachment_is_created(served: Served) -> None:
    """«Ошибка с вложением одним пакетом»: created over MCP, board_id added, author and token_name recorded."""
    await _projects(served, {"name": "AWPCA", "board_id": 4216, "board_type": "scrum"})
    sha = await upload(served, b"xlsx bytes", "ОСВ 60.xlsx")
    body = batch(
        cmd("ensure_issue", temp_key="new:1", issue_type="bug", summary="ОСВ 60 не распознана"),
        cmd("ensure_sprint", key="new:1", sprint="Спринт 2"),
        cmd("ensure_attachment", key="new:1", file=sha, filename="ОСВ 60.xlsx"),
        project="AWPCA",
        notes=[{"key": "new:1", "text": "из сверки"}],
    )
    async with served.mcp() as client:
        created = tool_json(await client.call_tool("batch_create", body))
        status = tool_json(await client.call_tool("batch_status", {"batch_id": created["id"]}))
    assert [c["type"] for c in created["commands"]] == [*(c["type"] for c in body["commands"]), "refresh"]
    assert created["commands"][0]["params"]["labels"] == ["AWPCA"]
    assert created["commands"][1]["params"] == {"key": "new:1", "sprint": "Спринт 2", "board_id": 4216}
    assert created["estimate_seconds"] == 120 + 30 + 30 + 2
    assert (status["author"], status["token_name"], status["project"]) == ("claude", "planner", "AWPCA")
    assert [(n["key"], n["text"], n["author"]) for n in status["notes"]] == [("new:1", "из сверки", "planner")]


async def test_sprint_of_a_project_issue_gets_the_board(served: Served) -> None:
    """«Спринт задачи проекта»: AURORA-1538 labelled AWPCA in the mirror → board_id 4216 in the params."""
    await _projects(served, {"name": "AWPCA", "board_id": 4216, "board_type": "scrum"})
    async with served.mcp() as client:
        await load_mirror(served, client, [{"key": "AURORA-1538", "summary": "Сверка", "labels": ["AWPCA"]}])
        created = tool_json(
            await client.call_tool("batch_create", batch(cmd("ensure_sprint", key="AURORA-1538", sprint="Спринт 2")))
        )
    assert created["commands"][0]["params"] == {"key": "AURORA-1538", "sprint": "Спринт 2", "board_id": 4216}


async def _no_bug_type(served: Served) -> None:
    async with served.hub.unit() as unit:
        await admin.patch_settings(unit, {"issue_types": {"bug": None}})  # merged: null removes the entry


async def _kanban(served: Served) -> None:
    await _projects(served, {"name": "STOCKS_DRRK", "board_id": 5120, "board_type": "kanban"})


async def _two_projects(served: Served) -> None:
    await _projects(served, {"name": "STOCKS_DRRK"}, {"name": "AWPCA"})


# (setup, body, the exact message). Each body also carries a note, so "nothing written" covers notes too.
SEED_REFUSED: dict[str, tuple[Any, dict[str, Any], str]] = {
    "неверное имя параметра": (
        None,
        batch(cmd("ensure_status", key="X", status="Готово")),
        "команда 1 (ensure_status): нет target; ожидаются key, target",
    ),
    "лишний параметр у типа с необязательными": (
        None,
        batch(cmd("ensure_link", source="X", target="Y", link_type="связанные", force=True)),
        "команда 1 (ensure_link): лишние параметры force; ожидаются source, target, link_type; необязательные replace",
    ),
    "параметр не того типа": (
        None,
        batch(cmd("ensure_fields", key="AURORA-1533", labels_add="AWPCA")),
        "команда 1 (ensure_fields): labels_add — ожидается список строк",
    ),
    "две задачи с одной темой": (
        None,
        batch(
            cmd("ensure_issue", temp_key="new:1", summary="Отчёт"),
            cmd("ensure_issue", temp_key="new:2", summary=" Отчёт "),
        ),
        "команда 2: задача с темой «Отчёт» уже создаётся в пакете (команда 1)",
    ),
    "ошибка без настройки типа": (
        _no_bug_type,
        batch(cmd("ensure_issue", temp_key="new:1", issue_type="bug", summary="ОСВ 60 не распознана")),
        "команда 1: нет настройки issue_types.bug",
    ),
    "вложение без загруженного файла": (
        None,
        batch(cmd("ensure_attachment", key="AURORA-1540", file=SHA, filename="a.xlsx")),
        f"команда 1: файл {SHA} не загружен: POST /files",
    ),
    "спринт на канбане": (
        _kanban,
        batch(
            cmd("ensure_issue", temp_key="new:1", summary="Сверка остатков"),
            cmd("ensure_sprint", key="new:1", sprint="Спринт 2"),
            project="STOCKS_DRRK",
        ),
        "у проекта STOCKS_DRRK канбан-доска, спринтов нет",
    ),
    "чужая метка проекта": (
        _two_projects,
        batch(
            cmd("ensure_issue", temp_key="new:1", summary="Сверка остатков", labels=["awpca"]), project="STOCKS_DRRK"
        ),
        "метка другого проекта: awpca",
    ),
    "задача другого проекта": (
        _two_projects,
        batch(cmd("ensure_fields", key="AURORA-1538", duedate="2026-10-23"), project="STOCKS_DRRK"),
        "AURORA-1538 не в проекте STOCKS_DRRK",
    ),
    "временный ключ вне пакета": (
        None,
        batch(cmd("ensure_comment", key="new:5", marker="[m]", body="b")),
        "команда 1: временный ключ new:5 — в пакете нет ensure_issue с этим temp_key",
    ),
    "board_id от клиента": (
        None,
        batch(cmd("ensure_sprint", key="AURORA-1538", sprint="Спринт 2", board_id=4216)),
        "команда 1 (ensure_sprint): лишние параметры board_id; ожидаются key, sprint",
    ),
    "size от клиента": (
        None,
        batch(cmd("ensure_attachment", key="AURORA-1", file=SHA, filename="a.xlsx", size=1)),
        "команда 1 (ensure_attachment): лишние параметры size; ожидаются key, file, filename",
    ),
}


@pytest.mark.parametrize(("setup", "body", "message"), SEED_REFUSED.values(), ids=SEED_REFUSED.keys())
async def test_seed_violations_are_tool_errors_and_write_nothing(
    served: Served, setup: Any, body: dict[str, Any], message: str
) -> None:
    """A batch the seed refuses is a tool error with the seed's message; no batch, command or note is stored."""
    if setup is not None:
        await setup(served)
    body = {**body, "notes": [*body.get("notes", []), {"key": "AURORA-1538", "text": "заметка"}]}
    before = await served.count()
    async with served.mcp() as client:
        result = await client.call_tool("batch_create", body)
    assert tool_error(result, batch=True) == message
    assert await served.count() == before == (0, 0)


async def test_batch_created_over_mcp_is_claimed_and_its_status_read_back(served: Served) -> None:
    """A batch from batch_create is what the agent's claim gets; batch_status then shows it claimed."""
    body = batch(
        cmd("ensure_issue", temp_key="new:60", summary="Сверка"),
        cmd("ensure_link", source="new:60", target="AURORA-1537", link_type="блокирует начало"),
    )
    async with served.mcp() as client:
        created = tool_json(await client.call_tool("batch_create", body))
        delivery = await claim(served)
        status = tool_json(await client.call_tool("batch_status", {"batch_id": created["id"]}))
    first = created["commands"][0]
    assert (delivery["id"], delivery["type"], delivery["params"]) == (first["id"], "ensure_issue", first["params"])
    assert delivery["pause_seconds"] == 120
    assert [(c["id"], c["status"], c["deliveries"]) for c in status["commands"]] == [
        (first["id"], "claimed", 1),
        (created["commands"][1]["id"], "queued", 0),
        (created["commands"][2]["id"], "queued", 0),
    ]
    progress = status["progress"]
    assert (progress["total"], progress["finished"], progress["by_status"]) == (3, 0, {"claimed": 1, "queued": 2})
    assert 30 + 2 <= progress["remaining_seconds"] <= 120 + 30 + 2  # the claimed ensure_issue's gap is running


async def test_admin_token_may_create_batches(served: Served) -> None:
    """An admin token opens MCP too; its name is the batch's token_name."""
    async with served.mcp("admin") as client:
        created = tool_json(await client.call_tool("batch_create", batch(cmd("refresh", keys=["AURORA-1"]))))
        status = tool_json(await client.call_tool("batch_status", {"batch_id": created["id"]}))
    assert status["token_name"] == "boss"


async def test_catalogue_is_the_single_source(served: Served, monkeypatch: pytest.MonkeyPatch) -> None:
    """A parameter added to CATALOGUE changes validation, the listed schema and the description together."""
    body = batch(cmd("ensure_status", key="AURORA-1540", target="Готово", comment="по плану"))
    async with served.mcp() as client:
        refused = await client.call_tool("batch_create", body)
        message = "команда 1 (ensure_status): лишние параметры comment; ожидаются key, target"
        assert tool_error(refused, batch=True) == message

        spec = CATALOGUE["ensure_status"]
        comment = Param(
            name="comment", format=Format.TEXT, label="Пояснение", editor=Editor.TEXT, doc="пояснение к переходу"
        )
        monkeypatch.setitem(CATALOGUE, "ensure_status", attrs.evolve(spec, optional=(comment,)))  # type: ignore[arg-type]

        listing = {tool.name: tool for tool in (await client.list_tools()).tools}
        created = tool_json(await client.call_tool("batch_create", body))
    tool = listing["batch_create"]
    status_schema = next(
        s
        for s in tool.input_schema["properties"]["commands"]["items"]["oneOf"]
        if s["properties"]["type"]["const"] == "ensure_status"
    )
    assert status_schema["properties"]["params"]["properties"]["comment"] == {
        "anyOf": [{"type": "string"}, {"type": "null"}],
        "description": "пояснение к переходу",
    }
    assert "    - comment: строка — пояснение к переходу" in tool.description
    assert tool.description == batch_create_description() + KEY_HINT
    assert created["commands"][0]["params"] == {"key": "AURORA-1540", "target": "Готово", "comment": "по плану"}


async def test_unknown_tool_is_a_tool_error(served: Served) -> None:
    """Calling a tool the hub does not have is a tool error naming the tools there are."""
    async with served.mcp() as client:
        result = await client.call_tool("batch_delete", {"batch_id": 1})
    assert tool_error(result) == f"инструмента batch_delete нет; есть {', '.join(TOOLS)}"


async def test_a_batch_with_several_errors_names_them_all(served: Served) -> None:
    """batch_create of a batch with two broken commands: the tool's message is the first error (the API's
    ``detail``), and a second text lists every error with its command and parameter (the API's ``errors``)."""
    body = batch(
        cmd("ensure_status", key="AURORA-1", status="Готово"), cmd("ensure_fields", key="AURORA-2", duedate="23")
    )
    async with served.mcp() as client:
        result = await client.call_tool("batch_create", body)
    assert result.is_error is True
    first = "команда 1 (ensure_status): нет target; ожидаются key, target"
    assert result.content[0].text == first
    assert json.loads(result.content[1].text) == {
        "errors": [
            {"command": 1, "param": "target", "message": first},
            {
                "command": 2,
                "param": "duedate",
                "message": "команда 2 (ensure_fields): duedate — ожидается дата ГГГГ-ММ-ДД",
            },
        ]
    }
