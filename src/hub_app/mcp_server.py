"""The hub's MCP tools (DESIGN.md section 7): the planning tools for AI assistants, served at ``/mcp`` by
:mod:`hub_app.mcp_endpoint`.

The low-level :class:`mcp.server.Server` of the official ``mcp`` SDK (2.x). Every tool calls the same operation
(:mod:`hub_app.batches`, :mod:`hub_app.mirror`) as the HTTP API, in one :meth:`Hub.unit` (a failed call rolls
back: nothing written);
a refusal (:mod:`hub_app.refusals`) comes back as a tool error (``isError: true``) with the seed's Russian message
as the text.

``batch_create``'s description and input schema are :func:`reconcile.commands.batch_create_description` and
:func:`reconcile.commands.batch_create_schema`, read at every ``tools/list``: the command catalogue is the
single source, nothing is restated here. ``batch_plan`` takes the same input and answers the plan a person reads
(:mod:`hub_app.plan`), writing nothing. When a batch an assistant creates waits for a person (``approval.mcp``, a
token added with ``--needs-approval``, a retry of a batch that waited), the answer says so and gives the batch's
page, ``<hub>/batches/<id>``, where ``<hub>`` is the hub's public URL (:mod:`hub_app.public_url`), never the
request's ``Host``. An assistant cannot approve: approval is a person's, through the HTTP API or the page.

The caller (the token the app's guard authenticated, the hub, its public URL) comes in the request's scope
under :data:`CALLER_SCOPE_KEY`, put there by the endpoint; a call without it does not run.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import attrs
from mcp.server import Server, ServerRequestContext
from mcp.types import (
    CallToolRequestParams,
    CallToolResult,
    ListToolsResult,
    PaginatedRequestParams,
    TextContent,
    Tool,
    ToolAnnotations,
)

from hub_app import batches, drift, mirror, plan
from hub_app.bodies import CancelIn, NoteIn, RefreshIn, json_schema, meta, parse
from hub_app.public_url import PublicUrl
from hub_app.refusals import INTERNAL_ERROR, refusal
from hub_app.roles import INTERFACE, Caller
from hub_app.runtime import Hub, Unit
from hub_app.views import BatchCreated, to_json
from reconcile.approval import ApprovalState, Door
from reconcile.commands import batch_create_description, batch_create_schema
from reconcile.text import TooDeep, check_request_json

__all__ = [
    "CALLER_SCOPE_KEY",
    "MCP_PATH",
    "MCP_ROLES",
    "McpCaller",
    "McpTool",
    "build_server",
    "tools",
]

log = logging.getLogger(__name__)

MCP_PATH = "/mcp"
#: Roles whose tokens may use the MCP tools (DESIGN.md: «behind an interface token»; admin may do all).
MCP_ROLES = INTERFACE
#: The scope key the endpoint hands the caller to the tool handlers under.
CALLER_SCOPE_KEY = "sdlc_hub.mcp_caller"
SERVER_NAME = "sdlc-hub"
SERVER_INSTRUCTIONS = (
    "Хаб планирования Jira банка. Изменения Jira — пакеты команд желаемого состояния (batch_create); "
    "они выполняются асинхронно агентом внутри банка, ход и результаты — batch_status. Зеркало Jira — "
    "issues_list (разрез проекта) и issue_get."
)


@attrs.frozen(kw_only=True)
class McpCaller:
    """Who calls a tool: the hub to work on, the authenticated token, and the hub's public URL (for the links an
    answer gives)."""

    hub: Hub
    token: Caller
    public_url: PublicUrl = attrs.field(factory=lambda: PublicUrl.of(None))


ToolCall = Callable[[Unit, McpCaller, dict[str, Any]], Awaitable[Any]]


@attrs.frozen(kw_only=True)
class McpTool:
    """One tool: its name, how an assistant reads it, its input schema and the operation it makes."""

    name: str
    description: Callable[[], str]
    input_schema: Callable[[], dict[str, Any]]
    call: ToolCall
    annotations: ToolAnnotations | None = None

    def listing(self) -> Tool:
        return Tool(
            name=self.name,
            description=self.description(),
            input_schema=self.input_schema(),
            annotations=self.annotations,
        )


# Hints for an assistant: reading tools change nothing; cancelling cannot be undone.
_READS = ToolAnnotations(read_only_hint=True, open_world_hint=False)
_WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=True)
_CANCELS = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True)


# --- the tools' arguments: parsed by the same rules as the API's bodies, their schemas read from them ----------


@attrs.frozen(kw_only=True)
class BatchRef:
    batch_id: int = attrs.field(metadata=meta("int", minimum=1))


@attrs.frozen(kw_only=True)
class BatchCancel:
    batch_id: int = attrs.field(metadata=meta("int", minimum=1))
    force: bool = attrs.field(default=False, metadata=meta("bool"))


@attrs.frozen(kw_only=True)
class CommandRef:
    command_id: int = attrs.field(metadata=meta("int", minimum=1))


@attrs.frozen(kw_only=True)
class SliceArgs:
    project: str = attrs.field(metadata=meta("nonempty", "проект хаба (метка Jira)"))
    limit: int | None = attrs.field(default=None, metadata=meta("int", minimum=0))
    offset: int | None = attrs.field(default=None, metadata=meta("int", minimum=0))


@attrs.frozen(kw_only=True)
class DriftArgs:
    project: str | None = attrs.field(default=None, metadata=meta("nonempty", "проект хаба; без него — всё зеркало"))
    limit: int | None = attrs.field(default=None, metadata=meta("int", minimum=0))
    offset: int | None = attrs.field(default=None, metadata=meta("int", minimum=0))


@attrs.frozen(kw_only=True)
class IssueRef:
    key: str = attrs.field(metadata=meta("nonempty", "ключ задачи Jira (AURORA-1538)"))


WAITS_FOR_APPROVAL = (
    "Пакет ждёт одобрения человеком: ни одна команда не выполняется, пока его не одобрят на странице {url} "
    "(одобрить может только другой человек, не создатель). Покажите пользователю план и ссылку; статус — "
    "batch_status (approval.state)."
)


def _told(created: BatchCreated, caller: McpCaller) -> dict[str, Any]:
    """The answer of a new batch; one that waits for a person says so, with its page on the public URL."""
    answer: dict[str, Any] = to_json(created)
    if created.approval is not None and created.approval.state == ApprovalState.PENDING:
        url = caller.public_url.link(f"/batches/{created.id}")
        answer.update(approval_url=url, message=WAITS_FOR_APPROVAL.format(url=url))
    return answer


async def _batch_create(unit: Unit, caller: McpCaller, args: dict[str, Any]) -> Any:
    return _told(await batches.create_batch(unit, args, requester=caller.token.through(Door.MCP)), caller)


async def _batch_plan(unit: Unit, _: McpCaller, args: dict[str, Any]) -> Any:
    return await plan.body_plan(unit, args)


async def _batch_status(unit: Unit, _: McpCaller, args: dict[str, Any]) -> Any:
    return await batches.get_batch(unit, parse(BatchRef, args).batch_id)


async def _batch_cancel(unit: Unit, _: McpCaller, args: dict[str, Any]) -> Any:
    ref = parse(BatchCancel, args)
    return await batches.cancel_batch(unit, ref.batch_id, CancelIn(force=ref.force))


async def _command_retry(unit: Unit, caller: McpCaller, args: dict[str, Any]) -> Any:
    command_id = parse(CommandRef, args).command_id
    return _told(await batches.retry_command(unit, command_id, requester=caller.token.through(Door.MCP)), caller)


async def _issues_list(unit: Unit, _: McpCaller, args: dict[str, Any]) -> Any:
    ref = parse(SliceArgs, args)
    return await mirror.list_issues(unit, project_name=ref.project, limit=ref.limit, offset=ref.offset)


async def _drift_list(unit: Unit, _: McpCaller, args: dict[str, Any]) -> Any:
    ref = parse(DriftArgs, args)
    return await drift.list_drift(unit, project_name=ref.project, limit=ref.limit, offset=ref.offset)


async def _issue_get(unit: Unit, _: McpCaller, args: dict[str, Any]) -> Any:
    key = parse(IssueRef, args).key
    issue = to_json(await mirror.get_issue(unit, key))
    issue["journal"] = to_json(await mirror.issue_history(unit, key))
    return issue


async def _note_add(unit: Unit, caller: McpCaller, args: dict[str, Any]) -> Any:
    # The note is signed with the token's name, as through every door: an ``author`` argument is refused (the
    # schema has none) rather than believed.
    return await mirror.add_note(unit, parse(NoteIn, args), author=caller.token.name)


async def _refresh(unit: Unit, caller: McpCaller, args: dict[str, Any]) -> Any:
    return await batches.create_refresh(unit, parse(RefreshIn, args), requester=caller.token.through(Door.MCP))


def _text(value: str) -> Callable[[], str]:
    return lambda: value


def _schema(cls: type[Any], **extra: Any) -> Callable[[], dict[str, Any]]:
    return lambda: {**json_schema(cls), **extra}


def tools() -> tuple[McpTool, ...]:
    """The hub's MCP tools, in the order ``tools/list`` shows them."""
    return (
        McpTool(
            name="batch_create",
            description=batch_create_description,
            input_schema=batch_create_schema,
            call=_batch_create,
            annotations=_WRITES,
        ),
        McpTool(
            name="batch_plan",
            description=_text(
                "План пакета без записи: те же аргументы, что у batch_create, та же проверка, ничего не ставится в "
                "очередь. По каждой команде — строки: «+» создать, «~» поле «было → станет», «-» удалить связь, "
                "«=» нет изменений, «!» ошибка или пропуск; unknown отмечает то, чего план ещё не знает (ключи "
                "создаваемых задач, id спринтов, комментарии и переходы, которых нет в зеркале). Покажите план "
                "человеку до batch_create."
            ),
            input_schema=batch_create_schema,
            call=_batch_plan,
            annotations=_READS,
        ),
        McpTool(
            name="batch_status",
            description=_text(
                "Пакет с командами: статус каждой (queued, claimed, done, failed, skipped, cancelled, "
                "confirmed_by_state), результаты, ошибки, число выдач, прогресс и заметки; approval — одобрение "
                "человеком (pending — ждёт, команды не выполняются; approved; rejected — команды отменены) или "
                "null, если не требуется. Результаты команд приходят асинхронно — спрашивайте снова, пока в "
                "progress не все команды завершены."
            ),
            input_schema=_schema(BatchRef),
            call=_batch_status,
            annotations=_READS,
        ),
        McpTool(
            name="batch_cancel",
            description=_text(
                "Отменяет ещё не выданные агенту (queued) команды пакета; с force: true — и выданную (claimed), "
                "хотя агент, возможно, уже пишет её в Jira. Ответ — пакет после отмены."
            ),
            input_schema=_schema(BatchCancel),
            call=_batch_cancel,
            annotations=_CANCELS,
        ),
        McpTool(
            name="command_retry",
            description=_text(
                "Повтор команды в статусе failed, skipped или cancelled: новый пакет из одной команды с теми же "
                "параметрами (временные ключи заменены созданными) и хвостовым refresh, проверенный как новый. "
                "Если пакет команды ждал одобрения человеком (или его требует токен), новый пакет тоже ждёт: "
                "ответ даёт approval_url и message, как у batch_create."
            ),
            input_schema=_schema(CommandRef),
            call=_command_retry,
            annotations=_WRITES,
        ),
        McpTool(
            name="issues_list",
            description=_text(
                "Разрез проекта в зеркале Jira: задачи с меткой проекта (точное совпадение), не пропавшие из "
                "Jira, со связями; постранично (limit до 1000, offset), ответ {items, total}."
            ),
            input_schema=_schema(SliceArgs),
            call=_issues_list,
            annotations=_READS,
        ),
        McpTool(
            name="issue_get",
            description=_text(
                "Одна задача из зеркала Jira: поля, связи (source → target), заметки и журнал изменений "
                "(journal: {items, total})."
            ),
            input_schema=_schema(IssueRef),
            call=_issue_get,
            annotations=_READS,
        ),
        McpTool(
            name="drift_list",
            description=_text(
                "Расхождения: желаемые состояния выполненных команд, которых Jira больше не показывает (кто-то "
                "поправил руками). По каждой задаче и аспекту (поле, метка, статус, спринт, связь, существование "
                "созданной задачи) учитывается последняя команда, задавшая его. Элемент: command_id, batch_id, key, "
                "type, aspect, wanted (что задано), now (что в зеркале), changed_by и changed_at (кто и когда "
                "изменил последним, по журналу Jira; null — журнал этого не знает). last_full_refresh_at — когда "
                "началось последнее полное обновление зеркала: расхождения не свежее его. Вернуть — новый пакет "
                "POST /drift/reapply {command_ids} или batch_create с теми же параметрами."
            ),
            input_schema=_schema(DriftArgs),
            call=_drift_list,
            annotations=_READS,
        ),
        McpTool(
            name="note_add",
            description=_text(
                "Заметка хаба к задаче Jira (в Jira не пишется); автор заметки — имя токена. Заметки к задачам, "
                "создаваемым пакетом (new:<n>), передавайте в notes у batch_create."
            ),
            input_schema=_schema(NoteIn),
            call=_note_add,
            annotations=_WRITES,
        ),
        McpTool(
            name="refresh",
            description=_text(
                "Обновить зеркало из Jira: keys — эти задачи, jql — по запросу, без аргументов — полное "
                "обновление по проектам хаба. Ставится пакетом из одной команды refresh; выполняется асинхронно."
            ),
            input_schema=_schema(RefreshIn, **{"not": {"required": ["keys", "jql"]}}),
            call=_refresh,
            annotations=_WRITES,
        ),
    )


