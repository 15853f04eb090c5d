"""The bank's policy as the agent judges a delivery (DESIGN.md 5.5): keys, types, JQL, gaps and the write budget."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reconcile.guard.policy import (
    BUDGET_WINDOW_SECONDS,
    AgentPolicy,
    agent_jql,
    budget_wait,
    key_project,
    refusal,
    scoped_params,
)
from reconcile.vocabulary.catalogue import CATALOGUE
from reconcile.vocabulary.notices import budget_notice, retry_notice, seconds_text

AURORA = AgentPolicy(allow_projects=("AURORA",))
CONTEXT = {"jira_project": "AURORA"}


@pytest.mark.parametrize(
    ("command_type", "params"),
    [
        ("ensure_fields", {"key": "HR-1", "summary": "x"}),
        ("ensure_fields", {"key": "AURORA-1", "epic_key": "HR-2"}),
        ("ensure_comment", {"key": "HR-1", "marker": "m", "body": "b"}),
        ("ensure_link", {"source": "AURORA-1", "target": "HR-1", "link_type": "связанные"}),
        ("ensure_link", {"source": "HR-1", "target": "AURORA-1", "link_type": "связанные"}),
        ("refresh", {"keys": ["AURORA-1", "HR-2"]}),
        ("ensure_issue", {"temp_key": "new:1", "summary": "s", "epic_key": "HR-1"}),
    ],
)
def test_a_key_of_another_project_is_refused(command_type: str, params: dict[str, object]) -> None:
    """Any key outside the allowed projects refuses the whole command, naming the project and the allowed ones."""
    assert refusal(AURORA, command_type, params, CONTEXT) == "проект HR не разрешён агенту (разрешены: AURORA)"


def test_ensure_issue_in_another_project_is_refused() -> None:
    """The project an ensure_issue creates in comes from the delivery's context: another one is refused."""
    params = {"temp_key": "new:1", "summary": "s"}
    assert refusal(AURORA, "ensure_issue", params, {"jira_project": "HR"}) == (
        "проект HR не разрешён агенту (разрешены: AURORA)"
    )
    assert refusal(AURORA, "ensure_issue", params, CONTEXT) is None


def test_refusals_name_every_allowed_project_and_type() -> None:
    """Two allowed projects are listed «AURORA, OPS»; an agent allowed no type says «нет»; an ensure_issue whose
    context names no project creates in the settings' default one (AURORA)."""
    two = AgentPolicy(allow_projects=("AURORA", "OPS"))
    assert (
        refusal(two, "ensure_fields", {"key": "HR-1"}, CONTEXT)
        == "проект HR не разрешён агенту (разрешены: AURORA, OPS)"
    )
    assert refusal(two, "ensure_fields", {"key": "hr-1"}, CONTEXT) == (
        "ключ hr-1 не разрешён агенту (разрешены проекты: AURORA, OPS)"
    )
    none = AgentPolicy(allow_projects=("AURORA",), allow_types=("ensure_comment",), read_only=True)
    assert (
        refusal(none, "refresh", {"keys": ["AURORA-1"]}, CONTEXT)
        == "тип команды refresh не разрешён агенту (разрешены: нет)"
    )
    params = {"temp_key": "new:1", "summary": "s"}
    assert refusal(AURORA, "ensure_issue", params, {}) is None
    assert refusal(AgentPolicy(allow_projects=("OPS",)), "ensure_issue", params, {}) == (
        "проект AURORA не разрешён агенту (разрешены: OPS)"
    )


def test_a_text_that_is_no_key_is_refused() -> None:
    """What the hub would never send as a key (a hostile hub might) is refused, not guessed at."""
    assert refusal(AURORA, "ensure_fields", {"key": "../HR-1", "summary": "x"}, CONTEXT) == (
        "ключ ../HR-1 не разрешён агенту (разрешены проекты: AURORA)"
    )


def test_refused_types_and_read_only() -> None:
    """A type outside allow_types, or anything but refresh on a read-only agent, is refused with the allowed list."""
    read_only = AgentPolicy(allow_projects=("AURORA",), read_only=True)
    assert refusal(read_only, "ensure_link", {"source": "AURORA-1", "target": "AURORA-2"}, CONTEXT) == (
        "тип команды ensure_link не разрешён агенту (разрешены: refresh)"
    )
    assert refusal(read_only, "refresh", {"keys": ["AURORA-1"]}, CONTEXT) is None
    narrow = AgentPolicy(allow_projects=("AURORA",), allow_types=("ensure_comment", "refresh"))
    assert refusal(narrow, "ensure_fields", {"key": "AURORA-1"}, CONTEXT) == (
        "тип команды ensure_fields не разрешён агенту (разрешены: ensure_comment, refresh)"
    )


