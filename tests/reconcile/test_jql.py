"""Jira's JQL as the hub and the agent read it (DESIGN.md 5.7, issue 31): tokens with Jira's escapes, the grammar
with its precedence, the canonical text, and every refusal with its Russian reason, position and Jira's words."""

from __future__ import annotations

import pytest

from reconcile.guard.jql import JqlProblem, client_jql, read_jql, within_project, within_projects
from reconcile.guard.jql_lexer import JqlSyntaxError, Kind, plain_word, tokenize
from reconcile.guard.jql_tree import (
    And,
    CustomField,
    Empty,
    Field,
    Function,
    Not,
    Number,
    Or,
    Predicate,
    Property,
    Query,
    Sort,
    Terminal,
    Text,
    ValueList,
    jql_text,
    quoted,
)
from tests.support import BASE_AWPCA, BASE_BOTH

#: The issue's reproduction: an unquoted word that ends in ``\"`` (Jira's escape of a quote inside a word).
ESCAPE = 'summary ~ x\\" ) OR project = HR OR ( summary ~ "a\\"b"'


def word(value: str) -> Text:
    return Text(value, quoted=False)


def field(name: str) -> Field:
    return Field(word(name))


def clause(name: str, operator: str, operand: object) -> Terminal:
    value = word(operand) if isinstance(operand, str) else operand
    return Terminal(field(name), operator, value)  # type: ignore[arg-type]


def where(text: str) -> object:
    query = read_jql(text)
    assert isinstance(query, Query), query
    return query.where


def test_the_escape_of_the_issue_is_refused_where_jira_sees_the_parenthesis() -> None:
    """``x\\"`` is one word (``x"``) to Jira, so the ``)`` after it closes what was never opened: refused there."""
    problem = client_jql(ESCAPE)
    assert problem == JqlProblem(
        reason="непарная закрывающая скобка",
        position=15,
        jira="Error in the JQL Query: Expecting either 'OR' or 'AND' but got ')'. (line 1, character 15)",
    )
    assert str(problem) == "непарная закрывающая скобка (позиция 15)"


def test_an_escaped_quote_in_a_word_is_a_value_and_is_sent_quoted() -> None:
    """``x\\"`` reads as the string ``x"``; the canonical text quotes it, so nothing of it can leave its place."""
    condition = client_jql('summary ~ x\\" OR project = HR')
    assert condition == Or((clause("summary", "~", Text('x"')), clause("project", "=", "HR")))
    assert within_projects(["AURORA"], condition) == (  # type: ignore[arg-type]
        'project in (AURORA) AND (summary ~ "x\\"" OR project = HR)'
    )


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ("x\\'", "x'"),
        ("a\\\\b", "a\\b"),
        ("a\\ b", "a b"),
        ("a\\tb", "a\tb"),
        ("a\\nb", "a\nb"),
        ("a\\rb", "a\rb"),
        ("\\u0041\\u00e9", "Aé"),
        ("\\u0029", ")"),
    ],
)
def test_escapes_of_an_unquoted_word(raw: str, value: str) -> None:
    """Every escape Jira takes inside an unquoted word decodes to its character; the word is then written quoted."""
    assert where(f"summary ~ {raw}") == clause("summary", "~", Text(value))
    assert [t.escaped for t in tokenize(raw)] == [True, False]


def test_escapes_inside_quotes_and_both_quotes() -> None:
    """Double and single quotes take the same escapes; a quote of the other kind needs none; a raw line break is
    allowed inside quotes, a raw tab is not."""
    assert where('x = "a\\nb\\tc\\rd\\\\e\\ f\\u0041\\"\\\'"') == clause("x", "=", Text("a\nb\tc\rd\\e fA\"'"))
    assert where("x ~ 'it\\'s \"fine\"'") == clause("x", "~", Text('it\'s "fine"'))
    assert where('x = "line\none"') == clause("x", "=", Text("line\none"))


def test_quoted_text_is_text() -> None:
    """Parentheses, keywords, ORDER BY and reserved words inside quotes are the value, not structure."""
    assert client_jql('summary ~ "a) OR (b ORDER BY key" AND labels = "select"') == And(
        (clause("summary", "~", Text("a) OR (b ORDER BY key")), clause("labels", "=", Text("select")))
    )


