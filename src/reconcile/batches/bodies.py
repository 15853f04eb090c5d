"""The batch bodies the hub writes itself: a retry, ``POST /refresh``, the automatic refresh (DESIGN.md 6).

Each is a plain body of ``POST /batches``, validated by :func:`reconcile.batches.validation.validate_batch` like any
other.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reconcile.vocabulary.catalogue import CATALOGUE, REFRESH_TYPE
from reconcile.vocabulary.errors import ValidationError

__all__ = [
    "AUTO_REFRESH_AUTHOR",
    "AUTO_REFRESH_CHANGES_TITLE",
    "AUTO_REFRESH_TITLE",
    "NO_PROJECTS_FOR_FULL_REFRESH",
    "auto_refresh_body",
    "refresh_body",
    "retry_body",
    "retry_params",
]

NO_PROJECTS_FOR_FULL_REFRESH = "нет проектов — полное обновление невозможно"
#: The batch a claim creates when the queue is empty and the last full refresh is too old (DESIGN.md 6).
AUTO_REFRESH_AUTHOR = "hub"
AUTO_REFRESH_TITLE = "автообновление"
#: The title of the hub's change-only refresh (DESIGN.md 6.2).
AUTO_REFRESH_CHANGES_TITLE = "автообновление (изменения)"


def retry_params(command_type: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """A stored command's params as a person's new command: the hub-added ``board_id`` is dropped so that the
    board is resolved again, and so are the type's hub parameters (a retry is a person's request: a retried
    change-only refresh reads its JQL whole, as ``POST /refresh {}`` does). ``command_type`` is a stored command's,
    so a catalogued one; only ``ensure_sprint`` ever holds a ``board_id`` (no type has a param of that name)."""
    dropped = {"board_id", *(p.name for p in CATALOGUE[command_type].hub_params)}
    return {k: v for k, v in params.items() if k not in dropped}


def retry_body(
    *, command_type: str, params: Mapping[str, Any], author: str, title: str, project: str | None
) -> dict[str, Any]:
    """The body that re-validates a command as new (``POST /commands/{id}/retry``); temp keys must already be
    substituted by the caller (:func:`retry_params` says what is dropped)."""
    return {
        "author": author,
        "title": title,
        "project": project,
        "commands": [{"type": command_type, "params": retry_params(command_type, params)}],
    }


def refresh_body(*, keys: list[str] | None, jql: str | None, base_jql: str | None, author: str) -> dict[str, Any]:
    """The batch of ``POST /refresh``: ``{keys}``, ``{jql}``, or neither — a full refresh by the base JQL."""
    if keys is not None and jql is not None:
        raise ValidationError("только одно из keys, jql")
    params: dict[str, Any]
    if keys is not None:
        params = {"keys": keys}
    elif jql is not None:
        params = {"jql": jql}
    elif base_jql is None:
        raise ValidationError(NO_PROJECTS_FOR_FULL_REFRESH)
    else:
        params = {"jql": base_jql}
    return {"author": author, "title": "обновление из Jira", "commands": [{"type": REFRESH_TYPE, "params": params}]}


def auto_refresh_body(base_jql: str, *, changes: bool = False) -> dict[str, Any]:
    """The hub's own refresh batch (DESIGN.md 6, 6.2): a full one by the base JQL, or with ``changes`` the
    change-only one (``{"jql": <base JQL>, "changes": true}``, titled :data:`AUTO_REFRESH_CHANGES_TITLE`), which
    only :func:`reconcile.batches.validation.validate_batch` with ``by_hub=True`` accepts."""
    params: dict[str, Any] = {"jql": base_jql, "changes": True} if changes else {"jql": base_jql}
    return {
        "author": AUTO_REFRESH_AUTHOR,
        "title": AUTO_REFRESH_CHANGES_TITLE if changes else AUTO_REFRESH_TITLE,
        "commands": [{"type": REFRESH_TYPE, "params": params}],
    }
