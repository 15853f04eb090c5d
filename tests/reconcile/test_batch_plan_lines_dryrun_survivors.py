"""Rules of batch validation and the command catalogue that the mutation run found unstated (issue 16)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from reconcile.batch import (
    BatchContext,
    NewCommand,
    ProjectInfo,
    batch_needs,
    check_batch_size,
    validate_batch,
)
from reconcile.commands import batch_create_schema
from reconcile.dryrun import Prediction, predict_command
from reconcile.errors import ValidationError
from reconcile.plan_lines import CommandPlan, PlanLine, plan_command, plan_commands, temp_key_unknown
from reconcile.records import MirrorIssue, MirrorLink
from reconcile.settings import Settings

SHA = "0123456789abcdef" * 4
PROJECTS = {
    "AWPCA": ProjectInfo(name="AWPCA", board_id=4216, board_type="scrum"),
    "STOCKS_DRRK": ProjectInfo(name="STOCKS_DRRK", board_id=5120, board_type="kanban"),
}
MIRROR = {"AURORA-1": ("STOCKS_DRRK",), "AURORA-1537": ("AWPCA",)}


def ctx(**changes: Any) -> BatchContext:
    base: dict[str, Any] = {"settings": Settings(), "projects": PROJECTS, "mirror_labels": MIRROR, "files": {SHA: 10}}
    base.update(changes)
    return BatchContext(**base)


def body(*commands: Any, **top: Any) -> dict[str, Any]:
    return {"author": "ассистент", "title": "план", "commands": list(commands), **top}


def cmd(command_type: str, **params: Any) -> dict[str, Any]:
    return {"type": command_type, "params": params}


def refused(batch: Any, context: BatchContext | None = None) -> str:
    with pytest.raises(ValidationError) as info:
        validate_batch(batch, context or ctx())
    return info.value.message


# --- the prefetch walks ------------------------------------------------------------------------------------


def test_referenced_keys_skip_commands_of_unknown_types_and_read_key_lists() -> None:
    """A command of no catalogue type names no key, whatever its params; refresh ``keys`` is a list of keys."""
    garbage = {"commands": [{"type": "x", "params": {"key": "A-2"}}, {"type": 7, "params": {"key": "A-3"}}]}
    assert batch_needs(garbage, Settings()).keys == frozenset()
    assert batch_needs(body(cmd("refresh", keys=["A-1", "new:1", "A-2"])), Settings()).keys == {"A-1", "A-2"}


def test_referenced_files_are_the_text_file_params_of_attachments_only() -> None:
    """Only an ensure_attachment's ``file`` names a stored file, and only when it is text."""
    assert batch_needs(body(cmd("ensure_attachment", key="A-1", file=5, filename="f")), Settings()).files == frozenset()
    assert batch_needs(body(cmd("ensure_fields", key="A-1", file=SHA)), Settings()).files == frozenset()


# --- the batch size ----------------------------------------------------------------------------------------


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


# --- top-level fields and the first walk ---------------------------------------------------------------------


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


# --- command rules -----------------------------------------------------------------------------------------


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


# --- the MCP tool's schema ---------------------------------------------------------------------------------


def test_the_batch_schema_describes_its_top_fields_in_the_seeds_words() -> None:
    """The assistant reads these descriptions from the tool's schema: they are part of the interface."""
    props = batch_create_schema()["properties"]
    assert props["author"] == {"type": "string", "minLength": 1, "description": "кто ставит пакет"}
    assert props["title"] == {"type": "string", "minLength": 1, "description": "заголовок пакета"}
    assert props["project"]["description"] == "проект хаба (метка Jira): включает проверки пакета проекта"
    assert props["notes"]["description"] == "заметки хаба к задачам пакета (в Jira не пишутся)"
    note = props["notes"]["anyOf"][0]["items"]["properties"]
    assert note["key"] == {"type": "string", "description": "ключ задачи или new:<n> этого пакета"}


# --- plan lines --------------------------------------------------------------------------------------------


def predicted(command: NewCommand, *writes: dict[str, Any], **result: Any) -> Prediction:
    return Prediction(seq=command.seq, type=command.type, writes=writes, status="done", result=result)


def test_a_refresh_plan_reads_every_key_of_its_list_once() -> None:
    """A refresh's ``keys`` are each looked at: one still to be created and one the mirror lacks are unknown, once."""
    refresh = NewCommand(seq=3, type="refresh", params={"keys": ["new:1", "AURORA-9", "AURORA-9", "new:1"]})
    plan = plan_command(refresh, predicted(refresh), issues={}, settings=Settings(), created=["new:1"])
    assert plan.unknown == (
        temp_key_unknown("new:1"),
        "задачи AURORA-9 ещё нет в зеркале — этот refresh прочтёт её из Jira, если она там есть",
    )


def test_only_temp_keys_still_to_be_created_make_a_plan_unknown() -> None:
    """A temp key the batch no longer has to create adds no «станет известен» reason."""
    fields = NewCommand(seq=2, type="ensure_fields", params={"key": "new:1", "duedate": "2026-10-23"})
    issues = {"new:1": MirrorIssue(key="new:1")}
    plan = plan_command(fields, predicted(fields, changed=["duedate"]), issues=issues, settings=Settings(), created=())
    assert plan.unknown == ()
    assert plan.lines == (PlanLine(sign="~", text="срок: пусто → 23.10.2026"),)


