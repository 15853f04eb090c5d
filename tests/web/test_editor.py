"""The batch editor as a plain form (no htmx, no JavaScript): a command added per submit, fields from the
catalogue, moved and removed; «Проверить» shows every error next to its command; «Поставить в очередь» queues;
«Повторить» and «Повторить все с ошибкой» open it prefilled. With htmx the same form answers parts of the page."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.hub.support import claim_ok, issue, seed_mirror

from .conftest import Api, Clock, Open
from .support import Browser, element_text, has_element

pytestmark = pytest.mark.anyio


def _fields(html: str) -> dict[str, str]:
    """The editor form's fields as the browser would submit them (inputs, selected options, textareas)."""
    form = html[html.index('id="editor"') : html.index('id="plan"')]
    fields: dict[str, str] = {}
    for tag in re.finditer(r"<input [^>]*>", form):
        attrs = dict(re.findall(r'(\w[\w.-]*)="([^"]*)"', tag.group(0)))
        if "name" in attrs and attrs.get("type") != "submit":
            fields[attrs["name"]] = _unescape(attrs.get("value", ""))
    for select in re.finditer(r'<select id="[^"]*" name="([^"]*)"[^>]*>(.*?)</select>', form, re.S):
        chosen = re.search(r'<option value="([^"]*)" selected', select.group(2))
        first = re.search(r'<option value="([^"]*)"', select.group(2))
        fields[select.group(1)] = _unescape((chosen or first).group(1)) if (chosen or first) else ""
    for area in re.finditer(r'<textarea id="[^"]*" name="([^"]*)"[^>]*>(.*?)</textarea>', form, re.S):
        fields[area.group(1)] = _unescape(area.group(2))
    return fields


def _unescape(text: str) -> str:
    return (
        text.replace("&#34;", '"').replace("&#39;", "'").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    )


async def _submit(person: Browser, op: str, **changes: str) -> Any:
    assert person.last is not None
    fields = {**_fields(person.last.text), **changes, "op": op}
    return await person.post("/new/edit", fields)


async def _with_fields_command(person: Browser, **changes: str) -> str:
    """/new with one ``ensure_fields`` added and its fields set: the page."""
    await person.get("/new")
    await _submit(person, "add", add_type="ensure_fields")
    fields = {"c1.key": "AURORA-1533", "c1.duedate": "2026-10-23", **changes}
    return (await _submit(person, "redraw", **fields)).text


async def test_new_opens_empty_with_add_command_first(browser: Open) -> None:
    """/new (issue 32): no sample command that could be queued by accident — «Добавить команду» is the first
    action, «Проверить» and «В очередь» wait for a command; one «Автор» (the token's name), one pair of buttons."""
    person = await browser("interface")
    page = (await person.get("/new")).text
    assert has_element(page, "editor-empty")
    assert "c1.type" not in _fields(page)
    assert json.loads(element_text(page, "batch")) == {"author": "interface-token", "commands": []}
    assert re.search(r'<button type="submit" name="op" value="check" id="editor-check"[^>]* disabled>', page)
    assert re.search(r'<button type="submit" name="op" value="queue"[^>]* disabled>', page)
    assert page.count(">Автор</label>") == 1 and _fields(page)["author"] == "interface-token"
    assert page.count(">Проверить</button>") == 1 and page.count(">В очередь</button>") == 1
    assert page.index('id="add"') < page.index('id="editor-check"')


async def test_the_editor_shows_a_command_with_its_json(browser: Open) -> None:
    """A command added: its fields (labels and help from the catalogue) and the JSON, the same batch."""
    person = await browser("interface")
    page = await _with_fields_command(person)
    fields = _fields(page)
    assert (fields["c1.type"], fields["c1.key"], fields["c1.duedate"]) == ("ensure_fields", "AURORA-1533", "2026-10-23")
    assert element_text(page, "cmd-1").startswith("1. Поля задачи ensure_fields")
    assert "Срок (обязательно)" not in element_text(page, "cmd-1")
    assert "Задача (обязательно) key" in element_text(page, "cmd-1")
    assert json.loads(element_text(page, "batch"))["commands"] == [
        {"type": "ensure_fields", "params": {"key": "AURORA-1533", "duedate": "2026-10-23"}}
    ]


