"""The command catalogue: one table, read by validation, the JSON Schema and the description."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from reconcile.vocabulary.catalogue import CATALOGUE, Editor, Format, Param
from reconcile.vocabulary.commands import (
    batch_create_description,
    batch_create_schema,
    check_command,
    check_params,
    key_params,
)
from reconcile.vocabulary.errors import ValidationError
from tests.support import SHA, TYPE_LIST


def _error(command: object) -> str:
    with pytest.raises(ValidationError) as info:
        check_command(1, command)
    return info.value.message


def test_wrong_parameter_name_reports_missing_with_expected_set() -> None:
    """Seed «Неверное имя параметра»: a missing parameter is named with the type's expected set."""
    message = _error({"type": "ensure_status", "params": {"key": "AURORA-1", "status": "Готово"}})
    assert message == "команда 1 (ensure_status): нет target; ожидаются key, target"


def test_extra_parameter_on_type_with_optional_ones() -> None:
    """Seed «Лишний параметр у типа с необязательными»: the optional set ends the message."""
    message = _error(
        {
            "type": "ensure_link",
            "params": {"source": "AURORA-1", "target": "AURORA-2", "link_type": "связанные", "force": True},
        }
    )
    assert message == (
        "команда 1 (ensure_link): лишние параметры force; ожидаются source, target, link_type; необязательные replace"
    )


def test_parameter_of_wrong_type_is_named() -> None:
    """Seed «Параметр не того типа»: labels_add as a string is refused naming labels_add."""
    message = _error({"type": "ensure_fields", "params": {"key": "AURORA-1", "labels_add": "AWPCA"}})
    assert message == "команда 1 (ensure_fields): labels_add — ожидается список строк"


def test_board_id_from_client_is_an_extra_parameter() -> None:
    """board_id is added by the hub; from a client it is refused."""
    message = _error({"type": "ensure_sprint", "params": {"key": "AURORA-1", "sprint": "Спринт 2", "board_id": 4216}})
    assert message == "команда 1 (ensure_sprint): лишние параметры board_id; ожидаются key, sprint"


def test_size_from_client_is_an_extra_parameter() -> None:
    """size is added by the hub at delivery; a client sending it gets a 422."""
    params = {"key": "AURORA-1", "file": SHA, "filename": "a.xlsx", "size": 10}
    assert _error({"type": "ensure_attachment", "params": params}) == (
        "команда 1 (ensure_attachment): лишние параметры size; ожидаются key, file, filename"
    )


@pytest.mark.parametrize(
    ("filename", "ok"),
    [
        ("ОСВ 60.xlsx", True),
        ("", False),
        ("   ", False),
        ("a/b.xlsx", False),
        ("a\\b.xlsx", False),
        ('a"b.xlsx', False),
        ("a\rb.xlsx", False),
        ("a\nb.xlsx", False),
        ("a\x7fb", False),
    ],
)
def test_filename_rules(filename: str, ok: bool) -> None:
    """Filenames that would break multipart/form-data are refused."""
    command = {"type": "ensure_attachment", "params": {"key": "AURORA-1", "file": SHA, "filename": filename}}
    if ok:
        assert check_command(1, command)[1]["filename"] == filename
    else:
        assert "filename — ожидается имя файла" in _error(command)


@pytest.mark.parametrize("file", ["A" * 64, "a" * 63, "g" * 64, 5])
def test_file_must_be_lowercase_sha256(file: object) -> None:
    """file is 64 lowercase hex characters."""
    command = {"type": "ensure_attachment", "params": {"key": "AURORA-1", "file": file, "filename": "a"}}
    assert _error(command) == (
        "команда 1 (ensure_attachment): file — ожидается sha256 файла: 64 шестнадцатеричных символа в нижнем регистре"
    )


def test_null_optional_means_not_set_but_null_required_is_refused() -> None:
    """null on an optional text parameter is «не задан»; on a required one it is a type error."""
    assert check_command(1, {"type": "ensure_fields", "params": {"key": "AURORA-1", "description": None}})[1] == {
        "key": "AURORA-1",
        "description": None,
    }
    assert _error({"type": "ensure_comment", "params": {"key": "AURORA-1", "marker": None, "body": "x"}}) == (
        "команда 1 (ensure_comment): marker — ожидается непустая строка"
    )


def test_ensure_fields_needs_a_field() -> None:
    """ensure_fields with only a key asks for at least one field."""
    message = _error({"type": "ensure_fields", "params": {"key": "AURORA-1"}})
    assert message == (
        "команда 1 (ensure_fields): нужен хотя бы один из summary, description, priority, duedate, planned_start, "
        "planned_end, labels_add, labels_remove, epic_key, assignee"
    )


