"""The fencing of deliveries (DESIGN.md 5.4, 5.6): a command is written only by the delivery the hub issued last.

Before a command's first write, and before the first write after each pause inside it, the agent asks the hub
(``GET /agent/commands/{id}`` → ``{status, held, deliveries}``) and goes on only when the command is still
``claimed``, issued to this process, and its ``deliveries`` are this delivery's. Otherwise the write is dropped:
a command cancelled (or no longer on the hub) is reported failed with the writes made so far; one that was
issued again (to another process, or as a later delivery) is left to that delivery, without a report.

The question must cost the pacing nothing, so it is asked ahead of the write: during the pause before the command
and during each pause inside it, so that its answer is in by the pause's end (:attr:`Fence.lead`, twice the
last answer's round trip, at least 50 ms, is how early), and when the command starts without a pause to wait,
alongside its reads. The write then only collects the answer. (Asked only when the command starts, alongside its
reads, it still cost each command of a paced batch the rest of its round trip: the hub's answer, a transaction
that records the agent as seen, takes longer than a Jira read; bench/RESULTS.md, P2.)
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from adapters.clock import Clock
from adapters.hub_client import UNKNOWN_COMMAND, CommandHeld
from reconcile.executors import Delivery
from reconcile.guard import READ_ONLY_TYPES

__all__ = ["Fence"]

#: How early a check is asked before a pause ends: never less than this, at most the cap, else twice the last
#: round trip (a loaded hub answers in tens of milliseconds).
_MIN_LEAD = 0.05
_MAX_LEAD = 2.0


class Fence:
    """The delivery check of the command in hand; one per agent process (it learns the hub's round trip)."""

    def __init__(self, ask: Callable[[int], Awaitable[CommandHeld]], *, clock: Clock, agent_id: str) -> None:
        self._ask = ask
        self._clock = clock
        self._agent_id = agent_id
        self._round_trip = _MIN_LEAD / 2
        self._delivery: Delivery | None = None
        self._task: asyncio.Future[CommandHeld] | None = None
        self._cleared = False
        #: The last answer and what it meant (``None``: go on) for the command in hand.
        self.answer: CommandHeld | None = None
        self.verdict: str | None = None

    @property
    def lead(self) -> float:
        """How long before a pause's end its check is asked."""
        return min(max(2 * self._round_trip, _MIN_LEAD), _MAX_LEAD)

    @property
    def dropped(self) -> bool:
        """The hub's answer stopped a write of the command in hand."""
        return self.verdict is not None

    @property
    def superseded(self) -> bool:
        """The command was issued again (to another process, or as a later delivery): its outcome is not ours."""
        return self.dropped and self.answer is not None and self.answer.status == "claimed"

    def begin(self, delivery: Delivery) -> None:
        """A new command: nothing asked yet (a command type that never writes is never asked)."""
        self._delivery = delivery
        self._cleared = delivery.type in READ_ONLY_TYPES
        self.answer = None
        self.verdict = None

    def ahead(self) -> tuple[float, Callable[[], None]] | None:
        """What a wait should start before its end (:data:`agent_app.presence.Ahead`): the check, when one is due."""
        if self._delivery is None or self._cleared:
            return None
        return (self.lead, self.start)

    def start(self) -> None:
        """Ask now, unless a question is out or the hub already let the writes go since the last pause."""
        if self._delivery is None or self._cleared or self._task is not None:
            return
        self._task = asyncio.ensure_future(self._check(self._delivery.id))

    def stale(self) -> None:
        """A pause: the next write needs an answer given after it (a question still out is no longer it)."""
        if self._delivery is None or self._delivery.type in READ_ONLY_TYPES:
            return
        self._cleared = False
        self._drop_question()

    async def confirm(self) -> str | None:
        """Before a write: ``None`` lets it go; else why it must not be made."""
        if self._delivery is None or self._cleared:
            return None
        self.start()
        assert self._task is not None
        try:
            answer = await self._task
        finally:
            self._task = None
        self.answer = answer
        self.verdict = self._judge(self._delivery, answer)
        self._cleared = self.verdict is None
        return self.verdict

    async def end(self) -> None:
        """The command is over: a question still out is withdrawn."""
        self._drop_question()
        self._delivery = None

    def _drop_question(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            # Its outcome (an error of the hub, say) is nobody's business now.
            task.add_done_callback(lambda t: t.cancelled() or t.exception())

    async def _check(self, command_id: int) -> CommandHeld:
        started = self._clock.monotonic()
        answer = await self._ask(command_id)
        self._round_trip = self._clock.monotonic() - started
        return answer

    def _judge(self, delivery: Delivery, answer: CommandHeld) -> str | None:
        mine = answer.deliveries is None or answer.deliveries == delivery.deliveries
        if answer.status == "claimed" and answer.held and mine:
            return None
        if answer.status == "claimed" and answer.held:
            return (
                f"доставка {delivery.deliveries} команды {delivery.id} заменена доставкой {answer.deliveries}: "
                "запись отменена"
            )
        if answer.status == "claimed":
            return f"команда {delivery.id} выдана другому процессу агента {self._agent_id}: запись отменена"
        if answer.status == UNKNOWN_COMMAND:
            return f"команды {delivery.id} нет на хабе: запись в Jira отменена"
        return f"команда {delivery.id} уже {answer.status}: запись в Jira отменена"
