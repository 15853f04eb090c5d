"""«Новый пакет» (``/new``): paste or upload a batch's JSON, «Проверить» shows the plan, «В очередь» creates it.

The JSON is the body of ``POST /batches``, read with the API's own parser (the same refusals); the «Автор»
field, prefilled with the name of the person's token, sets ``author``. «Проверить» is the dry run (nothing is
written) and shows the plan — each command's writes Terraform-style (``+`` create, ``~`` change ``old → new``,
``-`` delete) — or the 422 in the seed's words, under the form.
"""

from __future__ import annotations

from litestar import get, post
from litestar.datastructures import UploadFile
from litestar.response import Redirect, Template

from hub_app import batches, plan
from hub_app.answers.batches import BatchCreated
from hub_app.connection import HubRequest
from hub_app.runtime import Unit
from hub_app.web.acting import WAITS, Outcome, attempt, author, checked, read_json, requester
from hub_app.web.render import flash, form_text, fragment, is_htmx, page
from reconcile.approval import ApprovalState

__all__ = ["ROUTES", "WAITS"]

EXAMPLE = """{
  "title": "Сверка оборотов",
  "project": "AWPCA",
  "commands": [
    {"type": "ensure_fields", "params": {"key": "AURORA-1533", "duedate": "2026-10-23"}}
  ]
}"""


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


@get("/new")
async def new_form(request: HubRequest) -> Template:
    return page(request, "new.html", author=author(request), text=EXAMPLE, plan=None, error=None)


@post("/new/plan")
async def new_plan(request: HubRequest) -> Template:
    """«Проверить»: the dry run's plan, or the refusal; nothing is written."""
    who, text, body = await _submitted(request)
    outcome = body if body.error else await attempt(request, lambda u: plan.body_plan(u, body.value))
    context = {"plan": outcome.value, "error": outcome.error}
    if is_htmx(request):
        return fragment(request, "_plan.html", **context)
    return page(request, "new.html", status_code=422 if outcome.error else 200, author=who, text=text, **context)


@post("/new")
async def new_batch(request: HubRequest) -> Template | Redirect:
    """«В очередь»: the batch is created and its page opens; a refused one stays in the form with the reason."""
    who, text, body = await _submitted(request)
    asking = requester(request)

    async def create(unit: Unit) -> BatchCreated:
        return await batches.create_batch(unit, body.value, requester=asking)

    outcome = body if body.error else await attempt(request, create)
    if outcome.error is not None:
        return page(request, "new.html", status_code=422, author=who, text=text, plan=None, error=outcome.error)
    created: BatchCreated = outcome.value
    waits = created.approval is not None and created.approval.state == ApprovalState.PENDING
    flash(request, f"пакет {created.id} " + (WAITS if waits else "поставлен в очередь"))
    return Redirect(f"/batches/{created.id}", status_code=303)


ROUTES = [new_form, new_plan, new_batch]
