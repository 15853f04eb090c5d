"""What the hub knows of the agent between claims (DESIGN.md 5.4, 5.6): that it is alive, and what keeps it waiting.

- **Alive.** The hub counts the agent online while it was seen within 2 × ``claim_wait_seconds``, and refuses a
  second agent meanwhile. Claims, pages, reports and delivery checks are seen; a pause of 120 s is not. So every
  wait of the agent goes through :meth:`Presence.sleep`, which tells the hub it is alive (``POST /agent/status``,
  a heartbeat) at least every ``claim_wait_seconds / 2`` since the hub last heard from it. The hub's value comes
  in every delivery's ``context``; before the first one the setting's default is assumed.
- **The pause it waits out**: while it holds a command, every heartbeat says which and how much of the pause
  before its first write is left (``pause_command_id``, ``pause_left_seconds``; zero once it is over), so the
  page shows the wait really left — the agent waits from its last Jira call, often less than the whole gap.
  When that differs from what the hub would assume (the whole gap since the delivery) by more than
  :data:`TELL_AT_ONCE_SECONDS`, the hub is told at once rather than at the next heartbeat.
- **What keeps it waiting** (``last_error``, sent with every heartbeat): by source, the first that applies —
  ``jira`` (Jira unreachable or refusing the agent: logged once as one ``unreachable`` line naming the URL and
  the fix), ``retry`` (Jira answered 429/503 and the call is tried again), ``budget`` (the bank's write budget
  is spent). A problem reaching the hub itself (``hub``) is only logged: the hub cannot be told of it, and no
  heartbeat is tried meanwhile.

A heartbeat is best effort: the hub answering nothing or 409 (another agent took over) changes nothing here;
the next claim or delivery check says what it means.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Callable, Mapping
from typing import Any

from adapters.clock import Clock
from adapters.hub_client import HubClient, HubError
from adapters.logs import redacted
from agent_app.retry import race
from reconcile.config import Settings

__all__ = ["TELL_AT_ONCE_SECONDS", "Ahead", "Presence", "heartbeat_interval"]

log = logging.getLogger(__name__)

#: The order in which what keeps the agent waiting is shown as ``last_error``.
_SHOWN = ("jira", "retry", "budget")
#: The longest a heartbeat may take before the wait goes on without it.
_BEAT_TIMEOUT = 5.0
#: A pause that differs this much from the hub's assumption is told at once (see the module docstring).
TELL_AT_ONCE_SECONDS = 1.0
#: Two moments this close are one (the fake clock's sums of floats must not leave a wait of 1e-13 s).
_SAME = 1e-9

#: Something to start during a wait so that it is done by the wait's end: (seconds it takes, how to start it).
Ahead = tuple[float, Callable[[], None]]


def heartbeat_interval(context: Mapping[str, Any]) -> float:
    """Half the hub's ``claim_wait_seconds`` from a delivery's context (the setting's default when absent)."""
    value = context.get("claim_wait_seconds")
    if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value) or value <= 0:
        value = Settings().claim_wait_seconds
    return float(value) / 2


