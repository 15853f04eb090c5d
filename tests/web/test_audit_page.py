"""«Аудит» (DESIGN.md 8 round 4, 6.6): an admin's page of the audit with the API's filters and an export that
verifies; nobody else sees it."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from hub_app.client_cli.audit_file import verify_file
from tests.hub.support import create_ok
from tests.support import cmd

from .conftest import Api, Open
from .support import cells, element_text, has_element

pytestmark = pytest.mark.anyio


async def test_an_admin_reads_filters_and_exports_the_audit(browser: Open, api: Api, tmp_path: Path) -> None:
    """The records with seq, kind, who and door; filtered by kind; the export link gives a file that verifies."""
    await create_ok(api, [cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23")])
    person = await browser("admin")
    page = (await person.get("/audit")).text
    rows = cells(page, "audit")[1:]
    assert [(row[2], row[3], row[4]) for row in rows][-2:] == [
        ("batch_created", "interface-token", "http"),
        ("login", "admin-token", "web"),
    ]
    only = cells((await person.get("/audit?kind=batch_created")).text, "audit")[1:]
    assert [row[2] for row in only] == ["batch_created"]
    assert "/audit/export?kind=batch_created&amp;format=jsonl" in (await person.get("/audit?kind=batch_created")).text
    export = await person.get("/audit/export?format=jsonl")
    path = tmp_path / "audit.jsonl"
    path.write_text(export.text, encoding="utf-8")
    out = io.StringIO()
    assert verify_file(path, out=out) == 0
    assert out.getvalue().startswith(f"{len(rows)} записей, голова ")
    bad = (await person.get("/audit?since=вчера")).text
    assert element_text(bad, "audit-error") == "since — ожидается время ISO-8601, например 2026-10-22T09:00:00Z"


async def test_only_an_admin_sees_the_audit(browser: Open) -> None:
    """A planner's session: no «Аудит» in the menu, and the page is refused."""
    person = await browser("interface")
    assert 'href="/audit"' not in (await person.get("/")).text
    response = await person.get("/audit")
    assert response.status_code == 403
    assert not has_element(response.text, "audit")
