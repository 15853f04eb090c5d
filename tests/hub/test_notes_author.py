"""Notes are signed with the token's name through every door (issue 24, item 11): a batch's notes and ``POST
/notes`` keep the token's name as author, whatever the batch's ``author`` says; on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest

from tests.support import cmd

from .conftest import Api
from .support import create_ok

pytestmark = pytest.mark.anyio


async def test_notes_record_the_token_name(api: Api) -> None:
    """A batch by author «root» with the interface token: its notes' author is interface-token, as is a note
    added alone; the batch keeps its author and its token name apart."""
    batch = await create_ok(
        api,
        [cmd("ensure_issue", temp_key="new:1", summary="Сверка")],
        author="root",
        notes=[{"key": "new:1", "text": "почему"}, {"key": "AURORA-1", "text": "связано"}],
    )
    alone = await api.post("/notes", {"key": "AURORA-1", "text": "срок"}, role="admin")
    assert alone.json()["author"] == "admin-token"
    stored = (await api.get(f"/batches/{batch['id']}")).json()
    assert (stored["author"], stored["token_name"]) == ("root", "interface-token")
    assert [(n["key"], n["author"]) for n in stored["notes"]] == [
        ("new:1", "interface-token"),
        ("AURORA-1", "interface-token"),
    ]
    listed = (await api.get("/notes", params={"key": "AURORA-1"})).json()["items"]
    assert [(n["text"], n["author"]) for n in listed] == [("связано", "interface-token"), ("срок", "admin-token")]
