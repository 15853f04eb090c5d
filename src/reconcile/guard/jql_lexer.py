"""Jira's JQL lexer (DESIGN.md 5.7): the text of a query as tokens, read the way Jira DC reads it.

Jira's grammar, as far as tokens go:

- whitespace (space, tab, CR, LF) separates tokens; ``( ) , [ ]`` stand alone; the operators are ``= != ~ !~ < >
  <= >=``; ``!`` is ``NOT`` before a clause (not in ``NOT IN``), ``&`` / ``&&`` are ``AND``, ``|`` / ``||``
  are ``OR``;
- a quoted string (``"…"`` or ``'…'``) holds anything but its own quote, a backslash and a control character,
  unless escaped; an unquoted word stops at whitespace, at ``" ' = ! < > ( ) ~ , [ ] | &`` and at a control
  character, and refuses the reserved characters ``{ } * / % + ^ $ # @ ? ;``; both take the escapes ``\\t \\n \\r
  \\" \\' \\\\ \\<space> \\uXXXX`` (an unquoted word too: ``x\\"`` is the word ``x"``, which is issue 31's finding);
- a whole word without escapes is a keyword when it is one (``AND``, ``IN``, ``EMPTY``, ``WAS``, ``ORDER``, ``cf``
  …, any case), a number when it is ``-?digits``; any other unquoted word must not be a reserved word of Jira's
  (``select``, ``user``, ``start`` …: Jira wants them quoted).

A problem is raised as :class:`JqlSyntaxError` carrying a :class:`JqlProblem`: the Russian reason, the 1-based
position, and Jira's own wording (what the simulator answers).
"""

from __future__ import annotations

import enum
import re
from typing import NamedTuple

import attrs

__all__ = [
    "KEYWORDS",
    "RESERVED_CHARACTERS",
    "RESERVED_WORDS",
    "JqlProblem",
    "JqlSyntaxError",
    "Kind",
    "Token",
    "plain_word",
    "problem_at",
    "tokenize",
]


class Kind(enum.Enum):
    LPAREN = "("
    RPAREN = ")"
    COMMA = ","
    LBRACKET = "["
    RBRACKET = "]"
    OPERATOR = "operator"  # = != ~ !~ < > <= >=
    AND = "and"
    OR = "or"
    NOT = "not"
    BANG = "!"  # NOT, where a clause begins
    IN = "in"
    IS = "is"
    EMPTY = "empty"  # EMPTY and NULL
    WAS = "was"
    CHANGED = "changed"
    AFTER = "after"
    BEFORE = "before"
    BY = "by"
    DURING = "during"
    ON = "on"
    FROM = "from"
    TO = "to"
    ORDER = "order"
    ASC = "asc"
    DESC = "desc"
    CF = "cf"
    NUMBER = "number"
    WORD = "word"  # an unquoted string
    QUOTED = "quoted"  # a quoted string
    END = "end"


class Token(NamedTuple):
    """One token (a named tuple: a query of 2 000 characters makes hundreds of them)."""

    kind: Kind
    #: The value: a string's decoded text, an operator's symbol, a keyword's spelling as written.
    text: str
    #: 1-based index of the token's first character in the query.
    position: int
    #: An unquoted word written with an escape (its text is not how it was written).
    escaped: bool = False


@attrs.frozen(kw_only=True)
class JqlProblem:
    """Why a JQL is refused: ``reason`` in Russian, at ``position`` (1-based character of the query), and
    ``jira`` — the same in Jira's words (``Error in the JQL Query: …``), which the simulator answers."""

    reason: str
    position: int
    jira: str

    def __str__(self) -> str:
        return f"{self.reason} (позиция {self.position})"


class JqlSyntaxError(Exception):
    """Raised inside the lexer and the parser; :func:`reconcile.guard.jql.read_jql` turns it into its problem."""

    def __init__(self, problem: JqlProblem) -> None:
        super().__init__(str(problem))
        self.problem = problem


KEYWORDS: dict[str, Kind] = {
    "and": Kind.AND,
    "or": Kind.OR,
    "not": Kind.NOT,
    "in": Kind.IN,
    "is": Kind.IS,
    "empty": Kind.EMPTY,
    "null": Kind.EMPTY,
    "was": Kind.WAS,
    "changed": Kind.CHANGED,
    "after": Kind.AFTER,
    "before": Kind.BEFORE,
    "by": Kind.BY,
    "during": Kind.DURING,
    "on": Kind.ON,
    "from": Kind.FROM,
    "to": Kind.TO,
    "order": Kind.ORDER,
    "asc": Kind.ASC,
    "desc": Kind.DESC,
    "cf": Kind.CF,
}