def test_refresh_takes_keys_or_jql_not_both() -> None:
    """refresh: keys or jql, exactly one."""
    both = _error({"type": "refresh", "params": {"keys": ["AURORA-1"], "jql": "project = AURORA"}})
    assert both == "команда 1 (refresh): только одно из keys, jql"
    neither = _error({"type": "refresh", "params": {}})
    assert neither == "команда 1 (refresh): нужен хотя бы один из keys, jql"


def test_status_target_is_string_or_list_of_strings() -> None:
    """target of ensure_status is a name or a path."""
    assert check_command(1, {"type": "ensure_status", "params": {"key": "X-1", "target": ["A", "B"]}})[1]["target"] == [
        "A",
        "B",
    ]
    assert _error({"type": "ensure_status", "params": {"key": "X-1", "target": [1]}}) == (
        "команда 1 (ensure_status): target — ожидается имя статуса или непустой список имён (путь переходов)"
    )


def test_unknown_type_lists_the_types() -> None:
    """An unknown command type names the known ones."""
    assert _error({"type": "ensure_world_peace", "params": {}}) == (
        f"команда 1: неизвестный тип ensure_world_peace; ожидаются {TYPE_LIST}"
    )


def test_key_params_include_temp_key_capable_parameters() -> None:
    """The key parameters of each type come from the catalogue's formats."""
    assert key_params("ensure_issue") == ("epic_key",)
    assert key_params("ensure_fields") == ("key", "epic_key")
    assert key_params("ensure_link") == ("source", "target")
    assert key_params("refresh") == ("keys",)


#: The catalogue's example of each type, then the variants the examples do not show.
VALID_COMMANDS = [
    *({"type": spec.type, "params": dict(spec.example)} for spec in CATALOGUE.values()),
    {"type": "ensure_fields", "params": {"key": "X-1", "description": None, "labels_remove": ["a"]}},
    {"type": "ensure_comment", "params": {"key": "new:1", "marker": "[m]", "body": "text"}},
    {"type": "ensure_link", "params": {"source": "new:60", "target": "AURORA-1537", "link_type": "связанные"}},
    {"type": "refresh", "params": {"keys": ["X-1", "new:2"]}},
    {"type": "refresh", "params": {"jql": "project = AURORA"}},
]

INVALID_COMMANDS = [
    {"type": "ensure_status", "params": {"key": "X-1", "status": "Готово"}},
    {"type": "ensure_link", "params": {"source": "X-1", "target": "X-2", "link_type": "a", "force": True}},
    {"type": "ensure_fields", "params": {"key": "X-1", "labels_add": "AWPCA"}},
    {"type": "ensure_sprint", "params": {"key": "X-1", "sprint": "S", "board_id": 1}},
    {"type": "ensure_attachment", "params": {"key": "X-1", "file": "A" * 64, "filename": "a"}},
    {"type": "ensure_attachment", "params": {"key": "X-1", "file": SHA, "filename": "a/b"}},
    {"type": "ensure_issue", "params": {"temp_key": "1", "summary": "x"}},
    {"type": "ensure_fields", "params": {"key": "x-1", "summary": "x"}},
    {"type": "ensure_fields", "params": {"key": "X-1", "duedate": "23.10.2026"}},
    {"type": "ensure_link", "params": {"source": "X-1", "target": "X-2", "link_type": "a", "replace": "yes"}},
]


@pytest.mark.parametrize("command", VALID_COMMANDS)
def test_schema_and_validation_accept_the_same_valid_command(command: dict[str, object]) -> None:
    """A command validation accepts is accepted by the generated JSON Schema."""
    check_command(1, command)
    body = {"author": "a", "title": "t", "commands": [command]}
    jsonschema.validate(body, batch_create_schema())


