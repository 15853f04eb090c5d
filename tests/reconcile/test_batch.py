"""Batch rules: a batch is valid as a whole or refused with the first violation, in the seed's words."""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reconcile.batches.validation import (
    BatchContext,
    InvalidBatch,
    NewCommand,
    NewNote,
    ProjectInfo,
    batch_needs,
    check_batch_size,
    retry_body,
    validate_batch,
)
from reconcile.config.settings import DEFAULT_PACING, LIMITS, IssueTypeRef, Settings
from reconcile.vocabulary.catalogue import CATALOGUE
from reconcile.vocabulary.commands import batch_create_schema, key_params
from reconcile.vocabulary.errors import ValidationError
from tests.support import SHA, cmd

PROJECTS = {
    "AWPCA": ProjectInfo(name="AWPCA", board_id=4216, board_type="scrum"),
    "STOCKS_DRRK": ProjectInfo(name="STOCKS_DRRK", board_id=5120, board_type="kanban"),
}
MIRROR = {
    "AURORA-1": ("STOCKS_DRRK",),
    "AURORA-1537": ("AWPCA",),
    "AURORA-1538": ("AWPCA",),
    "AURORA-1533": ("AWPCA", "kind-dev"),
}


def ctx(**changes: Any) -> BatchContext:
    base: dict[str, Any] = {"settings": Settings(), "projects": PROJECTS, "mirror_labels": MIRROR, "files": {SHA: 10}}
    base.update(changes)
    return BatchContext(**base)


def body(*commands: Any, **top: Any) -> dict[str, Any]:
    return {"author": "ассистент", "title": "план", "commands": list(commands), **top}


def refused(batch: Any, context: BatchContext | None = None) -> str:
    with pytest.raises(ValidationError) as info:
        validate_batch(batch, context or ctx())
    return info.value.message


def test_seq_follows_the_list_and_a_tail_refresh_covers_all_keys() -> None:
    """seq is the list order; the tail refresh reads every key of the batch, temp keys included."""
    batch = validate_batch(
        body(
            cmd("ensure_issue", temp_key="new:60", summary="Сверка"),
            cmd("ensure_link", source="new:60", target="AURORA-1537", link_type="связанные"),
            cmd("ensure_fields", key="AURORA-1533", duedate="2026-10-23"),
        ),
        ctx(),
    )
    assert [(c.seq, c.type) for c in batch.commands] == [
        (1, "ensure_issue"),
        (2, "ensure_link"),
        (3, "ensure_fields"),
        (4, "refresh"),
    ]
    assert batch.commands[-1].params == {"keys": ["new:60", "AURORA-1537", "AURORA-1533"]}
    assert batch.commands[0].temp_key == "new:60"


def test_refresh_only_batch_has_no_tail() -> None:
    """A batch of refresh commands only gets no tail refresh."""
    batch = validate_batch(body(cmd("refresh", keys=["AURORA-1"])), ctx())
    assert [c.type for c in batch.commands] == ["refresh"]


def test_estimate_is_the_sum_of_gaps_plus_refresh() -> None:
    """Seed «Оценка длительности»: 3 ensure_fields + 2 ensure_comment + the tail refresh."""
    batch = validate_batch(
        body(
            *[cmd("ensure_fields", key=f"AURORA-{n}", duedate="2026-10-23") for n in (1, 2, 3)],
            *[cmd("ensure_comment", key=f"AURORA-{n}", marker="[m]", body="b") for n in (1, 2)],
        ),
        ctx(),
    )
    assert batch.estimate_seconds == 422


def test_estimate_adds_nothing_to_the_gaps() -> None:
    """ensure_issue, ensure_comment, ensure_status + the tail refresh at default pacing: exactly 182 (issue 23)."""
    batch = validate_batch(
        body(
            cmd("ensure_issue", temp_key="new:1", summary="Отчёт"),
            cmd("ensure_comment", key="AURORA-1", marker="[m]", body="b"),
            cmd("ensure_status", key="AURORA-1", target="Готово"),
        ),
        ctx(),
    )
    assert batch.estimate_seconds == 182


def test_two_issues_with_one_summary_are_refused() -> None:
    """Seed «Две задачи с одной темой»: summaries equal after trimming → 422 naming «Отчёт»."""
    message = refused(
        body(
            cmd("ensure_issue", temp_key="new:1", summary="Отчёт"),
            cmd("ensure_issue", temp_key="new:2", summary=" Отчёт "),
        )
    )
    assert message == "команда 2: задача с темой «Отчёт» уже создаётся в пакете (команда 1)"


def test_parameter_of_wrong_type_in_a_batch() -> None:
    """Seed «Параметр не того типа»: the 422 names labels_add."""
    assert refused(body(cmd("ensure_fields", key="AURORA-1", labels_add="AWPCA"))) == (
        "команда 1 (ensure_fields): labels_add — ожидается список строк"
    )


def test_first_violation_in_command_order_wins() -> None:
    """With several violations the first command's one is reported."""
    message = refused(
        body(
            cmd("ensure_status", key="AURORA-1", status="Готово"), cmd("ensure_fields", key="AURORA-1", labels_add="x")
        )
    )
    assert message == "команда 1 (ensure_status): нет target; ожидаются key, target"