def test_tokens() -> None:
    """Symbols, keywords in any case, numbers and words: ``!`` before a clause, ``&``/``&&`` and ``|``/``||``."""
    kinds = [
        t.kind for t in tokenize("w!=b !~ <= >= && || = < > ~ ! & | ( ) , [ ] In NOT was CHANGED Empty null -5 5a")
    ]
    assert kinds == [
        Kind.WORD,
        Kind.OPERATOR,
        Kind.WORD,
        *[Kind.OPERATOR] * 3,
        Kind.AND,
        Kind.OR,
        *[Kind.OPERATOR] * 4,
        Kind.BANG,
        Kind.AND,
        Kind.OR,
        Kind.LPAREN,
        Kind.RPAREN,
        Kind.COMMA,
        Kind.LBRACKET,
        Kind.RBRACKET,
        Kind.IN,
        Kind.NOT,
        Kind.WAS,
        Kind.CHANGED,
        Kind.EMPTY,
        Kind.EMPTY,
        Kind.NUMBER,
        Kind.WORD,
        Kind.END,
    ]
    assert [(t.text, t.position) for t in tokenize("  ab\t(\n'c d'")] == [
        ("ab", 3),
        ("(", 6),
        ("c d", 8),
        ("", 13),
    ]
    keywords = "after before by during on from to order asc desc cf is"
    assert [t.kind.value for t in tokenize(keywords)][:-1] == keywords.split()


def test_precedence_and_groups() -> None:
    """NOT binds tighter than AND, AND than OR; a parenthesised group stays one item; ``!``, ``&&``, ``||``."""
    a, b, c = (clause(n, "=", "1x") for n in "xyz")
    assert where("x = 1x OR y = 1x AND z = 1x") == Or((a, And((b, c))))
    assert where("NOT x = 1x AND y = 1x") == And((Not(a), b))
    assert where("(x = 1x AND y = 1x) AND z = 1x") == And((And((a, b)), c))
    assert where("((x = 1x))") == a
    assert where("! x = 1x && y = 1x || z = 1x & x = 1x | y = 1x") == Or((And((Not(a), b)), And((c, a)), b))
    assert where("NOT NOT x = 1x") == Not(Not(a))


def test_every_operator() -> None:
    """The symbol operators and the word ones, in the canonical spelling."""
    for operator in ("=", "!=", "~", "!~", "<", ">", "<=", ">="):
        assert where(f"x {operator} y1") == clause("x", operator, "y1")
    words = {
        "in": "in",
        "NOT IN": "not in",
        "is": "is",
        "is NOT": "is not",
        "WAS": "was",
        "was in": "was in",
        "was not": "was not",
        "WAS NOT IN": "was not in",
    }
    for written, operator in words.items():
        assert where(f"x {written} y1") == clause("x", operator, "y1")


def test_operands() -> None:
    """EMPTY/NULL, numbers (Jira's long), strings, functions with arguments, lists (nested too)."""
    assert where("x is EMPTY") == where("x is null") == clause("x", "is", Empty())
    assert where("x = -5") == clause("x", "=", Number(-5))
    assert where("x = 007") == clause("x", "=", Number(7))
    assert where("x = 9223372036854775807") == clause("x", "=", Number(2**63 - 1))
    assert where("x = -9223372036854775808") == clause("x", "=", Number(-(2**63)))
    assert where("x >= -7d") == clause("x", ">=", "-7d")
    assert where("x = AURORA-1") == clause("x", "=", "AURORA-1")
    assert where("x = currentUser()") == clause("x", "=", Function(word("currentUser")))
    assert where("x >= startOfDay(-1, 'a b', c2)") == clause(
        "x", ">=", Function(word("startOfDay"), (word("-1"), Text("a b"), word("c2")))
    )
    assert where('x = 5("y")') == clause("x", "=", Function(word("5"), (Text("y"),)))
    assert where('x in (a1, "b", 2, f(), (c1))') == clause(
        "x", "in", ValueList((word("a1"), Text("b"), Number(2), Function(word("f")), ValueList((word("c1"),))))
    )


