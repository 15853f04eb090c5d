"""A project of the hub is a Jira label (README «Projects and settings»), so its name is one Jira would take.

Jira refuses a label with a space and keeps at most 255 characters; the hub also refuses ``/`` (a name is a path
segment of ``/projects/{name}``: with a slash it could never be opened, changed or deleted, and would stay in
every full refresh's JQL) and control characters (a label nobody can type or see). Anything else — letters of
any script, digits, ``_-.:#"`` — is a label as Jira keeps it (the base JQL quotes it).
"""

from __future__ import annotations

import re

from reconcile.vocabulary.errors import ValidationError

__all__ = ["PROJECT_NAME_MAX", "check_project_name", "project_name_problem"]

#: The longest label Jira keeps.
PROJECT_NAME_MAX = 255

#: What a label may not hold: whitespace of any script, ``/``, control characters (C0, DEL, C1).
_FORBIDDEN = re.compile(r"[\s/\x00-\x1f\x7f-\x9f]")
_SHOWN = 60


def _shown(name: str) -> str:
    """The name as a message can show it: control characters escaped, a long one cut."""
    escaped = _FORBIDDEN.sub(lambda m: ascii(m.group())[1:-1], name)  # a space and «/» are their own ascii()
    return escaped if len(escaped) <= _SHOWN else escaped[:_SHOWN] + "…"


def project_name_problem(name: str) -> str | None:
    """Why ``name`` is not a project name (the 422's message), or ``None`` when Jira would keep it as a label."""
    if len(name) > PROJECT_NAME_MAX:
        return f"недопустимое имя проекта: «{_shown(name)}» длиннее {PROJECT_NAME_MAX} символов"
    if not name or _FORBIDDEN.search(name):
        return (
            f"недопустимое имя проекта: «{_shown(name)}» — метка Jira без пробелов, «/» и управляющих символов, "
            f"не длиннее {PROJECT_NAME_MAX} символов"
        )
    return None


def check_project_name(name: str) -> None:
    """Raise :class:`ValidationError` (422) with :func:`project_name_problem`'s message."""
    problem = project_name_problem(name)
    if problem is not None:
        raise ValidationError(problem)
