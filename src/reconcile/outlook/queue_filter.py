"""The queue's filter (DESIGN.md 8, round 3): which batches a person asks to see, as a value the storage turns into
SQL, and the text a batch is found by.

A batch's state in the filter is its :class:`reconcile.outlook.batch_state.BatchState`, by the one rule of
:func:`reconcile.outlook.batch_state.batch_state` (the storage writes it as SQL). The hub's own batches (its automatic
refresh and its refresh for webhook events: no token) are left out unless ``automatic`` asks for them.

The text is found in :func:`search_text`: the batch's title, author, token and project and its commands' types
and string parameters (keys, summaries, statuses…), case-folded, so that the search is the same on SQLite and
PostgreSQL whatever their collations.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from reconcile.outlook.batch_state import BatchState
from reconcile.vocabulary.errors import ValidationError

__all__ = ["QueueFilter", "parse_filter", "search_text"]

#: The longest text a person may search for (a key, a word of a summary).
TEXT_MAX = 200


def _fold(text: str) -> str:
    return " ".join(text.casefold().split())


@attrs.frozen(kw_only=True)
class QueueFilter:
    """What the queue shows: ``None`` and ``""`` ask for anything; ``automatic`` shows the hub's own batches;
    ``author`` is a batch's author or the name of the token it came with."""

    state: BatchState | None = None
    author: str | None = None
    project: str | None = None
    text: str = ""
    automatic: bool = False

    @property
    def needle(self) -> str:
        """The text searched for, as :func:`search_text` stores it."""
        return _fold(self.text)

    def query(self) -> dict[str, str]:
        """The filter as the URL's query (only what is asked), the inverse of :func:`parse_filter`."""
        asked = {
            "status": self.state.value if self.state else "",
            "author": self.author or "",
            "project": self.project or "",
            "q": self.text,
            "auto": "1" if self.automatic else "",
        }
        return {name: value for name, value in asked.items() if value}


def parse_filter(query: Mapping[str, str]) -> QueueFilter:
    """A filter from the URL's query (``status``, ``author``, ``project``, ``q``, ``auto``); 422 on an unknown
    status or a text too long."""
    status = query.get("status", "").strip()
    if status and status not in {state.value for state in BatchState}:
        known = ", ".join(state.value for state in BatchState)
        raise ValidationError(f"status — неизвестное состояние пакета {status}; ожидается одно из: {known}")
    text = query.get("q", "").strip()
    if len(text) > TEXT_MAX:
        raise ValidationError(f"q — не длиннее {TEXT_MAX} символов")
    return QueueFilter(
        state=BatchState(status) if status else None,
        author=query.get("author", "").strip() or None,
        project=query.get("project", "").strip() or None,
        text=text,
        automatic=query.get("auto", "") not in ("", "0"),
    )


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def search_text(
    *, title: str, author: str, project: str | None, token_name: str | None, commands: Iterable[tuple[str, Any]]
) -> str:
    """What a batch is found by: its title, author, project, token and each command's type and string parameters
    (``commands`` as ``(type, params)``), case-folded, one value a line."""
    parts = [title, author, project or "", token_name or ""]
    for command_type, params in commands:
        parts.append(command_type)
        if isinstance(params, Mapping):
            for value in params.values():
                parts.extend(_strings(value))
    return "\n".join(folded for part in parts if (folded := _fold(part)))
