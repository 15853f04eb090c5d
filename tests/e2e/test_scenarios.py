"""The seed's scenarios end to end: real hub, simulator and agent processes on loopback; the final Jira state
is read from the simulator's control API and the statuses from the hub."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from loopback.stack import Stack

from .e2e_support import finish, full_refresh, hub_get, is_write, sim_calls, sim_issue, submit

pytestmark = pytest.mark.e2e


def by_seq(batch: dict[str, Any]) -> list[dict[str, Any]]:
    return sorted(batch["commands"], key=lambda c: c["seq"])


def test_seed_scenarios(stack: Stack) -> None:
    """Repeat without writes, CRLF-equal text, link conflict and replace, symmetric reverse link, status path,
    bug creation with a sprint and attachments, the kanban 422 and the board type found by refresh."""
    stack.start_agent()
    full_refresh(stack)
    projects = {p["name"]: p for p in hub_get(stack, "/projects")["items"]}
    assert (projects["STOCKS_DRRK"]["board_id"], projects["STOCKS_DRRK"]["board_type"]) == (5120, "kanban")

    with stack.client() as client:
        kanban = client.post(
            "/batches",
            json={
                "author": "e2e",
                "title": "канбан",
                "commands": [{"type": "ensure_sprint", "params": {"key": "AURORA-1", "sprint": "Спринт 2"}}],
            },
        )
        assert kanban.status_code == 422
        assert "у проекта STOCKS_DRRK канбан-доска, спринтов нет" in kanban.json()["detail"]
        content = bytes(range(256)) * 8  # 2048 bytes: the size of AURORA-1540's «ОСВ 60.xlsx»
        uploaded = client.post("/files", params={"filename": "ОСВ 60.xlsx"}, content=content).json()
    sha = hashlib.sha256(content).hexdigest()
    assert uploaded == {"sha256": sha, "size": 2048}

    calls_before = len(sim_calls(stack))
    batch = submit(
        stack,
        {
            "author": "e2e",
            "title": "сценарии",
            "commands": [
                {"type": "ensure_fields", "params": {"key": "AURORA-1533", "duedate": "2026-10-23"}},
                {
                    "type": "ensure_fields",
                    "params": {"key": "AURORA-1538", "description": "Первая строка\nВторая строка"},
                },
                {
                    "type": "ensure_link",
                    "params": {
                        "source": "AURORA-1537",
                        "target": "AURORA-1538",
                        "link_type": "связанные",
                        "replace": False,
                    },
                },
                {
                    "type": "ensure_link",
                    "params": {
                        "source": "AURORA-1537",
                        "target": "AURORA-1538",
                        "link_type": "связанные",
                        "replace": True,
                    },
                },
                {
                    "type": "ensure_link",
                    "params": {"source": "AURORA-1445", "target": "AURORA-1446", "link_type": "связанные"},
                },
                {
                    "type": "ensure_status",
                    "params": {"key": "AURORA-1446", "target": ["Разработка", "Тестирование", "Готово"]},
                },
                {
                    "type": "ensure_issue",
                    "params": {
                        "temp_key": "new:1",
                        "issue_type": "bug",
                        "summary": "ОСВ 60 не распознана",
                        "labels": ["AWPCA"],
                    },
                },
                {"type": "ensure_sprint", "params": {"key": "new:1", "sprint": "Спринт 2"}},
                {"type": "ensure_attachment", "params": {"key": "new:1", "file": sha, "filename": "ОСВ 60.xlsx"}},
                {
                    "type": "ensure_attachment",
                    "params": {"key": "AURORA-1540", "file": sha, "filename": "ОСВ 60.xlsx"},
                },
                {
                    "type": "ensure_comment",
                    "params": {
                        "key": "AURORA-1533",
                        "marker": "[план]",
                        "body": "[план] Срок согласован\nс заказчиком",
                    },
                },
            ],
        },
    )
    final = by_seq(finish(stack, batch["id"], timeout=60))
    statuses = [(c["type"], c["status"]) for c in final]
    assert statuses == [
        ("ensure_fields", "done"),
        ("ensure_fields", "done"),
        ("ensure_link", "failed"),
        ("ensure_link", "done"),
        ("ensure_link", "done"),
        ("ensure_status", "done"),
        ("ensure_issue", "done"),
        ("ensure_sprint", "done"),
        ("ensure_attachment", "done"),
        ("ensure_attachment", "done"),
        ("ensure_comment", "done"),
        ("refresh", "done"),
    ]
    details = [hub_get(stack, f"/commands/{c['id']}") for c in final]
    repeat, crlf, conflict, replaced, symmetric, path, bug, sprint, attach_new, attach_same, comment, _ = details

    assert (repeat["result"], repeat["jira_calls"]) == ({"changed": []}, 1)
    assert crlf["result"] == {"changed": []}
    assert "Блокирует начало" in conflict["error"]
    assert replaced["result"]["existed"] is False
    assert len(replaced["result"]["removed"]) == 1
    assert symmetric["result"]["existed"] is True
    assert path["result"]["status"] == "Готово"
    assert len(path["result"]["transitions"]) == 3
    key = bug["result"]["key"]
    assert bug["result"]["created"] is True
    assert sprint["result"]["moved"] is True
    assert attach_new["result"]["uploaded"] is True
    assert (attach_same["result"]["uploaded"], attach_same["jira_calls"]) == (False, 1)
    assert comment["result"]["action"] == "none"

    created = sim_issue(stack, key)
    assert (created["summary"], created["issuetype"], created["labels"]) == (
        "ОСВ 60 не распознана",
        "Ошибка",
        ["AWPCA"],
    )
    assert [s["name"] for s in created["sprints"]] == ["Спринт 2"]
    assert [(a["filename"], a["size"]) for a in created["attachments"]] == [("ОСВ 60.xlsx", 2048)]
    links = [(link["type"], link["inward"], link["outward"]) for link in sim_issue(stack, "AURORA-1537")["links"]]
    assert ("Связанные", "AURORA-1537", "AURORA-1538") in links
    assert ("Блокирует начало", "AURORA-1537", "AURORA-1538") not in links
    assert sim_issue(stack, "AURORA-1446")["status"] == "Готово"
    assert len(sim_issue(stack, "AURORA-1540")["attachments"]) == 1
    assert sim_issue(stack, "AURORA-1533")["duedate"] == "2026-10-23"

    writes = [f"{c['method']} {c['path']}" for c in sim_calls(stack)[calls_before:] if is_write(c)]
    link_writes = [w for w in writes if "/issueLink" in w]
    assert link_writes == [
        f"DELETE /rest/api/2/issueLink/{replaced['result']['removed'][0]}",
        "POST /rest/api/2/issueLink",
    ]
    assert not any("AURORA-1533" in w or "AURORA-1540" in w or "AURORA-1538" in w for w in writes), writes
    mirror = hub_get(stack, f"/issues/{key}")
    assert mirror["sprint"]["name"] == "Спринт 2"
