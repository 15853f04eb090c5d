"""A parsed JQL query as values, and its canonical text (DESIGN.md 5.7).

The tree keeps what Jira's parser keeps: clauses (field, operator, operand, the history predicates after ``WAS``
and ``CHANGED``), ``AND`` / ``OR`` / ``NOT`` as written (a parenthesised group stays one item, so ``(a AND b) AND
c`` is not ``a AND b AND c``), and ``ORDER BY``. Redundant parentheses, the spelling of keywords, the kind of
quotes and escapes are not kept.

:func:`jql_text` writes a tree back as JQL that Jira (and :func:`reconcile.guard.jql_parser.parse`) reads as the same
tree: connectives ``AND`` / ``OR`` / ``NOT`` in capitals, operators and predicates in lower case as the seed
writes them (``labels in ("AWPCA")``), ``EMPTY``, a compound inside a compound always in parentheses, a string
quoted when it was quoted or cannot stand bare (escapes only inside double quotes). The hub's own JQL (``(project
= AURORA AND labels in ("AWPCA")) AND sprint in openSprints() AND statusCategory != Done``) is its own canonical
text.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from reconcile.guard.jql_lexer import plain_word

__all__ = [
    "OPERATORS",
    "PREDICATES",
    "And",
    "CustomField",
    "Empty",
    "Field",
    "Function",
    "Node",
    "Not",
    "Number",
    "Operand",
    "Or",
    "Predicate",
    "Property",
    "Query",
    "Sort",
    "Terminal",
    "Text",
    "ValueList",
    "jql_text",
    "quoted",
]

#: The operators, as the canonical text writes them.
OPERATORS = (
    "=",
    "!=",
    "~",
    "!~",
    "<",
    ">",
    "<=",
    ">=",
    "in",
    "not in",
    "is",
    "is not",
    "was",
    "was in",
    "was not",
    "was not in",
    "changed",
)
#: The history predicates (after ``WAS …`` and ``CHANGED``).
PREDICATES = ("after", "before", "by", "during", "on", "from", "to")


@attrs.frozen
class Text:
    """A string: a value, a function's name or argument, a field's name. ``quoted``: written in quotes (it was,
    or it cannot be written bare)."""

    value: str
    quoted: bool = True


@attrs.frozen
class Number:
    """A whole number operand (Jira reads ``123`` and ``-5`` as numbers, ``"123"`` as a string)."""

    value: int


@attrs.frozen
class Empty:
    """``EMPTY`` (or ``NULL``)."""


@attrs.frozen
class Function:
    name: Text
    args: tuple[Text, ...] = ()


@attrs.frozen
class ValueList:
    items: tuple[Operand, ...]


Operand = Text | Number | Empty | Function | ValueList


@attrs.frozen
class CustomField:
    """``cf[10100]``."""

    id: int


@attrs.frozen
class Property:
    """An entity property reference after a field: ``[key]`` and the path after it (``.a.b`` → ``a.b``)."""

    key: Text
    path: Text | None = None


@attrs.frozen
class Field:
    name: Text | CustomField
    properties: tuple[Property, ...] = ()


@attrs.frozen
class Predicate:
    word: str  # one of PREDICATES
    operand: Operand


@attrs.frozen
class Terminal:
    """``field operator [operand] [predicates]``; ``operand`` is ``None`` only for ``changed``."""

    field: Field
    operator: str  # one of OPERATORS
    operand: Operand | None
    predicates: tuple[Predicate, ...] = ()


@attrs.frozen
class And:
    items: tuple[Node, ...]


@attrs.frozen
class Or:
    items: tuple[Node, ...]


@attrs.frozen
class Not:
    item: Node


Node = Terminal | And | Or | Not


@attrs.frozen
class Sort:
    field: Field
    direction: str | None = None  # "asc", "desc" or None (as written)


@attrs.frozen
class Query:
    where: Node | None
    order_by: tuple[Sort, ...] = ()


def quoted(value: str) -> str:
    """``value`` as a double-quoted JQL string: ``\\`` and ``"`` escaped, line breaks and tabs as ``\\n \\r \\t``,
    any other control character as ``\\uXXXX``."""
    out = ['"']
    for ch in value:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch in "\n\r\t":
            out.append({"\n": "\\n", "\r": "\\r", "\t": "\\t"}[ch])
        elif _control(ch):
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _control(ch: str) -> bool:
    code = ord(ch)
    return (
        code < 0x20
        or 0x7F <= code <= 0x9F
        or 0xFDD0 <= code <= 0xFDEF
        or code in (0xFFFE, 0xFFFF)
        or 0xD800 <= code <= 0xDFFF
    )


def _string(text: Text, *, numbers: bool) -> str:
    if not text.quoted and plain_word(text.value, numbers=numbers):
        return text.value
    return quoted(text.value)


def _operand(operand: Operand) -> str:
    if isinstance(operand, Text):
        return _string(operand, numbers=False)
    if isinstance(operand, Number):
        return str(operand.value)
    if isinstance(operand, Empty):
        return "EMPTY"
    if isinstance(operand, Function):
        args = ", ".join(_string(arg, numbers=True) for arg in operand.args)
        return f"{_string(operand.name, numbers=True)}({args})"
    return f"({_join(_operand(item) for item in operand.items)})"


def _join(parts: Iterable[str]) -> str:
    return ", ".join(parts)


def _field(field: Field) -> str:
    name = field.name
    text = f"cf[{name.id}]" if isinstance(name, CustomField) else _string(name, numbers=True)
    for prop in field.properties:
        text += f"[{_string(prop.key, numbers=True)}]"
        if prop.path is not None:
            text += _string(attrs.evolve(prop.path, value="." + prop.path.value), numbers=True)
    return text


def _terminal(clause: Terminal) -> str:
    parts = [_field(clause.field), clause.operator]
    if clause.operand is not None:
        parts.append(_operand(clause.operand))
    parts.extend(f"{p.word} {_operand(p.operand)}" for p in clause.predicates)
    return " ".join(parts)


def _node(node: Node) -> str:
    if isinstance(node, Terminal):
        return _terminal(node)
    if isinstance(node, Not):
        return f"NOT {_item(node.item)}"
    glue = " AND " if isinstance(node, And) else " OR "
    return glue.join(_item(item) for item in node.items)


def _item(node: Node) -> str:
    """A node inside another: a compound in parentheses, so the tree reads back as it is."""
    text = _node(node)
    return f"({text})" if isinstance(node, And | Or) else text


def jql_text(query: Query | Node) -> str:
    """The canonical JQL of a tree (a query, or only its condition)."""
    if not isinstance(query, Query):
        return _node(query)
    parts = [] if query.where is None else [_node(query.where)]
    if query.order_by:
        sorts = _join(
            _field(s.field) + ("" if s.direction is None else f" {s.direction.upper()}") for s in query.order_by
        )
        parts.append(f"ORDER BY {sorts}")
    return " ".join(parts)