def test_temp_key_without_its_ensure_issue_is_refused() -> None:
    """A temp key outside the batch of its ensure_issue → 422."""
    assert refused(body(cmd("ensure_comment", key="new:7", marker="m", body="b"))) == (
        "команда 1: временный ключ new:7 — в пакете нет ensure_issue с этим temp_key"
    )


def test_temp_key_before_its_ensure_issue_is_refused() -> None:
    """A temp key used before its ensure_issue would block the queue forever → 422."""
    message = refused(
        body(
            cmd("ensure_comment", key="new:1", marker="m", body="b"), cmd("ensure_issue", temp_key="new:1", summary="s")
        )
    )
    assert message == "команда 1: new:1 используется раньше своей ensure_issue (команда 2)"


def test_sprint_of_project_issue_gets_the_board() -> None:
    """Seed «Спринт задачи проекта»: board_id = 4216 is written into the params."""
    batch = validate_batch(body(cmd("ensure_sprint", key="AURORA-1538", sprint="Спринт 2")), ctx())
    assert batch.commands[0].params == {"key": "AURORA-1538", "sprint": "Спринт 2", "board_id": 4216}


def test_sprint_on_kanban_is_refused() -> None:
    """Seed «Спринт на канбане»."""
    assert refused(body(cmd("ensure_sprint", key="AURORA-1", sprint="Спринт 2"))) == (
        "у проекта STOCKS_DRRK канбан-доска, спринтов нет"
    )


def test_sprint_with_unknown_board_type_is_refused() -> None:
    """The board type is not known yet: wait for a refresh."""
    projects = {**PROJECTS, "STOCKS_DRRK": ProjectInfo(name="STOCKS_DRRK", board_id=5120, board_type=None)}
    assert refused(body(cmd("ensure_sprint", key="AURORA-1", sprint="Спринт 2")), ctx(projects=projects)) == (
        "тип доски проекта STOCKS_DRRK ещё не известен — дождитесь обновления из Jira"
    )


def test_sprint_board_resolution_failures() -> None:
    """No project, several projects with different boards, a project without a board → 422 each."""
    assert refused(body(cmd("ensure_sprint", key="AURORA-9", sprint="S"))) == (
        "команда 1: AURORA-9 ни в одном проекте — доску для спринта не определить"
    )
    both = ctx(mirror_labels={"AURORA-5": ("AWPCA", "STOCKS_DRRK")})
    assert refused(body(cmd("ensure_sprint", key="AURORA-5", sprint="S")), both) == (
        "команда 1: AURORA-5 в нескольких проектах с разными досками: AWPCA, STOCKS_DRRK"
    )
    boardless = ctx(projects={"AWPCA": ProjectInfo(name="AWPCA")})
    assert refused(body(cmd("ensure_sprint", key="AURORA-1538", sprint="S")), boardless) == "у проекта AWPCA нет доски"


def test_bug_without_settings_is_refused() -> None:
    """Seed «Ошибка без настройки типа»."""
    settings_ = Settings(issue_types={"task": IssueTypeRef(name="Задача"), "epic": IssueTypeRef(name="Эпик")})
    message = refused(
        body(cmd("ensure_issue", temp_key="new:1", issue_type="bug", summary="ОСВ 60 не распознана")),
        ctx(settings=settings_),
    )
    assert message == "команда 1: нет настройки issue_types.bug"


def test_attachment_without_uploaded_file_is_refused() -> None:
    """Seed «Вложение без загруженного файла»."""
    other = "f" * 64
    assert refused(body(cmd("ensure_attachment", key="AURORA-1", file=other, filename="a.xlsx"))) == (
        f"команда 1: файл {other} не загружен: POST /files"
    )


def test_bug_with_sprint_and_attachment_in_one_batch() -> None:
    """Seed «Ошибка с вложением одним пакетом»: the batch is created, the sprint board comes from the labels."""
    batch = validate_batch(
        body(
            cmd("ensure_issue", temp_key="new:1", issue_type="bug", summary="ОСВ 60 не распознана", labels=["AWPCA"]),
            cmd("ensure_sprint", key="new:1", sprint="Спринт 2"),
            cmd("ensure_attachment", key="new:1", file=SHA, filename="ОСВ 60.xlsx"),
        ),
        ctx(),
    )
    assert batch.commands[1].params["board_id"] == 4216
    assert batch.commands[2].params == {"key": "new:1", "file": SHA, "filename": "ОСВ 60.xlsx"}
    assert batch.commands[3].params == {"keys": ["new:1"]}


def test_project_label_is_appended() -> None:
    """Seed «Метка проекта дописана»."""
    batch = validate_batch(
        body(
            cmd("ensure_issue", temp_key="new:1", summary="Сверка остатков", labels=["kind-dev"]), project="STOCKS_DRRK"
        ),
        ctx(),
    )
    assert batch.commands[0].params["labels"] == ["kind-dev", "STOCKS_DRRK"]


def test_project_label_case_is_fixed_and_missing_labels_created() -> None:
    """A label equal to P but for case becomes P; no labels → [P]."""
    batch = validate_batch(
        body(
            cmd("ensure_issue", temp_key="new:1", summary="a", labels=["stocks_drrk", "x"]),
            cmd("ensure_issue", temp_key="new:2", summary="b"),
            project="STOCKS_DRRK",
        ),
        ctx(),
    )
    assert batch.commands[0].params["labels"] == ["STOCKS_DRRK", "x"]
    assert batch.commands[1].params["labels"] == ["STOCKS_DRRK"]


