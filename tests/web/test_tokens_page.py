"""«Токены» (issue 32): an admin's page of the API tokens in the browser — list, add with «нужно одобрение», revoke
after a confirmation, the secret shown once — while the API's ``/tokens`` keeps answering JSON to a bearer token;
a person who is no admin is refused."""

from __future__ import annotations

import re

import pytest

from hub_app.operations.admin import NEEDS_APPROVAL_ROLE
from hub_app.web.session import ADMIN_ONLY

from .conftest import Api, Open
from .support import cells, element_text, has_element

pytestmark = pytest.mark.anyio


async def test_add_a_token_that_needs_approval_and_see_its_secret_once(browser: Open, api: Api) -> None:
    """«Добавить» with «нужно одобрение»: the answer shows the secret once (it works at the API), the list shows
    the token as needing approval, and the page read again shows no secret."""
    person = await browser("admin")
    page = (await person.get("/tokens")).text
    assert [row[0] for row in cells(page, "tokens")[1:]] == ["admin-token (вы)", "agent-token", "interface-token"]
    response = await person.post("/tokens", {"name": "claude", "role": "interface", "needs_approval": "true"})
    assert response.status_code == 201
    secret = element_text(response.text, "token-secret")
    assert re.fullmatch(r"[A-Za-z0-9_-]{40,}", secret)
    assert cells(response.text, "tokens")[3][:3] == ["claude", "interface", "нужно"]
    listed = {t["name"]: t for t in (await api.get("/tokens", role="admin")).json()["items"]}
    assert listed["claude"]["needs_approval"] is True
    assert (await api.client.get("/batches", headers={"Authorization": f"Bearer {secret}"})).status_code == 200
    again = (await person.get("/tokens")).text
    assert not has_element(again, "token-created") and secret not in again


async def test_a_refused_token_is_said_inline(browser: Open) -> None:
    """An agent token that needs approval, a name already taken: the API's words under the form, nothing made."""
    person = await browser("admin")
    await person.get("/tokens")
    refused = await person.post("/tokens", {"name": "bot", "role": "agent", "needs_approval": "true"})
    assert (refused.status_code, element_text(refused.text, "token-error")) == (422, NEEDS_APPROVAL_ROLE)
    taken = await person.post("/tokens", {"name": "interface-token", "role": "interface"})
    assert element_text(taken.text, "token-error") == "токен interface-token уже есть"
    assert [row[0] for row in cells(taken.text, "tokens")[1:]] == ["admin-token (вы)", "agent-token", "interface-token"]


async def test_revoke_after_a_confirmation(browser: Open, api: Api) -> None:
    """«Отозвать…» asks first; confirmed, the token is revoked: the list says when, its secret opens nothing."""
    person = await browser("admin")
    await person.get("/tokens")
    confirm = (await person.get("/tokens/interface-token/revoke")).text
    assert element_text(confirm, "confirm").startswith("Отозвать токен interface-token? Программы и люди с этим")
    assert "Да, отозвать" in confirm and "Не отзывать" in confirm
    response = await person.post("/tokens/interface-token/revoke")
    page = (await person.follow(response)).text
    assert "токен interface-token отозван" in page
    assert cells(page, "tokens")[3][4] != "—"
    assert (await api.get("/batches")).status_code == 401
    own = (await person.get("/tokens/admin-token/revoke")).text
    assert "Это токен, которым вы вошли" in element_text(own, "warning")


async def test_the_api_keeps_answering_json_and_people_who_are_no_admin_are_refused(browser: Open, api: Api) -> None:
    """A bearer token's ``GET /tokens`` is the API's JSON even when it accepts HTML; a planner's browser gets the
    page's refusal and no list; the page's menu shows «Токены» to admins only."""
    answer = await api.client.get("/tokens", headers={**api.auth("admin"), "Accept": "text/html"})
    assert answer.headers["content-type"].startswith("application/json")
    assert {t["name"] for t in answer.json()["items"]} == {"admin-token", "agent-token", "interface-token"}
    planner = await browser("interface")
    refused = await planner.get("/tokens")
    assert refused.status_code == 403 and ADMIN_ONLY in refused.text and not has_element(refused.text, "tokens")
    assert not has_element((await planner.get("/")).text, "nav-tokens")
    assert has_element((await (await browser("admin")).get("/")).text, "nav-tokens")
