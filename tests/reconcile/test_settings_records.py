"""Settings are validated on change; mirror records round-trip through the wire shape."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reconcile.config.settings import LIMITS, IssueTypeRef, Settings, settings_from_json, settings_to_json
from reconcile.vocabulary.catalogue import CATALOGUE
from reconcile.vocabulary.errors import ValidationError
from reconcile.vocabulary.records import (
    HistoryEntry,
    HistoryItem,
    MirrorIssue,
    MirrorLink,
    SprintRef,
    converter,
    issue_from_wire,
    issue_to_wire,
)


def test_defaults_are_the_design_settings() -> None:
    """The defaults are DESIGN.md section 3, pacing the seed's gaps."""
    data = settings_to_json(Settings())
    # The seed: ensure_issue and ensure_fields 120, the other ensure_* 30, refresh 2.
    assert data["pacing"] == {**dict.fromkeys(CATALOGUE, 30), "ensure_issue": 120, "ensure_fields": 120, "refresh": 2}
    assert data["issue_types"]["bug"] == {"name": "Ошибка"}
    assert data["epic_link"] == {"mode": "field", "field_id": "customfield_10100"}
    assert settings_from_json(data) == Settings()


def test_partial_change_keeps_the_rest() -> None:
    """A PATCH changes only what it names; fractional gaps are allowed."""
    changed = settings_from_json({"pacing": {"ensure_fields": 0.2}})
    assert changed.gap("ensure_fields") == 0.2
    assert changed.gap("ensure_issue") == 120
    assert changed.link_types == Settings().link_types


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        ({"pacing": {"ensure_fields": -1}}, "настройки: pacing.ensure_fields — неотрицательное число не больше 86400"),
        ({"pacing": {"ensure_world": 1}}, "настройки: pacing: неизвестные типы ensure_world"),
        ({"colour": "red"}, "настройки: неизвестные параметры colour"),
        ({"epic_link": {"mode": "magic"}}, "настройки: epic_link.mode — field или parent"),
        ({"issue_types": {"story": {"name": "История"}}}, "настройки: issue_types.story: ожидаются task, epic, bug"),
        ({"max_file_bytes": 0}, "настройки: max_file_bytes — положительное целое не больше 9007199254740992"),
        ({"jira_project": ""}, "настройки: jira_project — непустая строка"),
        ([], "настройки: ожидается объект"),
    ],
)
def test_bad_settings_are_refused(patch: object, message: str) -> None:
    """Every bad value is a ValidationError naming the setting."""
    with pytest.raises(ValidationError) as info:
        settings_from_json(patch)
    assert info.value.message == message


def test_agent_context_carries_what_the_agent_needs() -> None:
    """The delivery context holds the settings the executors read and the claim wait (the agent's heartbeat
    cadence), not pacing."""
    context = Settings().agent_context()
    assert set(context) == {
        "jira_project",
        "issue_types",
        "epic_name_field_id",
        "epic_link",
        "fields",
        "link_types",
        "claim_wait_seconds",
    }
    assert context["claim_wait_seconds"] == 25


text = st.text(max_size=10)
issues = st.builds(
    MirrorIssue,
    key=st.from_regex(r"AURORA-[1-9][0-9]{0,3}", fullmatch=True),
    summary=st.none() | text,
    description=st.none() | text,
    labels=st.lists(text, max_size=3).map(tuple),
    sprint=st.none()
    | st.builds(SprintRef, id=st.integers(1, 99), name=text, state=st.sampled_from(["active", "future"])),
    links=st.lists(
        st.builds(MirrorLink, id=st.text("0123456789", min_size=1), type=text, source=text, target=text), max_size=2
    ).map(tuple),
)


@given(issues)
def test_issue_round_trips_through_the_wire(issue: MirrorIssue) -> None:
    """issue_from_wire(issue_to_wire(x)) == x, and the wire shape is DESIGN.md's."""
    wire = issue_to_wire(issue)
    assert issue_from_wire(wire) == issue
    assert set(wire) >= {"key", "status_category", "planned_start", "sprint", "links"}


