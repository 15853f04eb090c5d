"""Following a batch: ``GET /batches/{id}?wait=N[&since=S]`` answers at the first change of a command's status,
woken by the hub's own wake-up (in-process, and across hub processes on PostgreSQL), never by a re-poll."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import anyio
import httpx
import pytest

from adapters.files import FileStore
from adapters.storage.database import Database
from adapters.storage.engine import make_engine
from hub_app.operations import following
from hub_app.runtime.hub import Hub

from .conftest import Api
from .support import FIELDS, claim_ok, create_ok, done

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def no_repoll(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only a wake-up can end a wait early in these tests: the safety re-poll is an hour away."""
    monkeypatch.setattr(following, "WATCH_REPOLL_SECONDS", 3600.0)


async def _follow_while(
    api: Api, hub: Hub, path: str, change: Callable[[], Awaitable[object]], *, watchers: int = 1
) -> httpx.Response:
    """``GET path`` (a long poll), and ``change()`` once it waits; the poll's answer (a hang fails after 20 s)."""
    answer: dict[str, httpx.Response] = {}

    async def follow() -> None:
        answer["response"] = await api.get(path)

    with anyio.fail_after(20):
        async with anyio.create_task_group() as tg:
            tg.start_soon(follow)
            # The follower has no event of its own saying that it waits: look at the wake-up's followers.
            while hub.wakeup.watchers() < watchers:  # noqa: ASYNC110
                await anyio.sleep(0.01)
            await change()
    return answer["response"]


async def test_every_answer_carries_the_batch_state(api: Api) -> None:
    """GET /batches/{id} answers Batch-State; the same state has the same stamp, a new status another."""
    batch = await create_ok(api, [FIELDS])
    first = await api.get(f"/batches/{batch['id']}")
    again = await api.get(f"/batches/{batch['id']}")
    assert first.headers["Batch-State"] == again.headers["Batch-State"]
    await claim_ok(api)
    claimed = await api.get(f"/batches/{batch['id']}")
    assert claimed.headers["Batch-State"] != first.headers["Batch-State"]


async def test_a_wait_answers_at_the_first_status_change(api: Api, hub: Hub) -> None:
    """A follower waiting 55 s answers as soon as the agent claims a command, with the new status; then at the
    report; the wait left no follower behind."""
    batch = await create_ok(api, [FIELDS])
    path = f"/batches/{batch['id']}?wait=55"
    delivered: dict[str, int] = {}

    async def claim() -> None:
        delivered["id"] = (await claim_ok(api))["id"]

    claimed = await _follow_while(api, hub, path, claim)
    assert [c["status"] for c in claimed.json()["commands"]] == ["claimed", "queued"]
    reported = await _follow_while(api, hub, path, lambda: done(api, delivered["id"]))
    assert [c["status"] for c in reported.json()["commands"]] == ["done", "queued"]
    assert hub.wakeup.watchers() == 0


async def test_since_loses_no_change_between_two_polls(api: Api) -> None:
    """A poll with the stamp of a state already past answers at once with the batch as it is now."""
    batch = await create_ok(api, [FIELDS])
    seen = (await api.get(f"/batches/{batch['id']}")).headers["Batch-State"]
    await claim_ok(api)
    with anyio.fail_after(20):
        now = await api.get(f"/batches/{batch['id']}", params={"wait": 55, "since": seen})
    assert now.json()["commands"][0]["status"] == "claimed"
    assert now.headers["Batch-State"] != seen


async def test_a_change_of_another_batch_does_not_end_the_wait(api: Api, hub: Hub) -> None:
    """Followers of two batches: a claim of the first's command answers its follower only."""
    first = await create_ok(api, [FIELDS])
    second = await create_ok(api, [FIELDS])
    answers: dict[str, httpx.Response] = {}

    async def follow(name: str, batch_id: int, wait: float) -> None:
        answers[name] = await api.get(f"/batches/{batch_id}", params={"wait": wait})

    with anyio.fail_after(20):
        async with anyio.create_task_group() as tg:
            tg.start_soon(follow, "first", first["id"], 55)
            tg.start_soon(follow, "second", second["id"], 1)
            while hub.wakeup.watchers() < 2:  # noqa: ASYNC110
                await anyio.sleep(0.01)
            await claim_ok(api)
    assert answers["first"].json()["commands"][0]["status"] == "claimed"
    assert [c["status"] for c in answers["second"].json()["commands"]] == ["queued", "queued"]


async def test_the_deadline_answers_the_batch_unchanged(api: Api) -> None:
    """Nothing changes within the wait: the batch as it was, the same stamp."""
    batch = await create_ok(api, [FIELDS])
    before = await api.get(f"/batches/{batch['id']}")
    after = await api.get(f"/batches/{batch['id']}", params={"wait": 0.2})
    assert after.headers["Batch-State"] == before.headers["Batch-State"]
    assert after.json()["commands"] == before.json()["commands"]


@pytest.mark.parametrize("wait", ["55.5", "-1", "nan"])
async def test_a_wait_beyond_55_seconds_is_refused(api: Api, wait: str) -> None:
    """wait outside 0–55 seconds: 422 naming it."""
    batch = await create_ok(api, [FIELDS])
    refused = await api.get(f"/batches/{batch['id']}?wait={wait}")
    assert refused.status_code == 422
    assert refused.json() == {"status_code": 422, "detail": "wait — ожидается число секунд от 0 до 55"}


async def test_following_a_batch_that_does_not_exist_is_404(api: Api) -> None:
    """A batch that is not there: 404 at once, no follower left."""
    with anyio.fail_after(20):
        missing = await api.get("/batches/999?wait=55")
    assert missing.status_code == 404


@pytest.fixture
async def other_hub(pg_url: str, tmp_path: Path) -> AsyncIterator[Hub]:
    """A second hub (its own engine and wake-up) on the PostgreSQL test database, as another process has."""
    hub = Hub(database=Database(make_engine(pg_url)), files=FileStore(tmp_path / "other"))
    yield hub
    await hub.close()


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
async def test_a_change_in_another_hub_process_wakes_the_follower(api: Api, hub: Hub, other_hub: Hub) -> None:
    """On PostgreSQL a command cancelled through another hub process wakes this one's follower (NOTIFY)."""
    from hub_app.bodies.batches import CancelIn
    from hub_app.operations import batches

    batch = await create_ok(api, [FIELDS])

    async def cancel() -> None:
        async with other_hub.unit() as unit:
            await batches.cancel_batch(unit, batch["id"], CancelIn())

    answer = await _follow_while(api, hub, f"/batches/{batch['id']}?wait=55", cancel)
    assert {c["status"] for c in answer.json()["commands"]} == {"cancelled"}
