"""A command type is one entry: the catalogue and its binding are whole, what a type lacks is named, and every
table derived from the catalogue sees a type added to a copy of it."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import attrs
import pytest

from reconcile.config.settings import DEFAULT_PACING
from reconcile.executors._run import Body, Run
from reconcile.guard.policy import READ_ONLY_TYPES
from reconcile.outlook.drift import SETTING_TYPES
from reconcile.types.binding import ENTRIES, TYPES, IncompleteCatalogueError, TypeBinding, bind, missing_parts
from reconcile.types.dryrun_answers import FIELDS_ANSWERS, MirrorAnswer, MirrorAnswers, NotDriven, endpoint
from reconcile.types.plan_rules import fields_lines, read_lines, refresh_subject
from reconcile.types.result_words import fields_words
from reconcile.types.state_checks import LooksAt, LooksFor, NotConfirmed, created_issue, fields_match
from reconcile.vocabulary.catalogue import (
    CATALOGUE,
    REFRESH_TYPE,
    AspectKind,
    CommandSpec,
    CommandType,
    Editor,
    Format,
    Param,
    TypeRole,
    creating_types,
    default_gaps,
    field_params,
    read_only_types,
    role_type,
    setting_types,
)

#: A throwaway type: ``ensure_due`` sets an issue's due date.
DUE = CommandSpec(
    type="ensure_due",
    label="Срок задачи",
    doc="у задачи этот срок",
    required=(
        Param(name="key", format=Format.ISSUE_KEY, label="Задача", doc="задача", editor=Editor.ISSUE_KEY),
        Param(name="duedate", format=Format.DATE, label="Срок", doc="срок", editor=Editor.DATE),
    ),
    gap=45,
    writes=True,
    sets=AspectKind.FIELDS,
    subject="key",
    example={"key": "AURORA-1", "duedate": "2026-10-23"},
)


def _set_due(run: Run) -> Body:
    return run.done(changed=[])
    yield  # pragma: no cover - makes this a generator


DUE_ENTRY = TypeBinding(
    spec=DUE,
    executor=_set_due,
    plan_lines=fields_lines,
    result_words=fields_words,
    confirmation=LooksAt(match=fields_match),
    dry_run=FIELDS_ANSWERS,
)
#: What the mirror says to a type that only reads the issue.
READS_ONLY = MirrorAnswers(FIELDS_ANSWERS.answers[:1])


NO_ANSWERS = "ensure_due: no dry-run answers (what the mirror says to each call of its executor)"


def with_due(spec: CommandSpec = DUE, **binding: Any) -> tuple[dict[str, CommandSpec], tuple[TypeBinding, ...]]:
    """A copy of the catalogue with ``spec`` added, and the entries with its binding (changed by ``binding``)."""
    return {**CATALOGUE, spec.type: spec}, (*ENTRIES, attrs.evolve(DUE_ENTRY, spec=spec, **binding))


#: The one place the tests name the seed's eight command types by hand; every other test takes them from the
#: catalogue.
SEED_TYPES = (
    "ensure_issue",
    "ensure_fields",
    "ensure_comment",
    "ensure_status",
    "ensure_link",
    "ensure_sprint",
    "ensure_attachment",
    "refresh",
)


def test_the_catalogue_holds_exactly_the_seeds_eight_types_in_its_order() -> None:
    """The seed's command types, in the order its messages list them (a new type is added here on purpose)."""
    assert tuple(CATALOGUE) == SEED_TYPES


def _command_type(node: ast.AST) -> object:
    """The type a command literal names: ``{"type": T, …}`` or a call ``cmd(T, …)``; else ``None``."""
    if isinstance(node, ast.Dict):
        for key, value in zip(node.keys, node.values, strict=True):
            if isinstance(key, ast.Constant) and key.value == "type" and isinstance(value, ast.Constant):
                return value.value
    if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
        return node.args[0].value
    return None


