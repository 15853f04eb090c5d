"""«Новый пакет» (``/new``): the batch editor generated from the catalogue, and the batch's JSON beside it.

The editor (:mod:`hub_app.web.editor.form`) is a plain form: each submit posts the batch as it stands with what to do —
add a command of a type, move or remove one, «Проверить», «Поставить в очередь» — and the page comes back redrawn
(one command added per submit without JavaScript). With htmx the same form answers only the editor, and a change
of any field answers only the JSON view; a change of the JSON redraws the editor from it: the two stay in sync.
«Проверить» is the dry run (nothing is written): every error of the core next to its command, in the words on
screen, or the plan. The editor holds the one «Автор» (prefilled with the name of the person's token; a retry
keeps the retried batch's) and the one pair «Проверить» / «В очередь»; the JSON view is the body of
``POST /batches``, read with the API's own parser (the same refusals), and «Открыть в редакторе» (or, with htmx,
any change of it) draws it in the editor. ``/new`` opens empty; ``/new?retry=<command>`` and
``/new?retry_failed=<batch>`` open the editor with the commands to retry (temp keys resolved).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any

import attrs
from litestar import Response, get, post
from litestar.datastructures import FormMultiDict, UploadFile
from litestar.params import QueryParameter
from litestar.response import Redirect, Template

from hub_app.answers.batches import BatchCreated
from hub_app.operations import batches, plan
from hub_app.runtime.connection import HubRequest
from hub_app.runtime.hub import Unit
from hub_app.web.acting import WAITS, Outcome, attempt, author, checked, read, read_json, requester
from hub_app.web.editor import drafts
from hub_app.web.editor.files import files_shown, named_files, store_uploads, with_uploads
from hub_app.web.editor.form import Draft, from_body, from_form
from hub_app.web.editor.views import command_views
from hub_app.web.render import flash, form_text, fragment, is_htmx, page
from hub_app.web.session import KEEP_BEFORE_LOGIN
from reconcile.batches import BatchError, InvalidBatch
from reconcile.outlook import ApprovalState
from reconcile.vocabulary import CATALOGUE, Editor

__all__ = ["ROUTES", "WAITS"]

#: How many keys of the mirror the editor suggests (the project's slice first).
SUGGESTED_KEYS = 500
#: The board's open sprints in the picker: the active one first, then the future ones.
_SPRINT_ORDER = {"active": 0, "future": 1}
#: Above this many commands the editor's buttons load the whole page (the browser draws it in a second) instead of
#: having htmx swap the editor, which matches every element's id against the old editor's and takes it tens.
BIG_DRAFT = 100


async def _submitted(request: HubRequest) -> tuple[str, str, Outcome]:
    """The form's author and text (an uploaded file replaces the text) and the batch body, or why it is none."""
    form = await request.form()
    text, who = form_text(form, "batch"), form_text(form, "author").strip()
    upload = form.get("file")
    raw = text.encode()
    if isinstance(upload, UploadFile) and upload.filename:
        raw = await upload.read()
        text = raw.decode("utf-8", errors="replace")
    body = read_json(raw)
    if isinstance(body.value, dict) and who:
        body.value["author"] = who
        body = checked(body)
    return who, text, body


async def _hints(unit: Unit, draft: Draft) -> dict[str, Any]:
    """What the editor suggests: projects, keys of the mirror (the project's slice), the project's statuses, the
    sprints of its board (active and future ones seen in the mirror's issues of every project on that board), the
    settings' link and issue types, and the name and size of each stored file the draft names."""
    settings = await unit.db.admin.settings()
    projects = {p.name: p for p in await unit.db.admin.projects()}
    slice_of = draft.project if draft.project in projects else None
    entries, _ = await unit.db.mirror.slice(slice_of, limit=SUGGESTED_KEYS, offset=0)
    statuses = set()
    for name in [slice_of] if slice_of else projects:
        statuses.update(await unit.db.mirror.statuses(name))
    board = projects[slice_of].board_id if slice_of else None
    seen = list(entries)
    for name, project in projects.items():
        if board is not None and project.board_id == board and name != slice_of:
            seen += (await unit.db.mirror.slice(name, limit=SUGGESTED_KEYS, offset=0))[0]
    issues = [e.issue for e in entries]
    sprints = {e.issue.sprint.name: e.issue.sprint.state for e in seen if e.issue.sprint is not None}
    return {
        "projects": list(projects),
        "keys": [(i.key, i.summary or "") for i in issues],
        "statuses": sorted(statuses | {i.status for i in issues if i.status}),
        "sprints": sorted(
            (n for n, state in sprints.items() if state != "closed"),
            key=lambda n: (_SPRINT_ORDER.get(sprints[n], 2), n),
        ),
        "link_types": list(settings.link_types),
        "issue_types": list(settings.issue_types),
        "files": files_shown(await unit.db.admin.files(named_files(draft))),
    }


