"""The JQL evaluator agrees with a plain reference filter on generated issues and queries."""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jira_sim.jql import compile_query
from jira_sim.jql_facts import IssueFacts, JqlContext, SprintFacts
from jira_sim.jql_syntax import And, Clause, JqlError, Value, parse
from reconcile.guard.jql import read_jql
from reconcile.guard.jql_tree import Query
from reconcile.guard.policy import agent_jql
from tests.reconcile.test_jql_laws import TOKENS
from tests.support import T0

ZONE = ZoneInfo("Asia/Novosibirsk")
SPRINTS = (
    SprintFacts(id=6, name="Спринт 1", state="closed"),
    SprintFacts(id=7, name="Спринт 2", state="active"),
    SprintFacts(id=8, name="Спринт 3", state="future"),
)
LABELS = ["AWPCA", "STOCKS_DRRK", "kind-dev", "awpca"]
CATEGORY = {"10100": "new", "10101": "indeterminate", "10103": "done"}
UNITS = {"d": timedelta(days=1), "h": timedelta(hours=1), "m": timedelta(minutes=1)}

issue_st = st.fixed_dictionaries(
    {
        "project": st.sampled_from(["AURORA", "OTHER"]),
        "labels": st.lists(st.sampled_from(LABELS), unique=True, max_size=3),
        "reporter": st.sampled_from(["bridge-user", "ivanov", None]),
        "created": st.integers(min_value=0, max_value=20 * 24 * 60),  # minutes before T0
        "touched": st.integers(min_value=0, max_value=20 * 24 * 60),  # minutes after created, capped at T0
        "sprints": st.lists(st.sampled_from([6, 7, 8]), unique=True, max_size=2),
        "status": st.sampled_from(sorted(CATEGORY)),
    }
)


def build(raw: list[dict[str, Any]]) -> list[IssueFacts]:
    out = []
    for n, r in enumerate(raw, start=1):
        created = T0 - timedelta(minutes=r["created"])
        updated = min(created + timedelta(minutes=r["touched"]), T0)
        out.append(
            IssueFacts(
                key=f"{r['project']}-{n * 7 % 101 + n}",
                project_key=r["project"],
                project_name=r["project"].title(),
                project_id="1" if r["project"] == "AURORA" else "2",
                issuetype="Задача",
                issuetype_id="3",
                status=r["status"],
                status_id=r["status"],
                status_category=CATEGORY[r["status"]],
                labels=tuple(r["labels"]),
                reporter=r["reporter"],
                created=created,
                updated=updated,
                sprints=tuple(s for s in SPRINTS if s.id in r["sprints"]),
            )
        )
    return out


# A query is a tree of ("and"|"or", left, right), ("not", q) or an atom; each atom renders to JQL and has a
# reference predicate written without the module under test.
def atom_st(keys: list[str]) -> st.SearchStrategy[tuple[str, Any]]:
    return st.one_of(
        st.tuples(st.just("project"), st.sampled_from(["=", "!="]), st.sampled_from(["AURORA", "OTHER", "aurora"])),
        st.tuples(st.just("labels in"), st.lists(st.sampled_from(LABELS), min_size=1, max_size=3)),
        st.tuples(st.just("labels not in"), st.lists(st.sampled_from(LABELS), min_size=1, max_size=2)),
        st.tuples(st.just("labels empty")),
        st.tuples(st.just("reporter me")),
        st.tuples(st.just("created"), st.integers(0, 30), st.sampled_from(sorted(UNITS))),
        st.tuples(st.just("updated"), st.integers(0, 20 * 24 * 60)),
        st.tuples(st.just("key in"), st.lists(st.sampled_from(keys), min_size=1, max_size=3)),
        st.tuples(st.just("open sprints")),
        st.tuples(st.just("category"), st.sampled_from(["=", "!="])),
    )


def query_st(keys: list[str]) -> st.SearchStrategy[Any]:
    return st.recursive(
        atom_st(keys),
        lambda inner: st.one_of(
            st.tuples(st.sampled_from(["and", "or"]), inner, inner),
            st.tuples(st.just("not"), inner),
        ),
        max_leaves=6,
    )


def render(q: Any) -> str:
    kind = q[0]
    if kind in ("and", "or"):
        return f"({render(q[1])} {kind.upper()} {render(q[2])})"
    if kind == "not":
        return f"NOT ({render(q[1])})"
    if kind == "project":
        return f"project {q[1]} {q[2]}"
    if kind == "labels in":
        return "labels in (" + ", ".join(f'"{v}"' for v in q[1]) + ")"
    if kind == "labels not in":
        return "labels not in (" + ", ".join(q[1]) + ")"
    if kind == "labels empty":
        return "labels is EMPTY"
    if kind == "reporter me":
        return "reporter = currentUser()"
    if kind == "created":
        return f"created >= -{q[1]}{q[2]}"
    if kind == "updated":
        local = (T0 - timedelta(minutes=q[1])).astimezone(ZONE)
        return f'updated >= "{local:%Y/%m/%d %H:%M}"'
    if kind == "key in":
        return "key in (" + ", ".join(q[1]) + ")"
    if kind == "open sprints":
        return "sprint in openSprints()"
    return f"statusCategory {q[1]} Done"