async def test_one_command_is_added_per_submit_with_its_fields(browser: Open) -> None:
    """«Добавить команду» of a type: its fields appear (an ensure_issue with the next temp key), the rest stays."""
    person = await browser("interface")
    await person.get("/new")
    page = (await _submit(person, "add", add_type="ensure_issue")).text
    assert _fields(page)["c1.temp_key"] == "new:1"
    page = (await _submit(person, "add", add_type="ensure_issue", **{"c1.summary": "Сверка"})).text
    fields = _fields(page)
    assert (fields["c1.summary"], fields["c2.temp_key"]) == ("Сверка", "new:2")
    page = (await _submit(person, "add", add_type="ensure_status")).text
    assert 'name="c3.key.new"' in page  # the temp keys of the commands before it, to pick
    assert re.search(r"<option value=\"new:1\"\s*>new:1 «Сверка»</option>", page)


async def test_commands_move_and_go(browser: Open) -> None:
    """↑ and ✕: the order changes, a removed command is gone from the editor and from the JSON."""
    person = await browser("interface")
    await _with_fields_command(person)
    await _submit(person, "add", add_type="ensure_comment")
    page = (await _submit(person, "up-2")).text
    assert [c["type"] for c in json.loads(element_text(page, "batch"))["commands"]] == [
        "ensure_comment",
        "ensure_fields",
    ]
    page = (await _submit(person, "remove-1")).text
    assert [c["type"] for c in json.loads(element_text(page, "batch"))["commands"]] == ["ensure_fields"]


async def test_check_shows_every_error_next_to_its_command(browser: Open, api: Api) -> None:
    """Three mistakes: each once, under its command (and field), in the words on screen — the API's message with
    the catalogue's labels for the parameter ids; the summary counts them; nothing stored."""
    person = await browser("interface")
    await _with_fields_command(person)
    await _submit(person, "add", add_type="ensure_status")
    await _submit(person, "add", add_type="ensure_link")
    changes = {
        "project": "",
        "title": "три ошибки",
        "c1.duedate": "23.10.2026",
        "c2.key": "AURORA-1",
        "c3.source": "AURORA-1",
        "c3.target": "AURORA-1",
        "c3.link_type": "связанные",
    }
    response = await _submit(person, "check", **changes)
    assert response.status_code == 422
    page = response.text
    api_answer = (await api.post("/batches", {"author": "a", **json.loads(element_text(page, "batch"))})).json()
    assert api_answer["detail"] == "команда 1 (ensure_fields): duedate — ожидается дата ГГГГ-ММ-ДД"
    assert element_text(page, "editor-summary") == "Ошибок: 3 — у команд 1, 2, 3. Каждая показана у своей команды."
    assert element_text(page, "cmd-1-errors") == "команда 1 (ensure_fields): «Срок» — ожидается дата ГГГГ-ММ-ДД"
    assert element_text(page, "cmd-2-errors") == (
        "команда 2 (ensure_status): нет «Статус или путь»; ожидаются «Задача», «Статус или путь»"
    )
    assert element_text(page, "cmd-3-errors") == "команда 3 (ensure_link): «Откуда» и «Куда» — одна задача"
    assert page.count("ожидается дата ГГГГ-ММ-ДД") == 1
    assert not has_element(page, "plan-error")
    assert 'class="field has-error" id="c1-duedate-field"' in page
    assert [e["command"] for e in api_answer["errors"]] == [1, 2, 3]
    assert (await api.get("/batches")).json()["total"] == 0


async def test_check_of_a_good_batch_shows_the_plan(browser: Open, api: Api) -> None:
    """A valid draft: «Проверить» shows the plan, no error."""
    await seed_mirror(api, [issue("AURORA-1533", duedate="2026-10-01", labels=["AWPCA"])])
    await api.post("/projects", {"name": "AWPCA"}, role="admin")
    person = await browser("interface")
    await _with_fields_command(person, project="AWPCA")
    page = (await _submit(person, "check", title="сроки")).text
    assert element_text(page, "plan-command-1").startswith("1. ensure_fields · AURORA-1533 ~ срок")
    assert not has_element(page, "editor-summary")


async def test_queue_creates_the_batch_from_the_fields(browser: Open, api: Api) -> None:
    """«Поставить в очередь»: lists one a line, yes/no, a temp key picked: the batch as the fields say."""
    person = await browser("interface")
    await person.get("/new")
    await _submit(person, "add", add_type="ensure_issue", title="новое", project="")
    await _submit(person, "add", add_type="ensure_link", **{"c1.summary": "Сверка", "c1.labels": "a\nb"})
    response = await _submit(
        person,
        "queue",
        **{"c2.source.new": "new:1", "c2.target": "AURORA-7", "c2.link_type": "связанные", "c2.replace": "true"},
    )
    assert response.status_code == 303, response.text
    created = (await api.get("/batches")).json()["items"][0]
    assert [(c["type"], c["params"]) for c in created["commands"][:2]] == [
        ("ensure_issue", {"temp_key": "new:1", "summary": "Сверка", "labels": ["a", "b"]}),
        ("ensure_link", {"source": "new:1", "target": "AURORA-7", "link_type": "связанные", "replace": True}),
    ]
    assert (created["author"], created["title"]) == ("interface-token", "новое")


