"""Settings are validated on change; mirror records round-trip through the wire shape."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reconcile.errors import ValidationError
from reconcile.records import (
    HistoryEntry,
    HistoryItem,
    MirrorIssue,
    MirrorLink,
    SprintRef,
    converter,
    issue_from_wire,
    issue_to_wire,
)
from reconcile.settings import Settings, settings_from_json, settings_to_json


def test_defaults_are_the_design_settings() -> None:
    """The defaults are DESIGN.md section 3, pacing the seed's gaps."""
    data = settings_to_json(Settings())
    assert data["pacing"] == {
        "ensure_issue": 120,
        "ensure_fields": 120,
        "ensure_comment": 30,
        "ensure_status": 30,
        "ensure_link": 30,
        "ensure_sprint": 30,
        "ensure_attachment": 30,
        "refresh": 2,
    }
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
    """The delivery context holds the settings the executors read, not pacing."""
    context = Settings().agent_context()
    assert set(context) == {"jira_project", "issue_types", "epic_name_field_id", "epic_link", "fields", "link_types"}


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
