"""Idempotent creation (DESIGN.md 6.3): ``Idempotency-Key`` on ``POST /batches`` and ``POST /refresh``."""

from __future__ import annotations

import json

import anyio
import httpx
import pytest
from sqlalchemy import func, select

from adapters.storage.models import BatchRow, IdempotencyKeyRow
from hub_app.bodies.admin import TokenIn
from hub_app.operations import admin
from hub_app.runtime.hub import Hub
from tests.support import cmd

from .conftest import Api, Clock
from .support import FIELDS, assert_refused, done

pytestmark = pytest.mark.anyio

BODY = {"author": "planner", "title": "план", "commands": [FIELDS]}
OTHER = {"author": "planner", "title": "другой план", "commands": [FIELDS]}


async def _batches(hub: Hub) -> int:
    async with hub.unit() as unit:
        return await unit.db.session.scalar(select(func.count()).select_from(BatchRow)) or 0


async def _post(
    api: Api, body: object, key: str | None, path: str = "/batches", role: str = "interface"
) -> httpx.Response:
    headers = api.auth(role) | ({"Idempotency-Key": key} if key is not None else {})
    return await api.client.post(path, content=json.dumps(body, ensure_ascii=False), headers=headers)


async def test_the_same_key_and_body_answer_the_first_batch(api: Api, hub: Hub) -> None:
    """201 the first time; 200 with the same batch and Idempotent-Replayed: true after; one batch stored."""
    first = await _post(api, BODY, "plan-1")
    again = await _post(api, BODY, "plan-1")
    assert (first.status_code, again.status_code) == (201, 200)
    assert "idempotent-replayed" not in first.headers
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()
    assert await _batches(hub) == 1


async def test_the_body_is_compared_as_canonical_json(api: Api, hub: Hub) -> None:
    """Another order of keys and other whitespace are the same body."""
    first = await _post(api, BODY, "k")
    spaced = '{ "commands" : [ {"params": {"duedate": "2026-10-23", "key": "AURORA-1"}, "type": "ensure_fields"} ],\n'
    spaced += ' "title": "план",  "author": "planner" }'
    headers = api.auth("interface") | {"Idempotency-Key": "k"}
    again = await api.client.post("/batches", content=spaced.encode(), headers=headers)
    assert (again.status_code, again.json()["id"]) == (200, first.json()["id"])
    assert await _batches(hub) == 1


async def test_the_same_key_with_another_body_is_refused(api: Api, hub: Hub) -> None:
    """422 naming the batch the key made; nothing written."""
    first = (await _post(api, BODY, "k")).json()
    refused = await _post(api, OTHER, "k")
    assert_refused(refused, f"ключ идемпотентности уже использован для другого пакета: {first['id']}", batch=False)
    assert await _batches(hub) == 1


async def test_a_key_is_the_tokens_own(api: Api, hub: Hub) -> None:
    """Another token's request with the same key is its own batch."""
    async with hub.unit() as unit:
        api.tokens["other"] = (await admin.add_token(unit, TokenIn(name="other", role="interface"))).secret
    mine = await _post(api, BODY, "k")
    theirs = await _post(api, BODY, "k", role="other")
    assert (mine.status_code, theirs.status_code) == (201, 201)
    assert mine.json()["id"] != theirs.json()["id"]


async def test_a_key_lives_a_day(api: Api, hub: Hub, clock: Clock) -> None:
    """Within 24 h the key answers its batch; after them it makes a new one (and then answers that one)."""
    first = (await _post(api, BODY, "k")).json()
    clock.advance(hours=23, minutes=59)
    assert (await _post(api, BODY, "k")).json()["id"] == first["id"]
    clock.advance(minutes=2)
    later = await _post(api, OTHER, "k")
    assert later.status_code == 201
    assert (await _post(api, OTHER, "k")).json()["id"] == later.json()["id"] != first["id"]


async def _keys(hub: Hub) -> list[str]:
    async with hub.unit() as unit:
        return sorted((await unit.db.session.scalars(select(IdempotencyKeyRow.key))).all())