async def test_the_json_view_redraws_the_editor(browser: Open) -> None:
    """«load» of the JSON view: the editor shows its commands (an unknown parameter kept as JSON, named)."""
    person = await browser("interface")
    await person.get("/new")
    body = {
        "title": "из JSON",
        "commands": [{"type": "ensure_status", "params": {"key": "AURORA-1", "status": "Готово"}}],
    }
    page = (await person.post("/new/edit", {"op": "load", "batch": json.dumps(body, ensure_ascii=False)})).text
    fields = _fields(page)
    assert (fields["title"], fields["c1.key"], fields["c1._extra"], fields["c1.x.status"]) == (
        "из JSON",
        "AURORA-1",
        "status",
        '"Готово"',
    )
    page = (await _submit(person, "check", **{"c1.target": "Готово"})).text
    assert element_text(page, "cmd-1-errors") == (
        "команда 1 (ensure_status): лишние параметры status; ожидаются «Задача», «Статус или путь»"
    )


async def test_over_htmx_a_field_change_answers_the_json_view(browser: Open) -> None:
    """htmx: a changed field answers only the JSON view (retargeted to it); a button answers the editor with the
    JSON view and the plan out of band."""
    person = await browser("interface")
    page = await _with_fields_command(person)
    fields = {**_fields(page), "c1.duedate": "2026-12-31"}
    response = await person.post("/new/edit", fields, htmx=True)
    assert response.headers["hx-retarget"] == "#batch"
    assert json.loads(element_text(response.text, "batch"))["commands"][0]["params"]["duedate"] == "2026-12-31"
    response = await person.post("/new/edit", {**fields, "op": "add", "add_type": "refresh"}, htmx=True)
    assert "<html" not in response.text
    assert has_element(response.text, "cmd-2") and 'hx-swap-oob="true"' in response.text


async def test_retry_all_failed_opens_the_editor_prefilled(browser: Open, api: Api) -> None:
    """«Повторить все с ошибкой»: the failed commands of the batch in the editor, temp keys resolved where
    known; queued from there, the new batch retries them."""
    commands = [
        {"type": "ensure_issue", "params": {"temp_key": "new:1", "summary": "Сверка"}},
        {"type": "ensure_fields", "params": {"key": "new:1", "duedate": "2026-10-23"}},
        {"type": "ensure_comment", "params": {"key": "new:1", "marker": "[m]", "body": "b"}},
    ]
    await api.patch("/settings", {"issue_types": {"task": {"name": "Задача"}}})
    created = (await api.post("/batches", {"author": "a", "title": "t", "commands": commands})).json()
    assert "id" in created, created
    first = await claim_ok(api)
    await api.report(first["id"], {"status": "done", "result": {"key": "AURORA-77"}})
    for _ in range(2):
        command = await claim_ok(api)
        await api.report(command["id"], {"status": "failed", "error": "Jira 503"})
    person = await browser("interface")
    batch_page = (await person.get(f"/batches/{created['id']}")).text
    assert element_text(batch_page, "retry-failed") == "Повторить все с ошибкой (2)"
    page = (await person.get(f"/new?retry_failed={created['id']}")).text
    fields = _fields(page)
    assert (fields["c1.type"], fields["c1.key"], fields["c2.type"], fields["c2.key"]) == (
        "ensure_fields",
        "AURORA-77",
        "ensure_comment",
        "AURORA-77",
    )
    assert (fields["title"], fields["author"]) == (f"повтор ошибок пакета {created['id']}: t", "a")
    response = await _submit(person, "queue")
    assert response.status_code == 303, response.text
    again = (await api.get("/batches")).json()["items"][0]
    assert [c["params"].get("key") for c in again["commands"]] == ["AURORA-77", "AURORA-77", None]
    assert (again["author"], again["token_name"]) == ("a", "interface-token")  # the batch's author, kept


