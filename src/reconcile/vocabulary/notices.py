"""What the agent shows as ``last_error`` while it waits on purpose (DESIGN.md 5.5, 5.6), in the spec's words.

These are not failures: the command goes on after the wait. The agent sends them with its heartbeat, so
``/agent-status`` and the page tell the planners why the queue waits, and clears them when the wait is over.
"""

from __future__ import annotations

__all__ = ["budget_notice", "retry_notice", "seconds_text"]


def seconds_text(value: float) -> str:
    """Seconds as people write them: ``30``, ``1.5``, ``0.25`` (no ``30.0``, no float noise)."""
    rounded = round(float(value), 3)
    return str(int(rounded)) if rounded.is_integer() else f"{rounded:g}"


def retry_notice(status: int, attempt: int, of: int, seconds: float) -> str:
    """Jira answered ``status`` (429 or 503): try ``attempt`` of ``of`` follows in ``seconds``.

    >>> retry_notice(503, 2, 5, 30.0)
    'Jira ответила 503, повтор 2 из 5 через 30 с'
    """
    return f"Jira ответила {status}, повтор {attempt} из {of} через {seconds_text(seconds)} с"


def budget_notice(max_writes_per_hour: int) -> str:
    """The bank's write budget is spent: the next write waits until the last hour has room for it.

    >>> budget_notice(40)
    'лимит записей агента: 40 в час'
    """
    return f"лимит записей агента: {max_writes_per_hour} в час"
