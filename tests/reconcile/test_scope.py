"""The hub's own scope (DESIGN.md 5.5): every key of a batch in ``settings.jira_project``, a client's JQL stored
wrapped in it, a JQL that cannot be wrapped refused; and the law behind it — whatever the hub accepts, the agent's
policy for that project lets through."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from reconcile.batches.validation import BatchContext, ProjectInfo, ValidBatch, validate_batch
from reconcile.config.settings import Settings, settings_from_json
from reconcile.guard.jql import JqlProblem, client_jql, project_restriction, read_jql
from reconcile.guard.jql_tree import And, Query
from reconcile.guard.policy import AgentPolicy, refusal
from reconcile.guard.scope import outside, scoped_jql, wrap_prefix
from reconcile.queue import delivery, history
from reconcile.vocabulary.catalogue import CATALOGUE, Format
from reconcile.vocabulary.errors import ValidationError
from tests.support import BASE_AWPCA, SHA, cmd

PROJECTS = {"AWPCA": ProjectInfo(name="AWPCA", board_id=4216, board_type="scrum")}


def ctx(jira_project: str = "AURORA", **changes: Any) -> BatchContext:
    keys = [f"{p}-{n}" for p in ("AURORA", "OPS_2", "HR", "AURORAX", "OPS") for n in range(1, 31)]
    base: dict[str, Any] = {
        "settings": Settings(jira_project=jira_project),
        "projects": PROJECTS,
        "mirror_labels": dict.fromkeys(keys, ("AWPCA",)),
        "files": {SHA: 10},
    }
    base.update(changes)
    return BatchContext(**base)


def body(*commands: dict[str, Any], **top: Any) -> dict[str, Any]:
    return {"author": "ассистент", "title": "план", "commands": list(commands), **top}


def refused(batch: dict[str, Any], context: BatchContext | None = None) -> str:
    with pytest.raises(ValidationError) as info:
        validate_batch(batch, context or ctx())
    return info.value.message


def with_key_of_hr(command_type: str, name: str) -> dict[str, Any]:
    """The type's catalogue example with its key parameter ``name`` naming HR-1 (beside AURORA-1 in a list) and
    its other keys AURORA-1."""
    spec = CATALOGUE[command_type]
    params = dict(spec.example)
    for param in spec.params:
        if param.format is Format.KEY_LIST:
            params[param.name] = ["AURORA-1", "HR-1"] if param.name == name else ["AURORA-1"]
        elif param.format is Format.ISSUE_KEY and (param.name == name or param.name in params):
            params[param.name] = "HR-1" if param.name == name else "AURORA-1"
    return cmd(command_type, **params)


@pytest.mark.parametrize(
    "command",
    [
        with_key_of_hr(spec.type, param.name)
        for spec in CATALOGUE.values()
        for param in spec.params
        if param.format in (Format.ISSUE_KEY, Format.KEY_LIST)
    ],
)
def test_a_key_of_another_project_refuses_the_batch(command: dict[str, Any]) -> None:
    """key, source, target, keys, epic_key: a key outside jira_project → 422 «HR-1 не в проекте Jira AURORA»."""
    assert refused(body(command)) == "HR-1 не в проекте Jira AURORA"


def test_a_project_key_is_compared_whole() -> None:
    """AURORAX-1 and AURORA_2-1 are other projects, not AURORA; the setting decides which project is the hub's."""
    assert refused(body(cmd("ensure_status", key="AURORAX-1", target="Готово"))) == "AURORAX-1 не в проекте Jira AURORA"
    assert outside("AURORA_2-1", "AURORA") == "AURORA_2-1 не в проекте Jira AURORA"
    assert outside("AURORA-1", "AURORA") is outside("new:1", "AURORA") is None
    ops = ctx("OPS_2")
    valid = validate_batch(body(cmd("ensure_status", key="OPS_2-7", target="Готово")), ops)
    assert valid.commands[1].params == {"keys": ["OPS_2-7"]}
    assert refused(body(cmd("ensure_status", key="AURORA-1", target="Готово")), ops) == (
        "AURORA-1 не в проекте Jira OPS_2"
    )


def test_the_first_violation_in_command_order_wins() -> None:
    """A key outside in command 2 after a bad parameter in command 1: the parameter is named."""
    batch = body(cmd("ensure_status", key="AURORA-1"), cmd("ensure_status", key="HR-1", target="Готово"))
    assert refused(batch) == "команда 1 (ensure_status): нет target; ожидаются key, target"


def test_notes_on_keys_of_another_project_are_refused() -> None:
    """Notes' keys count: a note on HR-1 would keep hub data on an issue the mirror must never hold."""
    batch = body(
        cmd("ensure_status", key="AURORA-1", target="Готово"),
        notes=[{"key": "AURORA-1", "text": "почему"}, {"key": "HR-2", "text": "зарплаты"}],
    )
    assert refused(batch) == "заметка 2: HR-2 не в проекте Jira AURORA"