#: Jira's reserved words (its documentation's list): an unquoted word that is one of them is refused.
_RESERVED_WORDS = """
    a an abort access add after alias all alter and any are as asc at audit avg be before begin between boolean
    break but by byte catch cf char character check checkpoint collate collation column commit connect continue
    count create current date decimal declare decrement default defaults define delete delimiter desc difference
    distinct divide do double drop else empty encoding end equals escape exclusive exec execute exists explain
    false fetch file field first float for from function go goto grant greater group having identified if
    immediate in increment index initial inner inout input insert int integer intersect intersection into is
    isempty isnull it join last left less like limit lock long max min minus mode modify modulo more multiply next
    no noaudit not notin nowait null number object of on option or order outer output power previous prior
    privileges public raise raw remainder rename resource return returns revoke right row rowid rownum rows select
    session set share size sqrt start strict string subtract such sum synonym table that the their then there
    these they this to trans transaction trigger true uid union unique update user validate values view was when
    whenever where while will with"""
RESERVED_WORDS = frozenset(_RESERVED_WORDS.split())

RESERVED_CHARACTERS = "{}*/%+^$#@?;"
_CONTROL = "\x00-\x09\x0b\x0c\x0e-\x1f\x7f-\x9f\ufdd0-\ufdef\ufffe\uffff\ud800-\udfff"
_ESCAPE = r"\\(?:[tnr\"'\\ ]|u[0-9a-fA-F]{4})"
_IN_WORD = rf"[^ \t\r\n\\\"'=!<>()~,\[\]|&{re.escape(RESERVED_CHARACTERS)}{_CONTROL}]"
_PLAIN = re.compile(f"{_IN_WORD}+")
_CONTROL_CHAR = re.compile(f"[{_CONTROL}]")
_NUMBER = re.compile(r"-?[0-9]+")
_SYMBOLS = {
    "!=": Kind.OPERATOR,
    "!~": Kind.OPERATOR,
    "<=": Kind.OPERATOR,
    ">=": Kind.OPERATOR,
    "=": Kind.OPERATOR,
    "<": Kind.OPERATOR,
    ">": Kind.OPERATOR,
    "~": Kind.OPERATOR,
    "&&": Kind.AND,
    "&": Kind.AND,
    "||": Kind.OR,
    "|": Kind.OR,
    "!": Kind.BANG,
    "(": Kind.LPAREN,
    ")": Kind.RPAREN,
    ",": Kind.COMMA,
    "[": Kind.LBRACKET,
    "]": Kind.RBRACKET,
}
#: One token at a time after whitespace: a symbol (the longest first), a whole quoted string, a word, or the end.
#: What matches none of them (a reserved or control character, a bad escape, an unfinished string) is explained
#: by the slow path.
_NEXT = re.compile(
    r"[ \t\r\n]*(?:"
    r"(?P<symbol>!=|!~|<=|>=|&&|\|\||[=<>~&|!(),\[\]])"
    rf"|(?P<quoted>\"(?:[^\"\\{_CONTROL}]|\\[\s\S])*\"|'(?:[^'\\{_CONTROL}]|\\[\s\S])*')"
    rf"|(?P<word>(?:{_IN_WORD}|{_ESCAPE})+)"
    r"|(?P<end>\Z))"
)
_SPACE = re.compile(r"[ \t\r\n]*")
_SIMPLE_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", '"': '"', "'": "'", "\\": "\\", " ": " "}


def problem_at(text: str, index: int, reason: str, jira: str) -> JqlSyntaxError:
    """The error for a problem at 0-based ``index`` of ``text``; Jira's wording gets Jira's ``(line L, character
    C)`` unless it speaks of the end of the query."""
    if not jira.endswith("end of query."):
        line = text.count("\n", 0, index) + 1
        column = index - (text.rfind("\n", 0, index) + 1) + 1
        jira = f"{jira} (line {line}, character {column})"
    return JqlSyntaxError(JqlProblem(reason=reason, position=index + 1, jira=f"Error in the JQL Query: {jira}"))


