"""One process per agent (DESIGN.md 5.4): a second live instance of an ``agent_id`` is refused like a second
agent; the same instance (a restart on the same journal) resumes at once; ``GET /agent/commands/{id}`` tells
a process whether it still holds its command."""

from __future__ import annotations

import anyio
import pytest

from tests.support import cmd

from .conftest import Api, Clock
from .support import claim_none, claim_ok, create_ok

pytestmark = pytest.mark.anyio

COPY_REFUSED = (
    "агент agent-1 уже работает в другом процессе (последний раз 2026-10-22T09:00:00Z); "
    "второй процесс с тем же agent_id не допускается"
)


async def test_a_second_instance_is_refused_while_the_first_is_live(api: Api, clock: Clock) -> None:
    """Another instance of agent-1 → 409 with Retry-After until the first counts as away; then it takes over."""
    await claim_none(api, instance="A")
    copy = await api.claim(instance="B")
    assert copy.status_code == 409
    assert copy.json() == {"status_code": 409, "detail": COPY_REFUSED}
    assert copy.headers["retry-after"] == "50"
    clock.advance(seconds=20)
    assert (await api.claim(instance="B")).headers["retry-after"] == "30"
    clock.advance(seconds=31)
    await claim_none(api, instance="B")
    status = (await api.get("/agent-status")).json()
    assert (status["agent_id"], status["instance"], status["online"]) == ("agent-1", "B", True)


async def test_the_same_instance_resumes_at_once(api: Api, clock: Clock) -> None:
    """A restart on the same journal (same instance) gets its claimed command again at once, deliveries + 1."""
    await create_ok(api, [cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23")])
    first = await claim_ok(api, instance="A")
    clock.advance(seconds=1)
    again = await claim_ok(api, instance="A")
    assert (again["id"], again["deliveries"]) == (first["id"], 2)


async def test_a_copy_never_gets_the_command_in_flight(api: Api) -> None:
    """50 concurrent claims from a copy while the first instance holds a command: each 409, or 204 when the copy's
    own newer poll ended it (one waiting claim per instance); never the command, whose deliveries stay 1."""
    await create_ok(api, [cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23")])
    first = await claim_ok(api, instance="A")
    codes: list[int] = []

    async def copy() -> None:
        codes.append((await api.claim(instance="B")).status_code)

    async with anyio.create_task_group() as tg:
        for _ in range(50):
            tg.start_soon(copy)
    assert len(codes) == 50
    assert set(codes) <= {204, 409}
    assert 409 in codes
    assert (await api.claim(instance="B")).status_code == 409
    command = (await api.get(f"/commands/{first['id']}")).json()
    assert (command["status"], command["deliveries"]) == ("claimed", 1)


async def test_a_claim_without_instance_is_its_own_instance(api: Api) -> None:
    """An older agent that sends no instance is one process: it is refused beside an instance-aware one."""
    await claim_none(api)
    assert (await api.claim(instance="A")).status_code == 409
    await claim_none(api)


async def test_the_holder_is_told_it_holds_its_command(api: Api) -> None:
    """``GET /agent/commands/{id}?instance=A`` → held while claimed and issued to A; not for another process."""
    await create_ok(api, [cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23")])
    delivery = await claim_ok(api, instance="A")
    path = f"/agent/commands/{delivery['id']}"
    held = await api.get(f"{path}?instance=A", role="agent")
    assert held.status_code == 200, held.text
    assert held.json() == {"id": delivery["id"], "status": "claimed", "held": True, "deliveries": 1}
    other = await api.get(f"{path}?instance=B", role="agent")
    assert other.json() == {"id": delivery["id"], "status": "claimed", "held": False, "deliveries": 1}


async def test_a_cancelled_command_is_not_held(api: Api) -> None:
    """After a forced cancel the holder is told ``cancelled``, not held."""
    await create_ok(api, [cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23")])
    delivery = await claim_ok(api, instance="A")
    cancelled = await api.post(f"/commands/{delivery['id']}/cancel", {"force": True})
    assert cancelled.status_code == 200, cancelled.text
    answer = await api.get(f"/agent/commands/{delivery['id']}?instance=A", role="agent")
    assert answer.json() == {"id": delivery["id"], "status": "cancelled", "held": False, "deliveries": 1}


async def test_taken_over_process_no_longer_holds(api: Api, clock: Clock) -> None:
    """When B takes over after A was away, the re-delivered command is B's; A is told it does not hold it."""
    await create_ok(api, [cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23")])
    delivery = await claim_ok(api, instance="A")
    clock.advance(seconds=51)
    again = await claim_ok(api, instance="B")
    assert (again["id"], again["deliveries"]) == (delivery["id"], 2)
    path = f"/agent/commands/{delivery['id']}"
    assert (await api.get(f"{path}?instance=A", role="agent")).json()["held"] is False
    assert (await api.get(f"{path}?instance=B", role="agent")).json() == {
        "id": delivery["id"],
        "status": "claimed",
        "held": True,
        "deliveries": 2,
    }


async def test_unknown_command_is_404(api: Api) -> None:
    """An id no command has → 404, also beyond the database's range."""
    for command_id in (1, 864481332306533285888):
        response = await api.get(f"/agent/commands/{command_id}", role="agent")
        assert response.status_code == 404, response.text
        assert response.json() == {"status_code": 404, "detail": f"команды {command_id} нет"}
