"""JQL by parsing, not by inspection (DESIGN.md 5.7, issue 31): what the hub and the agent do with a client's JQL.

A client's JQL (a refresh's ``jql``, the journal's ``history.jql``) is parsed with Jira's grammar
(:mod:`reconcile.guard.jql_parser`); what does not parse, is empty or carries ``ORDER BY`` is refused with a
:class:`JqlProblem` (the reason in Russian and its 1-based position). What reaches Jira is never the client's text
but the canonical text of the parsed tree (:func:`reconcile.guard.jql_tree.jql_text`) inside a restriction built from
values: the agent's ``project in (<allowed>) AND (<tree>)`` (:func:`within_projects`), the hub's ``project =
<jira_project> AND (<tree>)`` (:func:`within_project`). Jira reads such a text as a conjunction whose first
operand is the restriction, whatever the client wrote: escapes, quotes and parentheses are values in the tree, not
text pasted next to the wrapper.
"""

from __future__ import annotations

from collections.abc import Sequence

from reconcile.guard.jql_lexer import JqlProblem, JqlSyntaxError, Kind, tokenize
from reconcile.guard.jql_parser import parse
from reconcile.guard.jql_tree import And, Field, Node, Query, Terminal, Text, ValueList, jql_text

__all__ = [
    "JqlProblem",
    "client_jql",
    "project_restriction",
    "projects_restriction",
    "read_jql",
    "within_project",
    "within_projects",
]


def read_jql(text: str) -> Query | JqlProblem:
    """The tree of any JQL Jira would parse (``ORDER BY`` included), or why it would not."""
    try:
        return parse(text)
    except JqlSyntaxError as error:
        return error.problem


def client_jql(text: str) -> Node | JqlProblem:
    """The condition of a client's JQL, or why it is refused: it does not parse, it is empty («пустой запрос»), or
    it sorts («ORDER BY не допускается»: an ``ORDER BY`` cannot stand inside the wrapper's parentheses)."""
    query = read_jql(text)
    if isinstance(query, JqlProblem):
        return query
    if query.order_by:
        order = next(t for t in tokenize(text) if t.kind is Kind.ORDER)
        return JqlProblem(
            reason="ORDER BY не допускается", position=order.position, jira="ORDER BY is not allowed here."
        )
    if query.where is None:
        return JqlProblem(reason="пустой запрос", position=1, jira="The query is empty.")
    return query.where


def _project(name: str) -> Text:
    return Text(name, quoted=False)


_PROJECT = Field(Text("project", quoted=False))


def projects_restriction(projects: Sequence[str]) -> Terminal:
    """``project in (AURORA, OPS)``: the agent's restriction, as a clause."""
    return Terminal(_PROJECT, "in", ValueList(tuple(_project(p) for p in projects)))


def project_restriction(jira_project: str) -> Terminal:
    """``project = AURORA``: the hub's restriction, as a clause."""
    return Terminal(_PROJECT, "=", _project(jira_project))


def _within(restriction: Terminal, condition: Node) -> str:
    return f"{jql_text(restriction)} AND ({jql_text(condition)})"


def within_projects(projects: Sequence[str], condition: Node) -> str:
    """What the agent sends Jira for a client's condition: ``project in (<projects>) AND (<condition>)``."""
    return _within(projects_restriction(projects), condition)


def within_project(jira_project: str, condition: Node) -> str:
    """What the hub stores for a client's condition: ``project = <jira_project> AND (<condition>)``. A condition
    that already is ``project = <jira_project> AND <x>`` (a stored refresh sent again) gives ``project =
    <jira_project> AND (<x>)``, so wrapping what the hub stored changes nothing."""
    restriction = project_restriction(jira_project)
    if isinstance(condition, And) and len(condition.items) == 2 and condition.items[0] == restriction:
        condition = condition.items[1]
    return _within(restriction, condition)