async def _editor_context(
    request: HubRequest, draft: Draft, found: tuple[BatchError, ...] = (), **more: Any
) -> dict[str, Any]:
    hints = await read(request, lambda u: _hints(u, draft))
    views = command_views(draft, found)
    return {
        "draft": draft,
        "views": views,
        # a file field's picker posts the file with the form when there is no JavaScript
        "has_file": any(f.editor == Editor.FILE.value for v in views for f in v.fields + v.more),
        "batch_errors": [e.message for e in found if e.command is None],
        "error_count": len(found),
        "error_commands": sorted({e.command for e in found if e.command is not None}),
        "hints": hints,
        "types": [(name, spec.label) for name, spec in CATALOGUE.items()],
        "text": draft.json_text(),
        "plan": None,
        "error": None,
        "restored": False,
        "big_draft": BIG_DRAFT,
        "from_json": False,  # the editor drawn from the JSON view (htmx: which stays as typed)
        "errors": found,
        **more,
    }


async def _with_errors(
    request: HubRequest, operation: Callable[[Unit], Awaitable[Any]]
) -> tuple[Outcome, tuple[BatchError, ...]]:
    """:func:`attempt`, keeping every error of a refused batch."""
    found: list[BatchError] = []

    async def keeping(unit: Unit) -> Any:
        try:
            return await operation(unit)
        except InvalidBatch as exc:
            found.extend(exc.errors)
            raise

    outcome = await attempt(request, keeping)
    return outcome, tuple(found)


async def _opened(request: HubRequest, retry: int | None, retry_failed: int | None) -> dict[str, Any]:
    """What ``/new`` opens with: the commands to retry, a draft kept over a login, or nothing (no command a person
    could queue by accident) with the person's name as the author."""
    if retry is not None or retry_failed is not None:
        ids = [retry] if retry is not None else None

        async def body(unit: Unit) -> dict[str, Any]:
            return await batches.retry_draft(unit, command_ids=ids, batch_id=retry_failed)

        found = await read(request, body)  # the retried batch's author, as «Повторить» keeps it
        retry_of = tuple(found.pop("retry_of"))  # the page's, not the batch's: carried as a field of its own
        return {"draft": attrs.evolve(from_body(found), retry_of=retry_of)}
    kept = await drafts.take(request)
    if kept is not None:
        draft = from_body(read_json(kept.encode()).value)
        return {
            "draft": draft if draft.author else attrs.evolve(draft, author=author(request)),
            "text": kept,
            "restored": True,
        }
    return {"draft": Draft(author=author(request))}


@get("/new")
async def new_form(
    request: HubRequest,
    retry: Annotated[int | None, QueryParameter(ge=1)] = None,
    retry_failed: Annotated[int | None, QueryParameter(ge=1)] = None,
) -> Template:
    opened = await _opened(request, retry, retry_failed)
    return page(request, "new.html", **await _editor_context(request, **opened))


def _operated(draft: Draft, op: str, form: FormMultiDict) -> Draft:
    """The editor's buttons that change the draft: add a command, move one up or down, remove one."""
    what, _, number = op.partition("-")
    index = int(number) if number.isdigit() else 0
    if what == "add" and form_text(form, "add_type") in CATALOGUE:
        return draft.added(form_text(form, "add_type"))
    if what in ("up", "down"):
        return draft.moved(index, -1 if what == "up" else 1)
    if what == "remove":
        return draft.removed(index)
    return draft


async def _loaded(request: HubRequest) -> Template:
    """«Открыть в редакторе» (with htmx: a change of the JSON view): the editor drawn from the JSON. JSON that is
    none, or no object, leaves the editor as it was, the JSON view as typed, and says why in the API's words."""
    _, text, body = await _submitted(request)
    if body.error is None and not isinstance(body.value, dict):
        refused, _ = await _with_errors(request, lambda u: plan.body_plan(u, body.value))
        body = attrs.evolve(body, error=refused.error)
    if body.error is not None:
        context = await _editor_context(request, Draft(), text=text, error=body.error)
        return _answer(request, context, status_code=422, checked=True)
    draft = from_body(body.value)
    if "author" not in body.value:
        draft = attrs.evolve(draft, author=author(request))
    return _answer(request, await _editor_context(request, draft, text=text, from_json=True))


