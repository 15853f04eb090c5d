"""Settings as a form (issue 27): each key with its description, one field per value, validated as any settings
change; the JSON stays for experts; nothing changes on a refusal."""

from __future__ import annotations

import re

import pytest

from .conftest import Api, Open
from .support import element_text, has_element

pytestmark = pytest.mark.anyio


def _fields(page: str) -> dict[str, str]:
    """The form's values as the browser would submit them (checked boxes only)."""
    form = page[page.index('id="settings-fields"') : page.index("</form>", page.index('id="settings-fields"'))]
    sent = dict(re.findall(r'<input type="text" id="[^"]+" name="([^"]+)" value="([^"]*)"', form))
    sent.update(re.findall(r'<textarea id="[^"]+" name="([^"]+)"[^>]*>([^<]*)</textarea>', form))
    for name, options in re.findall(r'<select id="[^"]+" name="([^"]+)"[^>]*>(.*?)</select>', form):
        sent[name] = re.search(r'<option value="([^"]+)" selected', options).group(1)  # type: ignore[union-attr]
    sent.update((name, "да") for name in re.findall(r'name="([^"]+)" value="да" checked', form))
    return {name: value.replace("&#34;", '"').replace("&amp;", "&") for name, value in sent.items()}


async def test_every_key_is_shown_with_its_description(browser: Open) -> None:
    """The admin's form: a section per setting, its name, description and value; the JSON behind «JSON»."""
    page = (await (await browser("admin")).get("/settings")).text
    assert element_text(page, "setting-auto_refresh_minutes") == (
        "Автообновление, мин auto_refresh_minutes через сколько минут после прошлого обновления хаб обновляет "
        "зеркало сам Автообновление, мин"
    )
    assert 'name="auto_refresh_minutes" value="15"' in page
    assert "Задача существует (ensure_issue)" in element_text(page, "setting-pacing")
    assert has_element(page, "settings-form") and has_element(page, "settings-json")


async def test_admin_changes_settings_in_the_form(browser: Open, api: Api) -> None:
    """One gap, a door's approval and a link type removed, in one submit of the form as shown."""
    before = (await api.get("/settings")).json()
    person = await browser("admin")
    fields = _fields((await person.get("/settings")).text)
    fields.update({"pacing.refresh": "1,5", "approval.http": "да", "link_types": "связанные = Связанные"})
    response = await person.post("/settings/form", fields)
    assert response.status_code == 303, response.text
    assert "настройки сохранены" in (await person.follow(response)).text
    after = (await api.get("/settings")).json()
    assert after == {
        **before,
        "pacing": {**before["pacing"], "refresh": 1.5},
        "approval": {"mcp": False, "http": True},
        "link_types": {"связанные": "Связанные"},
    }


async def test_a_refused_form_keeps_what_was_typed_and_changes_nothing(browser: Open, api: Api) -> None:
    """422 with the settings' own message under the form, the typed values kept, the settings as they were."""
    before = (await api.get("/settings")).json()
    expected = (await api.patch("/settings", {"full_refresh_hours": 0})).json()["detail"]
    person = await browser("admin")
    fields = {**_fields((await person.get("/settings")).text), "full_refresh_hours": "0", "jira_project": "OTHER"}
    response = await person.post("/settings/form", fields)
    assert response.status_code == 422
    assert element_text(response.text, "settings-fields-error") == expected
    assert 'name="jira_project" value="OTHER"' in response.text
    assert (await api.get("/settings")).json() == before


async def test_interface_reads_the_descriptions_without_a_form(browser: Open, api: Api) -> None:
    """No form, the same descriptions; a POST to the form is refused for the role."""
    person = await browser("interface")
    page = (await person.get("/settings")).text
    assert "settings-fields" not in page and "settings-form" not in page
    assert "ждут одобрения другого человека" in element_text(page, "setting-approval")
    before = (await api.get("/settings")).json()
    response = await person.post("/settings/form", {"auto_refresh_minutes": "1"})
    assert response.status_code == 403
    assert (await api.get("/settings")).json() == before