def test_label_of_another_project_is_refused() -> None:
    """Seed «Чужая метка проекта» (case-insensitive)."""
    message = refused(body(cmd("ensure_issue", temp_key="new:1", summary="s", labels=["awpca"]), project="STOCKS_DRRK"))
    assert message == "метка другого проекта: awpca"


def test_issue_of_another_project_is_refused() -> None:
    """Seed «Задача другого проекта»."""
    message = refused(body(cmd("ensure_fields", key="AURORA-1538", duedate="2026-10-23"), project="STOCKS_DRRK"))
    assert message == "AURORA-1538 не в проекте STOCKS_DRRK"


def test_link_with_a_neighbour_is_allowed() -> None:
    """Seed «Связь с соседом»: one side in the project is enough."""
    batch = validate_batch(
        body(cmd("ensure_link", source="AURORA-1", target="AURORA-1538", link_type="связанные"), project="STOCKS_DRRK"),
        ctx(),
    )
    assert batch.project == "STOCKS_DRRK"
    assert (
        refused(
            body(
                cmd("ensure_link", source="AURORA-1537", target="AURORA-1538", link_type="связанные"),
                project="STOCKS_DRRK",
            )
        )
        == "ни AURORA-1537, ни AURORA-1538 не в проекте STOCKS_DRRK"
    )


def test_project_rules_on_ensure_fields_labels() -> None:
    """P in labels_remove and another project's label in labels_add are refused."""
    assert refused(
        body(cmd("ensure_fields", key="AURORA-1", labels_remove=["stocks_drrk"]), project="STOCKS_DRRK")
    ) == ("метку проекта STOCKS_DRRK нельзя снять: AURORA-1")
    assert refused(body(cmd("ensure_fields", key="AURORA-1", labels_add=["AWPCA"]), project="STOCKS_DRRK")) == (
        "метка другого проекта: AWPCA"
    )


def test_project_membership_is_exact_and_temp_keys_belong() -> None:
    """Membership is the exact project label; the batch's own temp keys are in the project."""
    mirror = {"AURORA-7": ("stocks_drrk",)}
    assert refused(
        body(cmd("ensure_comment", key="AURORA-7", marker="m", body="b"), project="STOCKS_DRRK"),
        ctx(mirror_labels=mirror),
    ) == ("AURORA-7 не в проекте STOCKS_DRRK")
    validate_batch(
        body(
            cmd("ensure_issue", temp_key="new:3", summary="s"),
            cmd("ensure_comment", key="new:3", marker="m", body="b"),
            project="STOCKS_DRRK",
        ),
        ctx(),
    )


def test_unknown_project_and_batch_without_project() -> None:
    """An unknown project → 422; without a project no label is appended and no project check runs."""
    assert refused(body(cmd("refresh", keys=["AURORA-1"]), project="NOPE")) == "нет проекта NOPE"
    batch = validate_batch(body(cmd("ensure_issue", temp_key="new:1", summary="s", labels=["awpca"])), ctx())
    assert batch.commands[0].params["labels"] == ["awpca"]


def test_unknown_link_type_is_refused() -> None:
    """link_type must be a logical name from settings.link_types."""
    assert refused(body(cmd("ensure_link", source="AURORA-1", target="AURORA-2", link_type="дубль"))) == (
        "команда 1 (ensure_link): неизвестный тип связи «дубль»; доступны: блокирует начало, связанные"
    )


def test_top_level_shape() -> None:
    """author, title and commands are required; unknown fields are refused."""
    assert refused({"title": "t", "commands": []}) == (
        "нет author; ожидаются author, title, commands; необязательные project, notes"
    )
    assert refused({"author": "a", "title": "t", "commands": [], "x": 1}) == (
        "лишние поля x; ожидаются author, title, commands; необязательные project, notes"
    )
    assert refused({"author": "a", "title": "t", "commands": []}) == (
        "commands — ожидается непустой список команд {type, params}"
    )


def test_notes_on_temp_keys_of_the_batch() -> None:
    """Notes may name the batch's temp keys; unknown temp keys are refused."""
    batch = validate_batch(
        body(cmd("ensure_issue", temp_key="new:5", summary="Отчёт"), notes=[{"key": "new:5", "text": "важно"}]), ctx()
    )
    assert batch.notes[0].key == "new:5"
    assert refused(body(cmd("refresh", keys=["AURORA-1"]), notes=[{"key": "new:5", "text": "x"}])) == (
        "заметка 1: временный ключ new:5 — в пакете нет его ensure_issue"
    )


def test_author_title_and_project_are_kept_trimmed() -> None:
    """The stored batch carries the author and the title without spaces around them, and the project."""
    batch = validate_batch(
        body(cmd("ensure_fields", key="AURORA-1537", duedate="2026-10-23"), author=" ассистент ", title="\tплан\n"),
        ctx(),
    )
    assert (batch.author, batch.title, batch.project) == ("ассистент", "план", None)
    batch = validate_batch(body(cmd("ensure_fields", key="AURORA-1537", duedate="2026-10-23"), project="AWPCA"), ctx())
    assert (batch.author, batch.title, batch.project) == ("ассистент", "план", "AWPCA")


