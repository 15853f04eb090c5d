"""Custom field ids verified against Jira's field list (DESIGN.md 5.7, issue 31 finding 3): the id's shape, the role's
schema, the bank's pins, and which roles each command uses."""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reconcile.config.settings import EpicLink, Settings
from reconcile.guard.fields import (
    ROLES,
    SYSTEM_FIELDS,
    JiraField,
    field_problem,
    fields_from_jira,
    fields_problem,
    is_field_id,
    mapped_fields,
    pin_problem,
    roles_used,
    unseen_ids,
    verified_mapping,
)
from reconcile.guard.paths import shown_value

GH = "com.pyxis.greenhopper.jira:"
#: Jira DC's ``GET /rest/api/2/field`` for the sample's custom fields (the simulator's shapes), and a system one.
ANSWER: list[Any] = [
    {"id": "summary", "name": "Summary", "custom": False, "schema": {"type": "string", "system": "summary"}},
    {"id": "customfield_10100", "name": "Epic Link", "schema": {"type": "any", "custom": GH + "gh-epic-link"}},
    {"id": "customfield_10102", "name": "Epic Name", "schema": {"type": "string", "custom": GH + "gh-epic-label"}},
    {
        "id": "customfield_10104",
        "name": "Sprint",
        "schema": {"type": "array", "items": "string", "custom": GH + "gh-sprint"},
    },
    {"id": "customfield_11200", "name": "Плановое начало", "schema": {"type": "date", "custom": "x:datepicker"}},
    {"id": "customfield_11201", "name": "Плановое окончание", "schema": {"type": "datetime", "custom": "x:datetime"}},
]
FIELDS = fields_from_jira(ANSWER)
SETTINGS = Settings()


def with_fields(**fields: str) -> Settings:
    return attrs.evolve(SETTINGS, fields={**SETTINGS.fields, **fields})


def test_jiras_field_list_is_read_by_id() -> None:
    """Each entry becomes id, name, ``schema.custom`` and ``schema.type``; odd entries are left out or defaulted."""
    odd = [None, [], {"id": 7}, {"id": "customfield_1", "name": None, "schema": "x"}]
    fields = fields_from_jira([*ANSWER, *odd])
    assert fields["customfield_10104"] == JiraField(
        id="customfield_10104", name="Sprint", custom=GH + "gh-sprint", type="array"
    )
    assert fields["summary"] == JiraField(id="summary", name="Summary", custom=None, type="string")
    assert fields["customfield_1"] == JiraField(id="customfield_1", name="customfield_1", custom=None, type=None)
    assert len(fields) == len(ANSWER) + 1
    assert fields_from_jira({"id": "summary"}) == fields_from_jira(None) == fields_from_jira("summary") == {}
    odd_schema = fields_from_jira([{"id": "customfield_2", "name": "n", "schema": {"custom": 1, "type": 2}}])
    assert odd_schema["customfield_2"] == JiraField(id="customfield_2", name="n", custom=None, type=None)


@pytest.mark.parametrize(
    "value", ["customfield_1", "customfield_11200", "customfield_123456789012345678", "summary", "parent"]
)
def test_a_field_id_is_a_custom_field_or_a_known_system_field(value: str) -> None:
    """``customfield_<n>`` (n positive, ASCII, at most 18 digits) and the fixed system fields are field ids."""
    assert is_field_id(value)


@pytest.mark.parametrize(
    "value",
    [
        "customfield_0",
        "customfield_011200",
        "customfield_1234567890123456789",
        "customfield_١٢",
        "customfield_11200 ",
        "customfield_11200\n",
        "Customfield_11200",
        "customfield_",
        "cf[11200]",
        "../customfield_11200",
        "customfield_11200,summary",
        "*all",
        "comment",
        "",
        None,
        11200,
    ],
)
def test_anything_else_is_no_field_id(value: Any) -> None:
    """Zero, a leading zero, too long, other digits, whitespace, case, JQL's form, paths, lists and unknown system
    names are refused."""
    assert not is_field_id(value)
    assert SYSTEM_FIELDS.isdisjoint({value} if isinstance(value, str) else set())


