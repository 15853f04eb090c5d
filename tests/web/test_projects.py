"""Projects (admins add, change, delete; a refusal shown in the hub's words) and a project's mirror slice:
filtered by text and status, paged."""

from __future__ import annotations

import pytest

from tests.hub.support import issue, link, seed_mirror

from .conftest import Api, Open
from .support import cells, element_text

pytestmark = pytest.mark.anyio


async def _project(api: Api, name: str = "AWPCA", **board: object) -> None:
    response = await api.post("/projects", {"name": name, **board}, role="admin")
    assert response.status_code == 201, response.text


async def test_admin_adds_changes_and_deletes_a_project(browser: Open, api: Api) -> None:
    """Add with a board, change the board (its type is forgotten until given or read), delete."""
    person = await browser("admin")
    await person.get("/projects")
    response = await person.post("/projects", {"name": "AWPCA", "board_id": "4216", "board_type": "scrum"})
    page = (await person.follow(response)).text
    assert "проект AWPCA добавлен" in page
    assert cells(page, "projects")[1][:3] == ["AWPCA", "4216", "scrum"]
    response = await person.post("/projects/AWPCA/edit", {"board_id": "5120", "board_type": ""})
    page = (await person.follow(response)).text
    assert "проект AWPCA изменён" in page
    assert (await api.get("/projects")).json()["items"][0] | {"created_at": None} == {
        "name": "AWPCA",
        "board_id": 5120,
        "board_type": None,
        "created_at": None,
    }
    response = await person.post("/projects/AWPCA/delete")
    assert "проект AWPCA удалён" in (await person.follow(response)).text
    assert (await api.get("/projects")).json()["items"] == []


async def test_project_refusals_are_shown_in_the_hubs_words(browser: Open, api: Api) -> None:
    """A board id that is not a number and a second project of the same name: the API's 422 and 409."""
    await _project(api)
    person = await browser("admin")
    await person.get("/projects")
    response = await person.post("/projects", {"name": "NEW", "board_id": "доска"})
    assert "board_id — ожидается целое число или null" in (await person.follow(response)).text
    response = await person.post("/projects", {"name": "awpca"})
    assert "проект AWPCA уже есть" in (await person.follow(response)).text
    assert [p["name"] for p in (await api.get("/projects")).json()["items"]] == ["AWPCA"]


async def test_slice_filters_by_text_and_status(browser: Open, api: Api) -> None:
    """The slice shows key, summary, status, sprint, epic, dates and links; text matches key or summary
    (any case), status matches exactly; issues of other projects stay out."""
    await _project(api)
    await seed_mirror(
        api,
        [
            issue(
                "AURORA-1",
                summary="Сверка оборотов",
                labels=["AWPCA"],
                status="Разработка",
                epic_key="AURORA-9",
                planned_start="2026-10-01",
                duedate="2026-10-23",
                sprint={"id": 7, "name": "Спринт 2", "state": "active"},
                links=[link("10007", "Связанные", "AURORA-1", "AURORA-2")],
            ),
            issue("AURORA-2", summary="Отчёт", labels=["AWPCA"], status="Готово"),
            issue("AURORA-3", summary="Сверка чужая", labels=["STOCKS"], status="Разработка"),
        ],
    )
    person = await browser("interface")
    page = (await person.get("/projects/AWPCA")).text
    assert cells(page, "issues")[1:] == [
        [
            "AURORA-1",
            "Сверка оборотов",
            "Разработка",
            "Спринт 2",
            "AURORA-9",
            "01.10.2026",
            "—",
            "23.10.2026",
            "AURORA-2 Связанные",
        ],
        ["AURORA-2", "Отчёт", "Готово", "—", "—", "—", "—", "—", "AURORA-1 Связанные"],
    ]
    assert element_text(page, "status") == "любой Готово Разработка"
    narrowed = (await person.get("/projects/AWPCA?q=сВЕРКА")).text
    assert [row[0] for row in cells(narrowed, "issues")[1:]] == ["AURORA-1"]
    by_status = (await person.get("/projects/AWPCA?status=Готово", htmx=True)).text
    assert [row[0] for row in cells(by_status, "issues")[1:]] == ["AURORA-2"]
    assert "<html" not in by_status
    none = (await person.get("/projects/AWPCA?q=zzz")).text
    assert cells(none, "issues")[1:] == [["Задач нет."]]


async def test_slice_is_paged(browser: Open, api: Api) -> None:
    """50 issues a page; the pager keeps the filter."""
    await _project(api)
    await seed_mirror(api, [issue(f"AURORA-{n}", labels=["AWPCA"], status="Готово") for n in range(1, 56)])
    person = await browser("interface")
    first = (await person.get("/projects/AWPCA?status=Готово")).text
    assert len(cells(first, "issues")) == 51
    assert 'href="/projects/AWPCA?page=2&amp;status=%D0%93%D0%BE%D1%82%D0%BE%D0%B2%D0%BE"' in first
    second = (await person.get("/projects/AWPCA?page=2&status=Готово")).text
    assert len(cells(second, "issues")) == 6
    assert "Найдено задач: 55" in second


async def test_unknown_project_is_named(browser: Open) -> None:
    """A project that does not exist: 404 with the hub's message."""
    person = await browser("interface")
    response = await person.get("/projects/NOPE")
    assert response.status_code == 404
    assert element_text(response.text, "error") == "нет проекта NOPE"


async def test_a_name_jira_would_not_keep_is_refused_on_the_page(browser: Open, api: Api) -> None:
    """The page's form refuses a name with ``/`` in the API's words; nothing is added."""
    person = await browser("admin")
    await person.get("/projects")
    response = await person.post("/projects", {"name": "AW/PCA"})
    expected = (
        "недопустимое имя проекта: «AW/PCA» — метка Jira без пробелов, «/» и управляющих символов, "
        "не длиннее 255 символов"
    )
    assert expected in (await person.follow(response)).text
    assert (await api.get("/projects")).json()["items"] == []


async def test_a_name_with_url_punctuation_opens_from_its_link(browser: Open, api: Api) -> None:
    """A label with ``#?%`` is linked quoted: the link opens its slice and its forms reach it."""
    await _project(api, "x#y?z%")
    person = await browser("admin")
    page = (await person.get("/projects")).text
    assert 'href="/projects/x%23y%3Fz%25"' in page
    assert "<h1>Проект x#y?z%</h1>" in (await person.get("/projects/x%23y%3Fz%25")).text
    await person.get("/projects")
    response = await person.post("/projects/x%23y%3Fz%25/delete")
    assert "проект x#y?z% удалён" in (await person.follow(response)).text
    assert (await api.get("/projects")).json()["items"] == []
