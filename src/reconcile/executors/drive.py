"""An executor driven without I/O: each step answered by a function, until the executor returns its report.

Whoever can answer a step at once uses it: the dry run (Jira answered from the mirror's records) and the tests
(Jira's answers given as values, h11's style). The agent's driver, with the network, the clock and the hub, is
the asynchronous one (:mod:`agent_app.drive`); this is the same loop for everyone else.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reconcile.executors.base import Executor, Report, Step

__all__ = ["Answer", "Ended", "drive"]

#: What a step gets back: a ``JiraResponse`` for a ``JiraCall``, the bytes (or ``None``) for a ``FetchFile``,
#: ``None`` for a ``Pause`` or a ``Page``.
Answer = Callable[[Step], Any]


class Ended(Exception):
    """Raised by an answer to end the drive at that step with ``report`` (the executor is closed there)."""

    def __init__(self, report: Report) -> None:
        super().__init__()
        self.report = report


def drive(executor: Executor, answer: Answer) -> Report:
    """Feed the executor ``answer(step)`` for each step it yields; its report (or the one :class:`Ended` carries)."""
    try:
        step = executor.send(None)
        while True:
            try:
                reply = answer(step)
            except Ended as end:
                return end.report
            step = executor.send(reply)
    except StopIteration as stop:
        report: Report = stop.value
        return report
    finally:
        executor.close()
