"""Settings: everyone with a page reads them; an admin changes them as JSON (merged like PATCH); a refusal is
shown inline and nothing changes."""

from __future__ import annotations

import json

import pytest

from .conftest import Api, Open
from .support import element_text

pytestmark = pytest.mark.anyio


async def test_interface_reads_settings_without_a_form(browser: Open) -> None:
    """An interface token sees the settings as JSON, with no form to change them."""
    person = await browser("interface")
    page = (await person.get("/settings")).text
    assert json.loads(element_text(page, "settings"))["jira_project"] == "AURORA"
    assert "settings-form" not in page


async def test_admin_changes_one_gap_and_keeps_the_rest(browser: Open, api: Api) -> None:
    """A partial object merges: one pacing gap changes, every other setting stays."""
    before = (await api.get("/settings")).json()
    person = await browser("admin")
    await person.get("/settings")
    response = await person.post("/settings", {"settings": '{"pacing": {"refresh": 1}}'})
    assert response.headers["location"] == "/settings"
    assert "настройки сохранены" in (await person.follow(response)).text
    after = (await api.get("/settings")).json()
    assert after == {**before, "pacing": {**before["pacing"], "refresh": 1}}


async def test_a_bad_value_is_refused_inline_and_nothing_changes(browser: Open, api: Api) -> None:
    """A value the hub refuses: 422 with its message under the form, the text kept, the settings as they were."""
    before = (await api.get("/settings")).json()
    bad = '{"pacing": {"refresh": -1}, "jira_project": "OTHER"}'
    expected = (await api.patch("/settings", json.loads(bad))).json()["detail"]
    person = await browser("admin")
    await person.get("/settings")
    response = await person.post("/settings", {"settings": bad})
    assert response.status_code == 422
    assert element_text(response.text, "settings-error") == expected
    assert element_text(response.text, "settings") == bad
    assert (await api.get("/settings")).json() == before


async def test_interface_may_not_change_settings(browser: Open, api: Api) -> None:
    """An interface token's POST is refused with «это может только администратор»."""
    before = (await api.get("/settings")).json()
    person = await browser("interface")
    await person.get("/settings")
    response = await person.post("/settings", {"settings": '{"auto_refresh_minutes": 1}'})
    assert response.status_code == 403
    assert element_text(response.text, "error") == "это может только администратор"
    assert (await api.get("/settings")).json() == before