def reference(q: Any, i: IssueFacts) -> bool:
    kind = q[0]
    if kind == "and":
        return reference(q[1], i) and reference(q[2], i)
    if kind == "or":
        return reference(q[1], i) or reference(q[2], i)
    if kind == "not":
        return not reference(q[1], i)
    if kind == "project":
        same = i.project_key.lower() == q[2].lower()
        return same if q[1] == "=" else not same
    lowered = {label.lower() for label in i.labels}
    if kind == "labels in":
        return bool(lowered & {v.lower() for v in q[1]})
    if kind == "labels not in":
        return bool(lowered) and not (lowered & {v.lower() for v in q[1]})
    if kind == "labels empty":
        return not i.labels
    if kind == "reporter me":
        return i.reporter == "bridge-user"
    if kind == "created":
        return i.created >= T0 - q[1] * UNITS[q[2]]
    if kind == "updated":
        bound = T0 - timedelta(minutes=q[1])
        return i.updated >= bound.replace(second=0, microsecond=0)
    if kind == "key in":
        return i.key in q[1]
    if kind == "open sprints":
        return any(s.state != "closed" for s in i.sprints)
    done = i.status_category == "done"
    return done if q[1] == "=" else not done


def context(issues: list[IssueFacts], *, strict: bool = True) -> JqlContext:
    return JqlContext(
        now=T0,
        user="bridge-user",
        zone=ZONE,
        projects=(("AURORA", "Aurora", "1"), ("OTHER", "Other", "2")),
        users=("bridge-user", "ivanov"),
        statuses=tuple((s, s) for s in CATEGORY),
        sprints=SPRINTS,
        issue_keys=frozenset(i.key for i in issues),
        strict=strict,
    )


@st.composite
def issues_and_query(draw: st.DrawFn) -> tuple[list[IssueFacts], Any]:
    issues = build(draw(st.lists(issue_st, min_size=1, max_size=12)))
    return issues, draw(query_st([i.key for i in issues]))


@settings(max_examples=200, deadline=None)
@given(issues_and_query())
def test_evaluator_agrees_with_reference_filter(case: tuple[list[IssueFacts], Any]) -> None:
    """For any generated issue set and query, the compiled JQL selects exactly what the reference selects."""
    issues, query = case
    compiled = compile_query(render(query), context(issues))
    got = [i.key for i in compiled.sort([i for i in issues if compiled.matches(i)])]
    expected = sorted((i for i in issues if reference(query, i)), key=lambda i: (i.project_key, i.number))
    assert got == [i.key for i in expected]


@settings(max_examples=60, deadline=None)
@given(issues_and_query(), st.booleans())
def test_order_by_key_desc_reverses_the_default(case: tuple[list[IssueFacts], Any], _: bool) -> None:
    """ORDER BY key DESC gives the default (key ascending) order reversed."""
    issues, query = case
    text = render(query)
    asc = compile_query(text, context(issues))
    desc = compile_query(text + " ORDER BY key DESC", context(issues))
    chosen = [i for i in issues if asc.matches(i)]
    assert [i.key for i in desc.sort(chosen)] == [i.key for i in reversed(asc.sort(chosen))]


def test_order_by_created_then_key() -> None:
    """ORDER BY created sorts by creation time, ties by key."""
    issues = build(
        [
            {
                "project": "AURORA",
                "labels": [],
                "reporter": None,
                "created": c,
                "touched": 0,
                "sprints": [],
                "status": "10100",
            }
            for c in (5, 10, 5)
        ]
    )
    compiled = compile_query("ORDER BY created ASC", context(issues))
    assert [i.key for i in compiled.sort(issues)] == [issues[1].key, issues[0].key, issues[2].key]


def test_parse_keeps_quoted_values_and_reserved_words_apart() -> None:
    """Quoted values may hold spaces, commas and keywords; unquoted keys with dashes stay one value."""
    query = parse('labels in ("a b, AND", c) AND key = AURORA-1 order by created desc')
    assert query.order_by == (("created", False),)
    assert "labels" in repr(query.where) and "a b, AND" in repr(query.where) and "AURORA-1" in repr(query.where)


@pytest.mark.parametrize(
    ("jql", "message"),
    [
        ("project =", "Error in the JQL Query: Expecting either a value, list or function but got end of query."),
        ("project AURORA", "Error in the JQL Query: Expecting operator but got 'AURORA'. (line 1, character 9)"),
        (
            "labels is FULL",
            "Error in the JQL Query: Expecting 'EMPTY' or 'NULL' but got 'FULL'.",
        ),
        (
            "reporter = currentUser() ORDER BY colour",
            "Field 'colour' does not exist or you do not have permission to view it.",
        ),
        ("labels = currentUser()", "The field 'labels' does not support the function 'currentUser'."),
    ],
)
def test_errors_use_jira_wording(jql: str, message: str) -> None:
    """Syntax and semantic errors carry Jira's messages."""
    with pytest.raises(JqlError) as caught:
        compile_query(jql, context([]))
    assert caught.value.messages == [message]


@settings(max_examples=300, deadline=None)
@given(TOKENS)
def test_what_the_agent_sends_the_simulator_reads_inside_the_project(jql: str) -> None:
    """Issue 31's law, read by the simulator as Jira would: a client's JQL (escapes, quotes, parentheses, keywords,
    ORDER BY, functions) is refused by the agent, or what it sends parses in the simulator as a conjunction whose
    first operand is ``project in (AURORA)`` and which does not sort."""
    try:
        sent = agent_jql(("AURORA",), jql)
    except ValueError:
        return
    try:
        query = parse(sent)
    except JqlError:  # a limit of the simulator's compiler (entity properties, IS with a value): 400, nothing read
        assert isinstance(read_jql(sent), Query)
        return
    assert isinstance(query.where, And)
    assert len(query.where.items) == 2
    assert query.where.items[0] == Clause("project", "in", (Value("AURORA"),))
    assert query.order_by == ()