def plain_word(value: str, *, numbers: bool) -> bool:
    """Whether ``value`` can be written unquoted and read back as the same string: raw characters only, neither a
    keyword nor a reserved word, and — unless ``numbers`` (a field name, a function's name or argument) — not a
    number."""
    low = value.lower()
    return (
        _PLAIN.fullmatch(value) is not None
        and low not in KEYWORDS
        and low not in RESERVED_WORDS
        and (numbers or _NUMBER.fullmatch(value) is None)
    )


def _decode(text: str, raw: str, start: int) -> str:
    """The value of ``raw`` (a word or a quoted string's inside beginning at ``start`` of ``text``)."""
    if "\\" not in raw:
        return raw
    out: list[str] = []
    i = 0
    while i < len(raw):
        ch = raw[i]
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        nxt = raw[i + 1 : i + 2]
        if nxt in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[nxt])
            i += 2
        elif nxt == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", raw[i + 2 : i + 6]):
            out.append(chr(int(raw[i + 2 : i + 6], 16)))
            i += 6
        else:
            shown = "\\" + raw[i + 1 : i + 2]
            raise problem_at(
                text,
                start + i,
                f"недопустимая escape-последовательность «{shown}»",
                f"The escape sequence '{shown}' is illegal.",
            )
    return "".join(out)


def _character_problem(text: str, i: int) -> JqlSyntaxError:
    ch = text[i]
    if ch in RESERVED_CHARACTERS:
        return problem_at(
            text,
            i,
            f"символ «{ch}» зарезервирован в JQL: возьмите значение в кавычки",
            f"The character '{ch}' is a reserved JQL character. You must enclose it in a string or use the escape "
            f"'\\u{ord(ch):04x}' instead.",
        )
    if ch == "\\":
        return _escape_problem(text, i)
    return problem_at(text, i, f"недопустимый символ U+{ord(ch):04X}", f"The character '\\u{ord(ch):04x}' is illegal.")


def _escape_problem(text: str, i: int) -> JqlSyntaxError:
    shown = text[i : i + 2]
    return problem_at(
        text, i, f"недопустимая escape-последовательность «{shown}»", f"The escape sequence '{shown}' is illegal."
    )


def _string_problem(text: str, i: int) -> JqlSyntaxError:
    """Why the quoted string opening at ``i`` is no token (its regular expression did not match): a control
    character before its closing quote, or no closing quote at all."""
    j = i + 1
    while j < len(text):
        if text[j] == "\\":
            j += 2
        elif _CONTROL_CHAR.match(text[j]):
            return _character_problem(text, j)
        else:
            j += 1
    shown = text[i + 1 :]
    return problem_at(text, i, "незакрытые кавычки", f"The quoted string '{shown}' has not been completed.")


def _word(text: str, raw: str, i: int) -> Token:
    """The token of the unquoted word ``raw`` found at 0-based ``i``."""
    # Neither a keyword nor a number has a backslash: a word with an escape in it is decoded below.
    low = raw.lower()
    if low in KEYWORDS:
        return Token(KEYWORDS[low], raw, i + 1)
    if _NUMBER.fullmatch(raw):
        return Token(Kind.NUMBER, raw, i + 1)
    value = _decode(text, raw, i)
    if value.lower() in RESERVED_WORDS:
        raise problem_at(
            text,
            i,
            f"слово «{value}» зарезервировано в JQL: возьмите его в кавычки",
            f"'{value}' is a reserved JQL word. You must surround it in quotation marks to use it in a query.",
        )
    return Token(Kind.WORD, value, i + 1, escaped="\\" in raw)


def tokenize(text: str) -> list[Token]:
    """The tokens of ``text``, ending with :attr:`Kind.END`; raises :class:`JqlSyntaxError`."""
    tokens: list[Token] = []
    i = 0
    n = len(text)
    while i < n:
        found = _NEXT.match(text, i)
        if found is None:
            i = _SPACE.match(text, i).end()  # type: ignore[union-attr]  # (it matches the empty string too)
            if text[i] in "\"'":
                raise _string_problem(text, i)
            raise _character_problem(text, i)
        kind = found.lastgroup
        i = found.end()
        if kind == "end":
            break
        piece = found.group(kind)  # type: ignore[arg-type]
        start = found.start(kind)  # type: ignore[arg-type]
        if kind == "symbol":
            tokens.append(Token(_SYMBOLS[piece], piece, start + 1))
        elif kind == "quoted":
            tokens.append(Token(Kind.QUOTED, _decode(text, piece[1:-1], start + 1), start + 1))
        else:
            tokens.append(_word(text, piece, start))
    tokens.append(Token(Kind.END, "", n + 1))
    return tokens