@pytest.mark.parametrize("command", INVALID_COMMANDS)
def test_schema_and_validation_refuse_the_same_invalid_command(command: dict[str, object]) -> None:
    """A command validation refuses is refused by the generated JSON Schema."""
    with pytest.raises(ValidationError):
        check_command(1, command)
    body = {"author": "a", "title": "t", "commands": [command]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(body, batch_create_schema())


def test_description_lists_every_type_and_parameter() -> None:
    """The description of batch_create names every type and every parameter of the catalogue."""
    description = batch_create_description()
    for spec in CATALOGUE.values():
        assert f"- {spec.type}: " in description
        for param in spec.params:
            assert f"    - {param.name}: " in description
    assert "estimate_seconds" in description
    assert "new:<n>" in description


def test_single_source_a_new_parameter_changes_validation_schema_and_description(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Adding a parameter to the catalogue changes validation, the schema and the description together."""
    import attrs

    from reconcile.vocabulary import commands

    spec = commands.CATALOGUE["ensure_comment"]
    extra = Param(
        name="visibility", format=Format.TEXT, label="Видимость", editor=Editor.TEXT, doc="кому виден комментарий"
    )
    patched = dict(commands.CATALOGUE)
    patched["ensure_comment"] = attrs.evolve(spec, optional=(*spec.optional, extra))
    command = {"type": "ensure_comment", "params": {"key": "X-1", "marker": "m", "body": "b", "visibility": "all"}}
    with pytest.raises(ValidationError):
        check_command(1, command)
    monkeypatch.setattr(commands, "CATALOGUE", patched)
    assert check_command(1, command)[1]["visibility"] == "all"
    jsonschema.validate({"author": "a", "title": "t", "commands": [command]}, commands.batch_create_schema())
    assert "    - visibility: строка — кому виден комментарий" in commands.batch_create_description()


#: Values that probe every format: right and wrong types, empty and blank strings, keys and near-keys.
PROBES: list[object] = [
    None,
    True,
    0,
    7,
    1.5,
    {},
    "",
    " ",
    "\t\n",
    "x",
    "Готово",
    "AURORA-1538",
    "X-1",
    "x-1",
    "X-0",
    "new:1",
    "new:0",
    "2026-10-23",
    "2026-13-01",
    "task",
    "epic",
    "bug",
    "story",
    SHA,
    "a/b",
    'a"b',
    "a\x01b",
    "a\x7fb",
    [],
    [""],
    [" "],
    ["x"],
    ["x", 1],
    ["AURORA-1", "new:2"],
    ["AURORA-1"],
    ["aurora-1"],
    [["x"]],
]


def _base(spec_type: str) -> dict[str, object]:
    """The params of the type's example in the catalogue (a valid command: the binding checks it)."""
    return dict(CATALOGUE[spec_type].example)


def _blank(value: object) -> bool:
    """A string of spaces only, or a list holding one: JSON Schema's minLength cannot see it."""
    if isinstance(value, str):
        return value != "" and not value.strip()
    return isinstance(value, list) and any(isinstance(v, str) and v != "" and not v.strip() for v in value)


@pytest.mark.parametrize("spec_type", list(CATALOGUE))
def test_schema_and_validation_agree_on_every_parameter_value(spec_type: str) -> None:
    """For each parameter of each type and each probe value, the JSON Schema and the validation give the
    same verdict, except where the value is blank (spaces only), which only the validation refuses."""
    for param in CATALOGUE[spec_type].params:
        for value in PROBES:
            params = {**_base(spec_type), param.name: value}
            if spec_type == "refresh":  # keys and jql exclude each other
                params = {param.name: value}
            valid, by_schema = _verdicts({"type": spec_type, "params": params})
            assert (valid, by_schema) in ((True, True), (False, False)) or (
                not valid and by_schema and _blank(value)
            ), (param.name, value, valid, by_schema)


def test_the_description_of_a_type() -> None:
    """Each type is a block: its doc, the required parameters, the optional ones (null — «не задан»), and
    the condition on the set; each parameter line names the expected value and the parameter's doc."""
    lines = batch_create_description().splitlines()
    start = lines.index("- ensure_comment: " + CATALOGUE["ensure_comment"].doc)
    assert lines[start + 1 : start + 7] == [
        "  обязательные:",
        "    - key: ключ задачи Jira (AURORA-1538) или временный ключ new:<n> этого пакета — задача: ключ Jira или "
        "new:<n> из ensure_issue этого пакета",
        "    - marker: непустая строка — метка в начале комментария, по которой он находится",
        "    - body: строка — текст комментария",
        "  необязательные (null — «не задан»):",
        "    - absent: логическое значение true/false — true — удалить комментарий с marker (только написанный "
        "агентом); body тогда не нужен",
    ]
    assert lines[start + 7].startswith("- ensure_status: ")
    fields = lines.index("- ensure_fields: " + CATALOGUE["ensure_fields"].doc)
    assert lines[fields + 3] == "  необязательные (null — «не задан»):"
    assert lines[fields + 15] == (
        "  условие: хотя бы один из summary, description, priority, duedate, planned_start, planned_end, "
        "labels_add, labels_remove, epic_key, assignee"
    )
    refresh = CATALOGUE["refresh"]
    at = lines.index(f"- refresh: {refresh.doc}")
    keys_doc, jql_doc = (p.doc for p in refresh.optional)
    assert lines[at + 1 :] == [
        "  необязательные (null — «не задан»):",
        f"    - keys: непустой список ключей задач (AURORA-1538 или new:<n>) — {keys_doc}",
        f"    - jql: непустая строка — {jql_doc}",
        "  условие: хотя бы один из keys, jql; только одно из keys, jql",
    ]


def _verdicts(command: object) -> tuple[bool, bool]:
    """(validation accepts, the JSON Schema accepts) for a batch holding ``command``."""
    try:
        check_command(1, command)
        valid = True
    except ValidationError:
        valid = False
    body = {"author": "a", "title": "t", "commands": [command]}
    return valid, jsonschema.Draft202012Validator(batch_create_schema()).is_valid(body)


@pytest.mark.parametrize("spec_type", list(CATALOGUE))
def test_schema_and_validation_agree_on_the_shape_of_a_command(spec_type: str) -> None:
    """A parameter left out, one added, params missing or not an object, a field beside type and params,
    another type: the JSON Schema and the validation give the same verdict."""
    spec = CATALOGUE[spec_type]
    base = _base(spec_type)
    variants: list[object] = [
        {"type": spec_type, "params": base},
        {"type": spec_type, "params": {**base, "zz": 1}},
        {"type": spec_type},
        {"type": spec_type, "params": []},
        {"type": spec_type, "params": base, "seq": 1},
        {"params": base},
        {"type": spec_type.upper(), "params": base},
        {"type": 5, "params": base},
        {"type": spec_type, "params": None},
        spec_type,
        [spec_type, base],
        {"type": spec_type, "params": {p.name: base[p.name] for p in spec.required if p.name in base}},
        *({"type": spec_type, "params": {k: v for k, v in base.items() if k != name}} for name in base),
    ]
    for command in variants:
        valid, by_schema = _verdicts(command)
        assert valid == by_schema, (command, valid, by_schema)


#: Formats whose null means «не задан» on an optional parameter: texts, dates, keys, the issue type.
NULLABLE_FORMATS = {Format.TEXT, Format.NONEMPTY_TEXT, Format.DATE, Format.ISSUE_KEY, Format.ISSUE_TYPE}


def test_the_schema_describes_each_type_and_parameter_with_the_catalogue_docs() -> None:
    """Each command's schema carries «type: doc», each parameter's its doc; null is allowed exactly for the
    optional parameters of a nullable format, and for ensure_sprint's sprint (null: the backlog)."""
    by_type = {
        s["properties"]["type"]["const"]: s for s in batch_create_schema()["properties"]["commands"]["items"]["oneOf"]
    }
    assert list(by_type) == list(CATALOGUE)
    for spec in CATALOGUE.values():
        schema = by_type[spec.type]
        assert schema["description"] == f"{spec.type}: {spec.doc}"
        properties = schema["properties"]["params"]["properties"]
        assert list(properties) == [p.name for p in spec.params]
        for param in spec.params:
            assert properties[param.name]["description"] == param.doc
            nullable = jsonschema.Draft202012Validator(properties[param.name]).is_valid(None)
            backlog = param.format is Format.SPRINT
            assert nullable == ((param in spec.optional and param.format in NULLABLE_FORMATS) or backlog), param.name


def test_a_missing_parameter_lists_the_required_and_the_optional_ones() -> None:
    """The expected set names the required parameters, then the optional ones, each list comma-separated."""
    assert _error({"type": "ensure_fields", "params": {"summary": "x"}}) == (
        "команда 1 (ensure_fields): нет key; ожидаются key; необязательные summary, description, priority, duedate, "
        "planned_start, planned_end, labels_add, labels_remove, epic_key, assignee"
    )
    assert _error({"type": "ensure_link", "params": {}}) == (
        "команда 1 (ensure_link): нет source, target, link_type; ожидаются source, target, link_type; "
        "необязательные replace"
    )


def test_the_messages_about_a_command_s_shape() -> None:
    """A command that is no object, fields beside type and params, a type that is no text, params that are
    no object or null, extra parameters: each named in the seed's words with the command's number."""

    def error(command: object) -> str:
        with pytest.raises(ValidationError) as info:
            check_command(3, command)
        return info.value.message

    assert error("ensure_fields") == "команда 3: ожидается объект {type, params}"
    assert error({"type": "refresh", "params": {}, "seq": 1, "at": 2}) == (
        "команда 3: лишние поля at, seq; ожидаются type, params"
    )
    assert error({"type": None}) == (f"команда 3: неизвестный тип None; ожидаются {TYPE_LIST}")
    assert error({"type": "ensure_status", "params": ["X-1"]}) == "команда 3 (ensure_status): params — ожидается объект"
    assert error({"type": "ensure_status", "params": None}) == (
        "команда 3 (ensure_status): нет key, target; ожидаются key, target"
    )
    assert error({"type": "ensure_status"}) == "команда 3 (ensure_status): нет key, target; ожидаются key, target"
    assert error({"type": ["refresh"]}).startswith("команда 3: неизвестный тип ['refresh']; ожидаются ensure_issue")
    assert error({"type": "ensure_fields", "params": {"key": "X-1", "description": None, "duedate": "1.1.2026"}}) == (
        "команда 3 (ensure_fields): duedate — ожидается дата ГГГГ-ММ-ДД"
    )
    assert error({"type": "ensure_status", "params": {"key": "X-1", "target": "Готово", "b": 1, "a": 2}}) == (
        "команда 3 (ensure_status): лишние параметры b, a; ожидаются key, target"
    )


def test_the_batch_schema_describes_its_top_fields_in_the_seeds_words() -> None:
    """The assistant reads these descriptions from the tool's schema: they are part of the interface."""
    props = batch_create_schema()["properties"]
    assert props["author"] == {"type": "string", "minLength": 1, "description": "кто ставит пакет"}
    assert props["title"] == {"type": "string", "minLength": 1, "description": "заголовок пакета"}
    assert props["project"]["description"] == "проект хаба (метка Jira): включает проверки пакета проекта"
    assert props["notes"]["description"] == "заметки хаба к задачам пакета (в Jira не пишутся)"
    note = props["notes"]["anyOf"][0]["items"]["properties"]
    assert note["key"] == {"type": "string", "description": "ключ задачи или new:<n> этого пакета"}


IF_UNCHANGED_CASES = [
    ("ensure_fields", {"duedate": "2026-10-01", "if_unchanged": {"duedate": "2026-09-01"}}, True),
    ("ensure_fields", {"duedate": "2026-10-01", "if_unchanged": {"duedate": ""}}, True),  # the empty field
    ("ensure_fields", {"duedate": "2026-10-01", "if_unchanged": {"duedate": None}}, True),
    ("ensure_fields", {"duedate": "2026-10-01", "if_unchanged": {"status": "x"}}, False),
    ("ensure_fields", {"duedate": "2026-10-01", "if_unchanged": {}}, False),
    ("ensure_fields", {"duedate": "2026-10-01", "if_unchanged": {"duedate": 5}}, False),
    ("ensure_status", {"target": "Готово", "if_unchanged": {"status": "Ревью"}}, True),
    ("ensure_status", {"target": "Готово", "if_unchanged": {"status": " "}}, False),
    ("ensure_status", {"target": "Готово", "if_unchanged": {"status": None}}, False),
    ("ensure_status", {"target": "Готово", "if_unchanged": {"duedate": "x"}}, False),
    ("ensure_sprint", {"sprint": "С1", "if_unchanged": {"sprint": None}}, True),  # the backlog
    ("ensure_sprint", {"sprint": "С1", "if_unchanged": {"sprint": "С0"}}, True),
    ("ensure_sprint", {"sprint": "С1", "if_unchanged": {"sprint": "0"}}, True),  # a name of one character
    ("ensure_sprint", {"sprint": "С1", "if_unchanged": {"sprint": 5}}, False),
    ("ensure_sprint", {"sprint": "С1", "if_unchanged": {"sprint": ""}}, False),
    ("ensure_sprint", {"sprint": "С1", "if_unchanged": ["sprint"]}, False),
    ("ensure_status", {"target": "Готово", "if_unchanged": {"status": ""}}, False),
    ("ensure_status", {"target": "Готово", "if_unchanged": {"status": "Ревью", "sprint": None}}, False),
    ("ensure_sprint", {"sprint": "С1", "if_unchanged": {"sprint": None, "status": "x"}}, False),
    (
        "ensure_fields",
        {"duedate": "2026-10-01", "summary": "a", "if_unchanged": {"duedate": None, "summary": "b"}},
        True,
    ),
]


@pytest.mark.parametrize(("command_type", "params", "accepted"), IF_UNCHANGED_CASES)
def test_if_unchanged_names_only_what_its_command_may_find(
    command_type: str, params: dict[str, Any], accepted: bool
) -> None:
    """A field any text or null; a status a name; a sprint a name or null (the backlog); nothing else, and not
    an empty object."""
    command = {"type": command_type, "params": {"key": "AURORA-1", **params}}
    if accepted:
        assert check_command(1, command)[1]["if_unchanged"] == params["if_unchanged"]
        return
    with pytest.raises(ValidationError) as refused:
        check_command(1, command)
    assert refused.value.param == "if_unchanged"
    assert refused.value.message.startswith(f"команда 1 ({command_type}): if_unchanged — ожидается объект")


def test_if_unchanged_names_only_fields_its_command_sets() -> None:
    """ensure_fields compares only what it writes: a field named in if_unchanged but not set is refused, by name."""
    params = {"key": "AURORA-1", "duedate": "2026-10-01", "if_unchanged": {"duedate": None, "summary": "было"}}
    with pytest.raises(ValidationError) as refused:
        check_command(1, {"type": "ensure_fields", "params": params})
    assert refused.value.param == "if_unchanged"
    assert refused.value.message == "команда 1 (ensure_fields): if_unchanged.summary — поле не задано в команде"


@pytest.mark.parametrize(("command_type", "params", "accepted"), IF_UNCHANGED_CASES)
def test_the_schema_says_what_the_validation_says_of_if_unchanged(
    command_type: str, params: dict[str, Any], accepted: bool
) -> None:
    """An assistant reading the MCP schema sends only what the hub accepts (a blank status is for the validation)."""
    command = {"type": command_type, "params": {"key": "AURORA-1", **params}}
    by_schema = jsonschema.Draft202012Validator(batch_create_schema()).is_valid(
        {"author": "a", "title": "t", "commands": [command]}
    )
    blank = params["if_unchanged"] == {"status": " "}
    assert by_schema == (accepted or blank)


@pytest.mark.parametrize(
    ("command_type", "params", "accepted"),
    [
        ("ensure_comment", {"key": "AURORA-1", "marker": "m", "absent": True}, True),
        ("ensure_comment", {"key": "AURORA-1", "marker": "m", "absent": False}, False),
        ("ensure_comment", {"key": "AURORA-1", "marker": "m"}, False),
        ("ensure_attachment", {"key": "AURORA-1", "file": SHA, "absent": True}, True),
        ("ensure_attachment", {"key": "AURORA-1", "file": SHA}, False),
        ("ensure_link", {"source": "AURORA-1", "target": "AURORA-2", "link_type": "связанные", "present": False}, True),
    ],
)
def test_the_schema_and_the_validation_agree_on_a_removal(
    command_type: str, params: dict[str, Any], accepted: bool
) -> None:
    """A removal does without the parameters it frees, in the schema as in the validation, and only a removal."""
    assert _verdicts({"type": command_type, "params": params}) == (accepted, accepted)


def test_a_client_may_not_set_the_hubs_own_parameters() -> None:
    """``changes`` of a refresh is the hub's own: refused unless the hub makes the batch (``by_hub``)."""
    command = {"type": "refresh", "params": {"jql": "project = AURORA", "changes": True}}
    for refused in (
        lambda: check_command(0, command),
        lambda: check_params(0, CATALOGUE["refresh"], command["params"]),
    ):
        with pytest.raises(ValidationError) as error:
            refused()
        assert error.value.message == "команда 0 (refresh): лишние параметры changes; необязательные keys, jql"
    assert check_command(0, command, by_hub=True) == ("refresh", command["params"])


@pytest.mark.parametrize(
    ("params", "message", "param"),
    [
        ({}, "команда 2 (refresh): нужен хотя бы один из keys, jql", "keys"),
        ({"jql": "project = A", "keys": ["A-1"]}, "команда 2 (refresh): только одно из keys, jql", "jql"),
        ({"key": "AURORA-1"}, None, "summary"),
    ],
)
def test_a_missing_or_doubled_choice_is_named_at_its_field(
    params: dict[str, Any], message: str | None, param: str
) -> None:
    """The editor shows the refusal beside a field: the first of those needed, or the second of those given."""
    command_type = "ensure_fields" if "key" in params else "refresh"
    with pytest.raises(ValidationError) as error:
        check_command(2, {"type": command_type, "params": params})
    if message is not None:
        assert error.value.message == message
    assert error.value.param == param
