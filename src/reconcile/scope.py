"""The hub's own scope (DESIGN.md 5.5, last paragraph): a batch touches only issues of ``settings.jira_project``
and a client's JQL reads only inside it.

The agent's local policy (:mod:`reconcile.policy`) is the guarantee; this is the hub refusing at its own door
what the agent would refuse later, so that the planner hears it in the batch's 422 instead of a failed command:

- :func:`check_keys`: every Jira key a batch (or a note) names is ``<jira_project>-<n>`` (temp keys are the
  batch's own issues, created in that project: not checked);
- :func:`scoped_jql`: a client's refresh JQL as stored, ``project = <jira_project> AND (<jql>)``; a JQL that
  cannot be wrapped safely (:func:`reconcile.policy.jql_problem`) is refused. The base JQL (the hub's own full
  refresh, ``project = <jira_project> AND labels in (…)``) and a JQL already wrapped (a retry of a stored
  refresh) are kept as they are, so what counts as a full refresh and the journal mark do not change.
"""

from __future__ import annotations

from collections.abc import Iterable

from reconcile.commands import command_label, is_temp_key
from reconcile.errors import ValidationError
from reconcile.policy import jql_problem, key_project

__all__ = ["check_keys", "outside", "scoped_jql", "wrap_prefix"]


def outside(key: str, jira_project: str) -> str | None:
    """«HR-1 не в проекте Jira AURORA» for a key of another project (or no Jira key at all); ``None`` for a key
    of ``jira_project`` and for a temp key."""
    if is_temp_key(key) or key_project(key) == jira_project:
        return None
    return f"{key} не в проекте Jira {jira_project}"


def check_keys(keys: Iterable[str], jira_project: str, *, where: str = "") -> None:
    """Refuse (422) the first key outside ``jira_project``; ``where`` opens the message («заметка 2: »)."""
    for key in keys:
        message = outside(key, jira_project)
        if message is not None:
            raise ValidationError(where + message)


def wrap_prefix(jira_project: str) -> str:
    """What a stored client JQL opens with: ``project = AURORA AND (``."""
    return f"project = {jira_project} AND ("


def _already_scoped(jql: str, jira_project: str, base_jql: str | None) -> bool:
    if jql == base_jql:
        return True
    prefix = wrap_prefix(jira_project)
    # The inside balanced on its own means the prefix's parenthesis is the one the last character closes.
    return jql.startswith(prefix) and jql.endswith(")") and jql_problem(jql[len(prefix) : -1]) is None


def scoped_jql(index: int, jql: str, *, jira_project: str, base_jql: str | None) -> str:
    """The JQL of command ``index`` (a ``refresh``) as the hub stores it; 422 «команда 1 (refresh): JQL не
    принят: <why>» when it cannot be wrapped safely. Idempotent."""
    problem = jql_problem(jql)
    if problem is not None:
        raise ValidationError(f"{command_label(index, 'refresh')}: JQL не принят: {problem}")
    if _already_scoped(jql, jira_project, base_jql):
        return jql
    return f"{wrap_prefix(jira_project)}{jql})"
