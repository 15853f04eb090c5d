"""JQL's syntax as far as the simulator reads it: a tokenizer and a parser to a small AST.

Syntax errors carry Jira's own wording (``Error in the JQL Query: Expecting … but got …``).
"""

from __future__ import annotations

import attrs

__all__ = ["And", "Clause", "Func", "JqlError", "Node", "Not", "Operand", "Or", "Query", "Value", "parse"]


class JqlError(Exception):
    """A query Jira would reject with HTTP 400; ``messages`` are its ``errorMessages``."""

    def __init__(self, *messages: str) -> None:
        super().__init__("; ".join(messages))
        self.messages = list(messages)


# --- tokens -----------------------------------------------------------------------------------------------

_OPERATORS = ("!=", ">=", "<=", "!~", "=", ">", "<", "~")
_WORD_STOP = set(" \t\r\n(),=!<>~\"'")
_KEYWORDS = {"and", "or", "not", "in", "is", "empty", "null", "order", "by", "asc", "desc"}


@attrs.frozen
class _Tok:
    kind: str  # "(", ")", ",", "op", "str", "word", "end"
    text: str
    pos: int  # 1-based character index


def _tokenize(text: str) -> list[_Tok]:
    toks: list[_Tok] = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
            continue
        if c in "(),":
            toks.append(_Tok(c, c, i + 1))
            i += 1
            continue
        op = next((o for o in _OPERATORS if text.startswith(o, i)), None)
        if op is not None:
            toks.append(_Tok("op", op, i + 1))
            i += len(op)
            continue
        if c == "!":
            raise JqlError(
                f"Error in the JQL Query: The character '!' is a reserved JQL character. (line 1, character {i + 1})"
            )
        if c in "\"'":
            start = i
            i += 1
            buf: list[str] = []
            while i < n and text[i] != c:
                if text[i] == "\\" and i + 1 < n:
                    nxt = text[i + 1]
                    buf.append({"n": "\n", "t": "\t", "r": "\r"}.get(nxt, nxt))
                    i += 2
                    continue
                buf.append(text[i])
                i += 1
            if i >= n:
                raise JqlError(
                    f"Error in the JQL Query: The quoted string '{''.join(buf)}' has not been completed. "
                    f"(line 1, character {start + 1})"
                )
            toks.append(_Tok("str", "".join(buf), start + 1))
            i += 1
            continue
        start = i
        while i < n and text[i] not in _WORD_STOP:
            i += 1
        toks.append(_Tok("word", text[start:i], start + 1))
    toks.append(_Tok("end", "", n + 1))
    return toks


# --- AST --------------------------------------------------------------------------------------------------


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


def _describe(tok: _Tok) -> str:
    return "end of query" if tok.kind == "end" else f"'{tok.text}'"


class _Parser:
    def __init__(self, text: str) -> None:
        self.toks = _tokenize(text)
        self.i = 0

    def peek(self) -> _Tok:
        return self.toks[self.i]

    def take(self) -> _Tok:
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def is_kw(self, word: str, offset: int = 0) -> bool:
        tok = self.toks[min(self.i + offset, len(self.toks) - 1)]
        return tok.kind == "word" and tok.text.lower() == word

    def fail(self, expecting: str, tok: _Tok | None = None) -> JqlError:
        tok = tok or self.peek()
        where = "" if tok.kind == "end" else f" (line 1, character {tok.pos})"
        return JqlError(f"Error in the JQL Query: Expecting {expecting} but got {_describe(tok)}.{where}")

    def query(self) -> Query:
        where: Node | None = None
        if self.peek().kind != "end" and not self.is_kw("order"):
            where = self.or_expr()
        order: list[tuple[str, bool]] = []
        if self.is_kw("order"):
            self.take()
            if not self.is_kw("by"):
                raise self.fail("'by'")
            self.take()
            while True:
                tok = self.take()
                if tok.kind not in ("word", "str"):
                    raise self.fail("a field name", tok)
                asc = True
                if self.is_kw("asc") or self.is_kw("desc"):
                    asc = self.take().text.lower() == "asc"
                order.append((tok.text, asc))
                if self.peek().kind != ",":
                    break
                self.take()
        if self.peek().kind != "end":
            raise self.fail("either 'OR' or 'AND'" if where is not None else "a field name")
        return Query(where, tuple(order))

    def or_expr(self) -> Node:
        items = [self.and_expr()]
        while self.is_kw("or"):
            self.take()
            items.append(self.and_expr())
        return items[0] if len(items) == 1 else Or(tuple(items))

    def and_expr(self) -> Node:
        items = [self.not_expr()]
        while self.is_kw("and"):
            self.take()
            items.append(self.not_expr())
        return items[0] if len(items) == 1 else And(tuple(items))

    def not_expr(self) -> Node:
        if self.is_kw("not"):
            self.take()
            return Not(self.not_expr())
        if self.peek().kind == "(":
            self.take()
            node = self.or_expr()
            if self.peek().kind != ")":
                raise self.fail("')'")
            self.take()
            return node
        return self.clause()

    def clause(self) -> Clause:
        tok = self.take()
        if tok.kind not in ("word", "str") or (tok.kind == "word" and tok.text.lower() in _KEYWORDS):
            raise self.fail("a field name", tok)
        field = tok.text
        op_tok = self.peek()
        if op_tok.kind == "op":
            self.take()
            return Clause(field, op_tok.text, (self.operand(),))
        if self.is_kw("in") or (self.is_kw("not") and self.is_kw("in", 1)):
            op = "in"
            if self.is_kw("not"):
                self.take()
                op = "not in"
            self.take()
            return Clause(field, op, self.operand_list())
        if self.is_kw("is"):
            self.take()
            op = "is"
            if self.is_kw("not"):
                self.take()
                op = "is not"
            if not (self.is_kw("empty") or self.is_kw("null")):
                raise self.fail("'EMPTY' or 'NULL'")
            self.take()
            return Clause(field, op, ())
        raise self.fail(
            "operator",
            op_tok,
        ) from None

    def operand(self) -> Operand:
        tok = self.take()
        if tok.kind == "str":
            return Value(tok.text)
        if tok.kind == "word" and tok.text.lower() not in _KEYWORDS - {"empty", "null"}:
            if self.peek().kind == "(":
                self.take()
                args: list[str] = []
                while self.peek().kind != ")":
                    arg = self.take()
                    if arg.kind not in ("word", "str"):
                        raise self.fail("')'", arg)
                    args.append(arg.text)
                    if self.peek().kind == ",":
                        self.take()
                self.take()
                return Func(tok.text, tuple(args))
            return Value(tok.text)
        raise self.fail("either a value, list or function", tok)

    def operand_list(self) -> tuple[Operand, ...]:
        if self.peek().kind != "(":
            return (self.operand(),)
        self.take()
        items = [self.operand()]
        while self.peek().kind == ",":
            self.take()
            items.append(self.operand())
        if self.peek().kind != ")":
            raise self.fail("')'")
        self.take()
        return tuple(items)


def parse(text: str) -> Query:
    """Parse JQL into a :class:`Query`; raises :class:`JqlError` with Jira's message on a syntax error."""
    parser = _Parser(text)
    try:
        return parser.query()
    except JqlError:
        raise
    except IndexError:  # pragma: no cover - the token list always ends with "end"
        raise parser.fail("a value") from None
