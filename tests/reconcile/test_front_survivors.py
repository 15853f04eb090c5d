"""Rules of batch validation and the command catalogue that the mutation run found unstated (issue 16)."""

from __future__ import annotations

from typing import Any

import pytest

from reconcile.batch import (
    BatchContext,
    ProjectInfo,
    check_batch_size,
    referenced_files,
    referenced_keys,
    validate_batch,
)
from reconcile.commands import batch_create_schema
from reconcile.errors import ValidationError
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
    assert referenced_keys(garbage) == frozenset()
    assert referenced_keys(body(cmd("refresh", keys=["A-1", "new:1", "A-2"]))) == {"A-1", "A-2"}


def test_referenced_files_are_the_text_file_params_of_attachments_only() -> None:
    """Only an ensure_attachment's ``file`` names a stored file, and only when it is text."""
    assert referenced_files(body(cmd("ensure_attachment", key="A-1", file=5, filename="f"))) == frozenset()
    assert referenced_files(body(cmd("ensure_fields", key="A-1", file=SHA))) == frozenset()


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
    assert refused(
        body(
            cmd("refresh", keys=["AURORA-1"]),
            cmd("ensure_link", source="AURORA-1537", target="AURORA-1537", link_type="связанные"),
        )
    ) == "команда 2 (ensure_link): source и target — одна задача"


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
