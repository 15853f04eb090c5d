"""«Новый пакет»'s pickers (issue 32): a file for ``ensure_attachment`` uploaded from the page — by the picker's
script through the page's own ``POST /files`` (session and CSRF token), or posted with the editor's form without
JavaScript — fills the command's sha256 and name and shows name and size; status and sprint are picked from the
mirror (the project's statuses, the sprints of its board) and stay free text."""

from __future__ import annotations

import hashlib
import re

import pytest

from tests.hub.support import issue, seed_mirror

from .conftest import Api, Open
from .support import Browser, element_text
from .test_editor import _fields, _submit

pytestmark = pytest.mark.anyio

REPORT = "Обороты за октябрь\n".encode()


def _csrf(person: Browser) -> str:
    assert person.last is not None
    found = re.search(r'name="_csrf_token" value="([^"]+)"', person.last.text)
    assert found is not None
    return found.group(1)


async def _attachment(person: Browser) -> str:
    await person.get("/new")
    return (await _submit(person, "add", add_type="ensure_attachment", title="вложение")).text


async def test_the_picker_uploads_through_the_page_and_the_batch_names_the_file(browser: Open, api: Api) -> None:
    """The script's upload: the bytes to ``POST /files`` with the session's CSRF token in a header answer the
    sha256, size and what to show; a batch naming that sha256 is accepted (the file is in the hub's store)."""
    person = await browser("interface")
    await _attachment(person)
    headers = {"HX-Request": "true", "X-CSRF-Token": _csrf(person), "Content-Type": "application/octet-stream"}
    answer = await person.client.post("/files?filename=обороты.txt", content=REPORT, headers=headers)
    assert answer.status_code == 201, answer.text
    sha = hashlib.sha256(REPORT).hexdigest()
    assert answer.json() == {
        "sha256": sha,
        "size": len(REPORT),
        "filename": "обороты.txt",
        "shown": f"обороты.txt, {len(REPORT)} байт",
    }
    params = {"key": "AURORA-1", "file": sha, "filename": "обороты.txt"}
    body = {"author": "a", "title": "t", "commands": [{"type": "ensure_attachment", "params": params}]}
    assert (await api.post("/batches", body)).status_code == 201


async def test_an_upload_without_the_csrf_token_is_refused(browser: Open, api: Api) -> None:
    """The page's upload is a write of the session: without its CSRF token, 403 and nothing stored."""
    person = await browser("interface")
    await _attachment(person)
    answer = await person.client.post("/files", content=REPORT, headers={"HX-Request": "true"})
    assert answer.status_code == 403
    sha = hashlib.sha256(REPORT).hexdigest()
    params = {"key": "AURORA-1", "file": sha, "filename": "a.txt"}
    refused = await api.post(
        "/batches", {"author": "a", "title": "t", "commands": [{"type": "ensure_attachment", "params": params}]}
    )
    assert refused.json()["detail"] == f"команда 1: файл {sha} не загружен: POST /files"


async def test_the_api_keeps_its_raw_upload(api: Api) -> None:
    """``POST /files`` with a bearer token is still the API's: the raw body stored, JSON ``{sha256, size}``."""
    answer = await api.client.post(
        "/files", content=REPORT, headers={"Authorization": f"Bearer {api.tokens['interface']}"}
    )
    assert answer.status_code == 201
    assert answer.json() == {"sha256": hashlib.sha256(REPORT).hexdigest(), "size": len(REPORT)}


async def test_without_javascript_the_form_posts_the_file(browser: Open) -> None:
    """No JavaScript: with an attachment command the editor's form is multipart; the file chosen rides with the
    next button, is stored, and the command names it (its name too, as none was typed), showing name and size."""
    person = await browser("interface")
    page = await _attachment(person)
    assert re.search(
        r'<form method="post" action="/new/edit" class="card" id="editor" enctype="multipart/form-data"', page
    )
    assert 'type="file" id="c1.file.upload" name="c1.file.upload"' in page
    fields = {**_fields(page), "c1.key": "AURORA-1", "op": "redraw", "_csrf_token": _csrf(person)}
    files = {"c1.file.upload": ("отчёт.txt", REPORT, "text/plain")}
    page = (await person.client.post("/new/edit", data=fields, files=files, headers={"Accept": "text/html"})).text
    shown = _fields(page)
    assert (shown["c1.file"], shown["c1.filename"]) == (hashlib.sha256(REPORT).hexdigest(), "отчёт.txt")
    assert element_text(page, "c1.file.shown") == f"отчёт.txt, {len(REPORT)} байт"


async def test_a_sha256_the_hub_does_not_have_is_said(browser: Open) -> None:
    """A sha256 typed that names no stored file: the picker says so before «Проверить»."""
    person = await browser("interface")
    await _attachment(person)
    page = (await _submit(person, "redraw", **{"c1.file": "0" * 64})).text
    assert element_text(page, "c1.file.shown") == "файл с таким sha256 в хабе не загружен"


async def test_status_and_sprint_are_picked_from_the_mirror(browser: Open, api: Api) -> None:
    """The project's statuses and its board's open sprints (of every project on that board; a closed one is not
    offered) as pickers; a picked value is the parameter; a typed one still is."""
    sprint = {"id": 2, "name": "Спринт 2", "state": "active"}
    await seed_mirror(
        api,
        [
            issue("AURORA-1533", labels=["AWPCA"], status="Разработка", sprint=sprint),
            issue(
                "AURORA-1534",
                labels=["AWPCA"],
                status="Тестирование",
                sprint={"id": 1, "name": "Спринт 1", "state": "closed"},
            ),
            issue("AURORA-1535", labels=["OPS"], sprint={"id": 3, "name": "Спринт 3", "state": "future"}),
            issue(
                "AURORA-1",
                labels=["STOCKS_DRRK"],
                status="Готово",
                sprint={"id": 9, "name": "Канбан", "state": "active"},
            ),
        ],
    )
    for name, board in (("AWPCA", 4216), ("OPS", 4216), ("STOCKS_DRRK", 5120)):
        await api.post("/projects", {"name": name, "board_id": board}, role="admin")
    person = await browser("interface")
    await person.get("/new")
    await _submit(person, "add", add_type="ensure_status", project="AWPCA")
    page = (await _submit(person, "add", add_type="ensure_sprint")).text
    statuses = re.findall(
        r'<option value="([^"]*)">', page[page.index('name="c1.target.pick"') :].split("</select>")[0]
    )
    sprints = re.findall(r'<option value="([^"]*)">', page[page.index('name="c2.sprint.pick"') :].split("</select>")[0])
    assert statuses == ["", "Разработка", "Тестирование"]
    assert sprints == ["", "backlog", "Спринт 2", "Спринт 3"]
    page = (
        await _submit(
            person, "redraw", **{"c1.key": "AURORA-1533", "c1.target.pick": "Тестирование", "c2.sprint": "Свой"}
        )
    ).text
    fields = _fields(page)
    assert (fields["c1.target"], fields["c2.sprint"]) == ("Тестирование", "Свой")