@pytest.mark.parametrize(
    ("jql", "stored"),
    [
        ("key = HR-1", "project = AURORA AND (key = HR-1)"),
        ("key = AURORA-1 OR project = HR", "project = AURORA AND (key = AURORA-1 OR project = HR)"),
        ('summary ~ "a) OR (b"', 'project = AURORA AND (summary ~ "a) OR (b")'),
        ('summary ~ x\\" OR key = HR-1', 'project = AURORA AND (summary ~ "x\\"" OR key = HR-1)'),
        ("summary ~ 'x' || key in (HR-1,HR-2)", 'project = AURORA AND (summary ~ "x" OR key in (HR-1, HR-2))'),
        (
            "project = AURORA AND (key = A-1) OR (project = HR)",
            "project = AURORA AND ((project = AURORA AND key = A-1) OR project = HR)",
        ),
        ("project = AURORA AND (key = HR-1)", "project = AURORA AND (key = HR-1)"),
        ("project = AURORA AND key = HR-1", "project = AURORA AND (key = HR-1)"),
        (BASE_AWPCA, BASE_AWPCA),
    ],
)
def test_a_client_jql_is_stored_inside_the_project(jql: str, stored: str) -> None:
    """Stored as project = <jira_project> AND (<tree>), the canonical text of the parsed JQL; the base JQL (a full
    refresh) is kept as it is, and a JQL already inside the project (a retry) is stored the same."""
    valid = validate_batch(body(cmd("refresh", jql=jql)), ctx())
    assert [c.params for c in valid.commands] == [{"jql": stored}]


def test_a_base_jql_of_other_projects_is_a_client_jql() -> None:
    """Only the base JQL of the hub's projects now is kept; an older one (another label set) is a client's."""
    old = 'project = AURORA AND labels in ("STOCKS_DRRK")'
    assert scoped_jql(1, old, jira_project="AURORA", base_jql=BASE_AWPCA) == (
        'project = AURORA AND (labels in ("STOCKS_DRRK"))'
    )
    assert scoped_jql(1, BASE_AWPCA, jira_project="AURORA", base_jql=None) == (
        'project = AURORA AND (labels in ("AWPCA"))'
    )
    assert wrap_prefix("OPS_2") == "project = OPS_2 AND ("


@pytest.mark.parametrize(
    ("jql", "why"),
    [
        ("key = AURORA-1) OR (project = HR", "непарная закрывающая скобка (позиция 15)"),
        ('summary ~ x\\" ) OR project = HR OR ( summary ~ "a\\"b"', "непарная закрывающая скобка (позиция 15)"),
        ("(key = AURORA-1", "незакрытая скобка (позиция 16)"),
        ('summary ~ "a', "незакрытые кавычки (позиция 11)"),
        ("key = AURORA-1 ORDER  BY key", "ORDER BY не допускается (позиция 16)"),
        ("created >= 2026/10/22", "символ «/» зарезервирован в JQL: возьмите значение в кавычки (позиция 16)"),
    ],
)
def test_a_jql_that_does_not_parse_is_refused(jql: str, why: str) -> None:
    """422 «команда N (refresh): JQL не принят: <why> (позиция N)», naming the command."""
    batch = body(cmd("ensure_status", key="AURORA-1", target="Готово"), cmd("refresh", jql=jql))
    assert refused(batch) == f"команда 2 (refresh): JQL не принят: {why}"


def test_jira_project_is_a_project_key() -> None:
    """The setting the scope stands on: a Jira project key, or 422 (a JQL fragment there would widen every wrap)."""
    assert settings_from_json({"jira_project": "OPS_2"}).jira_project == "OPS_2"
    for value in ("AURORA OR project = HR", "aurora", "1AURORA", "AURORA\n"):
        with pytest.raises(ValidationError) as info:
            settings_from_json({"jira_project": value})
        assert info.value.message == (
            "настройки: jira_project — ключ проекта Jira: латинские заглавные буквы, цифры и _, первой — буква (AURORA)"
        )


JQL_PIECES = st.sampled_from(["(", ")", '"', "'", "\\", " ", "key = HR-1", " OR ", " AND ", "ORDER BY", "x", "AURORA"])
JQLS = st.lists(JQL_PIECES, min_size=1, max_size=8).map("".join)


@given(JQLS, st.sampled_from(["AURORA", "OPS_2"]))
def test_scoping_is_idempotent_and_always_inside(jql: str, jira_project: str) -> None:
    """A scoped JQL scoped again is the same; it reads back as ``project = <jira_project> AND <condition>``."""
    try:
        once = scoped_jql(1, jql, jira_project=jira_project, base_jql=BASE_AWPCA)
    except ValidationError:
        assert isinstance(client_jql(jql), JqlProblem)
        return
    assert scoped_jql(1, once, jira_project=jira_project, base_jql=BASE_AWPCA) == once
    if once == BASE_AWPCA:
        return
    stored = read_jql(once)
    assert isinstance(stored, Query)
    assert isinstance(stored.where, And)
    assert stored.where.items[0] == project_restriction(jira_project)
    assert len(stored.where.items) == 2