def test_an_issue_to_be_created_names_its_own_key_first_then_its_epic() -> None:
    """An ensure_issue that creates: its own temp key is the first reason, before the temp keys it names."""
    issue = NewCommand(
        seq=2, type="ensure_issue", params={"temp_key": "new:2", "summary": "Б", "epic_key": "new:1"}, temp_key="new:2"
    )
    write = {"method": "POST", "path": "/rest/api/2/issue", "json": {}}
    plan = plan_command(issue, predicted(issue, write), issues={}, settings=Settings(), created=["new:1", "new:2"])
    assert plan.unknown == (temp_key_unknown("new:2"), temp_key_unknown("new:1"))


def test_fields_after_both_label_lists_still_get_their_lines() -> None:
    """labels_add and labels_remove make one labels line; the fields after them in the catalogue follow it."""
    fields = NewCommand(
        seq=1,
        type="ensure_fields",
        params={"key": "A-1", "labels_add": ["b"], "labels_remove": ["a"], "epic_key": "A-9", "assignee": "ivanov"},
    )
    issues = {"A-1": MirrorIssue(key="A-1", labels=("a",))}
    changed = ["labels_add", "labels_remove", "epic_key", "assignee"]
    plan = plan_command(fields, predicted(fields, changed=changed), issues=issues, settings=Settings())
    assert plan.lines == (
        PlanLine(sign="~", text="метки: a → b"),
        PlanLine(sign="~", text="эпик: пусто → «A-9»"),
        PlanLine(sign="~", text="исполнитель: пусто → «ivanov»"),
    )


def test_a_new_link_naming_a_temp_key_at_either_end_is_unknown() -> None:
    """A link to be created between a temp key and a real one rests on the key to come, whichever end it is."""
    for source, target in (("new:1", "A-1"), ("A-1", "new:1")):
        link = NewCommand(
            seq=2, type="ensure_link", params={"source": source, "target": target, "link_type": "связанные"}
        )
        write = {"method": "POST", "path": "/rest/api/2/issueLink", "json": {}}
        plan = plan_command(link, predicted(link, write), issues={}, settings=Settings(), created=())
        assert plan.lines == (PlanLine(sign="+", text=f"связь «Связанные» {source} → {target}", unknown=True),)
    real = NewCommand(seq=2, type="ensure_link", params={"source": "A-1", "target": "A-2", "link_type": "связанные"})
    write = {"method": "POST", "path": "/rest/api/2/issueLink", "json": {}}
    plan = plan_command(real, predicted(real, write), issues={}, settings=Settings())
    assert plan.lines == (PlanLine(sign="+", text="связь «Связанные» A-1 → A-2", unknown=False),)


def test_a_deleted_link_is_named_by_the_last_part_of_its_path() -> None:
    """The id of a DELETE is the path's last segment, and the mirror's link of that id is described."""
    link = NewCommand(seq=1, type="ensure_link", params={"source": "A-1", "target": "A-2", "link_type": "связанные"})
    issues = {
        "A-1": MirrorIssue(key="A-1", links=(MirrorLink(id="501", type="Блокирует", source="A-1", target="A-3"),))
    }
    write = {"method": "DELETE", "path": "/rest/api/2/issueLink/501"}
    plan = plan_command(link, predicted(link, write), issues=issues, settings=Settings())
    assert plan.lines[0] == PlanLine(sign="-", text="связь «Блокирует» A-1 → A-3 (id 501)")


def test_a_skipped_command_keeps_its_seq_type_and_subject() -> None:
    """A skipped command's plan is one «пропуск» line under the command's own seq, type and subject."""
    fields = NewCommand(seq=4, type="ensure_fields", params={"key": "new:1", "duedate": "2026-10-23"})
    plans = plan_commands([fields], [None], issues={}, settings=Settings(), skips={4: "задача new:1 не создана"})
    assert plans == (
        CommandPlan(
            seq=4,
            type="ensure_fields",
            subject="new:1",
            lines=(PlanLine(sign="!", text="пропуск: задача new:1 не создана"),),
        ),
    )


def test_plans_need_one_prediction_per_command() -> None:
    """Predictions pair with commands by position: a list of another length is a caller's error, not a short plan."""
    fields = NewCommand(seq=1, type="ensure_fields", params={"key": "A-1", "duedate": "2026-10-23"})
    with pytest.raises(ValueError):
        plan_commands([fields, fields], [predicted(fields)], issues={}, settings=Settings())


# --- dry run -----------------------------------------------------------------------------------------------


NOW = datetime(2026, 10, 22, 12, 0, tzinfo=UTC)


def test_a_single_prediction_runs_the_executor_with_the_settings_given() -> None:
    """Without a context from the caller, the executor reads the settings passed (here another Jira project)."""
    prediction = predict_command(
        seq=1,
        command_type="ensure_issue",
        params={"temp_key": "new:1", "summary": "Отчёт"},
        issues={},
        settings=Settings(jira_project="ZETA"),
        jira_user="bridge-user",
        symmetric_link_types=frozenset(),
        now=NOW,
    )
    assert [w["json"]["fields"]["project"] for w in prediction.writes] == [{"key": "ZETA"}]


def test_a_symmetric_link_found_the_other_way_round_is_no_change() -> None:
    """For a symmetric link type the existing link B → A already is the link A → B: nothing to write."""
    mirror = {
        "A-1": MirrorIssue(key="A-1", links=(MirrorLink(id="7", type="Связанные", source="A-2", target="A-1"),)),
        "A-2": MirrorIssue(key="A-2", links=(MirrorLink(id="7", type="Связанные", source="A-2", target="A-1"),)),
    }
    prediction = predict_command(
        seq=1,
        command_type="ensure_link",
        params={"source": "A-1", "target": "A-2", "link_type": "связанные"},
        issues=mirror,
        settings=Settings(),
        jira_user="bridge-user",
        symmetric_link_types=frozenset({"Связанные"}),
        now=NOW,
    )
    assert (prediction.status, prediction.writes) == ("done", ())
