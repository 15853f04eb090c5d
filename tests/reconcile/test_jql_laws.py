"""The laws behind JQL by parsing (issue 31): the canonical text reads back as its tree, reading never crashes,
and whatever the agent would send Jira is a conjunction whose first operand is the project restriction."""

from __future__ import annotations

from hypothesis import event, given, settings
from hypothesis import strategies as st

from reconcile.guard.jql import (
    JqlProblem,
    client_jql,
    project_restriction,
    projects_restriction,
    read_jql,
    within_project,
    within_projects,
)
from reconcile.guard.jql_lexer import plain_word
from reconcile.guard.jql_tree import (
    PREDICATES,
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
    jql_text,
)

OPERATORS = ("=", "!=", "~", "!~", "<", ">", "<=", ">=", "in", "not in", "is", "is not", "was", "was in")
HISTORY = ("was", "was in", "was not", "was not in", "changed")
TRICKY = list("aZ9-_. \"'\\()[],=~!&|/;?{}\t\n\r\x00\x01\x7f\x85\xa0é\u2028\ufdd0\uffff")
VALUES = st.text(st.sampled_from(TRICKY), max_size=4) | st.sampled_from(
    ["AURORA-1", "-7d", "12", "-5", "in", "EMPTY", "select", "cf", "order", "x"]
)


def texts(*, numbers: bool, prefix: str = "", nonempty: bool = False) -> st.SearchStrategy[Text]:
    """A string as the parser gives it: written bare only when it reads back bare and the same."""
    values = VALUES.filter(bool) if nonempty else VALUES
    return st.builds(
        lambda value, bare: Text(value, quoted=not (bare and plain_word(prefix + value, numbers=numbers))),
        values,
        st.booleans(),
    )


LEAVES: st.SearchStrategy[Operand] = st.one_of(
    texts(numbers=False),
    st.builds(Number, st.integers(-(2**63), 2**63 - 1)),
    st.just(Empty()),
    st.builds(Function, texts(numbers=True, nonempty=True), st.lists(texts(numbers=True), max_size=2).map(tuple)),
)
OPERANDS = st.recursive(
    LEAVES, lambda inner: st.lists(inner, min_size=1, max_size=2).map(tuple).map(ValueList), max_leaves=2
)
PATHS = st.none() | texts(numbers=True, prefix=".", nonempty=True).filter(lambda t: not t.value.startswith("."))
FIELDS = st.builds(
    Field,
    texts(numbers=True, nonempty=True) | st.builds(CustomField, st.integers(0, 2**63 - 1)),
    st.lists(st.builds(Property, texts(numbers=True), PATHS), max_size=1).map(tuple),
)


@st.composite
def terminals(draw: st.DrawFn) -> Terminal:
    operator = draw(st.sampled_from(OPERATORS + HISTORY))
    operand = None if operator == "changed" else draw(OPERANDS)
    predicates: tuple[Predicate, ...] = ()
    if operator in HISTORY:
        predicates = tuple(draw(st.lists(st.builds(Predicate, st.sampled_from(PREDICATES), OPERANDS), max_size=1)))
    return Terminal(draw(FIELDS), operator, operand, predicates)


NODES: st.SearchStrategy[Node] = st.recursive(
    terminals(),
    lambda inner: st.one_of(
        st.lists(inner, min_size=2, max_size=2).map(tuple).map(And),
        st.lists(inner, min_size=2, max_size=2).map(tuple).map(Or),
        inner.map(Not),
    ),
    max_leaves=3,
)
QUERIES = st.builds(
    Query,
    st.none() | NODES,
    st.lists(st.builds(Sort, FIELDS, st.sampled_from([None, "asc", "desc"])), max_size=1).map(tuple),
)


@settings(max_examples=150)
@given(QUERIES)
def test_the_canonical_text_reads_back_as_its_tree(query: Query) -> None:
    """parse(serialise(tree)) == tree, for any tree the parser can give."""
    assert read_jql(jql_text(query)) == query