def test_blank_author_title_or_project_are_refused() -> None:
    """Whitespace is no author, title or project name; neither is a value of another type."""
    fields = cmd("ensure_fields", key="AURORA-1537", duedate="2026-10-23")
    assert refused(body(fields, author="  ")) == "author — ожидается непустая строка"
    assert refused(body(fields, author=7)) == "author — ожидается непустая строка"
    assert refused(body(fields, title="\n")) == "title — ожидается непустая строка"
    assert refused({"author": "a", "commands": [fields]}) == (
        "нет title; ожидаются author, title, commands; необязательные project, notes"
    )
    assert refused(body(fields, project=" ")) == "project — ожидается имя проекта"
    assert refused(body(fields, project=["AWPCA"])) == "project — ожидается имя проекта"
    assert refused(body(fields, project="awpca")) == "нет проекта awpca"
    assert refused(["author"]) == "ожидается объект {author, title, project?, commands, notes?}"


def test_notes_on_real_keys_and_their_shape() -> None:
    """A note names a Jira key or a temp key of the batch and has exactly {key, text} with a non-blank text;
    the number in a refusal is the note's place in the list."""
    fields = cmd("ensure_fields", key="AURORA-1537", duedate="2026-10-23")
    batch = validate_batch(body(fields, notes=[{"key": "AURORA-1537", "text": " важно "}]), ctx())
    assert batch.notes == (NewNote(key="AURORA-1537", text=" важно "),)
    assert validate_batch(body(fields, notes=None), ctx()).notes == ()
    ok = {"key": "AURORA-1", "text": "да"}
    assert refused(body(fields, notes={"key": "AURORA-1", "text": "x"})) == "notes — ожидается список {key, text}"
    assert refused(body(fields, notes=[ok, {"key": "AURORA-1", "text": "x", "author": "a"}])) == (
        "заметка 2: ожидается объект {key, text}"
    )
    assert refused(body(fields, notes=[ok, {"key": "AURORA-1"}])) == "заметка 2: ожидается объект {key, text}"
    assert refused(body(fields, notes=[ok, "AURORA-1"])) == "заметка 2: ожидается объект {key, text}"
    assert refused(body(fields, notes=[ok, {"key": "aurora 1", "text": "x"}])) == (
        "заметка 2: key — ожидается ключ задачи или new:<n>"
    )
    assert refused(body(fields, notes=[ok, {"key": 5, "text": "x"}])) == (
        "заметка 2: key — ожидается ключ задачи или new:<n>"
    )
    for text in ("", "  \n", None):
        assert refused(body(fields, notes=[ok, ok, {"key": "AURORA-1", "text": text}])) == (
            "заметка 3: text — ожидается непустая строка"
        )


def test_an_unknown_temp_key_after_a_known_one_in_the_same_command_is_refused() -> None:
    """Every key of a command is checked, not only the first: a link from a batch's new issue to an unknown
    temp key is refused."""
    message = refused(
        body(
            cmd("ensure_issue", temp_key="new:1", summary="Отчёт"),
            cmd("ensure_link", source="new:1", target="new:9", link_type="связанные"),
        )
    )
    assert message == "команда 2: временный ключ new:9 — в пакете нет ensure_issue с этим temp_key"


def test_the_tail_refresh_reads_the_keys_of_commands_after_a_refresh() -> None:
    """A refresh in the batch adds nothing to the tail refresh, and the commands after it still do."""
    batch = validate_batch(
        body(
            cmd("refresh", keys=["AURORA-1"]),
            cmd("ensure_fields", key="AURORA-1537", duedate="2026-10-23"),
            cmd("ensure_issue", temp_key="new:2", summary="Отчёт", epic_key="AURORA-1538"),
        ),
        ctx(),
    )
    assert batch.commands[-1] == NewCommand(
        seq=4, type="refresh", params={"keys": ["AURORA-1537", "new:2", "AURORA-1538"]}
    )


TOP_PROBES: dict[str, list[object]] = {
    "author": [None, 1, "", " ", "a", ["a"]],
    "title": [None, 1, "", "\t", "план", {}],
    "project": [None, "AWPCA", "", " ", 1, ["AWPCA"]],
    "commands": [None, [], "x", {}],
    "notes": [
        [],
        [{"key": "AURORA-1", "text": "x"}],
        [{"key": "AURORA-1"}],
        [{"key": "AURORA-1", "text": ""}],
        [{"key": "AURORA-1", "text": " "}],
        [{"key": "AURORA-1", "text": "x", "by": "a"}],
        [{"key": 1, "text": "x"}],
        [{"key": "AURORA-1", "text": 5}],
        [1],
        "x",
    ],
}


def _blank(value: object) -> bool:
    return isinstance(value, str) and value != "" and not value.strip()


def test_the_schema_takes_a_one_letter_project() -> None:
    """A project's name may be one letter (whether it exists is for the validation to say)."""
    command = cmd("ensure_fields", key="AURORA-1537", duedate="2026-10-23")
    assert jsonschema.Draft202012Validator(batch_create_schema()).is_valid(body(command, project="P"))


