"""Project names are Jira labels (issue 24, item 7): a name Jira would not keep as a label → 422 «недопустимое
имя проекта: …» and nothing written; every label Jira keeps, up to 255 characters, can be added, opened, changed
and deleted."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from .conftest import Api

pytestmark = pytest.mark.anyio

RULE = "метка Jira без пробелов, «/» и управляющих символов, не длиннее 255 символов"


@pytest.mark.parametrize(
    ("name", "detail"),
    [
        ("AW PCA", f"недопустимое имя проекта: «AW PCA» — {RULE}"),
        ("AW/PCA", f"недопустимое имя проекта: «AW/PCA» — {RULE}"),
        ("AW\tPCA", f"недопустимое имя проекта: «AW\\tPCA» — {RULE}"),
        ("AW\u2003PCA", f"недопустимое имя проекта: «AW\\u2003PCA» — {RULE}"),
        ("AW\x7fPCA", f"недопустимое имя проекта: «AW\\x7fPCA» — {RULE}"),
        ("P" * 256, f"недопустимое имя проекта: «{'P' * 60}…» длиннее 255 символов"),
    ],
)
async def test_a_name_jira_would_not_keep_is_refused(api: Api, name: str, detail: str) -> None:
    """A space, ``/``, a control character or more than 255 characters: 422 with the rule; no project."""
    response = await api.post("/projects", {"name": name, "board_id": 7}, role="admin")
    assert response.status_code == 422
    assert response.json() == {"status_code": 422, "detail": detail}
    assert (await api.get("/projects")).json() == {"items": [], "total": 0}


@pytest.mark.parametrize("name", ["P" * 255, 'x#y?z%"(,)'])
async def test_every_label_jira_keeps_can_be_added_changed_and_deleted(api: Api, name: str) -> None:
    """The longest label and one with URL punctuation: added, then reached by its URL (quoted) to change and
    delete it."""
    assert (await api.post("/projects", {"name": name}, role="admin")).status_code == 201
    path = f"/projects/{quote(name, safe='')}"
    changed = await api.patch(path, {"board_id": 4216})
    assert changed.status_code == 200, changed.text
    assert changed.json()["name"] == name
    assert (await api.delete(path)).status_code == 204
    assert (await api.get("/projects")).json()["total"] == 0