def test_the_settings_map_each_role() -> None:
    """The default settings map all five roles; ``epic_link`` only in ``field`` mode; an empty one maps none."""
    assert mapped_fields(SETTINGS) == {
        "sprint": "customfield_10104",
        "planned_start": "customfield_11200",
        "planned_end": "customfield_11201",
        "epic_link": "customfield_10100",
        "epic_name": "customfield_10102",
    }
    bare = attrs.evolve(SETTINGS, fields={}, epic_link=EpicLink(mode="parent", field_id="x"), epic_name_field_id=None)
    assert mapped_fields(bare) == {}
    empty_link = attrs.evolve(SETTINGS, epic_link=EpicLink(mode="field", field_id=""))
    assert "epic_link" not in mapped_fields(empty_link)


@pytest.mark.parametrize(
    ("command_type", "params", "roles"),
    [
        ("refresh", {"keys": ["A-1"]}, ("sprint", "planned_start", "planned_end", "epic_link")),
        ("ensure_sprint", {"key": "A-1", "sprint": "s"}, ("sprint",)),
        ("ensure_comment", {"key": "A-1", "planned_start": "2026-01-01"}, ()),
        ("ensure_fields", {"key": "A-1", "summary": "s"}, ()),
        ("ensure_fields", {"key": "A-1", "planned_end": None, "epic_key": "A-2"}, ("epic_link",)),
        ("ensure_fields", {"key": "A-1", "planned_start": "2026-01-01"}, ("planned_start",)),
        ("ensure_issue", {"summary": "s", "planned_end": "2026-01-01"}, ("planned_end",)),
        ("ensure_issue", {"summary": "s", "issue_type": "epic"}, ("epic_name",)),
        ("ensure_issue", {"summary": "s", "issue_type": "task", "epic_key": "A-2"}, ("epic_link",)),
    ],
)
def test_the_roles_a_command_uses(command_type: str, params: dict[str, Any], roles: tuple[str, ...]) -> None:
    """A refresh reads four roles, ensure_sprint the sprint, ensure_fields/ensure_issue what they set (a null
    clears nothing new: not used), a new epic its name; other types none."""
    assert roles_used(command_type, params) == roles


@pytest.mark.parametrize(
    ("role", "field_id", "problem"),
    [
        ("planned_start", "customfield_11200", None),
        ("planned_end", "customfield_11201", None),
        ("sprint", "customfield_10104", None),
        ("epic_link", "customfield_10100", None),
        ("epic_name", "customfield_10102", None),
        ("planned_start", "customfield_10100", "поле customfield_10100 — не дата (Epic Link)"),
        ("planned_end", "summary", "поле summary — не дата (Summary)"),
        ("sprint", "customfield_11200", "поле customfield_11200 — не спринт (Плановое начало)"),
        ("epic_link", "customfield_10102", "поле customfield_10102 — не Epic Link (Epic Name)"),
        ("epic_name", "customfield_10100", "поле customfield_10100 — не Epic Name (Epic Link)"),
        ("planned_start", "customfield_99999", "поля customfield_99999 нет в Jira (planned_start)"),
    ],
)
def test_a_field_must_have_its_roles_schema(role: str, field_id: str, problem: str | None) -> None:
    """The role's plugin key (sprint, epic link, epic name) or a date/datetime type (planned dates); else the
    refusal names the id, what it is not and Jira's name of it."""
    assert field_problem(role, field_id, FIELDS) == problem


def test_a_pin_refuses_another_id() -> None:
    """A pinned role takes only its pin; an unpinned one anything."""
    pins = {"planned_start": "customfield_11200"}
    assert pin_problem("planned_start", "customfield_11200", pins) is None
    assert pin_problem("planned_end", "customfield_10100", pins) is None
    assert pin_problem("planned_start", "customfield_10100", pins) == (
        "поле planned_start: хаб указал customfield_10100, политика агента — customfield_11200"
    )


def test_the_finding_planned_start_mapped_to_the_epic_link_is_refused() -> None:
    """Issue 31 finding 3: ``fields.planned_start`` mapped to the Epic Link field fails an ensure_fields that sets
    the planned start, and nothing that does not use it."""
    hostile = with_fields(planned_start="customfield_10100")
    params = {"key": "AURORA-1550", "planned_start": "HR-3"}
    assert fields_problem("ensure_fields", params, hostile, fields=FIELDS, pins={}) == (
        "поле customfield_10100 — не дата (Epic Link)"
    )
    assert fields_problem("ensure_fields", {"key": "A-1", "summary": "s"}, hostile, fields=FIELDS, pins={}) is None
    assert fields_problem("ensure_fields", params, SETTINGS, fields=FIELDS, pins={}) is None