def _restates_the_catalogue(node: ast.AST) -> bool:
    """Four or more type names listed by hand; a list of commands, one of every type; a table keyed by every type
    whose values are data (per-type examples: a type added misses it, where a lookup of a missing key fails)."""
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        names = {e.value for e in node.elts if isinstance(e, ast.Constant) and e.value in CATALOGUE}
        return len(names) >= 4 or set(CATALOGUE) <= {_command_type(e) for e in node.elts}
    if isinstance(node, ast.Dict):
        keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
        return set(CATALOGUE) <= keys and not all(isinstance(v, ast.Name) for v in node.values)
    return False


def test_the_catalogue_is_keyed_by_the_command_types() -> None:
    """Each :class:`CommandType` has its one entry, in the enum's order, keyed by the member itself; a type
    named on the wire finds it by its text."""
    assert list(CATALOGUE) == list(CommandType)
    assert all(type(name) is CommandType and spec.type is name for name, spec in CATALOGUE.items())
    assert CATALOGUE["ensure_sprint"] is CATALOGUE[CommandType.ENSURE_SPRINT]


def _type_lists(path: Path) -> list[int]:
    """The lines of ``path`` where a collection restates the catalogue's types, ``SEED_TYPES`` aside."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    pin = [n.value for n in tree.body if isinstance(n, ast.Assign) and ast.unparse(n.targets[0]) == "SEED_TYPES"]
    return [node.lineno for node in ast.walk(tree) if node not in pin and _restates_the_catalogue(node)]


def test_no_other_test_lists_the_types_by_hand() -> None:
    """A list, tuple or set of four or more type names restates the catalogue, and so does a list of commands one
    of every type or a table of examples keyed by every type: a type added would silently miss such a test, where
    the catalogue's ``example`` of each entry reaches it. ``SEED_TYPES`` is the one pin."""
    tests = Path(__file__).resolve().parents[1]
    listed = [f"{path.relative_to(tests)}:{line}" for path in sorted(tests.rglob("*.py")) for line in _type_lists(path)]
    assert listed == []


def test_the_guard_sees_commands_and_tables_of_every_type() -> None:
    """The guard catches the shapes a per-type list takes — names, command dicts, ``cmd`` calls, a dict keyed by
    type — and leaves a batch of some types and a table of functions looked up by type alone."""

    def caught(source: str) -> bool:
        return any(_restates_the_catalogue(node) for node in ast.walk(ast.parse(source)))

    every = [str(name) for name in CATALOGUE]
    assert caught(repr(every[:4]))
    assert caught(repr([{"type": t, "params": {}} for t in every]))
    assert caught("[" + ", ".join(f"cmd({t!r}, key='A-1')" for t in every) + "]")
    assert caught(repr({t: {"key": "A-1"} for t in every}))
    assert not caught(repr(every[:3]))
    assert not caught(repr([{"type": t, "params": {}} for t in every[:-1]]))
    assert not caught("{" + ", ".join(f"{t!r}: fill_{n}" for n, t in enumerate(every)) + "}")


def test_every_type_of_the_catalogue_is_whole() -> None:
    """Every type has its labels, help, gap, example and subject, and an executor, plan lines and state check."""
    assert missing_parts(CATALOGUE, ENTRIES) == []
    assert list(TYPES) == list(CATALOGUE)
    assert all(TYPES[name].spec is spec for name, spec in CATALOGUE.items())


