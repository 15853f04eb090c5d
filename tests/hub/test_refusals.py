"""One error → status table for every door: a refusal is looked up along its class hierarchy, so a subclass of a
mapped error gets its parent's status on the API, on the page and in the page's actions (MCP: tests/mcp)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from litestar import Request, Router, get
from litestar.params import FromPath

from adapters.files import FileTooLargeError
from hub_app.app import create_app
from hub_app.runtime.hub import Unit, open_hub
from hub_app.runtime.refusals import INTERNAL_ERROR, STATUS_BY_ERROR, Refusal, refusal
from hub_app.web.acting import attempt
from hub_app.web.errors import page_exception_handlers
from reconcile.queue.agents import AgentConflict
from reconcile.vocabulary.errors import JiraAnswerError, ReconcileError
from reconcile.vocabulary.lifecycle import CommandStatus, Event, IllegalTransition

pytestmark = pytest.mark.anyio

#: A subclass of each mapped error, as a module of the core would define one (IllegalTransition, AgentConflict).
SUBCLASSES: dict[str, type[Exception]] = {
    parent.__name__: type(f"Particular{parent.__name__}", (parent,), {}) for parent in STATUS_BY_ERROR
}


def _raised(name: str) -> Exception:
    return SUBCLASSES[name](f"отказ: {name}")


def test_a_refusal_is_looked_up_along_the_class_hierarchy() -> None:
    """The nearest mapped class decides: the core's own subclasses and a subclass of theirs take their parents'
    status with their own message; an error the table does not name (Jira's answer, a bug) is no refusal."""
    for parent, status in STATUS_BY_ERROR.items():
        assert refusal(_raised(parent.__name__)) == Refusal(status=status, message=f"отказ: {parent.__name__}")
    illegal = IllegalTransition(CommandStatus.DONE, Event.CANCEL, 7)
    assert refusal(illegal) == Refusal(status=409, message="команда 7 уже завершена (done)")
    deeper = type("Deeper", (AgentConflict,), {})("второй агент", retry_after=5)
    assert refusal(deeper) == Refusal(status=409, message="второй агент")
    assert refusal(FileTooLargeError(10)) == Refusal(status=413, message="файл больше max_file_bytes = 10 байт")
    assert refusal(JiraAnswerError("AURORA-1", "fields", "нет поля")) is None
    assert refusal(ReconcileError("ничья")) is None
    assert refusal(ValueError("не наша")) is None


@get("/refuse/{name:str}")
async def refuse_api(name: FromPath[str]) -> None:
    raise _raised(name)


@get("/page/{name:str}")
async def refuse_page(name: FromPath[str]) -> None:
    raise _raised(name)


@get("/action/{name:str}")
async def refuse_action(request: Request[Any, Any, Any], name: FromPath[str]) -> dict[str, Any]:
    async def act(_: Unit) -> None:
        raise _raised(name)

    outcome = await attempt(request, act)
    return {"error": outcome.error}


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    """The hub's app with a route of each door that raises the subclass it is named: the API's, and a view and
    an action under the page's error handlers."""
    hub = await open_hub(data_dir=tmp_path)
    page = Router(
        path="/_refusals", route_handlers=[refuse_page, refuse_action], exception_handlers=page_exception_handlers()
    )
    app = create_app(hub, mcp=False, extra_route_handlers=[refuse_api, page])
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://hub.test") as http:
            yield http
    finally:
        await hub.close()


async def test_the_api_answers_a_subclass_with_its_parents_status(client: httpx.AsyncClient) -> None:
    """``{status_code, detail}`` with the parent's status and the error's own message, for each mapped error."""
    for parent, status in STATUS_BY_ERROR.items():
        response = await client.get(f"/refuse/{parent.__name__}")
        assert response.json() == {"status_code": status, "detail": f"отказ: {parent.__name__}"}
        assert response.status_code == status


async def test_the_page_answers_a_subclass_with_its_parents_status(client: httpx.AsyncClient) -> None:
    """The page's error page (not a 500) with the parent's status and the message, for each mapped error."""
    for parent, status in STATUS_BY_ERROR.items():
        response = await client.get(f"/_refusals/page/{parent.__name__}")
        assert response.status_code == status
        assert f"Ошибка {status}" in response.text
        assert f"отказ: {parent.__name__}" in response.text
        assert INTERNAL_ERROR not in response.text


async def test_a_page_action_shows_a_subclass_refusal_inline_and_a_missing_object_as_404(
    client: httpx.AsyncClient,
) -> None:
    """An action's refusal comes back as its message for the form; a 404's subclass is the 404 error page."""
    for parent, status in STATUS_BY_ERROR.items():
        response = await client.get(f"/_refusals/action/{parent.__name__}")
        if status == 404:
            assert response.status_code == 404
            assert f"отказ: {parent.__name__}" in response.text
        else:
            assert response.status_code == 200
            assert response.json() == {"error": f"отказ: {parent.__name__}"}