def test_history_item_uses_from_on_the_wire() -> None:
    """HistoryItem.from_ is `from` on the wire."""
    entry = HistoryEntry(
        key="A-1", id="1", created="2026-10-22T09:00:00Z", items=(HistoryItem(field="status", from_="1", to="3"),)
    )
    wire = converter.unstructure(entry)
    assert wire["items"][0]["from"] == "1"
    assert converter.structure(wire, HistoryEntry) == entry


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        ({"pacing": {"refresh": 86400.5}}, "настройки: pacing.refresh — неотрицательное число не больше 86400"),
        ({"pacing": {"refresh": True}}, "настройки: pacing.refresh — неотрицательное число не больше 86400"),
        ({"pacing": {"refresh": "2"}}, "настройки: pacing.refresh — неотрицательное число не больше 86400"),
        ({"pacing": []}, "настройки: pacing — объект"),
        ({"pacing": {"zz": 1, "aa": 2}}, "настройки: pacing: неизвестные типы aa, zz"),
        ({"claim_wait_seconds": 3600.5}, "настройки: claim_wait_seconds — положительное число не больше 3600"),
        ({"claim_wait_seconds": -1}, "настройки: claim_wait_seconds — положительное число не больше 3600"),
        ({"auto_refresh_minutes": -0.5}, "настройки: auto_refresh_minutes — неотрицательное число не больше 525600"),
        ({"auto_refresh_minutes": float("-inf")}, "недопустимое число в auto_refresh_minutes"),
        ({"max_batch_commands": 1_000_001}, "настройки: max_batch_commands — положительное целое не больше 1000000"),
        ({"max_batch_commands": True}, "настройки: max_batch_commands — положительное целое не больше 1000000"),
        ({"max_file_bytes": -5}, "настройки: max_file_bytes — положительное целое не больше 9007199254740992"),
        ({"jira_project": "  "}, "настройки: jira_project — непустая строка"),
        ({"jira_project": None}, "настройки: jira_project — непустая строка"),
        ({"epic_name_field_id": ""}, "настройки: epic_name_field_id — непустая строка"),
        ({"epic_name_field_id": 7}, "настройки: epic_name_field_id — непустая строка"),
        ({"epic_link": "parent"}, "настройки: epic_link.mode — field или parent"),
        (
            {"epic_link": {"mode": "field", "field_id": "  "}},
            "настройки: epic_link.field_id обязателен при mode = field",
        ),
        (
            {"epic_link": {"mode": "parent", "field_id": None, "b": 1, "a": 2}},
            "настройки: epic_link: неизвестные параметры a, b",
        ),
        ({"issue_types": []}, "настройки: issue_types — объект"),
        ({"issue_types": {"bug": "Ошибка"}}, "настройки: issue_types.bug — объект {id?, name?}"),
        ({"issue_types": {"bug": {"name": "Ошибка", "key": "B"}}}, "настройки: issue_types.bug — объект {id?, name?}"),
        ({"issue_types": {"epic": {"id": 10000}}}, "настройки: issue_types.epic.id — строка"),
        ({"issue_types": {"task": {"name": ["Задача"]}}}, "настройки: issue_types.task.name — строка"),
        ({"fields": {"sprint": 5}}, "настройки: fields — объект из непустых строк"),
        ({"fields": {" ": "customfield_1"}}, "настройки: fields — объект из непустых строк"),
        ({"fields": ["sprint"]}, "настройки: fields — объект из непустых строк"),
        ({"approval": {"mcp": "yes"}}, "настройки: approval.mcp — логическое значение true/false"),
        ({"approval": {"mcp": True, "web": True}}, "настройки: approval — объект {mcp?, http?}"),
        ({"approval": True}, "настройки: approval — объект {mcp?, http?}"),
        ({"colour": 1, "age": 2}, "настройки: неизвестные параметры age, colour"),
    ],
)
def test_each_bad_setting_is_named_in_the_seed_words(patch: object, message: str) -> None:
    """Limits, types and shapes of every setting, each refused with its own message."""
    with pytest.raises(ValidationError) as info:
        settings_from_json(patch)
    assert info.value.message == message


def test_limits_themselves_and_zero_gaps_are_accepted() -> None:
    """A value equal to its limit is allowed; a gap or the auto-refresh interval may be 0, numbers read as
    floats; epic_name_field_id may be null; the approval doors are switched one by one."""
    settings = settings_from_json(
        {
            "pacing": {"refresh": 86400, "ensure_link": 0},
            "claim_wait_seconds": 3600,
            "auto_refresh_minutes": 0,
            "max_batch_commands": 1_000_000,
            "max_file_bytes": 2**53,
            "epic_name_field_id": None,
            "approval": {"http": True},
            "issue_types": {"bug": {"id": "10004"}},
        }
    )
    assert (settings.gap("refresh"), settings.gap("ensure_link"), settings.gap("ensure_issue")) == (86400.0, 0.0, 120.0)
    assert (settings.claim_wait_seconds, settings.auto_refresh_minutes) == (3600.0, 0.0)
    assert (settings.max_batch_commands, settings.max_file_bytes, settings.epic_name_field_id) == (
        1_000_000,
        2**53,
        None,
    )
    assert (settings.approval.required("http"), settings.approval.required("mcp")) == (True, False)
    assert settings.issue_types == {"bug": IssueTypeRef(id="10004")}
    assert settings_to_json(settings)["issue_types"] == {"bug": {"id": "10004"}}
    assert settings_to_json(settings)["approval"] == {"mcp": False, "http": True}
    assert Settings(pacing={}).gap("ensure_status") == 30.0
    assert Settings().gap("unknown") == 0.0


