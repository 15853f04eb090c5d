"""What every executor shares: settings from the delivery, the write log, pauses between writes, failures.

An executor body is a generator taking a :class:`Run`. It reads with ``yield from run.call(...)``; a Jira
error it does not expect ends the command through :class:`CommandFailed`, and :func:`run_body` turns that into a
``failed`` report carrying the operations and the result fields gathered so far (DESIGN.md 5.3). ``Run.call``
is the one log of the writes made: a bug inside a body (any other exception) also ends as a ``failed`` report
with those writes, «внутренняя ошибка агента: <Type>: <message>», so the driver keeps no log of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Generator, Mapping
from typing import Any, TypeGuard

from reconcile.config.settings import Settings, settings_from_json, settings_to_json
from reconcile.executors.base import (
    Delivery,
    Dropped,
    ExecContext,
    Executor,
    JiraCall,
    JiraResponse,
    Operation,
    Pause,
    Report,
    Step,
)
from reconcile.guard.fields import fields_problem
from reconcile.guard.paths import API, PathRefused, issue_key, jira_path
from reconcile.jira.answers import jira_list, jira_object
from reconcile.vocabulary.errors import JiraAnswerError, ValidationError
from reconcile.vocabulary.text import body_text, readable

__all__ = [
    "CommandFailed",
    "Run",
    "context_settings",
    "http_error",
    "internal_error",
    "next_start",
    "run_body",
    "search_call",
]

Body = Generator[Step, Any, Report]


class CommandFailed(Exception):
    """Ends the command as ``failed`` with ``message`` as its ``error``."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def http_error(response: JiraResponse) -> str:
    """«HTTP <code>: <Jira's errorMessages and errors>» (DESIGN.md 5.2); a body that is no JSON by its words
    (:func:`reconcile.vocabulary.text.body_text`: an HTML page by its title)."""
    body = response.json
    parts: list[str] = []
    if isinstance(body, Mapping):
        messages = body.get("errorMessages")
        if isinstance(messages, list):
            parts.extend(str(message) for message in messages)
        elif messages is not None:
            parts.append(str(messages))
        errors = body.get("errors")
        if isinstance(errors, Mapping):
            parts.extend(f"{field}: {message}" for field, message in errors.items())
    elif isinstance(body, str) and body.strip():
        parts.append(body_text(body, response.status))
    text = "; ".join(parts)[:1000]
    return f"HTTP {response.status}: {text}" if text else f"HTTP {response.status}"


#: The settings keys a delivery's context carries.
_KNOWN = frozenset(settings_to_json(Settings()))


def context_settings(context: Mapping[str, Any]) -> Settings:
    """The settings of a delivery's context: only the settings keys (whatever else the hub adds to ``context``
    must not fail the command); :class:`~reconcile.vocabulary.errors.ValidationError` on a bad value."""
    return settings_from_json({k: v for k, v in context.items() if k in _KNOWN})