def test_fields() -> None:
    """Quoted names, numbers, ``cf[N]``, entity properties (``[key]`` then ``.path``)."""
    assert where('"Epic Link" = A-1') == Terminal(Field(Text("Epic Link")), "=", word("A-1"))
    assert where("10000 = x1") == Terminal(Field(word("10000")), "=", word("x1"))
    assert where("cf[010100] = x1") == Terminal(Field(CustomField(10100)), "=", word("x1"))
    assert where("issue.property[k1].b.c = 1") == Terminal(
        Field(word("issue.property"), (Property(word("k1"), word("b.c")),)), "=", Number(1)
    )
    assert where('p[k1] .x ".y z" [2] = 1') == Terminal(
        Field(word("p"), (Property(word("k1"), Text("x.y z")), Property(word("2")))), "=", Number(1)
    )


def test_history_predicates() -> None:
    """WAS and CHANGED take Jira's predicates; CHANGED takes no operand."""
    assert where(
        'status changed FROM a1 to b2 BY currentUser() after "2026/01/01" before d1 on e1 during (f1, g1)'
    ) == (
        Terminal(
            field("status"),
            "changed",
            None,
            (
                Predicate("from", word("a1")),
                Predicate("to", word("b2")),
                Predicate("by", Function(word("currentUser"))),
                Predicate("after", Text("2026/01/01")),
                Predicate("before", word("d1")),
                Predicate("on", word("e1")),
                Predicate("during", ValueList((word("f1"), word("g1")))),
            ),
        )
    )
    assert where("status was not in (x1) by y1") == Terminal(
        field("status"), "was not in", ValueList((word("x1"),)), (Predicate("by", word("y1")),)
    )
    assert where("status changed") == Terminal(field("status"), "changed", None)


def test_order_by_is_read_and_refused_in_a_clients_jql() -> None:
    """ORDER BY parses (fields, ASC/DESC); a client's JQL with it is refused at the ORDER, whatever its case."""
    assert read_jql("x = 1 ORDER BY y, cf[1] DESC, z asc") == Query(
        where=clause("x", "=", Number(1)),
        order_by=(Sort(field("y")), Sort(Field(CustomField(1)), "desc"), Sort(field("z"), "asc")),
    )
    assert read_jql("order by y") == Query(where=None, order_by=(Sort(field("y")),))
    assert client_jql("x = 1 order\n  BY y") == JqlProblem(
        reason="ORDER BY не допускается", position=7, jira="ORDER BY is not allowed here."
    )
    assert client_jql("ORDER BY y") == JqlProblem(
        reason="ORDER BY не допускается", position=1, jira="ORDER BY is not allowed here."
    )


@pytest.mark.parametrize("text", ["", "  \n\t "])
def test_an_empty_jql_is_refused(text: str) -> None:
    """Jira would read it as every issue; inside the wrapper it would not even parse."""
    assert read_jql(text) == Query(where=None)
    assert client_jql(text) == JqlProblem(reason="пустой запрос", position=1, jira="The query is empty.")


def _error(jira: str) -> str:
    return f"Error in the JQL Query: {jira}"