def test_without_jiras_list_only_the_shape_and_the_pins_are_checked() -> None:
    """``fields`` unknown (a dry run): a well-formed mapping passes, a pin still refuses."""
    hostile = with_fields(planned_start="customfield_10100")
    params = {"key": "A-1", "planned_start": "2026-01-01"}
    assert fields_problem("ensure_fields", params, hostile, fields=None, pins={}) is None
    pins = {"planned_start": "customfield_11200"}
    assert fields_problem("ensure_fields", params, hostile, fields=None, pins=pins) == (
        "поле planned_start: хаб указал customfield_10100, политика агента — customfield_11200"
    )


@pytest.mark.parametrize(
    "settings",
    [
        with_fields(sprint="../../issue/HR-1"),
        with_fields(other="*all"),
        attrs.evolve(SETTINGS, epic_link=EpicLink(mode="field", field_id="customfield_1?x")),
        attrs.evolve(SETTINGS, epic_name_field_id="customfield_1 "),
    ],
)
def test_any_mapped_id_that_is_no_field_id_refuses_every_command(settings: Settings) -> None:
    """A mapped value that is no field id fails any command (it may go into any request's ``fields``), naming it."""
    for command_type in ("ensure_comment", "refresh"):
        problem = fields_problem(command_type, {}, settings, fields=FIELDS, pins={})
        assert problem is not None
        assert problem.startswith("недопустимый id поля ")
        bad = [v for v in (*settings.fields.values(), *mapped_fields(settings).values()) if not is_field_id(v)]
        assert problem.endswith(f": {shown_value(bad[0])}")  # the value itself, JSON-quoted


def test_a_role_without_a_mapping_is_left_to_the_executor() -> None:
    """A used role the settings do not map is no refusal here (the executor says «нет настройки …»)."""
    bare = attrs.evolve(SETTINGS, fields={})
    assert fields_problem("ensure_sprint", {}, bare, fields=FIELDS, pins={"sprint": "customfield_10104"}) is None


def test_an_id_jiras_last_list_lacks_is_unseen() -> None:
    """The mapped ids not in Jira's list (the agent reads it again for them); malformed ids are not asked about."""
    assert unseen_ids(SETTINGS, FIELDS) == []
    assert unseen_ids(with_fields(planned_start="customfield_12000", sprint="x y"), FIELDS) == ["customfield_12000"]


def test_the_verified_mapping_lists_every_mapped_or_pinned_role() -> None:
    """What ``sdlc-agent check`` prints: each role with its id and its problem (``None`` when verified)."""
    hostile = attrs.evolve(
        with_fields(planned_start="customfield_10100", planned_end="bad id"),
        epic_link=EpicLink(mode="parent", field_id=None),
    )
    pins = {"sprint": "customfield_10199", "epic_link": "customfield_10100"}
    assert verified_mapping(hostile, FIELDS, pins) == [
        (
            "sprint",
            "customfield_10104",
            "поле sprint: хаб указал customfield_10104, политика агента — customfield_10199",
        ),
        ("planned_start", "customfield_10100", "поле customfield_10100 — не дата (Epic Link)"),
        ("planned_end", "bad id", 'недопустимый id поля planned_end: "bad id"'),
        ("epic_link", "customfield_10100", None),
        ("epic_name", "customfield_10102", None),
    ]


_IDS = st.sampled_from([*sorted(FIELDS), "customfield_99999"])


@given(mapping=st.dictionaries(st.sampled_from(ROLES), _IDS), pins=st.dictionaries(st.sampled_from(ROLES), _IDS))
def test_a_command_passes_exactly_when_each_role_it_uses_is_verified(
    mapping: dict[str, str], pins: dict[str, str]
) -> None:
    """For any mapping and pins: the refresh (which uses four roles) is refused exactly when one of its roles'
    rows in the verified mapping has a problem."""
    settings = attrs.evolve(
        SETTINGS,
        fields={role: mapping[role] for role in ("sprint", "planned_start", "planned_end") if role in mapping},
        epic_link=EpicLink(mode="field", field_id=mapping.get("epic_link", "customfield_10100")),
        epic_name_field_id=mapping.get("epic_name"),
    )
    used = set(roles_used("refresh", {}))
    rows = [row for row in verified_mapping(settings, FIELDS, pins) if row[0] in used and row[0] in mapping]
    problems = [problem for _, _, problem in rows if problem is not None]
    if "epic_link" not in mapping:
        default = pin_problem("epic_link", "customfield_10100", pins)
        problems += [default] if default else []
    refused = fields_problem("refresh", {}, settings, fields=FIELDS, pins=pins)
    assert (refused is None) == (not problems)