# --- the MCP server ----------------------------------------------------------------------------------------


def _answer(view: Any) -> CallToolResult:
    value = to_json(view)
    text = json.dumps(value, ensure_ascii=False)
    structured = value if isinstance(value, dict) else {"result": value}
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured)


def _refusal(message: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)


def _caller(ctx: ServerRequestContext[Any, Any]) -> McpCaller:
    request = ctx.request
    caller = request.scope.get(CALLER_SCOPE_KEY) if request is not None else None
    if not isinstance(caller, McpCaller):
        # The endpoint puts the caller into every request it passes on; a call without one did not come
        # through it, and must not run.
        raise RuntimeError("MCP tool call without an authenticated caller")
    return caller


def build_server(tool_set: tuple[McpTool, ...] | None = None) -> Server[Any]:
    """The low-level MCP server: ``tools/list`` and ``tools/call`` over ``tool_set`` (default :func:`tools`)."""
    table = {tool.name: tool for tool in (tool_set if tool_set is not None else tools())}

    async def list_tools(_: ServerRequestContext[Any, Any], __: PaginatedRequestParams | None) -> ListToolsResult:
        return ListToolsResult(tools=[tool.listing() for tool in table.values()])

    async def call_tool(ctx: ServerRequestContext[Any, Any], params: CallToolRequestParams) -> CallToolResult:
        tool = table.get(params.name)
        if tool is None:
            return _refusal(f"инструмента {params.name} нет; есть {', '.join(table)}")
        caller = _caller(ctx)
        arguments = dict(params.arguments or {})
        try:
            check_request_json(arguments)
            async with caller.hub.unit() as unit:
                value = await tool.call(unit, caller, arguments)
        except TooDeep as exc:
            return _refusal(str(exc))
        except Exception as exc:
            refused = refusal(exc)
            if refused is not None:
                return _refusal(refused.message)
            # As the HTTP API's 500: logged here, and the assistant is told no more than that it failed.
            log.exception("MCP tool %s failed", tool.name)
            return _refusal(INTERNAL_ERROR)
        return _answer(value)

    def input_schema(name: str) -> dict[str, Any] | None:
        tool = table.get(name)
        return tool.input_schema() if tool is not None else None

    return Server(
        SERVER_NAME,
        version="0.1.0",
        instructions=SERVER_INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        get_tool_input_schema=input_schema,
    )