@pytest.mark.parametrize(
    ("text", "reason", "position", "jira"),
    [
        ("project = HR) OR (x = 1", "непарная закрывающая скобка", 13, "Expecting either 'OR' or 'AND' but got ')'."),
        ("summary ~ (x1", "незакрытая скобка", 14, "Expecting ')' but got end of query."),
        ("(project = AURORA", "незакрытая скобка", 18, "Expecting ')' but got end of query."),
        ("(x = 1 y", "ожидалась «)», а встретилось «y»", 8, "Expecting ')' but got 'y'."),
        ("f = g(x1", "незакрытая скобка", 9, "Expecting ')' but got end of query."),
        ('summary ~ "x', "незакрытые кавычки", 11, "The quoted string 'x' has not been completed."),
        ("summary ~ 'x", "незакрытые кавычки", 11, "The quoted string 'x' has not been completed."),
        ('x = "a\tb"', "недопустимый символ U+0009", 7, "The character '\\u0009' is illegal."),
        ('x = "a\\"\x01"', "недопустимый символ U+0001", 9, "The character '\\u0001' is illegal."),
        ('x = "\x02"', "недопустимый символ U+0002", 6, "The character '\\u0002' is illegal."),
        ('x = "a\\"b', "незакрытые кавычки", 5, "The quoted string 'a\\\"b' has not been completed."),
        # an escaped control character belongs to the string (its escape is judged once the string is whole)
        ('x = "a\\\x01', "незакрытые кавычки", 5, "The quoted string 'a\\\x01' has not been completed."),
        # the tab before the quote is whitespace, not the string's
        ('x =\t"a', "незакрытые кавычки", 5, "The quoted string 'a' has not been completed."),
        ("x = b\x01", "недопустимый символ U+0001", 6, "The character '\\u0001' is illegal."),
        ("x = \x7f", "недопустимый символ U+007F", 5, "The character '\\u007f' is illegal."),
        ("summary ~ x\\q", "недопустимая escape-последовательность «\\q»", 12, "The escape sequence '\\q' is illegal."),
        ('x ~ "y\\q"', "недопустимая escape-последовательность «\\q»", 7, "The escape sequence '\\q' is illegal."),
        ('x ~ "y\\q1234"', "недопустимая escape-последовательность «\\q»", 7, "The escape sequence '\\q' is illegal."),
        ('x ~ "y\\u12g4"', "недопустимая escape-последовательность «\\u»", 7, "The escape sequence '\\u' is illegal."),
        ("x ~ y\\u12g4", "недопустимая escape-последовательность «\\u»", 6, "The escape sequence '\\u' is illegal."),
        ("x ~ \\", "недопустимая escape-последовательность «\\»", 5, "The escape sequence '\\' is illegal."),
        (
            "created >= 2026/01/01",
            "символ «/» зарезервирован в JQL: возьмите значение в кавычки",
            16,
            "The character '/' is a reserved JQL character. You must enclose it in a string or use the escape "
            "'\\u002f' instead.",
        ),
        (
            "x = ;",
            "символ «;» зарезервирован в JQL: возьмите значение в кавычки",
            5,
            "The character ';' is a reserved JQL character. You must enclose it in a string or use the escape "
            "'\\u003b' instead.",
        ),
        (
            "summary ~ Select",
            "слово «Select» зарезервировано в JQL: возьмите его в кавычки",
            11,
            "'Select' is a reserved JQL word. You must surround it in quotation marks to use it in a query.",
        ),
        (
            "summary ~ \\u0061nd",
            "слово «and» зарезервировано в JQL: возьмите его в кавычки",
            11,
            "'and' is a reserved JQL word. You must surround it in quotation marks to use it in a query.",
        ),
        ("project AURORA", "ожидался оператор, а встретилось «AURORA»", 9, "Expecting operator but got 'AURORA'."),
        ("x not y", "ожидалось IN, а встретилось «y»", 7, "Expecting 'IN' but got 'y'."),
        ("x ! in (y)", "ожидался оператор, а встретилось «!»", 3, "Expecting operator but got '!'."),
        (
            "project =",
            "ожидалось значение, список или функция, а встретилось конец запроса",
            10,
            "Expecting either a value, list or function but got end of query.",
        ),
        (
            "x in ()",
            "ожидалось значение, список или функция, а встретилось «)»",
            7,
            "Expecting either a value, list or function but got ')'.",
        ),
        (
            "x = 1 AND",
            "ожидалось имя поля, а встретилось конец запроса",
            10,
            "Expecting a field name but got end of query.",
        ),
        (")", "ожидалось имя поля, а встретилось «)»", 1, "Expecting a field name but got ')'."),
        ("x = 1 y = 2", "ожидалось AND или OR, а встретилось «y»", 7, "Expecting either 'OR' or 'AND' but got 'y'."),
        ("x in (a1 b2)", "ожидалась «,» или «)», а встретилось «b2»", 10, "Expecting either ',' or ')' but got 'b2'."),
        ("x in (a1", "незакрытая скобка", 9, "Expecting ')' but got end of query."),
        ("f = g(x1 y1)", "ожидалась «,» или «)», а встретилось «y1»", 10, "Expecting either ',' or ')' but got 'y1'."),
        ("f = g(,)", "ожидался аргумент функции, а встретилось «,»", 7, "Expecting a function argument but got ','."),
        ("cf[x1] = 1", "ожидался номер поля, а встретилось «x1»", 4, "Expecting a custom field id but got 'x1'."),
        ("cf[-1] = 1", "ожидался номер поля, а встретилось «-1»", 4, "Expecting a custom field id but got '-1'."),
        (
            "cf[9223372036854775808] = 1",
            "ожидался номер поля, а встретилось «9223372036854775808»",
            4,
            "Expecting a custom field id but got '9223372036854775808'.",
        ),
        ("cf = 1", "ожидалась «[», а встретилось «=»", 4, "Expecting '[' but got '='."),
        ("cf[1 = 1", "ожидалась «]», а встретилось «=»", 6, "Expecting ']' but got '='."),
        ("p[k1 = 1", "ожидалась «]», а встретилось «=»", 6, "Expecting ']' but got '='."),
        (
            "p[k1]b1 = 1",
            "ожидался путь свойства («.имя»), а встретилось «b1»",
            6,
            "Expecting a property reference ('.name') but got 'b1'.",
        ),
        (
            "p[k1].. = 1",
            "ожидался путь свойства («.имя»), а встретилось «..»",
            6,
            "Expecting a property reference ('.name') but got '..'.",
        ),
        (
            "p[k1]. = 1",
            "ожидался путь свойства («.имя»), а встретилось «.»",
            6,
            "Expecting a property reference ('.name') but got '.'.",
        ),
        (
            "x = 9223372036854775808",
            "число 9223372036854775808 вне диапазона",
            5,
            "The number '9223372036854775808' is too large.",
        ),
        (
            "x = -9223372036854775809",
            "число -9223372036854775809 вне диапазона",
            5,
            "The number '-9223372036854775809' is too large.",
        ),
        (
            "status changed x1",
            "CHANGED не принимает значения, только предикаты",
            8,
            "The operator 'changed' does not support an operand.",
        ),
        (
            "status = a1 after b2",
            "предикаты истории допустимы только после WAS и CHANGED, не после =",
            8,
            "History predicates are not supported for the operator '='.",
        ),
        (
            "status was a1 after",
            "ожидалось значение, список или функция, а встретилось конец запроса",
            20,
            "Expecting either a value, list or function but got end of query.",
        ),
        ("x = 1 ORDER", "ожидалось BY, а встретилось конец запроса", 12, "Expecting 'by' but got end of query."),
        (
            "x = 1 ORDER BY y z",
            "ожидалось ASC, DESC или «,», а встретилось «z»",
            18,
            "Expecting either 'ASC', 'DESC' or ',' but got 'z'.",
        ),
        ("x = 1 ORDER BY y DESC z", "ожидалась запятая, а встретилось «z»", 23, "Expecting ',' but got 'z'."),
        ("= 1", "ожидалось имя поля, а встретилось «=»", 1, "Expecting a field name but got '='."),
        ('"" = x', "пустое имя поля", 1, "The field name is empty."),
        ('x = ""()', "пустое имя функции", 5, "The function name is empty."),
    ],
)
def test_what_jira_would_refuse_is_refused_with_its_position(text: str, reason: str, position: int, jira: str) -> None:
    """Each refusal says why in Russian, at the 1-based character where Jira's parser stops, and in Jira's words
    with Jira's ``(line, character)`` (except at the end of the query) — what the simulator answers."""
    problem = read_jql(text)
    where_jira = "" if jira.endswith("end of query.") else f" (line 1, character {position})"
    assert problem == JqlProblem(reason=reason, position=position, jira=_error(jira) + where_jira)


