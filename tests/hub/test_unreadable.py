"""A refresh that could not read some issues (``result.unreadable``): their mirror rows stay as they were, and
a full refresh does not count them as vanished (DESIGN.md 6, issue 10)."""

from __future__ import annotations

import pytest

from .conftest import Api, Clock
from .support import claim_ok, done, issue

pytestmark = pytest.mark.anyio


async def test_unreadable_issues_keep_their_rows_and_do_not_vanish(api: Api, clock: Clock) -> None:
    """AURORA-2 unreadable in a full refresh: its old record stays (not vanished); the readable one is updated."""
    await api.post("/projects", {"name": "AWPCA"}, role="admin")
    first = await claim_ok(api)
    old = [issue("AURORA-1", labels=["AWPCA"]), issue("AURORA-2", labels=["AWPCA"], summary="старая тема")]
    await api.pages(first["id"], {"page": 1, "kind": "issues", "issues": old, "history": []})
    await done(api, first["id"], {"issues": 2, "neighbours": 0, "boards": {}})
    clock.advance(minutes=20)
    again = await claim_ok(api)
    assert again["type"] == "refresh"
    fresh = [issue("AURORA-1", labels=["AWPCA"], summary="новая тема")]
    await api.pages(again["id"], {"page": 1, "kind": "issues", "issues": fresh, "history": []})
    unreadable = [{"key": "AURORA-2", "error": "ответ Jira по AURORA-2: labels — ожидается список, получено: строка"}]
    result = {"issues": 1, "neighbours": 0, "boards": {}, "unreadable": unreadable}
    await done(api, again["id"], result)
    kept = (await api.get("/issues/AURORA-2")).json()
    assert (kept["summary"], kept["vanished_at"]) == ("старая тема", None)
    assert (await api.get("/issues/AURORA-1")).json()["summary"] == "новая тема"
    assert (await api.get(f"/commands/{again['id']}")).json()["result"]["unreadable"] == unreadable