class Run:
    """The state of one command's execution: settings, writes made so far, partial result."""

    def __init__(self, delivery: Delivery, ctx: ExecContext, settings: Settings | None = None) -> None:
        """``settings``: those of ``delivery.context`` when the caller has read them already (a dry run reads
        them once for a whole batch); else they are read here."""
        self.delivery = delivery
        self.ctx = ctx
        self.params: Mapping[str, Any] = delivery.params
        if settings is None:
            try:
                settings = context_settings(delivery.context)
            except ValidationError as error:
                raise CommandFailed(error.message) from error
        self.settings: Settings = settings
        self.operations: list[Operation] = []
        self.result: dict[str, Any] = {}

    @property
    def writes(self) -> int:
        return len(self.operations)

    def call(self, call: JiraCall, *, allow: Container[int] = ()) -> Generator[Step, Any, JiraResponse]:
        """Make one Jira call; a non-2xx answer not in ``allow`` fails the command."""
        response: JiraResponse = yield call
        if call.is_write:
            self.operations.append(Operation(method=call.method, path=call.path, status=response.status))
        if not response.ok and response.status not in allow:
            raise CommandFailed(http_error(response))
        return response

    def pause_between_writes(self) -> Generator[Step, Any, None]:
        """The seed's «Политика темпа»: the command's gap between two writes inside one command."""
        if self.writes:
            yield Pause(seconds=self.delivery.pause_seconds)

    def str_param(self, name: str) -> str:
        value = self.params.get(name)
        if not isinstance(value, str) or not value:
            raise CommandFailed(f"нет параметра {name}")
        return value

    def key_param(self, name: str) -> str:
        """An issue key parameter that may go into a path: a Jira key (a plan's temp key too) of a project the agent
        may touch (``ExecContext.allowed_projects``), else the command fails before any call."""
        key = issue_key(self.str_param(name)).text
        allowed = self.ctx.allowed_projects
        if allowed is not None and key.rpartition("-")[0] not in allowed:
            raise CommandFailed(f"ключ {key} не в разрешённых проектах ({', '.join(allowed)})")
        return key

    def opt_str(self, name: str) -> str | None:
        """An optional text parameter (the hub's validation admits only text or nothing), ``None`` when absent."""
        value: str | None = self.params.get(name)
        return value

    def done(self, **result: Any) -> Report:
        self.result.update(result)
        return Report(status="done", result=readable(self.result), operations=tuple(self.operations))

    def failed(self, error: str) -> Report:
        # Jira's words (names, errorMessages) go into the report as text the hub can hold.
        return Report(
            status="failed", result=readable(self.result), error=readable(error), operations=tuple(self.operations)
        )


def internal_error(error: Exception) -> str:
    """The ``error`` of a command whose executor raised something it did not mean to (a bug)."""
    return f"внутренняя ошибка агента: {type(error).__name__}: {error}"


def run_body(
    body: Callable[[Run], Body], delivery: Delivery, ctx: ExecContext, settings: Settings | None = None
) -> Executor:
    """Run ``body``; :class:`CommandFailed` and any bug inside it end as a ``failed`` report, never an exception.
    ``settings``: those of the delivery's context, when already read (:class:`Run`). A field mapping that does not
    pass :func:`reconcile.guard.fields.fields_problem` fails the command before its first call."""
    try:
        run = Run(delivery, ctx, settings)
    except CommandFailed as error:
        return Report(status="failed", error=error.message)
    problem = fields_problem(delivery.type, delivery.params, run.settings, fields=ctx.jira_fields, pins=ctx.field_pins)
    if problem is not None:
        return Report(status="failed", error=problem)
    try:
        return (yield from body(run))
    except (CommandFailed, Dropped, JiraAnswerError, PathRefused) as error:
        return run.failed(error.message)
    except Exception as error:  # a bug fails its command, not the agent: re-delivery would crash the same way
        return run.failed(internal_error(error))


def next_start(body: Any, start_at: int, items_key: str, *, key: str) -> tuple[list[Mapping[str, Any]], int | None]:
    """Items of one page of a ``startAt``/``total`` (or ``isLast``) list, and where the next page starts.

    ``key`` names the issue or the call in a :class:`~reconcile.vocabulary.errors.JiraAnswerError` (the page is not an
    object, its items not a list of objects).
    """
    page = jira_object(body, key, "ответ")
    items = [
        jira_object(item, key, f"{items_key}[{i}]")
        for i, item in enumerate(jira_list(page.get(items_key), key, items_key))
    ]
    reported = page.get("startAt")
    # A page never starts before the one asked for: an answer that says so must not loop the reading.
    start = reported if _is_int(reported) and reported >= start_at else start_at
    following = start + len(items)
    if not items or page.get("isLast") is True:
        return items, None
    total = page.get("total")
    if _is_int(total) and following >= total:
        return items, None
    if "isLast" in page or _is_int(total):
        return items, following
    return items, None


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def search_call(
    jql: str,
    fields: list[str],
    start_at: int,
    *,
    expand: list[str] | None = None,
    page_size: int = 100,
    validate: bool = True,
) -> JiraCall:
    body: dict[str, Any] = {"jql": jql, "startAt": start_at, "maxResults": page_size, "fields": fields}
    if expand:
        body["expand"] = expand
    if not validate:
        body["validateQuery"] = False
    return JiraCall(method="POST", path=jira_path(API, "search"), json=body)