async def test_expired_keys_are_swept_at_an_idle_claim_and_fresh_ones_kept(api: Api, hub: Hub, clock: Clock) -> None:
    """A request takes its key in one statement and leaves other keys alone; an idle claim removes the keys past
    their 24 h and keeps the rest, which still answer their batches."""
    old = (await _post(api, BODY, "old")).json()
    clock.advance(hours=12)
    fresh = (await _post(api, OTHER, "fresh")).json()
    clock.advance(hours=12, minutes=1)
    assert (await _post(api, BODY, "new")).json()["id"] != old["id"]
    assert await _keys(hub) == ["fresh", "new", "old"]
    while (claimed := await api.claim()).status_code == 200:  # the three commands, then an idle claim
        await done(api, claimed.json()["id"])
    assert claimed.status_code == 204
    assert await _keys(hub) == ["fresh", "new"]
    assert (await _post(api, OTHER, "fresh")).json()["id"] == fresh["id"]
    assert (await _post(api, BODY, "old")).status_code == 201


async def test_a_dry_run_neither_checks_nor_takes_a_key(api: Api, hub: Hub) -> None:
    """A dry run with a key is a dry run: the key stays free, and a used key does not refuse a dry run."""
    planned = await _post(api, OTHER, "k", path="/batches?dry_run=true")
    assert planned.status_code == 200
    assert (await _post(api, BODY, "k")).status_code == 201
    assert (await _post(api, OTHER, "k", path="/batches?dry_run=true")).status_code == 200
    assert await _batches(hub) == 1


async def test_a_refused_batch_leaves_its_key_free(api: Api, hub: Hub) -> None:
    """A batch refused by its validation rolls its key back: the corrected batch takes it."""
    wrong = {**BODY, "commands": [cmd("ensure_fields", key="AURORA-1", duedate="23.10.2026")]}
    assert (await _post(api, wrong, "k")).status_code == 422
    assert (await _post(api, BODY, "k")).status_code == 201


@pytest.mark.parametrize("key", ["", "x" * 256, "ключ", "tab\there", "del\x7f"], ids=repr)
async def test_a_key_that_is_not_printable_ascii_is_refused(api: Api, hub: Hub, key: str) -> None:
    """1–255 printable ASCII characters, else 422 and nothing written."""
    headers = api.auth("interface") | {"Idempotency-Key": key.encode("utf-8")}  # type: ignore[dict-item]
    refused = await api.client.post("/batches", json=BODY, headers=headers)
    assert_refused(refused, "ключ идемпотентности — ожидается от 1 до 255 печатных символов ASCII", batch=False)
    assert await _batches(hub) == 0


async def test_the_longest_key_is_taken(api: Api) -> None:
    """255 printable characters, spaces and punctuation included, are a key."""
    key = ("a ~!" * 64)[:255]
    assert (await _post(api, BODY, key)).status_code == 201
    assert (await _post(api, BODY, key)).status_code == 200


async def test_a_refresh_takes_a_key_too(api: Api, hub: Hub) -> None:
    """POST /refresh with a key: 201, then the same batch 200 replayed; the key of a refresh is not a batch's."""
    body = {"keys": ["AURORA-1"]}
    first = await _post(api, body, "r", path="/refresh")
    again = await _post(api, body, "r", path="/refresh")
    assert (first.status_code, again.status_code, again.headers["Idempotent-Replayed"]) == (201, 200, "true")
    assert again.json()["id"] == first.json()["id"]
    refused = await _post(api, body, "r")
    assert_refused(
        refused, f"ключ идемпотентности уже использован для другого пакета: {first.json()['id']}", batch=False
    )
    assert await _batches(hub) == 1


async def test_concurrent_requests_with_one_key_make_one_batch(api: Api, hub: Hub) -> None:
    """Eight requests at once with one key: one 201, seven 200 with its id, one batch stored."""
    answers: list[httpx.Response] = []

    async def send() -> None:
        answers.append(await _post(api, BODY, "together"))

    async with anyio.create_task_group() as tg:
        for _ in range(8):
            tg.start_soon(send)
    statuses = sorted(a.status_code for a in answers)
    assert statuses == [200] * 7 + [201]
    assert len({a.json()["id"] for a in answers}) == 1
    assert await _batches(hub) == 1