@pytest.mark.parametrize(
    ("text", "position", "line", "character"),
    [
        ("x = 1\n  AND y = ?", 17, 2, 11),
        ("\nx = ?", 6, 2, 5),  # the line that begins the text counts
        ("x = ?\ny = 1", 5, 1, 5),  # the lines after the problem do not
        ("x = 1\n\ny = 1 OR\n z = ?", 22, 4, 6),
    ],
)
def test_jiras_position_counts_lines(text: str, position: int, line: int, character: int) -> None:
    """Jira names the line and the character inside it; our position counts the whole text."""
    problem = read_jql(text)
    assert problem == JqlProblem(
        reason="символ «?» зарезервирован в JQL: возьмите значение в кавычки",
        position=position,
        jira=_error(
            "The character '?' is a reserved JQL character. You must enclose it in a string or use the escape "
            f"'\\u003f' instead. (line {line}, character {character})"
        ),
    )


def test_an_escape_of_upper_or_lower_hex_digits_is_its_character() -> None:
    """``\\u00E9`` and ``\\u00e9`` are both «é», in a quoted string and in a word."""
    assert read_jql('x ~ "caf\\u00E9"') == read_jql('x ~ "caf\\u00e9"') == read_jql('x ~ "café"')
    assert read_jql("x ~ caf\\u00E9") == read_jql("x ~ caf\\u00e9") == read_jql('x ~ "café"')  # escaped: quoted


