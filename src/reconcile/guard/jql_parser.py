"""Jira's JQL grammar over :mod:`reconcile.guard.jql_lexer`'s tokens, to :mod:`reconcile.guard.jql_tree`'s values.

::

    query      = [or] [ORDER BY sort {"," sort}] END
    or         = and {OR and}
    and        = not {AND not}
    not        = (NOT | "!") not | "(" or ")" | terminal
    terminal   = field operator [operand] {predicate}
    field      = (string | number | cf "[" posnumber "]") {"[" argument "]" {property-argument}}
    operator   = = != ~ !~ < > <= >= | IN | NOT IN | IS | IS NOT | WAS | WAS IN | WAS NOT | WAS NOT IN | CHANGED
    operand    = EMPTY | string | number | function | "(" operand {"," operand} ")"
    function   = (string | number) "(" [argument {"," argument}] ")"
    predicate  = (AFTER | BEFORE | BY | DURING | ON | FROM | TO) operand
    sort       = field [ASC | DESC]

As in Jira, ``CHANGED`` takes no operand and every other operator one; history predicates follow only ``WAS …``
and ``CHANGED``; a number operand must fit Jira's long. Unlike Jira, nesting stops at :data:`MAX_DEPTH` levels.
"""

from __future__ import annotations

from reconcile.guard.jql_lexer import JqlSyntaxError, Kind, Token, problem_at, tokenize
from reconcile.guard.jql_tree import (
    And,
    CustomField,
    Empty,
    Field,
    Function,
    Node,
    Not,
    Number,
    Operand,
    Or,
    Predicate,
    Property,
    Query,
    Sort,
    Terminal,
    Text,
    ValueList,
)

__all__ = ["MAX_DEPTH", "parse"]

#: The deepest nesting of NOT, parentheses and lists a query may have (people write a handful).
MAX_DEPTH = 100

_LONG = 2**63
_ARGUMENTS = frozenset((Kind.WORD, Kind.QUOTED, Kind.NUMBER))
_OPERAND_START = frozenset((Kind.EMPTY, Kind.WORD, Kind.QUOTED, Kind.NUMBER, Kind.LPAREN))
_PREDICATES = frozenset((Kind.AFTER, Kind.BEFORE, Kind.BY, Kind.DURING, Kind.ON, Kind.FROM, Kind.TO))


