"""``PATCH /settings`` merges (DESIGN.md 3): objects key by key, scalars and lists replace, top-level ``null``
restores a default, the whole is validated; a partial change never touches a key it does not name."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reconcile.config.settings import DEFAULT_PACING, Settings, merge_settings, settings_to_json
from reconcile.vocabulary.catalogue import CATALOGUE
from reconcile.vocabulary.errors import ValidationError

_NAME = st.text(st.characters(min_codepoint=0x430, max_codepoint=0x44F), min_size=1, max_size=6)
_GAP = st.integers(0, 600) | st.floats(0, 600, allow_nan=False)

#: Changes that are valid on any valid settings: each value is drawn from what its key accepts.
VALID_CHANGES = st.fixed_dictionaries(
    {},
    optional={
        "jira_project": st.sampled_from(["AURORA", "BANK", "PAY"]),
        "issue_types": st.dictionaries(
            st.sampled_from(["task", "epic", "bug"]),
            st.fixed_dictionaries({}, optional={"id": st.sampled_from(["10001", "10002"]), "name": _NAME}),
            max_size=3,
        ),
        "epic_name_field_id": st.none() | st.sampled_from(["customfield_10102", "customfield_1"]),
        "epic_link": st.sampled_from([{"mode": "parent"}, {"field_id": "customfield_7"}, {}]),
        "fields": st.dictionaries(st.sampled_from(["sprint", "planned_start"]), st.just("customfield_9"), max_size=2),
        "link_types": st.dictionaries(_NAME, _NAME, max_size=3),
        "pacing": st.dictionaries(st.sampled_from(list(CATALOGUE)), _GAP, max_size=4),
        "auto_refresh_minutes": st.none() | _GAP,
        "claim_wait_seconds": st.none() | st.integers(1, 60),
        "max_file_bytes": st.none() | st.integers(1, 10**9),
        "max_batch_commands": st.none() | st.integers(1, 10**5),
        "approval": st.none() | st.dictionaries(st.sampled_from(["mcp", "http"]), st.booleans(), max_size=2),
    },
)


def _leaves(value: Any, path: tuple[str, ...] = ()) -> dict[tuple[str, ...], Any]:
    """The leaf values of a JSON object by path (an empty object is a leaf too)."""
    if isinstance(value, dict) and value:
        found: dict[tuple[str, ...], Any] = {}
        for key, child in value.items():
            found.update(_leaves(child, (*path, key)))
        return found
    return {path: value}


def _named(change: Any, path: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    """The paths a change names: where it replaces, removes or restores (an object names only its keys)."""
    if isinstance(change, dict) and (change or not path):
        return {named for key, child in change.items() for named in _named(child, (*path, key))}
    return {path}


def _under(path: tuple[str, ...], named: set[tuple[str, ...]]) -> bool:
    return any(path[: len(n)] == n for n in named)


@given(VALID_CHANGES, VALID_CHANGES)
def test_a_change_never_touches_what_it_does_not_name(first: dict[str, Any], change: dict[str, Any]) -> None:
    """On any current settings, every leaf the change does not name keeps its value."""
    current = merge_settings(Settings(), first)
    before = _leaves(settings_to_json(current))
    after = _leaves(settings_to_json(merge_settings(current, change)))
    named = _named(change)
    for path, value in before.items():
        if not _under(path, named):
            assert after.get(path) == value, path


@given(VALID_CHANGES)
def test_merging_the_whole_is_the_whole(first: dict[str, Any]) -> None:
    """The settings sent back as they were read change nothing (GET then PATCH is idempotent)."""
    current = merge_settings(Settings(), first)
    assert merge_settings(current, settings_to_json(current)) == current


def test_one_gap_changes_and_the_others_stay() -> None:
    """The README's example on lengthened gaps: only ensure_fields changes; the admin's 300 s stay."""
    current = merge_settings(Settings(), {"pacing": {"ensure_issue": 300, "ensure_comment": 300}})
    merged = merge_settings(current, {"pacing": {"ensure_fields": 60}})
    assert merged.pacing == {**DEFAULT_PACING, "ensure_issue": 300, "ensure_comment": 300, "ensure_fields": 60}


def test_top_level_null_restores_the_default() -> None:
    """``{"pacing": null}`` brings back every default gap; ``{"epic_name_field_id": null}`` its default."""
    current = merge_settings(Settings(), {"pacing": {"refresh": 9}, "epic_name_field_id": "customfield_1"})
    merged = merge_settings(current, {"pacing": None, "epic_name_field_id": None})
    assert merged.pacing == DEFAULT_PACING
    assert merged.epic_name_field_id == "customfield_10102"


def test_null_inside_an_object_removes_the_entry() -> None:
    """A link type set to ``null`` is gone; a gap set to ``null`` falls back to its default."""
    current = merge_settings(Settings(), {"link_types": {"дублирует": "Дублирует"}, "pacing": {"refresh": 9}})
    merged = merge_settings(current, {"link_types": {"связанные": None}, "pacing": {"refresh": None}})
    assert merged.link_types == {"блокирует начало": "Блокирует начало", "дублирует": "Дублирует"}
    assert merged.gap("refresh") == 2


def test_lists_and_scalars_replace() -> None:
    """A scalar replaces the value; a nested object merges (epic_link keeps its field_id)."""
    merged = merge_settings(Settings(), {"epic_link": {"mode": "parent"}, "claim_wait_seconds": 5})
    assert (merged.epic_link.mode, merged.epic_link.field_id, merged.claim_wait_seconds) == (
        "parent",
        "customfield_10100",
        5,
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"pacing": {"ensure_fields": 10**9}},
            "настройки: pacing.ensure_fields — неотрицательное число не больше 86400",
        ),
        ({"pacing": {"refresh": float("nan")}}, "недопустимое число в pacing.refresh"),
        ({"claim_wait_seconds": float("inf")}, "недопустимое число в claim_wait_seconds"),
        ({"claim_wait_seconds": 0}, "настройки: claim_wait_seconds — положительное число не больше 3600"),
        ({"auto_refresh_minutes": 1e300}, "настройки: auto_refresh_minutes — неотрицательное число не больше 525600"),
        ({"max_batch_commands": 0}, "настройки: max_batch_commands — положительное целое не больше 1000000"),
        ({"max_batch_commands": 2.5}, "настройки: max_batch_commands — положительное целое не больше 1000000"),
        (
            {"epic_link": {"mode": "field", "field_id": None}},
            "настройки: epic_link.field_id обязателен при mode = field",
        ),
        ({"epic_link": {"field_id": 5}}, "настройки: epic_link.field_id — строка или null"),
        ({"epic_link": {"colour": "red"}}, "настройки: epic_link: неизвестные параметры colour"),
        ({"link_types": {"связанные": ""}}, "настройки: link_types — объект из непустых строк"),
        ({"colour": None}, "настройки: неизвестные параметры colour"),
        ("pacing", "настройки: ожидается объект"),
    ],
)
def test_a_bad_merged_whole_is_refused(change: Any, message: str) -> None:
    """The merged whole is validated; the message names the setting."""
    with pytest.raises(ValidationError) as caught:
        merge_settings(Settings(), change)
    assert caught.value.message == message


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"fields": {"sprint": {"id": "customfield_1"}}}, "настройки: fields — объект из непустых строк"),
        ({"issue_types": {"bug": "Ошибка"}}, "настройки: issue_types.bug — объект {id?, name?}"),
        ({"jira_project": {"key": "AURORA"}}, "настройки: jira_project — непустая строка"),
        ({"pacing": 5}, "настройки: pacing — объект"),
        ({"zz": 1, "aa": None}, "настройки: неизвестные параметры aa, zz"),
    ],
)
def test_an_object_meets_a_value_of_another_shape(change: Any, message: str) -> None:
    """An object given where the setting holds a text, or a text where it holds an object, replaces it and
    is refused by the validation of the whole, never merged."""
    with pytest.raises(ValidationError) as caught:
        merge_settings(Settings(), change)
    assert caught.value.message == message


def test_removing_an_entry_that_is_not_there_changes_nothing() -> None:
    """null for an entry the object does not hold is no error."""
    assert merge_settings(Settings(), {"link_types": {"нет такого": None}, "fields": {"x": None}}) == Settings()
