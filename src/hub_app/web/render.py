"""Rendering the page: the Jinja environment and its filters, full pages and htmx fragments, one-time messages.

Every view renders a full page for a browser without JavaScript and, asked by htmx (``HX-Request``), only the
fragment it swaps in. Templates autoescape and fail on an unknown name (``StrictUndefined``), so a typo is an
error in the tests, not a blank cell.
"""

from __future__ import annotations

import functools
import re
from datetime import date, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from jinja2 import Environment, FileSystemLoader, StrictUndefined, pass_context
from jinja2.runtime import Context
from litestar.datastructures import FormMultiDict
from litestar.plugins.jinja import JinjaTemplateEngine
from litestar.response import Template
from litestar.template import TemplateConfig
from markupsafe import Markup, escape

from hub_app.runtime.connection import HubRequest
from hub_app.web.cookies import page_session
from hub_app.web.labels import (
    APPROVAL_LABELS,
    BAR_LABELS,
    BATCH_STATE_LABELS,
    STATUS_LABELS,
    counts_told,
    day,
    duration,
    estimate,
    moment,
    pretty_json,
    site,
    status_label,
    when,
)
from reconcile.outlook import (
    aspect_label,
    bar,
    drift_value,
    journal_field,
    journal_value,
    line_words,
    params_in_words,
    result_in_words,
    sprint_state,
)
from reconcile.vocabulary import CATALOGUE, REFRESH_TYPE, bad_place, error_text, is_temp_key, utc_text

__all__ = [
    "PAGE_PREFIX",
    "environment",
    "flash",
    "form_text",
    "fragment",
    "is_htmx",
    "page",
    "public_path",
    "safe_next",
    "segment",
    "template_config",
]

#: Where the page's routes live inside the app; browsers reach them by their public paths (see ``page.py``).
PAGE_PREFIX = "/_page"

TEMPLATES = Path(__file__).parent / "templates"

_CONTROL = re.compile("[\x00-\x1f\x7f]")


def segment(value: str) -> str:
    """A name as one segment of a URL's path (a project ``x#y?z`` is ``x%23y%3Fz``)."""
    return quote(str(value), safe="")


def _result_words(command: Any) -> list[str]:
    return result_in_words(command.type, command.params, command.result)


def _params_words(command: Any) -> list[tuple[str, str]]:
    return params_in_words(command.type, command.params)


def _type_label(command_type: str) -> str:
    """A command type by its catalogue label («Статус»); an unknown one as it is."""
    spec = CATALOGUE.get(command_type)
    return spec.label if spec is not None else command_type


def _journal_from(item: Any) -> str:
    return journal_value(item.field, item.from_, item.from_string)


def _journal_to(item: Any) -> str:
    return journal_value(item.field, item.to, item.to_string)


_KEY = re.compile(r"\b[A-Z][A-Z0-9_]*-[1-9][0-9]*\b")


def _keys_unbroken(text: str) -> Markup:
    """Text in words with each issue key kept on one line (a key breaks at its hyphen otherwise: «AURORA-/1590»)."""
    return Markup(_KEY.sub(lambda found: f'<span class="issue-ref">{found.group(0)}</span>', str(escape(text))))


_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _is_iso_date(value: Any) -> bool:
    """A date a date input keeps as it is (``2026-10-23``; the browser would empty ``2026-02-30``)."""
    if not isinstance(value, str) or not _ISO_DATE.fullmatch(value):
        return False
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return True


@pass_context
def _time(context: Context, value: Any) -> Markup | str:
    """The one filter every template shows a moment with (``| when``): in the Jira user's time zone as the agent
    reported it (``jira_time_zone``), UTC on hover; in UTC, said so, while no zone is known."""
    found = moment(value) if isinstance(value, str | datetime) else None
    if found is None:
        return when(value)
    utc = when(found)
    shown = when(found, context.get("jira_time_zone"))
    iso = utc_text(found, "auto")
    return Markup(f'<time datetime="{escape(iso)}" title="{escape(utc)}">{escape(shown)}</time>')