def test_an_issue_type_is_sent_by_id_when_it_has_one() -> None:
    """issuetype by id when set, else by name; a type with neither (or only spaces) is not set."""
    assert IssueTypeRef(id="10000", name="Эпик").to_jira() == {"id": "10000"}
    assert IssueTypeRef(name="Эпик").to_jira() == {"name": "Эпик"}
    assert IssueTypeRef(id="", name="Эпик").to_jira() == {"name": "Эпик"}
    assert IssueTypeRef().to_jira() == {"name": ""}
    assert [IssueTypeRef(id=" ").is_set(), IssueTypeRef(name=" x").is_set(), IssueTypeRef(id="1").is_set()] == [
        False,
        True,
        True,
    ]
    assert IssueTypeRef(id=" ", name=" ").is_set() is False


def test_an_issue_type_is_set_by_a_non_blank_id_or_name() -> None:
    """Neither id nor name, or only blanks, is not set; either one non-blank is."""
    assert IssueTypeRef().is_set() is False
    assert IssueTypeRef(id=" ", name=" ").is_set() is False
    assert IssueTypeRef(name="Задача").is_set() is True
    assert IssueTypeRef(id="10001").is_set() is True


def test_the_default_link_types_are_the_seeds() -> None:
    """Out of the box the logical link types map to Jira's «Блокирует начало» and «Связанные»."""
    assert Settings().link_types == {"блокирует начало": "Блокирует начало", "связанные": "Связанные"}
    assert settings_from_json({}).link_types == {"блокирует начало": "Блокирует начало", "связанные": "Связанные"}


def test_the_epic_link_field_given_is_the_one_kept() -> None:
    """epic_link keeps the field id it is given, and none in parent mode without one."""
    field = settings_from_json({"epic_link": {"mode": "field", "field_id": "customfield_12345"}})
    assert (field.epic_link.mode, field.epic_link.field_id) == ("field", "customfield_12345")
    parent = settings_from_json({"epic_link": {"mode": "parent", "field_id": None}})
    assert (parent.epic_link.mode, parent.epic_link.field_id) == ("parent", None)


def test_the_jira_project_and_epic_name_field_are_read_as_given() -> None:
    """jira_project is a non-blank text; epic_name_field_id a non-blank text or null."""
    settings = settings_from_json({"jira_project": "ZEUS", "epic_name_field_id": None})
    assert (settings.jira_project, settings.epic_name_field_id) == ("ZEUS", None)
    assert settings_from_json({"epic_name_field_id": "customfield_1"}).epic_name_field_id == "customfield_1"


@pytest.mark.parametrize(
    ("undo", "message"),
    [
        ({"created_issue": 5}, "настройки: undo.created_issue — объект {mode, path?, label?}"),
        (
            {"created_issue": {"mode": "status", "path": []}},
            "настройки: undo.created_issue.path обязателен при mode = status",
        ),
        ({"x": 1}, "настройки: undo — объект {created_issue}"),
    ],
)
def test_a_bad_undo_setting_is_named_by_its_place(undo: object, message: str) -> None:
    with pytest.raises(ValidationError) as refused:
        settings_from_json({**settings_to_json(Settings()), "undo": undo})
    assert refused.value.message == message


_POSITIVE_NUMBERS = (
    "full_refresh_hours",
    "claim_wait_seconds",
    "file_retention_hours",
    "approval_ttl_hours",
    "audit_retention_days",
)
_COUNTS = ("max_file_bytes", "max_store_bytes", "max_batch_commands")


@pytest.mark.parametrize("name", _POSITIVE_NUMBERS)
def test_a_positive_number_setting_is_read_as_given_up_to_its_limit(name: str) -> None:
    """Each of these settings is read under its own name: a fraction, its limit; 0, less or past it is refused."""
    limit = LIMITS[name]
    assert getattr(settings_from_json({name: 1.5}), name) == 1.5
    assert getattr(settings_from_json({name: limit}), name) == limit
    for bad in (0, -1, limit + 1, "1", True):
        with pytest.raises(ValidationError) as refused:
            settings_from_json({name: bad})
        assert refused.value.message == f"настройки: {name} — положительное число не больше {limit}"


@pytest.mark.parametrize("name", _COUNTS)
def test_a_count_setting_is_read_as_given_up_to_its_limit(name: str) -> None:
    """A count is a whole number from 1 to its limit, read under its own name."""
    limit = LIMITS[name]
    assert getattr(settings_from_json({name: 1}), name) == 1
    assert getattr(settings_from_json({name: limit}), name) == limit
    for bad in (0, limit + 1, 2.0, True):
        with pytest.raises(ValidationError) as refused:
            settings_from_json({name: bad})
        assert refused.value.message == f"настройки: {name} — положительное целое не больше {limit}"
