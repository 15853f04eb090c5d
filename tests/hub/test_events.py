"""The hub's log events (DESIGN.md 10): a batch created, a command issued, a command reported — each once, after
its transaction commits, with the fields an operator searches by."""

from __future__ import annotations

import logging

import pytest

from tests.support import cmd

from .conftest import Api, Clock
from .support import claim_ok, create, create_ok, done

pytestmark = pytest.mark.anyio


def events(caplog: pytest.LogCaptureFixture) -> list[dict[str, object]]:
    return [
        {"event": r.getMessage(), **{k: v for k, v in vars(r).items() if k in FIELDS}}
        for r in caplog.records
        if r.name.startswith("hub_app.")
    ]


FIELDS = {"batch_id", "command_id", "type", "key", "status", "accepted", "jira_calls", "duration_ms", "deliveries"}


async def test_batch_issue_report_events(api: Api, clock: Clock, caplog: pytest.LogCaptureFixture) -> None:
    """Creating, issuing and reporting one command logs three events carrying its ids, type, key and timing;
    a refused batch logs none."""
    caplog.set_level(logging.INFO, logger="hub_app")
    refused = await create(api, [cmd("ensure_fields", key="not a key")])
    assert refused.status_code == 422
    created = await create_ok(api, [cmd("ensure_fields", key="AURORA-7", duedate="2026-10-23")])
    first = created["commands"][0]
    delivery = await claim_ok(api)
    clock.advance(seconds=1.5)
    await done(api, delivery["id"], jira_calls=2)
    assert events(caplog) == [
        {"event": "batch_created", "batch_id": created["id"]},
        {
            "event": "command_issued",
            "command_id": first["id"],
            "batch_id": created["id"],
            "type": "ensure_fields",
            "key": "AURORA-7",
            "deliveries": 1,
        },
        {
            "event": "command_reported",
            "command_id": first["id"],
            "batch_id": created["id"],
            "type": "ensure_fields",
            "key": "AURORA-7",
            "status": "done",
            "accepted": True,
            "jira_calls": 2,
            "duration_ms": 1500,
        },
    ]
