"""The settings as a form: every setting described where it is defined, one field per value, and the form's
values back as the same settings (validated as any settings object)."""

from __future__ import annotations

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reconcile.config.form import Kind, as_typed, settings_form, settings_from_form
from reconcile.config.settings import ApprovalDoors, EpicLink, IssueTypeRef, Settings, settings_from_json
from reconcile.vocabulary.errors import ValidationError


def _form_of(settings: Settings) -> dict[str, str]:
    """What a browser submits for the form as shown (an unchecked box is not sent)."""
    sent = {}
    for section in settings_form(settings):
        for field in section.fields:
            if field.kind is not Kind.YES_NO or field.value == "да":
                sent[field.name] = field.value
    return sent


def test_every_setting_and_value_is_described() -> None:
    """Each setting of :class:`Settings` and each value of its nested objects has a label and a description."""
    for cls in (Settings, IssueTypeRef, EpicLink, ApprovalDoors):
        for field in attrs.fields(cls):
            assert field.metadata.get("label", "").strip(), (cls.__name__, field.name)
            assert field.metadata.get("doc", "").strip(), (cls.__name__, field.name)
    sections = settings_form(Settings())
    assert [s.name for s in sections] == [f.name for f in attrs.fields(Settings)]


def test_the_form_names_every_value_with_its_kind() -> None:
    """Nested values by path, pacing by the catalogue's type labels, maps as «имя = значение» lines."""
    fields = {f.name: f for s in settings_form(Settings()) for f in s.fields}
    assert fields["jira_project"].kind is Kind.TEXT
    assert fields["epic_name_field_id"].kind is Kind.OPTIONAL_TEXT
    assert (fields["epic_link.mode"].kind, fields["epic_link.mode"].choices) == (Kind.CHOICE, ("field", "parent"))
    assert fields["issue_types.task.name"].value == "Задача"
    assert fields["issue_types.task.name"].label == "task: имя"
    assert fields["pacing.ensure_issue"].label == "Задача существует (ensure_issue)"
    assert fields["pacing.ensure_issue"].value == "120"
    assert fields["link_types"].kind is Kind.PAIRS
    assert fields["link_types"].value == "блокирует начало = Блокирует начало\nсвязанные = Связанные"
    assert (fields["approval.http"].kind, fields["approval.http"].value) == (Kind.YES_NO, "нет")
    assert fields["max_store_bytes"].value == "10737418240"


def test_the_form_as_shown_gives_the_same_settings() -> None:
    """Submitting the form unchanged changes nothing."""
    settings = Settings()
    assert settings_from_json(settings_from_form(_form_of(settings), settings)) == settings


_name = st.text(alphabet="abcdefghijklmnopqrstuvwxyzабвгд _", min_size=1, max_size=8).map(str.strip).filter(bool)


@given(
    gap=st.floats(min_value=0, max_value=86400, allow_nan=False).map(lambda x: round(x, 3)),
    links=st.dictionaries(_name, _name, max_size=3),
    http=st.booleans(),
    epic_name=st.none() | st.just("customfield_1"),
    mode=st.sampled_from(["field", "parent"]),
)
def test_any_settings_survive_the_form(
    gap: float, links: dict[str, str], http: bool, epic_name: str | None, mode: str
) -> None:
    """What the form shows, submitted, is the settings it showed (``null``, booleans, maps and numbers too)."""
    settings = attrs.evolve(
        Settings(),
        pacing={**Settings().pacing, "refresh": gap},
        link_types=links,
        approval=ApprovalDoors(http=http),
        epic_name_field_id=epic_name,
        epic_link=EpicLink(mode=mode, field_id="customfield_10100"),  # type: ignore[arg-type]
    )
    assert settings_from_json(settings_from_form(_form_of(settings), settings)) == settings


def test_typed_values_become_json_values() -> None:
    """A decimal comma is a point; an empty optional text is null; removed lines of a map are gone."""
    form = _form_of(Settings())
    form.update({"pacing.refresh": "0,5", "epic_name_field_id": " ", "link_types": "связанные = Связанные\n\n"})
    data = settings_from_form(form, Settings())
    assert data["pacing"]["refresh"] == 0.5
    assert data["epic_name_field_id"] is None
    assert data["link_types"] == {"связанные": "Связанные"}


def test_what_is_no_number_is_refused_by_the_settings_own_validation() -> None:
    """A number field with a word: the message any settings change gets; a map line without «=» named."""
    form = {**_form_of(Settings()), "auto_refresh_minutes": "пять"}
    with pytest.raises(ValidationError) as refused:
        settings_from_json(settings_from_form(form, Settings()))
    assert refused.value.message == "настройки: auto_refresh_minutes — неотрицательное число не больше 525600"
    with pytest.raises(ValidationError) as refused:
        settings_from_form({**form, "fields": "sprint = x\nplanned_start"}, Settings())
    assert refused.value.message == "настройки: fields, строка 2 — ожидается «имя = значение»"


def test_a_refused_form_is_shown_as_typed() -> None:
    """The values the person typed, not the saved ones."""
    form = {**_form_of(Settings()), "auto_refresh_minutes": "пять"}
    form.pop("approval.mcp", None)
    typed = {f.name: f.value for s in as_typed(settings_form(Settings()), form) for f in s.fields}
    assert typed["auto_refresh_minutes"] == "пять"
    assert typed["approval.mcp"] == "нет"