def test_the_lexers_error_reads_as_its_problem() -> None:
    """The exception the lexer raises says what the problem says (a log of it is not empty)."""
    with pytest.raises(JqlSyntaxError) as raised:
        tokenize("x = ?")
    assert (
        str(raised.value)
        == str(raised.value.problem)
        == "символ «?» зарезервирован в JQL: возьмите значение в кавычки (позиция 5)"
    )


@pytest.mark.parametrize(
    "text",
    [
        BASE_AWPCA,
        BASE_BOTH,
        f"({BASE_AWPCA}) AND sprint in openSprints() AND statusCategory != Done",
        "project = AURORA AND reporter = currentUser() AND created >= -7d",
        'project in (AURORA, OPS) AND (summary ~ "x\\"" OR project = HR)',
        "NOT x = 1 AND (y = 2 OR NOT (z = 3 AND w = 4))",
        'cf[10100] in (A-1, "Б 2") AND "Epic Link" is not EMPTY AND status was in (a1) by b1 during (c1, d1)',
        "p[k1].x.y = -5 AND f >= startOfDay(-1) AND status changed ORDER BY created DESC, key",
    ],
)
def test_canonical_text_of_canonical_jql_is_itself(text: str) -> None:
    """The hub's own JQL (the seed's base and start JQL) and any canonical text are their own canonical text."""
    query = read_jql(text)
    assert isinstance(query, Query)
    assert jql_text(query) == text


def test_canonical_text() -> None:
    """Keywords in one spelling, single quotes and escapes made double-quoted, redundant parentheses dropped,
    compounds inside compounds parenthesised."""
    query = read_jql("x = 'a' and (y = \\u0062 || z is null) & ((w ~ \"c\\u0009\\u0001\")) order by k1 asc")
    assert isinstance(query, Query)
    assert jql_text(query) == 'x = "a" AND (y = "b" OR z is EMPTY) AND w ~ "c\\t\\u0001" ORDER BY k1 ASC'
    assert jql_text(Not(And((clause("x", "=", "1x"), clause("y", "=", "2y"))))) == "NOT (x = 1x AND y = 2y)"
    assert jql_text(
        Terminal(Field(CustomField(7), (Property(word("12"), word("a.b")), Property(Text("k")))), "=", Number(1))
    ) == ('cf[7][12].a.b["k"] = 1')
    assert jql_text(Query(where=None)) == ""


def test_quoted() -> None:
    """A double-quoted JQL string: quote, backslash, line breaks, tab and control characters escaped."""
    assert quoted('a"b\\c\nd\re\tf\x00\x1f\x7f\x9f\ufdd0\ufdef\ufffe\uffff\ud800\udfffg') == (
        '"a\\"b\\\\c\\nd\\re\\tf\\u0000\\u001f\\u007f\\u009f\\ufdd0\\ufdef\\ufffe\\uffff\\ud800\\udfffg"'
    )
    assert quoted("X\x20\x7e\xa0\ufdcf\ufdf0\ufffd\U00010000\ud7ff\ue000") == (
        '"X\x20\x7e\xa0\ufdcf\ufdf0\ufffd\U00010000\ud7ff\ue000"'
    )


