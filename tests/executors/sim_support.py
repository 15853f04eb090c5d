"""The executors driven by the agent's driver (real httpx) against the in-process simulator, on a fake clock."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import unquote

import attrs
import httpx

from adapters.clock import FakeClock
from adapters.jira_http import JiraHttp
from agent_app.drive import Alone, DriveOutcome, drive
from jira_sim import simulator
from reconcile.executors import Delivery, FetchFile, Page
from reconcile.types.binding import TYPES, executor_for
from tests.support import T0

WRITES = frozenset({"POST", "PUT", "DELETE"})


@attrs.define
class Bench:
    """A simulator, a fake clock shared with it, and the driver connected to both."""

    sim: simulator.Simulator
    clock: FakeClock
    jira: JiraHttp
    pages: list[Page] = attrs.field(factory=list)
    fetched: list[str] = attrs.field(factory=list)

    async def run(
        self,
        type_: str,
        params: Mapping[str, Any],
        *,
        pause: float = 30,
        files: Mapping[str, bytes] | None = None,
        context: Mapping[str, Any] | None = None,
        allowed: tuple[str, ...] | None = None,
        pins: Mapping[str, str] | None = None,
    ) -> DriveOutcome:
        """Drive one delivery with Jira's field list known, as the agent does; ``allowed``: the projects the
        agent's policy allows (``None``: any); ``pins``: the field ids it pins."""
        ctx = attrs.evolve(
            await self.jira.exec_context(),
            allowed_projects=allowed,
            jira_fields=await self.jira.jira_fields(),
            field_pins=pins or {},
        )
        self.sim.clear_calls()
        self.pages.clear()
        delivery = Delivery(id=1, type=type_, params=params, pause_seconds=pause, context=context or {})

        async def fetch_file(file: FetchFile) -> bytes | None:
            self.fetched.append(file.sha256)
            return (files or {}).get(file.sha256)

        async def on_page(page: Page) -> None:
            self.pages.append(page)

        watch = Alone(jira=self.jira, on_file=fetch_file, on_page=on_page)
        outcome = await drive(executor_for(delivery, ctx), self.jira, watch)
        assert self.undeclared(type_) == [], f"{type_} called endpoints its dry-run answers do not declare"
        return outcome

    def undeclared(self, type_: str) -> list[str]:
        """The calls Jira saw that no endpoint of the type declares (its dry-run answers: issue 33)."""
        entry = TYPES.get(type_)
        endpoints = entry.dry_run.endpoints if entry is not None else ()
        return [
            f"{c['method']} {c['path']}"
            for c in self.sim.calls
            if not any(e.parts(c["method"], unquote(c["path"])) is not None for e in endpoints)
        ]

    def writes(self) -> list[tuple[str, str, int]]:
        return [
            (c["method"], c["path"], c["status"])
            for c in self.sim.calls
            if c["method"] in WRITES and not c["path"].endswith("/search")
        ]

    def write_times(self) -> list[float]:
        """Seconds since the reference time of every write the simulator saw."""
        return [
            (datetime.fromisoformat(c["at"]) - T0).total_seconds()
            for c in self.sim.calls
            if c["method"] in WRITES and not c["path"].endswith("/search")
        ]


def make_bench(*, token: str | None = "secret", user: str | None = None, seed: dict[str, Any] | None = None) -> Bench:
    clock = FakeClock()
    sim = simulator.Simulator(seed, clock=lambda: T0 + timedelta(seconds=clock.monotonic()))
    jira = JiraHttp.connect(
        "http://jira.test",
        token=token,
        user=user,
        password="x" if user else None,
        clock=clock,
        transport=httpx.ASGITransport(app=sim.asgi),
    )
    return Bench(sim=sim, clock=clock, jira=jira)