def test_a_type_added_to_a_copy_reaches_every_derived_table() -> None:
    """A throwaway type in a copy of the catalogue is in the pacing defaults (and so among the types settings
    accept), the setting types of drift, the bound types (executor, plan lines, state check), and is whole; the
    module-level tables are the same functions of the real catalogue."""
    catalogue, entries = with_due()
    assert missing_parts(catalogue, entries) == []
    assert default_gaps(catalogue) == {**DEFAULT_PACING, "ensure_due": 45}
    assert setting_types(catalogue) == (*SETTING_TYPES, "ensure_due")
    assert read_only_types(catalogue) == READ_ONLY_TYPES
    assert creating_types(catalogue) == creating_types(CATALOGUE)
    types = bind(catalogue, entries)
    assert list(types) == [*CATALOGUE, "ensure_due"]
    assert (types["ensure_due"].executor, types["ensure_due"].plan_lines) == (_set_due, fields_lines)
    assert types["ensure_due"].confirmation == LooksAt(match=fields_match)

    reader = attrs.evolve(DUE, type="read_due", writes=False, sets=None)
    catalogue, entries = with_due(reader, confirmation=NotConfirmed(why="it only reads"), dry_run=READS_ONLY)
    assert missing_parts(catalogue, entries) == []
    assert read_only_types(catalogue) == (*READ_ONLY_TYPES, "read_due")
    assert setting_types(catalogue) == SETTING_TYPES

    assert default_gaps(CATALOGUE) == DEFAULT_PACING
    assert setting_types(CATALOGUE) == SETTING_TYPES
    assert read_only_types(CATALOGUE) == READ_ONLY_TYPES
    assert bind(CATALOGUE, ENTRIES) == TYPES


def _label(text: str) -> CommandSpec:
    return attrs.evolve(DUE, required=(DUE.required[0], attrs.evolve(DUE.required[1], label=text)))


@pytest.mark.parametrize(
    ("spec", "binding", "missing"),
    [
        (attrs.evolve(DUE, label=" "), {}, ["ensure_due: no label"]),
        (attrs.evolve(DUE, doc=""), {}, ["ensure_due: no help (doc)"]),
        (attrs.evolve(DUE, gap=0), {}, ["ensure_due: no default gap (a positive number of seconds)"]),
        (attrs.evolve(DUE, gap=float("inf")), {}, ["ensure_due: no default gap (a positive number of seconds)"]),
        (attrs.evolve(DUE, gap=True), {}, ["ensure_due: no default gap (a positive number of seconds)"]),
        (attrs.evolve(DUE, gap="45"), {}, ["ensure_due: no default gap (a positive number of seconds)"]),
        (DUE, {"executor": None}, ["ensure_due: no executor"]),
        (DUE, {"plan_lines": None}, ["ensure_due: no plan lines"]),
        (_label(""), {}, ["ensure_due.duedate: no label"]),
        (
            attrs.evolve(DUE, required=(attrs.evolve(DUE.required[0], doc=""), DUE.required[1])),
            {},
            ["ensure_due.key: no help (doc)"],
        ),
        (attrs.evolve(DUE, subject="issue"), {}, ["ensure_due: its subject issue is none of its parameters"]),
        (
            attrs.evolve(DUE, example={"key": "AURORA-1"}),
            {},
            [
                "ensure_due: its example is no valid command: "
                "команда 1 (ensure_due): нет duedate; ожидаются key, duedate"
            ],
        ),
        (DUE, {"result_words": None}, ["ensure_due: no result in words"]),
        (
            DUE,
            {"confirmation": NotConfirmed(why="no")},
            ["ensure_due: sets an aspect, so its state check must look at its subject (LooksAt)"],
        ),
        (
            attrs.evolve(DUE, sets=None),
            {},
            ["ensure_due: sets no aspect, so it must say it is not confirmed by state (NotConfirmed)"],
        ),
        (
            attrs.evolve(DUE, sets=None),
            {"confirmation": NotConfirmed(why=" ")},
            ["ensure_due: not confirmed by state, without saying why"],
        ),
        (
            attrs.evolve(DUE, sets=AspectKind.EXISTENCE),
            {},
            ["ensure_due: makes an issue exist, so its state check must look for it (LooksFor)"],
        ),
        (
            attrs.evolve(DUE, sets=AspectKind.STATUS),
            {"confirmation": LooksFor(find=created_issue)},
            ["ensure_due: sets an aspect, so its state check must look at its subject (LooksAt)"],
        ),
        (
            attrs.evolve(DUE, subject=None),
            {},
            [
                "ensure_due: no plan subject (and no subject parameter to show)",
                "ensure_due: looks at its subject, but names no subject parameter",
            ],
        ),
        (DUE, {"dry_run": None}, [NO_ANSWERS]),
        (DUE, {"dry_run": MirrorAnswers(())}, [NO_ANSWERS]),
        (DUE, {"dry_run": READS_ONLY}, ["ensure_due: writes to Jira, but its dry-run answers declare no write"]),
        (
            DUE,
            {"dry_run": MirrorAnswers((*FIELDS_ANSWERS.answers, FIELDS_ANSWERS.answers[1]))},
            ["ensure_due: PUT /rest/api/2/issue/{key} declared twice"],
        ),
        (
            DUE,
            {"dry_run": MirrorAnswers((MirrorAnswer(endpoint("PUT /rest/api/2/issue/{key}"), None),))},  # type: ignore[arg-type]
            ["ensure_due: no dry-run answer for PUT /rest/api/2/issue/{key}"],
        ),
        (
            DUE,
            {"dry_run": NotDriven(why=" ", endpoints=())},
            [
                "ensure_due: not driven by the dry run, without saying why",
                "ensure_due: writes to Jira, so the dry run must drive it against the mirror (MirrorAnswers)",
            ],
        ),
        (
            attrs.evolve(DUE, writes=False, sets=None),
            {"confirmation": NotConfirmed(why="it only reads")},
            ["ensure_due: writes nothing, but its dry-run answers declare a write"],
        ),
    ],
)
def test_what_a_type_lacks_is_named(spec: CommandSpec, binding: dict[str, Any], missing: list[str]) -> None:
    """Each part a type's entry lacks is named on a line of its own, and the binding refuses the catalogue."""
    catalogue, entries = with_due(spec, **binding)
    assert missing_parts(catalogue, entries) == missing
    with pytest.raises(IncompleteCatalogueError) as refused:
        bind(catalogue, entries)
    assert str(refused.value) == "; ".join(missing)


