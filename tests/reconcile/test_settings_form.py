"""The settings as a form: every setting described where it is defined, one field per value, and the form's
values back as the same settings (validated as any settings object)."""

from __future__ import annotations

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reconcile.config.form import Kind, as_typed, settings_form, settings_from_form
from reconcile.config.settings import ApprovalDoors, EpicLink, IssueTypeRef, Settings, settings_from_json
from reconcile.config.undo import CreatedIssueUndo, UndoSettings
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


def test_every_field_of_the_form_has_its_label_and_description() -> None:
    """Sections, nested values, maps and the pacing per type all carry the words a person reads them by."""
    for section in settings_form(Settings()):
        assert section.label.strip() and section.doc.strip(), section.name
        for field in section.fields:
            assert isinstance(field.label, str) and field.label.strip(), field.name
            assert isinstance(field.doc, str) and field.doc.strip(), field.name


def test_a_list_setting_is_one_line_per_value_and_back() -> None:
    """The undo's status path is shown one status a line; blank lines and spaces around a status are dropped."""
    undo = UndoSettings(created_issue=CreatedIssueUndo(mode="status", path=["В работе", "Готово"], label="откат"))
    settings = attrs.evolve(Settings(), undo=undo)
    fields = {f.name: f for s in settings_form(settings) for f in s.fields}
    assert (fields["undo.created_issue.path"].kind, fields["undo.created_issue.path"].value) == (
        Kind.LINES,
        "В работе\nГотово",
    )
    form = {**_form_of(settings), "undo.created_issue.path": "  В работе \n\nГотово\n"}
    assert settings_from_form(form, settings)["undo"]["created_issue"] == {
        "mode": "status",
        "path": ["В работе", "Готово"],
        "label": "откат",
    }


def test_an_unset_undo_label_and_issue_type_value_are_left_out() -> None:
    """An empty optional value of the undo or of an issue type is not sent as null: the key is absent."""
    data = settings_from_form(_form_of(Settings()), Settings())
    assert data["undo"]["created_issue"] == {"mode": "leave", "path": []}
    assert data["issue_types"]["task"] == {"name": "Задача"}
    form = {**_form_of(Settings()), "issue_types.task.id": " 10001 ", "issue_types.task.name": ""}
    assert settings_from_form(form, Settings())["issue_types"]["task"] == {"id": "10001"}


def test_pacing_of_a_type_the_catalogue_no_longer_has_is_labelled_by_its_name() -> None:
    settings = attrs.evolve(Settings(), pacing={**Settings().pacing, "old_type": 5.0})
    fields = {f.name: f for s in settings_form(settings) for f in s.fields}
    assert (fields["pacing.old_type"].label, fields["pacing.old_type"].value) == ("old_type", "5")


@pytest.mark.parametrize(
    ("name", "typed", "sent"),
    [
        ("max_store_bytes", "10 737 418 240", 10737418240),  # spaces between thousands
        ("max_store_bytes", "1,5", "1,5"),  # a whole number only: handed on as typed, for validation to refuse
        ("max_store_bytes", "1.5", "1.5"),
        ("pacing.refresh", "120", 120),
        ("pacing.refresh", "-5", -5),
        ("pacing.refresh", "2 000,25", 2000.25),
    ],
)
def test_a_typed_number(name: str, typed: str, sent: object) -> None:
    """A whole number typed in any number field stays whole (``120``, not ``120.0``); a whole-number field takes no
    fraction."""
    data = settings_from_form({**_form_of(Settings()), name: typed}, Settings())
    *path, last = name.split(".")
    for part in path:
        data = data[part]
    assert data[last] == sent
    assert type(data[last]) is type(sent)


@pytest.mark.parametrize(("typed", "on"), [("да", True), ("on", True), ("", False), ("0", False), ("нет", False)])
def test_a_yes_no_field(typed: str, on: bool) -> None:
    """A checkbox sends its value when ticked; «0», «нет» and nothing are no."""
    assert settings_from_form({**_form_of(Settings()), "approval.http": typed}, Settings())["approval"]["http"] is on


def test_the_lines_of_a_map() -> None:
    """A blank line between pairs is skipped, not the end; a value may hold «=»; a line without a name is refused."""
    form = {**_form_of(Settings()), "fields": "sprint = customfield_1\n\nstory_points = a=b\n"}
    assert settings_from_form(form, Settings())["fields"] == {"sprint": "customfield_1", "story_points": "a=b"}
    for text in (" = customfield_1", "sprint =  ", "sprint"):
        with pytest.raises(ValidationError) as refused:
            settings_from_form({**form, "fields": text}, Settings())
        assert refused.value.message == "настройки: fields, строка 1 — ожидается «имя = значение»"


def test_a_refused_form_shows_each_value_exactly_as_typed() -> None:
    """Spaces, a decimal comma and a map line without «=» are kept as typed; a value not sent is shown empty."""
    form = {
        **_form_of(Settings()),
        "jira_project": "  AURORA ",
        "pacing.refresh": "0,5",
        "fields": "sprint",
    }
    form.pop("max_store_bytes")
    typed = {f.name: f.value for s in as_typed(settings_form(Settings()), form) for f in s.fields}
    assert typed["jira_project"] == "  AURORA "
    assert typed["pacing.refresh"] == "0,5"
    assert typed["fields"] == "sprint"
    assert typed["max_store_bytes"] == ""


def test_settings_without_issue_types_give_a_form_without_them() -> None:
    settings = attrs.evolve(Settings(), issue_types={})
    data = settings_from_form(_form_of(settings), settings)
    assert "issue_types" not in data
    assert data["undo"]["created_issue"] == {"mode": "leave", "path": []}