def _shown(token: Token) -> tuple[str, str]:
    """How a token is named in a reason (Russian) and in Jira's words."""
    if token.kind is Kind.END:
        return "конец запроса", "end of query"
    return f"«{token.text}»", f"'{token.text}'"


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = tokenize(text)
        self.i = 0
        self.depth = 0

    def peek(self) -> Token:
        return self.tokens[self.i]  # never past END: nothing takes END

    def take(self) -> Token:
        token = self.tokens[self.i]
        self.i += 1
        return token

    def at(self, *kinds: Kind) -> bool:
        return self.tokens[self.i].kind in kinds

    def at_any(self, kinds: frozenset[Kind]) -> bool:
        return self.tokens[self.i].kind in kinds

    def fail(
        self,
        expected: str,
        jira_expected: str,
    ) -> JqlSyntaxError:
        """«<expected>, а встретилось «X»» at the next token, e.g. «ожидался оператор, а
        встретилось «AURORA»»."""
        token = self.peek()
        ours, theirs = _shown(token)
        return problem_at(
            self.text,
            token.position - 1,
            f"{expected}, а встретилось {ours}",
            f"Expecting {jira_expected} but got {theirs}.",
        )

    def closing(self, expected: str, jira_expected: str) -> None:
        """Take the ``)`` that must come next: at the query's end «незакрытая скобка» (Jira's words name no place,
        so neither does the text), before anything else :meth:`fail` with ``expected``."""
        if not self.at(Kind.RPAREN):
            if self.at(Kind.END):
                raise problem_at(self.text, len(self.text), "незакрытая скобка", "Expecting ')' but got end of query.")
            raise self.fail(expected, jira_expected)
        self.take()

    def query(self) -> Query:
        where = None if self.at(Kind.END, Kind.ORDER) else self.or_clause()
        order: tuple[Sort, ...] = ()
        if self.at(Kind.ORDER):
            order = self.order_by()
        end = self.peek()
        if end.kind is not Kind.END:
            if order:
                raise self.fail("ожидалась запятая", "','")
            if end.kind is Kind.RPAREN:
                raise problem_at(
                    self.text,
                    end.position - 1,
                    "непарная закрывающая скобка",
                    "Expecting either 'OR' or 'AND' but got ')'.",
                )
            raise self.fail("ожидалось AND или OR", "either 'OR' or 'AND'")
        return Query(where=where, order_by=order)

    def or_clause(self) -> Node:
        items = [self.and_clause()]
        while self.at(Kind.OR):
            self.take()
            items.append(self.and_clause())
        return items[0] if len(items) == 1 else Or(tuple(items))

    def and_clause(self) -> Node:
        items = [self.not_clause()]
        while self.at(Kind.AND):
            self.take()
            items.append(self.not_clause())
        return items[0] if len(items) == 1 else And(tuple(items))

    def nested(self, token: Token) -> None:
        """One level deeper (a NOT, a parenthesis, a list), at most :data:`MAX_DEPTH`: a query is read by
        recursion, and a hostile one must not exhaust the stack."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise problem_at(
                self.text,
                token.position - 1,
                f"вложенность глубже {MAX_DEPTH} уровней",
                f"The query is nested deeper than {MAX_DEPTH} levels.",
            )

    def not_clause(self) -> Node:
        if self.at(Kind.NOT, Kind.BANG):
            self.nested(self.take())
            negated = Not(self.not_clause())
            self.depth -= 1
            return negated
        if self.at(Kind.LPAREN):
            self.nested(self.take())
            inner = self.or_clause()
            self.closing("ожидалась «)»", "')'")
            self.depth -= 1
            return inner
        return self.terminal()

    def terminal(self) -> Terminal:
        field = self.field()
        operator_token = self.peek()
        operator = self.operator()
        operand = self.operand() if self.at_any(_OPERAND_START) else None
        predicates: list[Predicate] = []
        while self.at_any(_PREDICATES):
            word = self.take()
            if not self.at_any(_OPERAND_START):
                raise self.fail("ожидалось значение, список или функция", "either a value, list or function")
            predicates.append(Predicate(word.text.lower(), self.operand()))
        if operator == "changed":
            if operand is not None:
                raise problem_at(
                    self.text,
                    operator_token.position - 1,
                    "CHANGED не принимает значения, только предикаты",
                    "The operator 'changed' does not support an operand.",
                )
        elif operand is None:
            raise self.fail("ожидалось значение, список или функция", "either a value, list or function")
        elif predicates and not operator.startswith("was"):
            raise problem_at(
                self.text,
                operator_token.position - 1,
                f"предикаты истории допустимы только после WAS и CHANGED, не после {operator}",
                f"History predicates are not supported for the operator '{operator}'.",
            )
        return Terminal(field, operator, operand, tuple(predicates))

    def name(self, token: Token, what: str, jira_what: str) -> Text:
        if token.kind is Kind.NUMBER:
            return Text(token.text, quoted=False)
        if not token.text:
            raise problem_at(self.text, token.position - 1, f"пустое {what}", f"The {jira_what} is empty.")
        return Text(token.text, quoted=token.kind is Kind.QUOTED or token.escaped)

    def field(self) -> Field:
        token = self.peek()
        name: Text | CustomField
        if token.kind is Kind.CF:
            self.take()
            name = self.custom_field()
        elif token.kind in _ARGUMENTS:
            name = self.name(self.take(), "имя поля", "field name")
        else:
            raise self.fail("ожидалось имя поля", "a field name")
        properties: list[Property] = []
        while self.at(Kind.LBRACKET):
            self.take()
            key = self.argument()
            self.expect(Kind.RBRACKET, "ожидалась «]»", "']'")
            properties.append(Property(key, self.property_path()))
        return Field(name, tuple(properties))

    def custom_field(self) -> CustomField:
        self.expect(Kind.LBRACKET, "ожидалась «[»", "'['")
        number = self.peek()
        if number.kind is not Kind.NUMBER or number.text.startswith("-") or int(number.text) >= _LONG:
            raise self.fail("ожидался номер поля", "a custom field id")
        self.take()
        self.expect(Kind.RBRACKET, "ожидалась «]»", "']'")
        return CustomField(int(number.text))

    def property_path(self) -> Text | None:
        parts: list[Text] = []
        while self.at_any(_ARGUMENTS):
            token = self.take()
            if len(token.text) < 2 or token.text[0] != "." or token.text[1] == ".":
                raise problem_at(
                    self.text,
                    token.position - 1,
                    f"ожидался путь свойства («.имя»), а встретилось «{token.text}»",
                    f"Expecting a property reference ('.name') but got '{token.text}'.",
                )
            parts.append(Text(token.text[1:], quoted=token.kind is Kind.QUOTED or token.escaped))
        if not parts:
            return None
        return Text(".".join(p.value for p in parts), quoted=any(p.quoted for p in parts))

    def expect(self, kind: Kind, shown: str, jira_shown: str) -> Token:
        if not self.at(kind):
            raise self.fail(shown, jira_shown)
        return self.take()

    def operator(self) -> str:
        token = self.peek()
        if token.kind is Kind.OPERATOR:
            self.take()
            return token.text
        if token.kind in (Kind.IN, Kind.CHANGED):
            self.take()
            return token.text.lower()
        if token.kind is Kind.IS:
            self.take()
            return "is not" if self.optional(Kind.NOT) else "is"
        if token.kind is Kind.NOT:
            self.take()
            self.expect(Kind.IN, "ожидалось IN", "'IN'")
            return "not in"
        if token.kind is Kind.WAS:
            self.take()
            negated = self.optional(Kind.NOT)
            within = self.optional(Kind.IN)
            return "was" + (" not" if negated else "") + (" in" if within else "")
        raise self.fail("ожидался оператор", "operator")

    def optional(self, kind: Kind) -> bool:
        if self.at(kind):
            self.take()
            return True
        return False

    def operand(self) -> Operand:
        token = self.peek()
        if token.kind is Kind.EMPTY:
            self.take()
            return Empty()
        if token.kind is Kind.LPAREN:
            return self.value_list()
        if token.kind not in _ARGUMENTS:
            raise self.fail("ожидалось значение, список или функция", "either a value, list or function")
        self.take()
        if self.at(Kind.LPAREN):
            return self.function(token)
        if token.kind is Kind.NUMBER:
            value = int(token.text)
            if not -_LONG <= value < _LONG:
                raise problem_at(
                    self.text,
                    token.position - 1,
                    f"число {token.text} вне диапазона",
                    f"The number '{token.text}' is too large.",
                )
            return Number(value)
        return Text(token.text, quoted=token.kind is Kind.QUOTED or token.escaped)

    def value_list(self) -> ValueList:
        self.nested(self.take())
        items = [self.operand()]
        while self.at(Kind.COMMA):
            self.take()
            items.append(self.operand())
        self.closing("ожидалась «,» или «)»", "either ',' or ')'")
        self.depth -= 1
        return ValueList(tuple(items))

    def function(self, name: Token) -> Function:
        self.take()
        args: list[Text] = []
        if not self.at(Kind.RPAREN):
            args.append(self.argument())
            while self.at(Kind.COMMA):
                self.take()
                args.append(self.argument())
        self.closing("ожидалась «,» или «)»", "either ',' or ')'")
        return Function(self.name(name, "имя функции", "function name"), tuple(args))

    def argument(self) -> Text:
        token = self.peek()
        if token.kind not in _ARGUMENTS:
            raise self.fail("ожидался аргумент функции", "a function argument")
        self.take()
        if token.kind is Kind.NUMBER:
            return Text(token.text, quoted=False)
        return Text(token.text, quoted=token.kind is Kind.QUOTED or token.escaped)

    def order_by(self) -> tuple[Sort, ...]:
        self.take()
        self.expect(Kind.BY, "ожидалось BY", "'by'")
        sorts = [self.sort()]
        while self.at(Kind.COMMA):
            self.take()
            sorts.append(self.sort())
        return tuple(sorts)

    def sort(self) -> Sort:
        field = self.field()
        direction = None
        if self.at(Kind.ASC, Kind.DESC):
            direction = self.take().text.lower()
        elif not self.at(Kind.COMMA, Kind.END):
            raise self.fail("ожидалось ASC, DESC или «,»", "either 'ASC', 'DESC' or ','")
        return Sort(field, direction)


def parse(text: str) -> Query:
    """Parse ``text`` as Jira does; raises :class:`reconcile.guard.jql_lexer.JqlSyntaxError` with the problem."""
    return _Parser(text).query()