@pytest.mark.parametrize("field", [*TOP_PROBES, "zz", "-author", "-title", "-commands", "[]"])
def test_schema_and_validation_agree_on_the_top_of_a_batch(field: str) -> None:
    """Each top-level field given each probe value, left out, or an unknown one added, and a body that is no
    object: the JSON Schema of batch_create and the validation agree, except on blank text (only the
    validation sees it)."""
    command = cmd("ensure_fields", key="AURORA-1537", duedate="2026-10-23")
    bodies: list[tuple[Any, bool]] = []
    if field == "[]":
        bodies.append(([body(command)], False))
    elif field.startswith("-"):
        full = body(command)
        bodies.append(({k: v for k, v in full.items() if k != field[1:]}, False))
    elif field == "zz":
        bodies.append((body(command, zz=1), False))
    else:
        for value in TOP_PROBES[field]:
            batch = body(command, **{field: value})
            note_blank = (
                field == "notes"
                and isinstance(value, list)
                and any(isinstance(n, dict) and _blank(n.get("text")) for n in value)
            )
            bodies.append((batch, _blank(value) or note_blank))
    validator = jsonschema.Draft202012Validator(batch_create_schema())
    for batch, blank in bodies:
        try:
            validate_batch(batch, ctx())
            valid = True
        except ValidationError:
            valid = False
        by_schema = validator.is_valid(batch)
        assert valid == by_schema or (blank and by_schema and not valid), (batch, valid, by_schema)


def test_referenced_keys_and_files_tolerate_garbage() -> None:
    """The prefetch walks take any JSON and return the real keys and files named."""
    assert batch_needs(None, Settings()).keys == frozenset()
    garbage = {"commands": [1, {"type": "x"}, cmd("ensure_link", source="A-1", target="new:1")]}
    assert batch_needs(garbage, Settings()).keys == {"A-1"}
    assert batch_needs(body(cmd("ensure_attachment", key="A-1", file=SHA, filename="f")), Settings()).files == {SHA}


def test_batch_needs_refuses_an_oversized_body_before_naming_anything_to_look_up() -> None:
    """What a body needs is asked first: one over ``max_batch_commands`` is refused for its size, in the seed's
    words, and the hub looks nothing up for it."""
    two = body(cmd("ensure_fields", key="A-1"), cmd("ensure_fields", key="A-2"))
    with pytest.raises(ValidationError) as info:
        batch_needs(two, Settings(max_batch_commands=1))
    assert info.value.message == "в пакете 2 команд; не больше 1"


def test_retry_body_drops_board_id_and_validates_again() -> None:
    """A retried ensure_sprint resolves its board again."""
    retry = retry_body(
        command_type="ensure_sprint",
        params={"key": "AURORA-1538", "sprint": "Спринт 2", "board_id": 1},
        author="a",
        title="повтор",
        project=None,
    )
    assert validate_batch(retry, ctx()).commands[0].params["board_id"] == 4216


# --- laws ---------------------------------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300)
@given(json_values)
def test_arbitrary_json_never_raises_anything_but_validation_error(value: Any) -> None:
    """Any JSON is either a valid batch or a ValidationError; nothing else escapes."""
    try:
        validate_batch(value, ctx())
    except ValidationError as error:
        assert error.message


PACED_TYPES = tuple(DEFAULT_PACING)
#: Every type but the one creating an issue (whose temp keys and summaries the tests below place themselves).
command_types = st.sampled_from([name for name, spec in CATALOGUE.items() if not spec.creates_issue])
#: Issues of the project AWPCA (its scrum board takes sprints), for the commands of :func:`_valid_command`.
PROJECT_ISSUES = {f"AURORA-{n}": ("AWPCA",) for n in (*range(1, 13), 1538)}


def _valid_command(command_type: str, n: int) -> dict[str, Any]:
    """The type's example from the catalogue, on the issue AURORA-<n> (a key list: that one key)."""
    spec = CATALOGUE[command_type]
    params = dict(spec.example)
    for name in key_params(command_type):
        if name == spec.subject:
            params[name] = f"AURORA-{n}"
        elif isinstance(params.get(name), list):
            params[name] = [f"AURORA-{n}"]
    return cmd(command_type, **params)


gap_values = st.floats(min_value=0, max_value=LIMITS["pacing"], allow_nan=False, allow_infinity=False)


@given(st.lists(command_types, min_size=1, max_size=12), st.fixed_dictionaries(dict.fromkeys(PACED_TYPES, gap_values)))
def test_estimate_equals_sum_of_gaps(types: list[str], pacing: dict[str, float]) -> None:
    """For any types and any non-negative pacing, estimate_seconds is the sum of the gaps of all stored commands
    (tail refresh included) to the millisecond, with at most three decimals."""
    batch = validate_batch(
        body(*[_valid_command(t, n + 1) for n, t in enumerate(types)]),
        ctx(settings=Settings(pacing=pacing), mirror_labels=PROJECT_ISSUES),
    )
    gaps = math.fsum(pacing[c.type] for c in batch.commands)
    assert abs(batch.estimate_seconds - gaps) <= 0.0005
    assert batch.estimate_seconds == float(Decimal(repr(batch.estimate_seconds)).quantize(Decimal("0.001")))
    tail = 0 if all(t == "refresh" for t in types) else 1
    assert len(batch.commands) == len(types) + tail


@given(
    st.lists(command_types, max_size=6),
    st.integers(min_value=0, max_value=6),
    st.text(alphabet=" Отчёт", min_size=1, max_size=6).filter(lambda s: s.strip()),
)
def test_duplicate_summaries_are_never_accepted(types: list[str], position: int, summary: str) -> None:
    """However the batch is built, two ensure_issue with one trimmed summary are refused."""
    commands = [_valid_command(t, n + 1) for n, t in enumerate(types)]
    position = min(position, len(commands))
    commands.insert(position, cmd("ensure_issue", temp_key="new:1", summary=summary))
    commands.append(cmd("ensure_issue", temp_key="new:2", summary=f"  {summary.strip()} "))
    with pytest.raises(ValidationError, match="уже создаётся в пакете"):
        validate_batch(body(*commands), ctx(mirror_labels=PROJECT_ISSUES))