@pytest.mark.parametrize(
    ("jql", "why"),
    [
        ("project = HR) OR (project = AURORA", "непарная закрывающая скобка (позиция 13)"),
        ('summary ~ x\\" ) OR project = HR OR ( summary ~ "a\\"b"', "непарная закрывающая скобка (позиция 15)"),
        ("summary ~ (x", "незакрытая скобка (позиция 13)"),
        ('summary ~ "x', "незакрытые кавычки (позиция 11)"),
        ("project = AURORA ORDER BY key", "ORDER BY не допускается (позиция 18)"),
        ("project = AURORA order\n  by key", "ORDER BY не допускается (позиция 18)"),
        ("  ", "пустой запрос (позиция 1)"),
        ("project AURORA", "ожидался оператор, а встретилось «AURORA» (позиция 9)"),
    ],
)
def test_jql_that_does_not_parse_is_refused(jql: str, why: str) -> None:
    """A JQL Jira's grammar does not read (or that is empty, or sorts) is refused before any call, in ``jql`` and
    in ``history.jql``, with the reason and its position."""
    assert refusal(AURORA, "refresh", {"jql": jql}, CONTEXT) == f"JQL не принят агентом: {why}"
    assert refusal(AURORA, "refresh", {"keys": ["AURORA-1"], "history": {"jql": jql}}, CONTEXT) == (
        f"JQL не принят агентом: {why}"
    )
    with pytest.raises(ValueError) as raised:
        agent_jql(("AURORA",), jql)
    assert str(raised.value) == f"JQL не принят агентом: {why}"


@pytest.mark.parametrize(
    ("jql", "sent"),
    [
        ('summary ~ "a (b"', 'summary ~ "a (b"'),
        ("summary ~ 'it\\'s ) here'", 'summary ~ "it\'s ) here"'),
        ('summary ~ "say \\"order by\\" )"', 'summary ~ "say \\"order by\\" )"'),
        ('summary ~ x\\" OR key = HR-1', 'summary ~ "x\\"" OR key = HR-1'),
        (
            '(project = AURORA AND labels in ("AWPCA")) AND sprint in openSprints()',
            '(project = AURORA AND labels in ("AWPCA")) AND sprint in openSprints()',
        ),
    ],
)
def test_the_agent_sends_the_parsed_tree_inside_its_projects(jql: str, sent: str) -> None:
    """Quoted parentheses and ORDER BY are text; what is sent is the tree's canonical text, never the hub's."""
    assert refusal(AURORA, "refresh", {"jql": jql}, CONTEXT) is None
    assert agent_jql(("AURORA",), jql) == f"project in (AURORA) AND ({sent})"


def test_jql_is_wrapped_in_the_allowed_projects() -> None:
    """A refresh's jql and history.jql reach Jira as ``project in (<allowed>) AND (<tree>)``; nothing else changes."""
    policy = AgentPolicy(allow_projects=("AURORA", "OPS"))
    params = {
        "jql": "project = HR",
        "history": {"since": "2026-10-22T08:45:00Z", "jql": "labels = X or labels = 'Y'"},
        "boards": [],
    }
    assert scoped_params(policy, "refresh", params) == {
        "jql": "project in (AURORA, OPS) AND (project = HR)",
        "history": {
            "since": "2026-10-22T08:45:00Z",
            "jql": 'project in (AURORA, OPS) AND (labels = X OR labels = "Y")',
        },
        "boards": [],
    }
    assert scoped_params(policy, "refresh", {"keys": ["AURORA-1"], "history": {"since": "x"}}) == {
        "keys": ["AURORA-1"],
        "history": {"since": "x"},
    }
    fields = {"key": "AURORA-1", "summary": "project = HR"}
    assert scoped_params(policy, "ensure_fields", fields) == fields


def test_key_project() -> None:
    """The project of a key is what precedes its number; a text that is no key has none."""
    assert key_project("AURORA-1538") == "AURORA"
    assert key_project("A_B-1") == "A_B"
    assert key_project("new:1") is None
    assert key_project("aurora-1") is None