PIECES = [
    "(",
    ")",
    '"',
    "'",
    "\\",
    '\\"',
    "\\'",
    "\\\\",
    "\\ ",
    "\\u0029",
    "\\u0022",
    " ",
    "\n",
    "OR",
    "AND",
    "NOT",
    "!",
    "&&",
    "||",
    "&",
    "|",
    "ORDER BY",
    "order",
    "by",
    "project",
    "summary",
    "=",
    "!=",
    "~",
    "in",
    "not in",
    "is",
    "empty",
    "HR",
    "AURORA",
    "x",
    "currentUser()",
    "openSprints(",
    ",",
    "startOfDay(-1)",
    "-5",
    "cf[10100]",
    "[",
    "]",
    "was",
    "changed",
    "after",
    "'a\\\"b'",
    '"a\\"b"',
    "key = HR-1",
    "project = HR",
    'summary ~ x\\"',
    "/",
    "select",
]
SOUP = st.lists(st.tuples(st.sampled_from(PIECES), st.sampled_from(["", " "])), min_size=1, max_size=14).map(
    lambda parts: "".join(piece + gap for piece, gap in parts)
)
ATOMS = st.sampled_from(
    [
        "key = HR-1",
        "project = HR",
        'summary ~ x\\"',
        'summary ~ "a\\"b"',
        "summary ~ x\\)",
        "summary ~ x\\\\",
        'x in (a1, "b)")',
        "x = '\\')'",
        "status changed after -1d",
        "f >= startOfDay(-1)",
        "cf[10100] is EMPTY",
        "labels = \\u0029",
        'summary ~ "ORDER BY x"',
        "key = HR-1 ORDER BY key",
    ]
)
GLUE = st.sampled_from([" OR ", " AND ", "&&", "||", " | ", " & "])
STRUCTURED = st.recursive(
    ATOMS,
    lambda inner: st.one_of(
        st.tuples(inner, GLUE, inner).map("".join),
        inner.map(lambda s: f"({s})"),
        inner.map(lambda s: f"NOT {s}"),
        inner.map(lambda s: f"!{s}"),
    ),
    max_leaves=5,
)
SPOILED = st.tuples(STRUCTURED, st.integers(0, 200), st.sampled_from(PIECES)).map(
    lambda t: t[0][: t[1]] + t[2] + t[0][t[1] :]
)
#: Token soups, compound conditions made of tricky clauses, and such conditions with one piece slipped in.
TOKENS = st.one_of(SOUP, STRUCTURED, SPOILED)


@settings(max_examples=400)
@given(TOKENS, st.sampled_from([("AURORA",), ("AURORA", "OPS")]))
def test_what_the_agent_sends_is_restricted_to_its_projects(jql: str, projects: tuple[str, ...]) -> None:
    """Escapes, quotes, parentheses, keywords, ORDER BY, functions: a client's JQL is refused, or what the agent
    sends reads back (with the parser the simulator uses) as ``<project restriction> AND <what the client
    asked>`` and nothing else — no ORDER BY, no second operand at the top."""
    condition = client_jql(jql)
    if isinstance(condition, JqlProblem):
        event("refused")
        assert 1 <= condition.position <= len(jql) + 1
        return
    event("sent")
    sent = read_jql(within_projects(projects, condition))
    assert sent == Query(where=And((projects_restriction(projects), condition)))


@settings(max_examples=150)
@given(TOKENS)
def test_what_the_hub_stores_is_restricted_to_its_project_and_stable(jql: str) -> None:
    """What the hub stores reads back as ``project = <jira_project> AND <condition>``; stored again, it is the same."""
    condition = client_jql(jql)
    if isinstance(condition, JqlProblem):
        return
    stored = within_project("AURORA", condition)
    again = client_jql(stored)
    assert isinstance(again, And)
    assert again.items[0] == project_restriction("AURORA")
    assert len(again.items) == 2
    assert within_project("AURORA", again) == stored


@settings(max_examples=200)
@given(st.text(st.sampled_from(TRICKY) | st.characters(), max_size=40) | TOKENS)
def test_reading_never_crashes_and_canonical_text_is_stable(text: str) -> None:
    """Any text is a tree or a problem at a position inside it (or just past its end); a tree's canonical text
    reads back as the same tree."""
    query = read_jql(text)
    if isinstance(query, JqlProblem):
        assert 1 <= query.position <= len(text) + 1
        assert query.jira.startswith("Error in the JQL Query: ")
        return
    assert read_jql(jql_text(query)) == query
