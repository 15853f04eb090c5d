"""JQL's syntax as far as the simulator reads it: the hub's and the agent's parser (:mod:`reconcile.guard.jql`, Jira's
grammar) and a small AST the compiler of :mod:`jira_sim.jql` evaluates.

Syntax errors carry Jira's own wording (``Error in the JQL Query: Expecting … but got …``).
"""

from __future__ import annotations

import attrs

from reconcile.guard import JqlProblem, read_jql
from reconcile.guard import jql_tree as tree

__all__ = ["And", "Clause", "Func", "JqlError", "Node", "Not", "Operand", "Or", "Query", "Value", "parse"]


class JqlError(Exception):
    """A query Jira would reject with HTTP 400; ``messages`` are its ``errorMessages``."""

    def __init__(self, *messages: str) -> None:
        super().__init__("; ".join(messages))
        self.messages = list(messages)


@attrs.frozen
class Value:
    text: str


@attrs.frozen
class Func:
    name: str
    args: tuple[str, ...] = ()


Operand = Value | Func


@attrs.frozen
class Clause:
    field: str
    op: str  # "=", "!=", ">", ">=", "<", "<=", "~", "!~", "in", "not in", "is", "is not"
    operands: tuple[Operand, ...]  # empty for "is EMPTY"


@attrs.frozen
class And:
    items: tuple[Node, ...]


@attrs.frozen
class Or:
    items: tuple[Node, ...]


@attrs.frozen
class Not:
    item: Node


Node = Clause | And | Or | Not


@attrs.frozen
class Query:
    where: Node | None
    order_by: tuple[tuple[str, bool], ...]  # (field, ascending)


def _field_name(field: tree.Field) -> str:
    if field.properties:
        raise JqlError("Entity properties are not supported by the simulator.")
    return f"cf[{field.name.id}]" if isinstance(field.name, tree.CustomField) else field.name.value


def _operand(operand: tree.Operand) -> Operand:
    if isinstance(operand, tree.Function):
        return Func(operand.name.value, tuple(arg.value for arg in operand.args))
    if isinstance(operand, tree.Text):
        return Value(operand.value)
    if isinstance(operand, tree.Number):
        return Value(str(operand.value))
    if isinstance(operand, tree.Empty):
        return Value("EMPTY")
    raise JqlError("Error in the JQL Query: Expecting either a value or function but got a list.")


def _operands(clause: tree.Terminal) -> tuple[Operand, ...]:
    operand = clause.operand
    if clause.operator in ("is", "is not"):
        if not isinstance(operand, tree.Empty):
            got = f"'{operand.value}'" if isinstance(operand, tree.Text | tree.Number) else "a list or function"
            raise JqlError(f"Error in the JQL Query: Expecting 'EMPTY' or 'NULL' but got {got}.")
        return ()
    if operand is None:  # changed: no operand (the compiler refuses the operator)
        return ()
    if isinstance(operand, tree.ValueList):
        return tuple(_operand(item) for item in operand.items)
    return (_operand(operand),)


def _node(node: tree.Node) -> Node:
    if isinstance(node, tree.And):
        return And(tuple(_node(item) for item in node.items))
    if isinstance(node, tree.Or):
        return Or(tuple(_node(item) for item in node.items))
    if isinstance(node, tree.Not):
        return Not(_node(node.item))
    return Clause(_field_name(node.field), node.operator, _operands(node))


def parse(text: str) -> Query:
    """Parse JQL into a :class:`Query` with the hub's and the agent's own JQL parser (:mod:`reconcile.guard.jql`), so
    the simulator reads every escape as Jira does; raises :class:`JqlError` with Jira's message on a syntax error."""
    query = read_jql(text)
    if isinstance(query, JqlProblem):
        raise JqlError(query.jira)
    where = None if query.where is None else _node(query.where)
    order = tuple((_field_name(s.field), s.direction != "desc") for s in query.order_by)
    return Query(where, order)
