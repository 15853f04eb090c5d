"""The simulator's webhook payloads against real Jira Server/DC deliveries that other projects recorded and published
(``tests/cassettes/webhooks/``, each naming its source and licence).

For each recording the simulator makes the same kind of change and delivers it; the two payloads must have the
same top-level keys (a recording's publisher edits aside, and ``issue_event_type_name``, which Jira sends from
7.1 on and the older recordings lack) and, wherever both have a key, values of the same JSON type, recursively
(into objects, and the first items of lists). ``null`` matches any type: it is an empty field in one instance,
not another shape. Custom fields are not compared: their ids name different fields on different instances.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from jira_sim import Simulator
from reconcile.jira.webhook_events import EVENTS

from .jira_contract import CASSETTES

pytestmark = pytest.mark.anyio

RECORDINGS = sorted((CASSETTES / "webhooks").glob("*.yaml"))
# keys the simulator sends that an older recording may lack, and why they are right
NEWER_KEYS = {"issue_event_type_name": "sent from Jira 7.1 on (jira-to-matrix's 2017 recordings carry it)"}

Change = Callable[[httpx.AsyncClient], Awaitable[Any]]


async def _create(jira: httpx.AsyncClient) -> None:
    fields = {"project": {"key": "AURORA"}, "issuetype": {"name": "Задача"}, "summary": "Новая", "description": "x"}
    await jira.post("/rest/api/2/issue", json={"fields": fields})


async def _edit(jira: httpx.AsyncClient) -> None:
    fields = {"summary": "Шахматка v2", "description": "Новое описание", "priority": {"name": "Highest"}}
    await jira.put("/rest/api/2/issue/AURORA-1533", json={"fields": fields})


async def _transition(jira: httpx.AsyncClient) -> None:
    await jira.post("/rest/api/2/issue/AURORA-1540/transitions", json={"transition": {"id": "31"}})


async def _comment(jira: httpx.AsyncClient) -> None:
    await jira.post("/rest/api/2/issue/AURORA-1533/comment", json={"body": "Комментарий"})


async def _link(jira: httpx.AsyncClient) -> None:
    link = {"type": {"name": "Связанные"}, "inwardIssue": {"key": "AURORA-1533"}, "outwardIssue": {"key": "AURORA-1"}}
    await jira.post("/rest/api/2/issueLink", json=link)


async def _unlink(jira: httpx.AsyncClient) -> None:
    issue = (await jira.get("/rest/api/2/issue/AURORA-1537", params={"fields": "issuelinks"})).json()
    await jira.delete(f"/rest/api/2/issueLink/{issue['fields']['issuelinks'][0]['id']}")


async def _delete(jira: httpx.AsyncClient) -> None:
    await jira.delete("/rest/api/2/issue/AURORA-1533")


# the change each recording shows, by the recording's name
CHANGES: dict[str, Change] = {
    "jira-trigger-plugin_issue_created": _create,
    "jira-trigger-plugin_issue_updated_fields_updated": _edit,
    "jira-trigger-plugin_issue_updated_status_updated": _transition,
    "jira-trigger-plugin_issue_updated_with_comment": _comment,
    "jira-trigger-plugin_comment_created": _comment,
    "jira-to-matrix_comment_created": _comment,
    "jira-to-matrix_issue_updated_commented": _comment,
    "jira-to-matrix_issuelink_created": _link,
    "jira-to-matrix_issuelink_deleted": _unlink,
    "zulip_deleted_v1": _delete,
}


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return {str: "string", list: "array", dict: "object"}[type(value)]


def mismatches(recorded: Any, produced: Any, where: str = "") -> list[str]:
    """Where ``recorded`` and ``produced`` disagree on a JSON type (``null`` agrees with anything)."""
    if recorded is None or produced is None:
        return []
    if _kind(recorded) != _kind(produced):
        return [f"{where or '$'}: recorded {_kind(recorded)}, simulated {_kind(produced)}"]
    if isinstance(recorded, dict):
        out: list[str] = []
        for key in recorded.keys() & produced.keys():
            if key.startswith("customfield_"):
                continue
            out += mismatches(recorded[key], produced[key], f"{where}.{key}")
        return out
    if isinstance(recorded, list) and recorded and produced:
        return mismatches(recorded[0], produced[0], f"{where}[0]")
    return []


def _recording(path: Path) -> tuple[str, dict[str, Any], dict[str, Any]]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return data["event"], data["publisher_edits"], json.loads(data["payload"])


async def _simulated(change: Change, event: str) -> dict[str, Any]:
    """The payload the simulator delivers for ``event`` when ``change`` is made."""
    received: list[dict[str, Any]] = []

    def receiver(request: httpx.Request) -> httpx.Response:
        received.append(json.loads(request.content))
        return httpx.Response(200)

    sim = Simulator(
        clock=lambda: datetime(2026, 10, 22, 9, 0, tzinfo=UTC), webhook_transport=httpx.MockTransport(receiver)
    )
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=sim.asgi), base_url="http://jira.test", headers={"Authorization": "Bearer t"}
    ) as jira:
        hook = {"name": "contract", "url": "http://agent.bank/jira/webhook", "events": list(EVENTS)}
        assert (await jira.post("/rest/jira-webhook/1.0/webhooks", json=hook)).status_code == 201
        await change(jira)
        await sim.settle_webhooks()
    [payload] = [body for body in received if body["webhookEvent"] == event]
    return payload


def test_every_recording_has_its_change() -> None:
    """Each stored recording names one of the simulator's changes, and names its source and licence."""
    assert sorted(p.stem for p in RECORDINGS) == sorted(CHANGES)
    for path in RECORDINGS:
        source = yaml.safe_load(path.read_text(encoding="utf-8"))["source"]
        assert set(source) == {"repository", "path", "commit", "licence"}, path.name
        assert len(source["commit"]) == 40, path.name


@pytest.mark.parametrize("recording", RECORDINGS, ids=lambda p: p.stem)
async def test_simulated_payload_has_the_recorded_shape(recording: Path) -> None:
    """The simulator's payload for the recording's change: the same top-level keys, and the same JSON types
    wherever both have a key."""
    event, edits, recorded = _recording(recording)
    produced = await _simulated(CHANGES[recording.stem], event)
    ignored = set(edits["added"]) | set(edits["rewritten"])
    recorded_keys = set(recorded) - ignored
    assert recorded["webhookEvent"] == produced["webhookEvent"] == event
    assert recorded_keys <= set(produced), f"the simulator lacks {sorted(recorded_keys - set(produced))}"
    assert set(produced) - recorded_keys <= set(NEWER_KEYS) | ignored
    comparable = {k: v for k, v in recorded.items() if k not in ignored}
    assert mismatches(comparable, produced) == []


def test_mismatches_reports_the_path_of_a_different_type() -> None:
    """The comparison names where a type differs, skips nulls and custom fields, and looks into lists."""
    recorded = {"a": {"b": [{"c": 1}]}, "d": None, "e": "x", "customfield_1": 1}
    produced = {"a": {"b": [{"c": "1"}]}, "d": {}, "e": "y", "customfield_1": "one", "f": 2}
    assert mismatches(recorded, produced) == [".a.b[0].c: recorded number, simulated string"]
