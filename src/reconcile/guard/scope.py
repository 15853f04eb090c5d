"""The hub's own scope (DESIGN.md 5.5, last paragraph): a batch touches only issues of ``settings.jira_project``
and a client's JQL reads only inside it.

The agent's local policy (:mod:`reconcile.guard.policy`) is the guarantee; this is the hub refusing at its own door
what the agent would refuse later, so that the planner hears it in the batch's 422 instead of a failed command:

- :func:`check_keys`: every Jira key a batch (or a note) names is ``<jira_project>-<n>`` (temp keys are the
  batch's own issues, created in that project: not checked);
- :func:`scoped_jql`: a client's refresh JQL as stored, ``project = <jira_project> AND (<tree>)`` — the canonical
  text of the JQL parsed with Jira's grammar (:mod:`reconcile.guard.jql`), never the client's text; a JQL that does
  not parse, is empty or sorts is refused. The base JQL (the hub's own full refresh, ``project = <jira_project>
  AND labels in (…)``) is kept as it is, so what counts as a full refresh and the journal mark do not change; a
  JQL the hub stored, sent again, is stored the same.
"""

from __future__ import annotations

from collections.abc import Iterable

from reconcile.guard.jql import JqlProblem, client_jql, project_restriction, within_project
from reconcile.guard.jql_tree import jql_text
from reconcile.guard.policy import key_project
from reconcile.vocabulary.catalogue import REFRESH_TYPE
from reconcile.vocabulary.commands import command_label, is_temp_key
from reconcile.vocabulary.errors import ValidationError

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
    return f"{jql_text(project_restriction(jira_project))} AND ("


def scoped_jql(index: int, jql: str, *, jira_project: str, base_jql: str | None) -> str:
    """The JQL of command ``index`` (a ``refresh``) as the hub stores it: the base JQL as it is, any other
    ``project = <jira_project> AND (<tree>)`` with the canonical text of the parsed JQL; 422 «команда 1 (refresh):
    JQL не принят: <why> (позиция N)» when it does not parse, is empty or sorts. Idempotent."""
    if jql == base_jql:
        return jql
    condition = client_jql(jql)
    if isinstance(condition, JqlProblem):
        raise ValidationError(f"{command_label(index, REFRESH_TYPE)}: JQL не принят: {condition}")
    return within_project(jira_project, condition)
