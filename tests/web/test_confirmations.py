"""A confirmation before every destructive action, without JavaScript too (issue 27): «Отменить» of a batch or a
command and «Удалить» of a project are links to a page that says what will happen; only its button acts."""

from __future__ import annotations

import re

import pytest

from hub_app.web.views.batches import QUEUED_ONLY
from hub_app.web.views.projects import PROJECT_DELETED
from tests.hub.support import claim_ok, cmd, create_ok

from .conftest import Api, Open
from .support import cells, element_text

pytestmark = pytest.mark.anyio


def _posts(page: str) -> list[str]:
    return re.findall(r'<form method="post" action="([^"]+)"', page)


async def test_cancelling_a_batch_is_confirmed_and_says_the_tail_refresh_stops_too(browser: Open, api: Api) -> None:
    """The batch page has no form that cancels; «Отменить» shows the queued commands, that the one with the agent
    goes on, and that the tail refresh is cancelled with them; only «Да, отменить» cancels."""
    batch = await create_ok(
        api,
        [
            cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23"),
            cmd("ensure_comment", key="AURORA-2", marker="m", body="b"),
        ],
    )
    claimed = await claim_ok(api)
    ids = [c["id"] for c in batch["commands"]]
    person = await browser("interface")
    shown = (await person.get(f"/batches/{batch['id']}")).text
    assert [a for a in _posts(shown) if "cancel" in a] == []
    assert f'href="/batches/{batch["id"]}/cancel?force=false">Отменить</a>' in shown
    confirm = (await person.get(f"/batches/{batch['id']}/cancel?force=false")).text
    assert element_text(confirm, "warning") == QUEUED_ONLY
    assert element_text(confirm, "queued") == (
        f"команда {ids[1]} · ensure_comment · AURORA-2 команда {ids[2]} · refresh · AURORA-1, AURORA-2"
    )
    assert element_text(confirm, "tail-refresh") == (
        "Обновление из Jira в конце пакета тоже отменится: отменённый пакет больше не обращается к Jira. Что пакет "
        "успел записать, зеркало покажет после автообновления (раз в 15 мин, когда очередь пуста)."
    )
    assert element_text(confirm, "claimed") == f"команда {claimed['id']} · ensure_fields · AURORA-1"
    assert (await api.get(f"/batches/{batch['id']}")).json()["progress"]["by_status"] == {"claimed": 1, "queued": 2}
    response = await person.post(f"/batches/{batch['id']}/cancel", {"force": "false"})
    page = (await person.follow(response)).text
    assert [row[4] for row in cells(page, "commands")[1:]] == ["выполняется", "отменена", "отменена"]


async def test_cancelling_one_command_is_confirmed(browser: Open, api: Api) -> None:
    """A queued command's «Отменить» asks first; confirming cancels only it and goes back to its batch."""
    batch = await create_ok(api, [cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23")])
    first = batch["commands"][0]["id"]
    person = await browser("interface")
    shown = (await person.get(f"/commands/{first}")).text
    assert _posts(shown) == ["/logout"]
    confirm = (await person.get(f"/commands/{first}/cancel?force=false")).text
    assert element_text(confirm, "confirm").startswith(f"Отменить команду {first} (ensure_fields)? Команда не будет")
    response = await person.post(f"/commands/{first}/cancel", {"force": "false", "back": f"/batches/{batch['id']}"})
    assert response.headers["location"] == f"/batches/{batch['id']}"
    statuses = [c["status"] for c in (await api.get(f"/batches/{batch['id']}")).json()["commands"]]
    assert statuses == ["cancelled", "queued"]


async def test_deleting_a_project_is_confirmed(browser: Open, api: Api) -> None:
    """«Удалить» is a link to a page that says what deleting does; the project stays until «Да, удалить»."""
    assert (await api.post("/projects", {"name": "x#y", "board_id": 1}, role="admin")).status_code == 201
    person = await browser("admin")
    listed = (await person.get("/projects")).text
    assert [a for a in _posts(listed) if a.endswith("/delete")] == []
    assert 'href="/projects/x%23y/delete">Удалить</a>' in listed
    confirm = (await person.get("/projects/x%23y/delete")).text
    assert element_text(confirm, "confirm") == f"Удалить проект x#y? {PROJECT_DELETED} Да, удалить Не удалять"
    assert _posts(confirm)[-1] == "/projects/x%23y/delete"
    assert [p["name"] for p in (await api.get("/projects")).json()["items"]] == ["x#y"]
    response = await person.post("/projects/x%23y/delete")
    assert "проект x#y удалён" in (await person.follow(response)).text
    assert (await api.get("/projects")).json()["items"] == []


async def test_only_an_admin_sees_the_delete_confirmation(browser: Open, api: Api) -> None:
    """An interface token: 403, the project stays."""
    assert (await api.post("/projects", {"name": "AWPCA"}, role="admin")).status_code == 201
    response = await (await browser("interface")).get("/projects/AWPCA/delete")
    assert response.status_code == 403