@given(st.lists(command_types, max_size=6), st.integers(min_value=1, max_value=50))
def test_dangling_temp_keys_are_never_accepted(types: list[str], n: int) -> None:
    """A temp key with no ensure_issue before it is always refused."""
    commands = [_valid_command(t, i + 1) for i, t in enumerate(types)]
    commands.append(cmd("ensure_comment", key=f"new:{n}", marker="m", body="b"))
    with pytest.raises(ValidationError, match=f"new:{n}"):
        validate_batch(body(*commands), ctx(mirror_labels=PROJECT_ISSUES))


@pytest.mark.parametrize(
    ("top", "valid"),
    [
        ({"notes": None, "project": None}, True),
        ({"notes": []}, True),
        ({"notes": [{"key": "AURORA-1537", "text": "контекст"}]}, True),
        ({"notes": "контекст"}, False),
        ({"notes": [{"key": "AURORA-1537"}]}, False),
        ({"notes": [{"key": "AURORA-1537", "text": "т", "author": "я"}]}, False),
        ({"project": ""}, False),
        ({"extra": 1}, False),
    ],
)
def test_schema_and_validation_agree_on_the_batch_fields(top: dict[str, Any], valid: bool) -> None:
    """The batch's own fields (notes, project, nothing else) get one verdict from the JSON Schema an assistant is
    given and from the hub's validation: ``null`` notes or project are accepted by both."""
    batch = body(cmd("ensure_fields", key="AURORA-1537", duedate="2026-10-23"), **top)
    assert jsonschema.Draft202012Validator(batch_create_schema()).is_valid(batch) is valid
    if valid:
        validate_batch(batch, ctx())
    else:
        refused(batch)


# --- what the mutation run found unstated (issue 16): the prefetch walks, the size, the first walk, command rules ---


def test_referenced_keys_skip_commands_of_unknown_types_and_read_key_lists() -> None:
    """A command of no catalogue type names no key, whatever its params; refresh ``keys`` is a list of keys."""
    garbage = {"commands": [{"type": "x", "params": {"key": "A-2"}}, {"type": 7, "params": {"key": "A-3"}}]}
    assert batch_needs(garbage, Settings()).keys == frozenset()
    assert batch_needs(body(cmd("refresh", keys=["A-1", "new:1", "A-2"])), Settings()).keys == {"A-1", "A-2"}


def test_referenced_files_are_the_text_file_params_of_attachments_only() -> None:
    """Only an ensure_attachment's ``file`` names a stored file, and only when it is text."""
    assert batch_needs(body(cmd("ensure_attachment", key="A-1", file=5, filename="f")), Settings()).files == frozenset()
    assert batch_needs(body(cmd("ensure_fields", key="A-1", file=SHA)), Settings()).files == frozenset()


def test_batch_size_limit_counts_commands_and_allows_exactly_the_limit() -> None:
    """More than ``max_batch_commands`` commands is refused with both numbers; exactly the limit is not."""
    settings = Settings(max_batch_commands=2)
    check_batch_size({"commands": [1, 2]}, settings)
    with pytest.raises(ValidationError) as info:
        check_batch_size({"commands": [1, 2, 3]}, settings)
    assert info.value.message == "в пакете 3 команд; не больше 2"


def test_batch_size_ignores_a_body_that_is_no_object_or_has_no_command_list() -> None:
    """The size check takes any JSON (it runs before anything else) and judges only a list of commands."""
    settings = Settings(max_batch_commands=1)
    check_batch_size([1, 2, 3], settings)
    check_batch_size(None, settings)
    check_batch_size({"commands": "abc"}, settings)
    check_batch_size({"COMMANDS": [1, 2, 3]}, settings)


def test_validation_refuses_an_oversized_batch_before_looking_at_its_commands() -> None:
    """The size is the first rule of a batch object: garbage commands past the limit are refused for their number."""
    assert refused(body(1, 2, 3), ctx(settings=Settings(max_batch_commands=2))) == "в пакете 3 команд; не больше 2"


def test_every_extra_top_level_field_is_named() -> None:
    """Extra fields are listed in the body's order, comma-separated."""
    assert refused(body(cmd("refresh", keys=["AURORA-1"]), x=1, y=2)) == (
        "лишние поля x, y; ожидаются author, title, commands; необязательные project, notes"
    )


def test_a_command_that_is_no_object_is_refused_by_the_catalogue_check() -> None:
    """A non-object command gets the catalogue's message, not a crash of the temp-key pre-walk."""
    assert refused(body(5)) == "команда 1: ожидается объект {type, params}"


def test_an_ensure_issue_without_a_usable_temp_key_gets_the_catalogue_message() -> None:
    """The temp-key pre-walk skips an ensure_issue with no temp key or no params object; the catalogue refuses it."""
    message = refused(body(cmd("ensure_issue", summary="Отчёт")))
    assert message.startswith("команда 1 (ensure_issue): нет temp_key"), message
    assert refused(body({"type": "ensure_issue", "params": 5})).startswith("команда 1 (ensure_issue)")


