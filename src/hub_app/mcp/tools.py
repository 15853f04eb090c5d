"""The hub's MCP tools (DESIGN.md section 7): the planning tools for AI assistants, served at ``/mcp``
(:mod:`hub_app.mcp.endpoint`) by the server of :mod:`hub_app.mcp.server`.

Every tool calls the same operation (:mod:`hub_app.operations.batches`, :mod:`hub_app.operations.mirror`) as the HTTP
API, with its arguments parsed by the same rules as the API's bodies (:mod:`hub_app.bodies`, whose classes give the
input schemas). ``batch_create``'s description and input schema are
:func:`reconcile.vocabulary.commands.batch_create_description` and
:func:`reconcile.vocabulary.commands.batch_create_schema`, read at every ``tools/list``: the command catalogue is the
single source, nothing is restated here. ``batch_plan`` takes the same input and answers the plan a person reads
(:mod:`hub_app.operations.plan`), writing nothing. When a batch an assistant creates waits for a person
(``approval.mcp``, a token added with ``--needs-approval``, a retry of a batch that waited), the answer says so and
gives the batch's page, ``<hub>/batches/<id>``, where ``<hub>`` is the hub's public URL
(:mod:`hub_app.runtime.public_url`), never the request's ``Host``. An assistant cannot approve: approval is a
person's, through the HTTP API or the page.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import attrs
from mcp.types import Tool, ToolAnnotations

from hub_app.answers.assistant import IssueWithJournal, ToldBatch
from hub_app.answers.batches import BatchCreated, BatchDetail, BatchView
from hub_app.answers.drift import DriftPage
from hub_app.answers.mirror import IssueView, NoteView
from hub_app.answers.plans import BatchPlanView
from hub_app.answers.schema import answer_schema
from hub_app.answers.undo import UndoView
from hub_app.answers.wire import Items, to_json
from hub_app.bodies.batches import BatchCancel, BatchStatusArgs, BatchUndo, CancelIn, CommandRef, RefreshIn
from hub_app.bodies.drift import DriftArgs
from hub_app.bodies.mirror import IssueRef, NoteIn, SliceArgs
from hub_app.bodies.parsing import json_schema, parse
from hub_app.operations import batches, drift, following, mirror, plan, undo
from hub_app.operations.idempotency import create_once
from hub_app.runtime.hub import Hub, Unit
from hub_app.runtime.public_url import PublicUrl
from hub_app.runtime.roles import Caller
from reconcile.outlook import ApprovalState, Door
from reconcile.queue import idempotency
from reconcile.vocabulary import REFRESH_TYPE, ValidationError, batch_create_description, batch_create_schema

__all__ = [
    "KEY_ARG",
    "KEY_HINT",
    "WAITS_FOR_APPROVAL",
    "HubCall",
    "McpCaller",
    "McpTool",
    "ToolCall",
    "tools",
    "with_key",
]


@attrs.frozen(kw_only=True)
class McpCaller:
    """Who calls a tool: the hub to work on, the authenticated token, and the hub's public URL (for the links an
    answer gives)."""

    hub: Hub
    token: Caller
    public_url: PublicUrl = attrs.field(factory=lambda: PublicUrl.of(None))


ToolCall = Callable[[Unit, McpCaller, dict[str, Any]], Awaitable[Any]]
#: A tool that opens its own transactions (a long poll must hold none while it waits).
HubCall = Callable[[McpCaller, dict[str, Any]], Awaitable[Any]]


@attrs.frozen(kw_only=True)
class McpTool:
    """One tool: its name, how an assistant reads it, its input schema and the operation it makes."""

    name: str
    description: Callable[[], str]
    input_schema: Callable[[], dict[str, Any]]
    call: ToolCall | HubCall
    #: The type of its answer (:mod:`hub_app.answers`): its ``outputSchema`` is that type's JSON Schema. Every
    #: tool of the hub has one (a test's tool may go without).
    answer: Any = None
    annotations: ToolAnnotations | None = None
    #: ``call`` is a :data:`HubCall`: it is not run inside one transaction.
    own_units: bool = False

    def output_schema(self) -> dict[str, Any] | None:
        return answer_schema(self.answer) if self.answer is not None else None

    def listing(self) -> Tool:
        return Tool(
            name=self.name,
            description=self.description(),
            input_schema=self.input_schema(),
            output_schema=self.output_schema(),
            annotations=self.annotations,
        )


# Hints for an assistant: reading tools change nothing; cancelling cannot be undone.
_READS = ToolAnnotations(read_only_hint=True, open_world_hint=False)
_WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=True)
_CANCELS = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True)


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


#: The argument of ``batch_create`` and ``refresh`` that makes a retried call answer the first call's batch.
KEY_ARG = "idempotency_key"
KEY_HINT = (
    " idempotency_key: передавайте новый ключ (например, UUID) на каждый задуманный пакет и тот же ключ при "
    "повторе вызова, ответ на который потерян: тот же ключ с теми же аргументами в течение 24 ч вернёт уже "
    "созданный пакет (replayed: true), а не создаст второй; с другими аргументами — ошибка."
)


def with_key(schema: dict[str, Any]) -> dict[str, Any]:
    """An input schema with :data:`KEY_ARG`."""
    key = {
        "type": "string",
        "minLength": 1,
        "maxLength": idempotency.KEY_MAX,
        "pattern": "^[ -~]+$",
        "description": "ключ идемпотентности: один на задуманный пакет, тот же при повторе вызова",
    }
    return {**schema, "properties": {**schema["properties"], KEY_ARG: key}}


async def _created_once(
    unit: Unit,
    caller: McpCaller,
    args: dict[str, Any],
    kind: str,
    create: Callable[[dict[str, Any]], Awaitable[tuple[BatchCreated, bool]]],
) -> dict[str, Any]:
    """A creating tool's answer: :func:`hub_app.operations.idempotency.create_once` with the call's key, if it has
    one."""
    body = dict(args)
    key = body.pop(KEY_ARG, None)
    if key is not None and not isinstance(key, str):
        raise ValidationError(idempotency.BAD_KEY)
    done = await create_once(
        unit, requester=caller.token.through(Door.MCP), key=key, kind=kind, body=body, create=lambda: create(body)
    )
    answer = _told(done.batch, caller)
    if done.replayed:
        answer["replayed"] = True
    return answer


async def _batch_create(unit: Unit, caller: McpCaller, args: dict[str, Any]) -> Any:
    async def create(body: dict[str, Any]) -> tuple[BatchCreated, bool]:
        return await batches.create_batch(unit, body, requester=caller.token.through(Door.MCP)), True

    return await _created_once(unit, caller, args, idempotency.BATCH_ASKED, create)


async def _batch_plan(unit: Unit, _: McpCaller, args: dict[str, Any]) -> Any:
    # The same arguments as batch_create's; a plan neither checks nor takes a key.
    return await plan.body_plan(unit, {name: value for name, value in args.items() if name != KEY_ARG})


async def _batch_status(caller: McpCaller, args: dict[str, Any]) -> Any:
    ref = parse(BatchStatusArgs, args)
    wait = following.check_wait(ref.wait_seconds, "wait_seconds")
    found, _ = await following.follow_batch(caller.hub, ref.batch_id, wait=wait)
    return found


async def _batch_cancel(unit: Unit, _: McpCaller, args: dict[str, Any]) -> Any:
    ref = parse(BatchCancel, args)
    return await batches.cancel_batch(unit, ref.batch_id, CancelIn(force=ref.force))


async def _batch_undo(unit: Unit, caller: McpCaller, args: dict[str, Any]) -> Any:
    ref = parse(BatchUndo, args)
    answer = to_json(
        await undo.undo_batch(unit, ref.batch_id, requester=caller.token.through(Door.MCP), dry_run=ref.dry_run)
    )
    created = answer.get("batch")
    if created is not None and (created.get("approval") or {}).get("state") == ApprovalState.PENDING.value:
        url = caller.public_url.link(f"/batches/{created['id']}")
        answer.update(approval_url=url, message=WAITS_FOR_APPROVAL.format(url=url))
    return answer


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
    async def create(body: dict[str, Any]) -> tuple[BatchCreated, bool]:
        return await batches.request_refresh(unit, parse(RefreshIn, body), requester=caller.token.through(Door.MCP))

    return await _created_once(unit, caller, args, idempotency.REFRESH_ASKED, create)


def _text(value: str) -> Callable[[], str]:
    return lambda: value


def _schema(cls: type[Any], **extra: Any) -> Callable[[], dict[str, Any]]:
    return lambda: {**json_schema(cls), **extra}


#: The hub's MCP tools, in the order ``tools/list`` shows them.
_TOOLS = (
    McpTool(
        name="batch_create",
        description=lambda: batch_create_description() + KEY_HINT,
        input_schema=lambda: with_key(batch_create_schema()),
        call=_batch_create,
        answer=ToldBatch,
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
        input_schema=lambda: with_key(batch_create_schema()),
        call=_batch_plan,
        answer=BatchPlanView,
        annotations=_READS,
    ),
    McpTool(
        name="batch_status",
        description=_text(
            "Пакет с командами: статус каждой (queued, claimed, done, failed, skipped, cancelled, "
            "confirmed_by_state), результаты, ошибки, число выдач, прогресс и заметки; approval — одобрение "
            "человеком (pending — ждёт, команды не выполняются; approved; rejected — команды отменены) или "
            "null, если не требуется; state — состояние пакета словами. В progress: remaining_seconds — сколько "
            "ещё идти в темпе агента банка (его паузы не короче паузы хаба, плюс ожидания его лимита записей), "
            "elapsed_seconds — сколько прошло с первой выдачи, eta_seconds — весь прогон, как он видится сейчас "
            "(сравните с estimate_seconds — оценкой по темпу хаба), approval_wait_seconds — сколько пакет ждал "
            "одобрения. Результаты команд приходят асинхронно: чтобы следить за пакетом, вызывайте с wait_seconds "
            "(до 55) — ответ придёт сразу, как только изменится статус какой-нибудь его команды, а не по опросу; "
            "повторяйте, пока state не станет done, done_with_errors, cancelled или rejected."
        ),
        input_schema=_schema(BatchStatusArgs),
        call=_batch_status,
        answer=BatchDetail,
        annotations=_READS,
        own_units=True,
    ),
    McpTool(
        name="batch_cancel",
        description=_text(
            "Отменяет ещё не выданные агенту (queued) команды пакета; с force: true — и выданную (claimed), "
            "хотя агент, возможно, уже пишет её в Jira. Ответ — пакет после отмены."
        ),
        input_schema=_schema(BatchCancel),
        call=_batch_cancel,
        answer=BatchView,
        annotations=_CANCELS,
    ),
    McpTool(
        name="batch_undo",
        description=_text(
            "Откат пакета: обратный пакет к тому, что записали его выполненные команды, новейшие первыми. С "
            "dry_run: true (по умолчанию) — только план, ничего не ставится: items — что будет с каждой командой "
            "(undone — вернётся, kept — поле с тех пор изменил человек: не возвращается, unknown — «что было до — "
            "не известно», left — созданная задача не удаляется, nothing — нечего возвращать), kept — изменения "
            "людей с автором и временем, plan — строки плана обратного пакета. Покажите план человеку; с dry_run: "
            "false создаётся пакет «Откат пакета N: …» (undo_of = N), который ждёт одобрения, как любой пакет "
            "этого токена, и всегда — если ждал одобрения откатываемый. Поля возвращаются, только пока в Jira "
            "то, что поставил пакет. 409 — пакет ещё выполняется или откатывать нечего."
        ),
        input_schema=_schema(BatchUndo),
        call=_batch_undo,
        answer=UndoView,
        annotations=_WRITES,
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
        answer=ToldBatch,
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
        answer=Items[IssueView],
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
        answer=IssueWithJournal,
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
        answer=DriftPage,
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
        answer=NoteView,
        annotations=_WRITES,
    ),
    McpTool(
        name=REFRESH_TYPE,  # the tool queues a batch of that one type
        description=_text(
            "Обновить зеркало из Jira: keys — эти задачи, jql — по запросу, без аргументов — полное "
            "обновление по проектам хаба. Ставится пакетом из одной команды refresh; выполняется асинхронно." + KEY_HINT
        ),
        input_schema=lambda: with_key(_schema(RefreshIn, **{"not": {"required": ["keys", "jql"]}})()),
        call=_refresh,
        answer=ToldBatch,
        annotations=_WRITES,
    ),
)


def tools() -> tuple[McpTool, ...]:
    """The hub's MCP tools, in the order ``tools/list`` shows them."""
    return _TOOLS