async def test_a_draft_posted_after_the_session_ended_opens_after_the_login(
    browser: Open, api: Api, clock: Clock
) -> None:
    """The session ends while the person edits: «Проверить» sends them to log in, keeping the draft; after the
    login /new opens with it (once); nothing was checked or stored meanwhile."""
    person = await browser("interface")
    await person.get("/new")
    await _submit(person, "add", add_type="ensure_fields")
    await _submit(person, "add", add_type="ensure_comment", title="длинный пакет")
    fields = {**_fields(person.last.text if person.last else ""), "c2.key": "AURORA-5", "op": "check"}
    clock.advance(hours=13)
    response = await person.post("/new/edit", fields)
    assert (response.status_code, response.headers["location"]) == (303, "/login?next=/new")
    login = await person.login(api.tokens["interface"], target="/new")
    page = (await person.follow(login)).text
    assert has_element(page, "draft-restored")
    restored = _fields(page)
    assert (restored["title"], restored["c2.type"], restored["c2.key"]) == (
        "длинный пакет",
        "ensure_comment",
        "AURORA-5",
    )
    assert not has_element((await person.get("/new")).text, "draft-restored")
    assert (await api.get("/batches")).json()["total"] == 0


async def test_a_kept_draft_expires(browser: Open, api: Api, clock: Clock) -> None:
    """A draft not taken within a day is gone: /new opens empty."""
    person = await browser("interface")
    await person.get("/new")
    fields = {**_fields(person.last.text if person.last else ""), "title": "забытый", "op": "check"}
    clock.advance(hours=13)
    await person.post("/new/edit", fields)
    clock.advance(hours=25)
    page = (await person.follow(await person.login(api.tokens["interface"], target="/new"))).text
    assert not has_element(page, "draft-restored")
    assert _fields(page)["title"] == ""


async def test_json_that_is_no_json_leaves_the_editor_as_it_was(browser: Open) -> None:
    """htmx: a JSON view that does not parse is told under the editor; the editor is not swapped."""
    person = await browser("interface")
    await person.get("/new")
    response = await person.post("/new/edit", {"op": "load", "batch": "{не json"}, htmx=True)
    assert response.headers["hx-reswap"] == "none"
    assert element_text(response.text, "editor-summary").startswith("тело запроса — не JSON: ")
    assert not has_element(response.text, "cmd-1")


async def test_retry_opens_the_editor_with_the_command_and_the_batch_retries_it(browser: Open, api: Api) -> None:
    """«Изменить и повторить»: the failed command in the editor, editable; queued, the batch retries it."""
    created = (
        await api.post(
            "/batches",
            {
                "author": "a",
                "title": "срок",
                "commands": [{"type": "ensure_fields", "params": {"key": "AURORA-1", "duedate": "2026-10-23"}}],
            },
        )
    ).json()
    command = await claim_ok(api)
    await api.report(command["id"], {"status": "failed", "error": "Jira 503"})
    person = await browser("interface")
    assert element_text((await person.get(f"/commands/{command['id']}")).text, "retry-edit") == "Изменить и повторить"
    page = (await person.get(f"/new?retry={command['id']}")).text
    fields = _fields(page)
    assert (fields["c1.key"], fields["c1.duedate"], fields["retry_of"]) == (
        "AURORA-1",
        "2026-10-23",
        str(command["id"]),
    )
    assert fields["title"] == f"повтор команды {command['id']}: срок"
    response = await _submit(person, "queue", **{"c1.duedate": "2026-11-30"})
    assert response.status_code == 303, response.text
    again = (await api.get("/batches")).json()["items"][0]
    assert again["id"] != created["id"]
    assert again["commands"][0]["params"] == {"key": "AURORA-1", "duedate": "2026-11-30"}
    assert again["commands"][0]["retry_of"] == command["id"]


async def test_the_keys_suggested_are_the_projects_slice(browser: Open, api: Api) -> None:
    """A project chosen, the editor suggests its slice's keys and statuses (the page's lists), not another's."""
    await seed_mirror(
        api,
        [
            issue("AURORA-1533", labels=["AWPCA"], status="Разработка"),
            issue("AURORA-1", labels=["STOCKS_DRRK"], status="Готово"),
        ],
    )
    for name in ("AWPCA", "STOCKS_DRRK"):
        await api.post("/projects", {"name": name}, role="admin")
    person = await browser("interface")
    await person.get("/new")
    page = (await _submit(person, "redraw", project="AWPCA")).text
    assert re.search(r'<datalist id="mirror-keys">.*AURORA-1533.*</datalist>', page, re.S)
    assert '<option value="AURORA-1">' not in page
    assert re.search(r'<datalist id="mirror-statuses"><option value="Разработка"></option></datalist>', page)