class Presence:
    """The agent's heartbeat and ``last_error``; one per agent process."""

    def __init__(
        self,
        *,
        hub: HubClient,
        clock: Clock,
        agent_id: str,
        version: str,
        instance: str,
        stopping: asyncio.Event,
    ) -> None:
        self.hub = hub
        self.clock = clock
        self.agent_id = agent_id
        self.version = version
        self.instance = instance
        self.stopping = stopping
        self.interval = heartbeat_interval({})
        self._problems: dict[str, str] = {}
        self._last_contact = clock.monotonic()
        #: The command held and when (``clock.monotonic()``) its pause ends.
        self._pause: tuple[int, float] | None = None
        #: The agent's pace as every heartbeat tells it (``policy``: its bank's floors and write budget).
        self.pace: dict[str, Any] | None = None

    @property
    def last_error(self) -> str | None:
        """What the hub is told keeps the agent waiting now (``None``: nothing)."""
        return next((self._problems[s] for s in _SHOWN if s in self._problems), None)

    def problem(self, source: str) -> str | None:
        return self._problems.get(source)

    async def trouble(self, source: str, line: str) -> None:
        """A target (``hub``, ``jira``) cannot be used: logged once, when it appears or changes; the hub is told."""
        if self._problems.get(source) != line:
            self._problems[source] = line
            log.error("unreachable", extra={"target": source, "error": line})
        await self.beat()

    def fine(self, source: str) -> None:
        """``source`` answered: the problem logged for it is over."""
        if self._problems.pop(source, None) is not None:
            log.info("reachable", extra={"target": source})

    async def notice(self, source: str, text: str) -> None:
        """Show ``text`` as what keeps the agent waiting (``retry``, ``budget``), and tell the hub now."""
        self._problems[source] = text
        await self.beat()

    def clear(self, *sources: str) -> None:
        """The notices of ``sources`` are over (the hub hears it with the next heartbeat or claim)."""
        for source in sources:
            self._problems.pop(source, None)

    def follow(self, context: Mapping[str, Any]) -> None:
        """A delivery came: its context says how often the hub must hear from the agent."""
        self.interval = heartbeat_interval(context)

    def contact(self) -> None:
        """The hub heard from the agent just now (a claim, a page, a report, a delivery check)."""
        self._last_contact = self.clock.monotonic()

    async def beat(self) -> None:
        """``POST /agent/status`` with ``last_error``; best effort, and not while the hub is the problem."""
        self.contact()  # tried now: the next one is due an interval later, whatever this one's fate
        if "hub" in self._problems:
            return
        try:
            await race(
                self.hub.report_problem(
                    agent_id=self.agent_id,
                    version=self.version,
                    instance=self.instance,
                    last_error=None if self.last_error is None else redacted(self.last_error),
                    read_seconds=min(_BEAT_TIMEOUT, self.interval),
                    pause_command_id=None if self._pause is None else self._pause[0],
                    pause_left_seconds=self._pause_left(),
                    policy=self.pace,
                ),
                self.stopping,
            )
        except HubError as exc:
            log.debug("heartbeat_not_sent", extra={"error": str(exc)})

    def monotonic(self) -> float:
        return self.clock.monotonic()

    async def pausing(self, command_id: int, seconds: float, *, hub_assumes: float) -> None:
        """The agent holds ``command_id`` and waits ``seconds`` before its first write; the hub assumes
        ``hub_assumes`` (the gap it delivered) and is told at once when that is off by more than a second."""
        self._pause = (command_id, self.clock.monotonic() + max(seconds, 0.0))
        if abs(seconds - hub_assumes) > TELL_AT_ONCE_SECONDS:
            await self.beat()

    def released(self) -> None:
        """The command is settled: no pause to tell of."""
        self._pause = None

    def _pause_left(self) -> float | None:
        if self._pause is None:
            return None
        return round(max(self._pause[1] - self.clock.monotonic(), 0.0), 3)

    async def sleep(self, seconds: float, *, ahead: Ahead | None = None) -> None:
        """Wait ``seconds`` on the clock, with a heartbeat whenever the hub has not heard from the agent for an
        interval; ``ahead`` is started so that it is done by the wait's end (at once when the wait is shorter)."""
        # Counted down by what each step took (a sleep: what was asked, so a wait without a heartbeat is one sleep
        # of exactly ``seconds``; a heartbeat: what it took on the clock).
        left = max(seconds, 0.0)
        pending = ahead
        while True:
            if pending is not None and left <= pending[0] + _SAME:
                pending[1]()
                pending = None
            if left <= _SAME:
                return
            until_beat = self._last_contact + self.interval - self.clock.monotonic()
            if until_beat <= _SAME:
                before = self.clock.monotonic()
                await self.beat()
                left -= self.clock.monotonic() - before
                continue
            step = min(left, until_beat, left - pending[0] if pending is not None else left)
            await self.clock.sleep(step)
            left -= step
