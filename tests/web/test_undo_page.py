"""«Откатить пакет…» on the batch page (DESIGN.md 6.4, 8): a link to a confirmation page with the undo's plan (it
works without JavaScript); only its button creates the undo batch, whose page links back to the original, and the
original's to it."""

from __future__ import annotations

import re

import pytest
from litestar.datastructures import FormMultiDict

from hub_app.web.editor.form import Draft, DraftCommand, from_form
from hub_app.web.editor.views import command_views
from tests.hub.support import claim_ok, cmd, create_ok

from .conftest import Api, Open
from .support import element_text

pytestmark = pytest.mark.anyio


def _posts(page: str) -> list[str]:
    return re.findall(r'<form method="post" action="([^"]+)"', page)


async def test_undo_shows_its_plan_then_creates_the_undo_batch_linked_both_ways(browser: Open, api: Api) -> None:
    """A finished batch offers «Откатить пакет…»; the confirmation lists each command's fate and the inverse
    batch's lines; «Откатить» creates «Откат пакета N: …», and both batch pages name each other."""
    batch = await create_ok(api, [cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23")])
    for result in (
        {
            "changed": ["duedate"],
            "undo": {
                "changed": {"duedate": {"from": None, "to": "2026-10-23"}},
                "labels": {"added": [], "removed": []},
            },
        },
        {"issues": 0, "neighbours": 0},
    ):
        delivery = await claim_ok(api)
        operations = (
            [{"method": "PUT", "path": "/rest/api/2/issue/AURORA-1", "status": 204}] if "undo" in result else []
        )
        report = {"status": "done", "result": result, "jira_calls": 1, "operations": operations}
        assert (await api.report(delivery["id"], report)).status_code == 200
    person = await browser("interface")
    shown = (await person.get(f"/batches/{batch['id']}")).text
    assert f'href="/batches/{batch["id"]}/undo">Откатить пакет…</a>' in shown
    assert [a for a in _posts(shown) if "undo" in a] == []
    confirm = (await person.get(f"/batches/{batch['id']}/undo")).text
    assert element_text(confirm, "undo-items") == "1. ensure_fields: возвращается"
    assert "1. ensure_fields · AURORA-1" in element_text(confirm, "plan-result")
    assert [a for a in _posts(confirm) if a != "/logout"] == [f"/batches/{batch['id']}/undo"]
    response = await person.post(f"/batches/{batch['id']}/undo", {})
    undone = (await person.follow(response)).text
    created = (await api.get(f"/batches/{batch['id']}")).json()["undone_by"]
    assert len(created) == 1
    assert element_text(undone, "undo-of") == f"откат пакета {batch['id']}"
    original = (await person.get(f"/batches/{batch['id']}")).text
    assert element_text(original, "undone-by") == f"пакетом {created[0]}"


def test_the_editor_reads_an_only_if_unchanged_object_as_json() -> None:
    """The editor's field of an only-if-unchanged object (its catalogue editor ``json_object``) is JSON both ways."""
    form = FormMultiDict(
        {
            "c1.type": "ensure_status",
            "c1.key": "AURORA-1",
            "c1.target": "Готово",
            "c1.if_unchanged": '{"status": "Разработка"}',
        }
    )
    draft = from_form(form)
    assert draft.commands[0].params["if_unchanged"] == {"status": "Разработка"}
    [view] = command_views(Draft(commands=(DraftCommand(type="ensure_status", params=draft.commands[0].params),)))
    field = next(f for f in (*view.fields, *view.more) if f.param == "if_unchanged")
    assert (field.editor, field.value) == ("json_object", '{"status": "Разработка"}')