@post("/new/edit", opt={KEEP_BEFORE_LOGIN: drafts.keep})
async def new_edit(request: HubRequest) -> Template | Redirect | Response[Any]:
    """The editor's form: ``op`` says what to do (``load``: redraw from the JSON view; no ``op``: a field changed,
    htmx asks for the JSON view alone). A file chosen without JavaScript is stored first (:mod:`.files`)."""
    form = await request.form()
    op = form_text(form, "op")
    if op == "load":
        return await _loaded(request)
    draft = _operated(with_uploads(from_form(form), await store_uploads(request, form)), op, form)
    if not op and is_htmx(request):
        return _json_view(request, draft)
    if op == "queue":
        return await _queue(request, draft)
    if op == "check":
        outcome, errors = await _with_errors(request, lambda u: plan.body_plan(u, draft.body()))
        context = await _editor_context(request, draft, errors, plan=outcome.value, error=outcome.error)
        return _answer(request, context, status_code=422 if outcome.error else 200, checked=True)
    return _answer(request, await _editor_context(request, draft))


def _json_view(request: HubRequest, draft: Draft) -> Template:
    """The JSON view alone, put in place of the page's (htmx: a field of the editor changed)."""
    answer = fragment(request, "_batch_json.html", text=draft.json_text())
    answer.headers.update({"HX-Retarget": "#batch", "HX-Reswap": "outerHTML"})
    return answer


def _answer(request: HubRequest, context: dict[str, Any], *, status_code: int = 200, checked: bool = False) -> Template:
    """The editor redrawn: the whole page, or with htmx the editor with the JSON view and the plan out of band —
    after «Проверить» and a refused «Поставить в очередь» only the errors beside their commands and the plan
    (the editor on the page is the one checked; redrawing a thousand commands would cost the browser seconds).
    htmx swaps a 422 too, so a refusal is answered 200 to it."""
    if is_htmx(request) and checked:
        answer = fragment(request, "_editor_checked.html", **context)
        answer.headers["HX-Reswap"] = "none"
        return answer
    if is_htmx(request):
        return fragment(request, "_editor.html", oob=True, **context)
    return page(request, "new.html", status_code=status_code, **context)


async def _queue(request: HubRequest, draft: Draft) -> Template | Redirect | Response[Any]:
    asking = requester(request)

    async def create(unit: Unit) -> BatchCreated:
        return await batches.create_batch(
            unit, draft.body(), requester=asking, **await batches.retried(unit, draft.retry_of)
        )

    outcome, errors = await _with_errors(request, create)
    if outcome.error is not None:
        context = await _editor_context(request, draft, errors, error=outcome.error)
        return _answer(request, context, status_code=422, checked=True)
    return _created(request, outcome.value)


def _created(request: HubRequest, created: BatchCreated) -> Redirect | Response[Any]:
    waits = created.approval is not None and created.approval.state == ApprovalState.PENDING
    flash(request, f"пакет {created.id} " + (WAITS if waits else "поставлен в очередь"))
    if is_htmx(request):  # a 303 would be followed inside htmx's request: the browser is sent there instead
        return Response(b"", status_code=200, headers={"HX-Redirect": f"/batches/{created.id}"})
    return Redirect(f"/batches/{created.id}", status_code=303)


@post("/new/plan", opt={KEEP_BEFORE_LOGIN: drafts.keep})
async def new_plan(request: HubRequest) -> Template:
    """A form posting the batch's JSON (``batch``, ``author``) to be checked: the dry run's plan, or the refusal with
    every error; nothing is written. The page's own buttons are the editor's (one pair); this form endpoint stays
    for what posts the JSON itself."""
    who, text, body = await _submitted(request)
    errors: tuple[BatchError, ...] = ()
    if body.error:
        outcome = body
    else:
        outcome, errors = await _with_errors(request, lambda u: plan.body_plan(u, body.value))
    context = {"plan": outcome.value, "error": outcome.error, "errors": errors, "plan_errors": True}
    if is_htmx(request):
        return fragment(request, "_plan.html", **context)
    draft = from_body(body.value if body.error is None else None, author=who)
    editor = await _editor_context(request, draft, errors, text=text, plan=outcome.value, error=outcome.error)
    return page(request, "new.html", status_code=422 if outcome.error else 200, **editor)


@post("/new", opt={KEEP_BEFORE_LOGIN: drafts.keep})
async def new_batch(request: HubRequest) -> Template | Redirect | Response[Any]:
    """A form posting the batch's JSON to be queued: the batch is created and its page opens; a refused one stays in
    the form (the editor drawn from it) with the reason."""
    who, text, body = await _submitted(request)
    asking = requester(request)

    async def create(unit: Unit) -> BatchCreated:
        return await batches.create_batch(unit, body.value, requester=asking)

    errors: tuple[BatchError, ...] = ()
    if body.error:
        outcome = body
    else:
        outcome, errors = await _with_errors(request, create)
    if outcome.error is not None:
        draft = from_body(body.value if body.error is None else None, author=who)
        editor = await _editor_context(request, draft, errors, text=text, error=outcome.error, errors=errors)
        return page(request, "new.html", status_code=422, **editor)
    return _created(request, outcome.value)


ROUTES = [new_form, new_edit, new_plan, new_batch]