def test_a_word_is_written_bare_only_when_it_reads_back_the_same() -> None:
    """Keywords, reserved words, numbers (as values), escapes and stop characters force quotes."""
    assert plain_word("AURORA-1", numbers=False)
    assert plain_word("-7d", numbers=False)
    assert plain_word("12", numbers=True)
    assert not plain_word("12", numbers=False)
    assert not plain_word("-12", numbers=False)
    for value in ("", "in", "OR", "cf", "select", "a b", "a(b", "a\\b", 'a"b', "a/b", "a\tb", "a~b", "a!b", "a&b"):
        assert not plain_word(value, numbers=True), value
    assert jql_text(clause("x", "=", "12")) == 'x = "12"'
    assert jql_text(clause("x", "=", "in")) == 'x = "in"'
    assert jql_text(Terminal(Field(word("a b")), "=", Function(word("f g"), (word("1"), word("-"))))) == (
        '"a b" = "f g"(1, -)'
    )


def test_the_hubs_and_the_agents_restriction() -> None:
    """The hub stores ``project = <jira_project> AND (<tree>)``; what it stored, sent again, is stored the same;
    the agent sends ``project in (<allowed>) AND (<tree>)``, each project written as a value."""
    condition = client_jql("key = HR-1 OR x = 1")
    assert not isinstance(condition, JqlProblem)
    stored = within_project("AURORA", condition)
    assert stored == "project = AURORA AND (key = HR-1 OR x = 1)"
    again = client_jql(stored)
    assert not isinstance(again, JqlProblem)
    assert within_project("AURORA", again) == stored
    assert within_project("OPS", again) == f"project = OPS AND ({stored})"
    three = client_jql("project = AURORA AND x = 1 AND y = 2")
    assert not isinstance(three, JqlProblem)
    assert within_project("AURORA", three) == "project = AURORA AND (project = AURORA AND x = 1 AND y = 2)"
    single = client_jql("x = 1")
    assert not isinstance(single, JqlProblem)
    assert within_projects(["AURORA", "OPS", "select"], single) == 'project in (AURORA, OPS, "select") AND (x = 1)'


def test_nesting_stops_at_a_hundred_levels() -> None:
    """A hostile JQL of thousands of parentheses, NOTs or nested lists is refused, never a crash of the stack;
    a hundred levels still parse."""
    hundred = "(" * 99 + "NOT x = 1" + ")" * 99
    assert isinstance(read_jql(hundred), Query)
    for deep, at in (
        ("(" * 5000 + "x = 1" + ")" * 5000, 101),
        ("NOT " * 101 + "x = 1", 401),
        ("x in " + "(" * 101, 106),
    ):
        assert read_jql(deep) == JqlProblem(
            reason="вложенность глубже 100 уровней",
            position=at,
            jira=f"Error in the JQL Query: The query is nested deeper than 100 levels. (line 1, character {at})",
        )
    assert read_jql("(" * 50 + "x in " + "(" * 50 + "1" + ")" * 100) == read_jql("x in " + "(" * 50 + "1" + ")" * 50)
    # a list closed gives its level back: 150 lists side by side parse, and a list at level 99 leaves room for 2 more
    assert isinstance(read_jql(" AND ".join(["x in (1)"] * 150)), Query)
    after_a_list = "(" * 98 + "x in (1) AND " + "(" * 3 + "y = 1" + ")" * 101
    assert read_jql(after_a_list) == JqlProblem(
        reason="вложенность глубже 100 уровней",
        position=114,
        jira="Error in the JQL Query: The query is nested deeper than 100 levels. (line 1, character 114)",
    )
    assert isinstance(read_jql("(" * 98 + "x in (1) AND " + "(" * 2 + "y = 1" + ")" * 100), Query)
    # so do a NOT and a parenthesis: after each at level 99, the third level more is one too many
    for level_99 in ("NOT x = 1", "(x = 1)"):
        assert read_jql("(" * 98 + level_99 + " AND " + "(" * 3 + "y = 1" + ")" * 101) == JqlProblem(
            reason="вложенность глубже 100 уровней",
            position=98 + len(level_99) + 5 + 3,
            jira="Error in the JQL Query: The query is nested deeper than 100 levels. "
            f"(line 1, character {98 + len(level_99) + 5 + 3})",
        )
        assert isinstance(read_jql("(" * 98 + level_99 + " AND " + "(" * 2 + "y = 1" + ")" * 100), Query)