def test_a_link_of_an_issue_to_itself_is_refused_naming_the_command() -> None:
    """source == target: «команда N (ensure_link): source и target — одна задача»."""
    assert (
        refused(
            body(
                cmd("refresh", keys=["AURORA-1"]),
                cmd("ensure_link", source="AURORA-1537", target="AURORA-1537", link_type="связанные"),
            )
        )
        == "команда 2 (ensure_link): source и target — одна задача"
    )


def test_a_project_link_needs_only_its_target_in_the_project() -> None:
    """In a project batch a link passes when either end is in the project — here only the target."""
    batch = validate_batch(
        body(cmd("ensure_link", source="AURORA-1", target="AURORA-1537", link_type="связанные"), project="AWPCA"),
        ctx(),
    )
    assert [c.type for c in batch.commands] == ["ensure_link", "refresh"]


def test_a_refresh_in_a_project_batch_is_not_held_to_the_project() -> None:
    """A refresh names no single key: a project batch may refresh issues of other projects."""
    batch = validate_batch(body(cmd("refresh", keys=["AURORA-1", "AURORA-9"]), project="AWPCA"), ctx())
    assert [(c.type, c.params) for c in batch.commands] == [("refresh", {"keys": ["AURORA-1", "AURORA-9"]})]


def test_a_key_missing_from_the_mirror_is_not_in_the_project() -> None:
    """A real key the mirror does not hold has no labels: a project batch refuses it."""
    assert refused(body(cmd("ensure_fields", key="AURORA-9999", duedate="2026-10-23"), project="AWPCA")) == (
        "AURORA-9999 не в проекте AWPCA"
    )


def _only_error(batch: Any, context: BatchContext | None = None) -> tuple[str, str | None]:
    with pytest.raises(InvalidBatch) as info:
        validate_batch(batch, context or ctx())
    assert len(info.value.errors) == 1, info.value.errors
    return info.value.errors[0].message, info.value.errors[0].param


@pytest.mark.parametrize(
    ("batch", "context", "message", "param"),
    [
        (
            body(
                cmd("ensure_issue", temp_key="new:1", summary="a"), cmd("ensure_issue", temp_key="new:1", summary="b")
            ),
            None,
            "команда 2: временный ключ new:1 уже занят командой 1",
            "temp_key",
        ),
        (
            body(
                cmd("ensure_issue", temp_key="new:1", summary="a"), cmd("ensure_issue", temp_key="new:2", summary="a")
            ),
            None,
            "команда 2: задача с темой «a» уже создаётся в пакете (команда 1)",
            "summary",
        ),
        (
            body(cmd("ensure_issue", temp_key="new:1", summary="s", labels=["awpca"]), project="STOCKS_DRRK"),
            None,
            "метка другого проекта: awpca",
            "labels",
        ),
        (
            body(cmd("ensure_fields", key="AURORA-1", labels_remove=["stocks_drrk"]), project="STOCKS_DRRK"),
            None,
            "метку проекта STOCKS_DRRK нельзя снять: AURORA-1",
            "labels_remove",
        ),
        (
            body(cmd("ensure_fields", key="AURORA-1", labels_add=["AWPCA"]), project="STOCKS_DRRK"),
            None,
            "метка другого проекта: AWPCA",
            "labels_add",
        ),
        (
            body(cmd("ensure_sprint", key="AURORA-9", sprint="S")),
            None,
            "команда 1: AURORA-9 ни в одном проекте — доску для спринта не определить",
            "key",
        ),
        (
            body(cmd("ensure_sprint", key="AURORA-5", sprint="S")),
            ctx(mirror_labels={"AURORA-5": ("AWPCA", "STOCKS_DRRK")}),
            "команда 1: AURORA-5 в нескольких проектах с разными досками: AWPCA, STOCKS_DRRK",
            "key",
        ),
        (
            body(cmd("ensure_sprint", key="AURORA-1538", sprint="S")),
            ctx(projects={"AWPCA": ProjectInfo(name="AWPCA")}),
            "у проекта AWPCA нет доски",
            "sprint",
        ),
        (
            body(cmd("ensure_comment", key="new:3", marker="m", body="b")),
            None,
            "команда 1: временный ключ new:3 — в пакете нет ensure_issue с этим temp_key",
            "key",
        ),
        (
            body(
                cmd("ensure_link", source="AURORA-1537", target="new:3", link_type="связанные"),
                cmd("ensure_issue", temp_key="new:3", summary="s"),
            ),
            None,
            "команда 1: new:3 используется раньше своей ensure_issue (команда 2)",
            "target",
        ),
        (
            body(cmd("ensure_link", source="AURORA-1537", target="OTHER-1", link_type="связанные")),
            None,
            "OTHER-1 не в проекте Jira AURORA",
            "target",
        ),
        (
            body(cmd("refresh", jql="project = X ORDER BY key")),
            None,
            "команда 1 (refresh): JQL не принят: ORDER BY не допускается (позиция 13)",
            "jql",
        ),
        (
            body(cmd("ensure_comment", key="AURORA-1537", marker="m", body="b"), project="STOCKS_DRRK"),
            None,
            "AURORA-1537 не в проекте STOCKS_DRRK",
            "key",
        ),
        (
            body(cmd("ensure_attachment", key="AURORA-1537", file="ab" * 32, filename="a.txt")),
            None,
            f"команда 1: файл {'ab' * 32} не загружен: POST /files",
            "file",
        ),
        (
            body(cmd("ensure_sprint", key="AURORA-1", sprint="S")),
            None,
            "у проекта STOCKS_DRRK канбан-доска, спринтов нет",
            "sprint",
        ),
        (
            body(cmd("ensure_sprint", key="AURORA-1", sprint="S")),
            ctx(projects={**PROJECTS, "STOCKS_DRRK": ProjectInfo(name="STOCKS_DRRK", board_id=5120)}),
            "тип доски проекта STOCKS_DRRK ещё не известен — дождитесь обновления из Jira",
            "sprint",
        ),
        (
            body(cmd("ensure_link", source="AURORA-1537", target="AURORA-1537", link_type="связанные")),
            None,
            "команда 1 (ensure_link): source и target — одна задача",
            "target",
        ),
        (
            body(
                cmd("ensure_link", source="AURORA-1537", target="AURORA-1538", link_type="связанные"),
                project="STOCKS_DRRK",
            ),
            None,
            "ни AURORA-1537, ни AURORA-1538 не в проекте STOCKS_DRRK",
            "source",
        ),
    ],
)
def test_each_rule_past_one_command_names_its_parameter(
    batch: dict[str, Any], context: BatchContext | None, message: str, param: str
) -> None:
    """The editor puts each refusal next to the parameter it is about."""
    assert _only_error(batch, context) == (message, param)