def test_a_type_without_a_binding_is_named() -> None:
    """A catalogue entry nobody bound lacks its executor, plan lines and state check; a binding of no catalogue
    entry, or a second binding, is named too."""
    catalogue, entries = with_due()
    assert missing_parts(catalogue, ENTRIES) == [
        "ensure_due: no executor, plan lines, state check or dry-run answers (no entry in reconcile.types.binding)"
    ]
    assert missing_parts(CATALOGUE, entries) == ["ensure_due: bound, but not in the catalogue"]
    assert missing_parts(catalogue, (*entries, DUE_ENTRY)) == ["ensure_due: bound twice"]


def test_a_subject_rule_stands_in_for_a_subject_parameter() -> None:
    """A type whose catalogue names no subject parameter is whole with a plan subject of its own (as refresh)."""
    reader = attrs.evolve(DUE, writes=False, sets=None, subject=None)
    catalogue, entries = with_due(
        reader,
        confirmation=NotConfirmed(why="it only reads"),
        plan_lines=read_lines,
        plan_subject=refresh_subject,
        dry_run=READS_ONLY,
    )
    assert missing_parts(catalogue, entries) == []


def test_a_type_cannot_be_made_without_its_gap() -> None:
    """The gap has no default: an entry that forgets it is refused when it is made, never a pause of 0."""
    with pytest.raises(TypeError, match="gap"):
        CommandSpec(  # type: ignore[call-arg]
            type="ensure_due",
            label="Срок задачи",
            doc="у задачи этот срок",
            required=DUE.required,
            writes=True,
            sets=AspectKind.FIELDS,
            subject="key",
            example=DUE.example,
        )