def test_gap_never_below_the_floor() -> None:
    """The agent waits max(pause_seconds, floor); a type without its own floor takes ``*``'s."""
    policy = AgentPolicy(allow_projects=("AURORA",), min_gap={"ensure_issue": 120, "*": 30})
    assert policy.gap("ensure_issue", 0) == 120
    assert policy.gap("ensure_issue", 200) == 200
    assert policy.gap("ensure_comment", 0) == 30
    assert AURORA.gap("ensure_comment", 0) == 0


@given(
    writes=st.lists(st.floats(0, 10_000, allow_nan=False), max_size=30),
    now=st.floats(0, 10_000, allow_nan=False),
    limit=st.integers(1, 10),
)
def test_budget_wait_admits_exactly_the_limit(writes: list[float], now: float, limit: int) -> None:
    """After waiting what the budget says, a write finds fewer than ``limit`` writes in the last hour; a
    shorter wait would not (the wait is the least one)."""
    past = [w for w in writes if w <= now]
    wait = budget_wait(past, now=now, max_writes_per_hour=limit)
    at = now + wait
    # (a microsecond of float rounding aside: the agent asks the budget again after its wait)
    assert sum(1 for w in past if w > at - BUDGET_WINDOW_SECONDS + 1e-6) < limit
    if wait > 1e-6:
        before = at - 1e-3
        assert sum(1 for w in past if w > before - BUDGET_WINDOW_SECONDS) >= limit


def test_the_budget_wait_is_exact_below_a_second() -> None:
    """A write half a second inside the last hour frees the budget half a second from now, not a second."""
    assert budget_wait([0.5], now=3600.0, max_writes_per_hour=1) == pytest.approx(0.5)
    assert budget_wait([0.5, 1.0], now=3600.0, max_writes_per_hour=2) == pytest.approx(0.5)


def test_no_budget_never_waits() -> None:
    """``max_writes_per_hour = 0`` is unlimited."""
    assert budget_wait([1.0] * 1000, now=2.0, max_writes_per_hour=0) == 0


def test_describe() -> None:
    """The one line the agent logs at start and ``sdlc-agent check`` prints."""
    policy = AgentPolicy(
        allow_projects=("AURORA", "OPS"), min_gap={"ensure_issue": 120, "*": 0.5}, max_writes_per_hour=100
    )
    assert policy.describe() == (
        "projects AURORA, OPS; types all; read-only no; min gap *=0.5 s, ensure_issue=120 s; writes per hour 100"
    )
    read_only = AgentPolicy(allow_projects=("AURORA",), read_only=True)
    assert (
        read_only.describe() == "projects AURORA; types refresh; read-only yes; min gap none; writes per hour unlimited"
    )
    assert set(AURORA.types) == set(CATALOGUE)
    narrow = AgentPolicy(allow_projects=("AURORA",), allow_types=("refresh", "ensure_comment"))
    assert narrow.describe().split("; ")[1] == "types ensure_comment, refresh"
    nothing = AgentPolicy(allow_projects=("AURORA",), allow_types=("ensure_comment",), read_only=True)
    assert nothing.describe().split("; ")[1] == "types none"
    pinned = AgentPolicy(allow_projects=("AURORA",), fields={"sprint": "customfield_10020", "epic": "customfield_1"})
    assert pinned.describe().endswith(
        "writes per hour unlimited; field sprint=customfield_10020; field epic=customfield_1"
    )


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(30.0, "30"), (1.5, "1.5"), (0.25, "0.25"), (0.1 + 0.2, "0.3"), (1234567.0, "1234567"), (2.0004, "2")],
)
def test_seconds_are_written_as_people_write_them(seconds: float, text: str) -> None:
    """No ``30.0`` and no float noise in a message or the policy's line."""
    assert seconds_text(seconds) == text


def test_the_waiting_notices_in_the_specs_words() -> None:
    """What last_error says while Jira is retried and while the write budget is spent (DESIGN.md 5.5, 5.6)."""
    assert retry_notice(503, 2, 5, 30.0) == "Jira ответила 503, повтор 2 из 5 через 30 с"
    assert retry_notice(429, 1, 5, 1.5) == "Jira ответила 429, повтор 1 из 5 через 1.5 с"
    assert budget_notice(40) == "лимит записей агента: 40 в час"