def test_a_refused_ensure_issue_keeps_its_temp_key_and_labels_for_the_commands_after_it() -> None:
    """A creating command refused for its own mistake still holds its temp key (a later ensure_issue of the same
    key is refused as taken by it) and its labels (a sprint of its issue finds the project's board)."""
    broken = cmd("ensure_issue", temp_key="new:1", summary="a", labels=["AWPCA", 7])  # its text labels are kept
    assert _only_error(body(broken, cmd("ensure_sprint", key="new:1", sprint="S"))) == (
        "команда 1 (ensure_issue): labels — ожидается список строк",
        "labels",
    )
    broken = cmd("ensure_issue", temp_key="new:1", summary="a", issue_type="story")
    with pytest.raises(InvalidBatch) as info:
        validate_batch(
            body(
                broken,
                cmd("ensure_issue", temp_key="new:1", summary="b"),
                cmd("ensure_issue", temp_key="new:1", summary="c"),
            ),
            ctx(),
        )
    assert [e.message for e in info.value.errors] == [
        "команда 1 (ensure_issue): issue_type — ожидается одно из task, epic, bug",
        "команда 2: временный ключ new:1 уже занят командой 1",
        "команда 3: временный ключ new:1 уже занят командой 1",
    ]


@pytest.mark.parametrize("temp_key", [["new:1"], {"new:1": 1}, 5, "AURORA-5"])
def test_a_refused_ensure_issue_whose_temp_key_is_no_temp_key_defines_nothing(temp_key: Any) -> None:
    """Its one error only: a list or an object there does not break the walk, and defines no key."""
    assert (
        _only_error(
            body(
                cmd("ensure_issue", temp_key=temp_key, summary="a"), cmd("ensure_issue", temp_key="new:1", summary="b")
            )
        )[1]
        == "temp_key"
    )


@pytest.mark.parametrize(
    ("project", "message"), [("NOPE", "нет проекта NOPE"), (" ", "project — ожидается имя проекта")]
)
def test_a_refused_project_holds_no_command_to_a_project(project: str, message: str) -> None:
    """The batch is refused for its project alone: its commands are checked as in a batch without one."""
    batch = body(cmd("ensure_fields", key="AURORA-1537", duedate="2026-10-23"), project=project)
    assert _only_error(batch) == (message, None)


def test_the_refusal_reads_as_its_first_error_and_names_its_parameter() -> None:
    """``detail`` and ``param`` of the whole refusal are those of the first error in command order."""
    with pytest.raises(InvalidBatch) as info:
        validate_batch(
            body(
                cmd("ensure_sprint", key="AURORA-9", sprint="S"),
                cmd("ensure_link", source="AURORA-1537", target="AURORA-1537", link_type="связанные"),
            ),
            ctx(),
        )
    assert (info.value.message, info.value.param) == (
        "команда 1: AURORA-9 ни в одном проекте — доску для спринта не определить",
        "key",
    )
    assert [e.param for e in info.value.errors] == ["key", "target"]


def test_a_removal_does_without_the_parameters_it_frees() -> None:
    """``absent: true`` deletes the agent's comment or the attachment: no body, no file name needed; without it
    they are required."""
    removals = validate_batch(
        body(
            cmd("ensure_comment", key="AURORA-1537", marker="m", absent=True),
            cmd("ensure_attachment", key="AURORA-1537", file=SHA, absent=True),
            cmd("ensure_link", source="AURORA-1537", target="AURORA-1538", link_type="связанные", present=False),
        ),
        ctx(),
    )
    assert [(c.seq, c.params.get("absent"), c.params.get("present")) for c in removals.commands[:3]] == [
        (1, True, None),
        (2, True, None),
        (3, None, False),
    ]
    assert _only_error(body(cmd("ensure_comment", key="AURORA-1537", marker="m", absent=False))) == (
        "команда 1 (ensure_comment): нет body; ожидаются key, marker, body",
        "body",
    )
    assert _only_error(body(cmd("ensure_attachment", key="AURORA-1537", file=SHA))) == (
        "команда 1 (ensure_attachment): нет filename; ожидаются key, file, filename",
        "filename",
    )