def test_one_type_of_the_catalogue_plays_each_role() -> None:
    """The mirror's refresh is the role of the seed's ``refresh``; a copy where a second type plays it, or none
    does, is refused naming the role and who plays it."""
    assert REFRESH_TYPE == role_type(CATALOGUE, TypeRole.MIRROR_REFRESH) == "refresh"
    catalogue, _ = with_due(attrs.evolve(DUE, role=TypeRole.MIRROR_REFRESH))
    with pytest.raises(
        ValueError, match=r"^mirror_refresh is played by refresh, ensure_due: one type plays each role$"
    ):
        role_type(catalogue, TypeRole.MIRROR_REFRESH)
    without = {name: attrs.evolve(spec, role=None) for name, spec in CATALOGUE.items()}
    with pytest.raises(ValueError, match=r"^mirror_refresh is played by no type:"):
        role_type(without, TypeRole.MIRROR_REFRESH)


def _names_of_the_refresh(path: Path) -> list[int]:
    """The lines of ``path`` whose code spells the refresh type's name (an ``__all__`` naming a function aside)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    exported = {
        id(element)
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "__all__"
        for element in ast.walk(node.value)
    }
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and node.value == REFRESH_TYPE and id(node) not in exported
    ]


def test_code_asks_the_catalogue_for_the_refresh_by_its_role() -> None:
    """No module or template of ``src`` but the catalogue (and its enum of the types) spells ``"refresh"``: code
    compares with :data:`REFRESH_TYPE`, the type playing :attr:`TypeRole.MIRROR_REFRESH`, so the role is named."""
    src = Path(__file__).resolve().parents[2] / "src"
    catalogue = {src / "reconcile" / "vocabulary" / name for name in ("catalogue.py", "param_kinds.py")}
    spelt = [
        f"{path.relative_to(src)}:{line}"
        for path in sorted(src.rglob("*.py"))
        if path not in catalogue
        for line in _names_of_the_refresh(path)
    ]
    spelt += [
        path.relative_to(src).as_posix()
        for path in sorted(src.rglob("*.html"))
        if f'"{REFRESH_TYPE}"' in path.read_text(encoding="utf-8")
    ]
    assert spelt == []


def test_a_field_keeps_the_label_and_format_of_its_first_entry() -> None:
    """A throwaway type naming ``duedate`` and ``key`` its own way changes neither: the catalogue's first entry of a
    parameter is the one plans name it by; a parameter no type had before is added with its own words."""
    before = field_params(CATALOGUE)
    own = attrs.evolve(
        DUE,
        required=(
            Param(name="key", format=Format.TEXT, label="Ключ", doc="ключ", editor=Editor.TEXT),
            Param(name="duedate", format=Format.TEXT, label="Другой срок", doc="срок", editor=Editor.TEXT),
        ),
        optional=(
            Param(name="due_note", format=Format.TEXT, label="Заметка о сроке", doc="заметка", editor=Editor.TEXT),
        ),
    )
    catalogue, _ = with_due(own)
    found = field_params(catalogue)
    assert list(found) == [*before, "due_note"]
    assert {name: found[name] for name in before} == before
    assert found["duedate"].label != "Другой срок" and found["key"].format is not Format.TEXT
    assert found["due_note"] is own.optional[0]
    first = next(spec for spec in CATALOGUE.values() if any(p.name == "duedate" for p in spec.params))
    assert found["duedate"] is next(p for p in first.params if p.name == "duedate")


def test_a_gap_below_a_second_is_a_gap_and_the_catalogues_entry_is_the_one_bound() -> None:
    """The binding takes the type's entry from the catalogue given, not the one its executor was written with."""
    catalogue = {**CATALOGUE, "ensure_due": attrs.evolve(DUE, gap=0.5)}
    entries = (*ENTRIES, DUE_ENTRY)
    assert missing_parts(catalogue, entries) == []
    assert bind(catalogue, entries)["ensure_due"].spec is catalogue["ensure_due"]


def test_an_entry_keyed_by_another_types_name_is_named() -> None:
    catalogue = {**CATALOGUE, "ensure_due": attrs.evolve(DUE, type="ensure_late")}
    assert "ensure_due: its catalogue entry says type ensure_late" in missing_parts(catalogue, (*ENTRIES, DUE_ENTRY))