def _environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(
        status=status_label,
        when=_time,
        duration=duration,
        pretty=pretty_json,
        segment=segment,
        bar=bar,
        estimate=estimate,
        day=day,
        site=site,
        told=counts_told,
        unbroken=_keys_unbroken,
    )
    env.filters.update(result_words=_result_words, params_words=_params_words, sprint_state=sprint_state)
    env.filters.update(journal_field=journal_field, journal_from=_journal_from, journal_to=_journal_to)
    env.filters.update(
        aspect_label=aspect_label,
        drift_value=drift_value,
        error=error_text,
        type_label=_type_label,
        plan_line=line_words,
    )
    env.tests["temp_key"] = is_temp_key
    env.tests["iso_date"] = _is_iso_date
    env.globals.update(
        STATUS_LABELS=STATUS_LABELS,
        APPROVAL_LABELS=APPROVAL_LABELS,
        BATCH_STATE_LABELS=BATCH_STATE_LABELS,
        BAR_LABELS=BAR_LABELS,
        REFRESH_TYPE=REFRESH_TYPE,
    )
    env.policies["json.dumps_kwargs"] = {"ensure_ascii": False, "sort_keys": False}
    return env


@functools.cache
def environment() -> Environment:
    """The page's Jinja environment (made once: the views' and the ``/schema`` page's)."""
    return _environment()


def template_config() -> TemplateConfig[JinjaTemplateEngine]:
    return TemplateConfig(instance=JinjaTemplateEngine.from_environment(environment()))


def is_htmx(request: HubRequest) -> bool:
    return request.headers.get("hx-request") == "true"


def public_path(request: HubRequest, *, with_query: bool = False) -> str:
    """The path the browser asked for (the app routes it under :data:`PAGE_PREFIX`)."""
    path = request.url.path
    if path.startswith(PAGE_PREFIX):
        path = path[len(PAGE_PREFIX) :] or "/"
    if with_query and request.url.query:
        path += "?" + request.url.query
    return path


def safe_next(value: str | None) -> str:
    """A place on this hub to go after login: a local path, never another site (``//evil``, ``https://…``), and
    never a control character (a header split, a NUL) or text the API would refuse."""
    if not value or not value.startswith("/") or value.startswith("//") or "\\" in value:
        return "/"
    if _CONTROL.search(value) or bad_place(value) is not None:
        return "/"
    return value


def form_text(form: FormMultiDict, name: str) -> str:
    """A text field of a submitted form (``""`` when absent or a file)."""
    value = form.get(name)
    return value if isinstance(value, str) else ""


def flash(request: HubRequest, text: str, *, error: bool = False) -> None:
    """A message for the next full page (after a redirect): what an action did, or why it was refused."""
    session = page_session(request)
    if session is not None:
        session.flash.append({"text": text, "error": error})
        session.flash_changed = True


def _context(request: HubRequest, context: dict[str, Any]) -> dict[str, Any]:
    caller = request.state.get("caller")
    return {
        "caller": caller,
        "is_admin": caller is not None and caller.role == "admin",
        "here": public_path(request),
        "jira_base_url": request.state.get("jira_base_url"),
        "jira_time_zone": request.state.get("jira_time_zone"),
        **context,
    }


def page(request: HubRequest, template: str, *, status_code: int = 200, **context: Any) -> Template:
    """A full page; it shows (and so clears) the messages left by the previous action."""
    messages: list[dict[str, Any]] = []
    session = page_session(request)
    if session is not None and session.flash:
        messages, session.flash, session.flash_changed = session.flash, [], True
    return Template(template, context={**_context(request, context), "messages": messages}, status_code=status_code)


def fragment(
    request: HubRequest, template: str, *, status_code: int = 200, headers: dict[str, str] | None = None, **context: Any
) -> Template:
    """The part of a page htmx swaps in (messages stay for the next full page); ``headers`` tell htmx more."""
    return Template(template, context=_context(request, context), status_code=status_code, headers=headers)