# --- the law: what the hub accepts, the agent's policy for the hub's project lets through -------------------


@st.composite
def _key(draw: st.DrawFn, temp_keys: int) -> str:
    """Mostly a key of the hub's project or a temp key of an issue created earlier in the batch; sometimes a key
    of another project (a lookalike too) or an unknown temp key."""
    kind = draw(st.sampled_from(["own", "own", "own", "other"] + ["temp", "temp"] * bool(temp_keys)))
    if kind == "temp":
        return f"new:{draw(st.integers(1, temp_keys + 1))}"
    owner = "{own}" if kind == "own" else draw(st.sampled_from(["HR", "AURORAX", "OPS"]))
    return f"{owner}-{draw(st.integers(1, 30))}"


@st.composite
def _batch(draw: st.DrawFn) -> tuple[list[dict[str, Any]], list[str]]:
    """Commands and notes' keys; ``{own}`` stands for the hub's project (filled in by the test)."""
    commands: list[dict[str, Any]] = []
    created = 0
    for kind in draw(st.lists(st.sampled_from(list(CATALOGUE)), min_size=1, max_size=5)):
        spec = CATALOGUE[kind]
        params = dict(spec.example)  # the catalogue's example (its file is SHA), with every key drawn
        for param in spec.params:
            if param.format not in (Format.ISSUE_KEY, Format.KEY_LIST) or not (
                param.name in params or draw(st.booleans())
            ):
                continue  # a key parameter the example leaves out is given sometimes
            if param.format is Format.KEY_LIST:
                params[param.name] = draw(st.lists(_key(created), min_size=1, max_size=3))
            else:
                params[param.name] = draw(_key(created))
        if spec.creates_issue:
            created += 1
            params.update(temp_key=f"new:{created}", summary=f"Задача {created}")
        if kind == "refresh" and draw(st.booleans()):
            params = {"jql": draw(JQLS | st.just(BASE_AWPCA))}
        commands.append(cmd(kind, **params))
    return commands, draw(st.lists(_key(created), max_size=2))


def _own(value: Any, jira_project: str) -> Any:
    if isinstance(value, str):
        return value.replace("{own}", jira_project).replace("project = AURORA", f"project = {jira_project}")
    if isinstance(value, list | tuple):
        return type(value)(_own(v, jira_project) for v in value)
    if isinstance(value, dict):
        return {k: _own(v, jira_project) for k, v in value.items()}
    return value


def _deliveries(valid: ValidBatch, jira_project: str, mark: history.JournalMark | None) -> list[tuple[str, Any]]:
    """Each command's params as a claim completes them, every temp key created in the hub's project (the agent
    creates in the context's ``jira_project``)."""
    resolved = {c.temp_key: f"{jira_project}-{900 + c.seq}" for c in valid.commands if c.temp_key}
    base = history.base_jql(jira_project, list(PROJECTS))
    delivered = []
    for command in valid.commands:
        journal = None
        if command.type == "refresh":
            full = history.is_full_refresh(command.params, base)
            journal = history.history_param(full=full, has_base_jql=True, mark=mark, base_jql=base)
        params = delivery.complete_params(
            command.type,
            command.params,
            resolved_temp_keys=resolved,
            file_size=10,
            boards=delivery.boards_param([(4216, "scrum")]),
            history=journal,
        )
        delivered.append((command.type, params))
    return delivered


@settings(max_examples=300)
@given(st.sampled_from(["AURORA", "OPS_2"]), _batch(), st.none() | st.sampled_from(["base", "other"]))
def test_whatever_the_hub_accepts_the_agent_policy_allows(
    jira_project: str, drawn: tuple[list[dict[str, Any]], list[str]], marked: str | None
) -> None:
    """Validation, then delivery completion as the claim does it: every delivered command passes the agent's
    policy for allow_projects = (jira_project,), and every stored JQL is inside the project."""
    commands, note_keys = _own(drawn, jira_project)
    batch = body(*commands, notes=[{"key": key, "text": "т"} for key in note_keys])
    context = ctx(jira_project)
    try:
        valid = validate_batch(batch, context)
    except ValidationError:
        event("refused")
        return
    event("accepted")
    base = history.base_jql(jira_project, list(PROJECTS))
    mark = None
    if marked is not None:
        mark = history.JournalMark(
            started_at=datetime(2026, 10, 22, 9, tzinfo=UTC), query=base if marked == "base" else "x"
        )
    policy = AgentPolicy(allow_projects=(jira_project,))
    for command_type, params in _deliveries(valid, jira_project, mark):
        assert refusal(policy, command_type, params, context.settings.agent_context()) is None, params
        if isinstance(params.get("jql"), str):
            assert params["jql"] == base or params["jql"].startswith(wrap_prefix(jira_project))
    assert all(note.key.startswith(("new:", f"{jira_project}-")) for note in valid.notes)
