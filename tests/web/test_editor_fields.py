"""The editor's fields give back the params they were drawn from: a command of any type, its parameters of the
catalogue's kinds, drawn as fields and read back from the submitted form, is the same command — and so is any
JSON at all (issue 32: the JSON view → editor → JSON round trip coerces nothing; the core names what is wrong)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from litestar.datastructures import FormMultiDict

from hub_app.web.editor.form import Draft, DraftCommand, from_body, from_form
from hub_app.web.editor.views import command_views
from reconcile.vocabulary.catalogue import CATALOGUE, Editor, Param

# Text a person types into one field: no surrounding blanks (a line is read trimmed).
_WORD = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cc", "Cs", "Zs", "Zl", "Zp")), min_size=1, max_size=12
)
_ITEM = _WORD.filter(lambda v: "," not in v and "→" not in v)


def _value(param: Param) -> st.SearchStrategy[Any]:
    if param.editor is Editor.YES_NO:
        return st.booleans()
    if param.editor in (Editor.LIST, Editor.KEY_LIST):
        return st.lists(_ITEM, min_size=1, max_size=3)
    if param.editor is Editor.STATUS_PATH:
        return st.one_of(_ITEM, st.lists(_ITEM, min_size=2, max_size=3))
    if param.editor is Editor.MULTILINE_TEXT:
        return st.lists(_WORD, min_size=1, max_size=3).map("\n".join)
    if param.editor is Editor.JSON_OBJECT:  # an only-if-unchanged object, typed as JSON
        return st.dictionaries(_ITEM, st.one_of(_WORD, st.none()), min_size=1, max_size=2)
    return _WORD


@st.composite
def _commands(draw: st.DrawFn) -> DraftCommand:
    spec = CATALOGUE[draw(st.sampled_from(list(CATALOGUE)))]
    chosen = draw(st.lists(st.sampled_from(spec.params), unique=True)) if spec.params else []
    return DraftCommand(type=spec.type, params={p.name: draw(_value(p)) for p in chosen})


def _submitted(draft: Draft) -> FormMultiDict:
    """The form a browser submits for the draft as drawn (every field with its value, the picked temp keys)."""
    fields: list[tuple[str, str]] = [("author", draft.author), ("title", draft.title), ("project", draft.project)]
    if draft.extra:
        fields.append(("extra", draft.extra_text()))
    for view in command_views(draft):
        fields += [(f"c{view.index}.type", view.type), (f"c{view.index}._extra", view.extra)]
        for field in view.fields + view.more:
            fields.append((field.name, field.value))
            if field.picked:
                fields.append((field.name + ".new", field.picked))
    return FormMultiDict(fields)


@settings(max_examples=150, deadline=None)
@given(st.lists(_commands(), max_size=4))
def test_fields_read_back_as_the_params_they_show(commands: list[DraftCommand]) -> None:
    """Drawn and submitted, every command comes back with the same type and params."""
    draft = Draft(author="a", title="t", commands=tuple(commands))
    assert from_form(_submitted(draft)).body() == draft.body()


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)


@st.composite
def _any_command(draw: st.DrawFn) -> Any:
    """A command as anything a person may paste: of the catalogue with any JSON in its parameters (a string for a
    list, null, blanks…), an object of another shape, or no object at all."""
    if draw(st.integers(0, 9)) == 0:
        return draw(_JSON)
    spec = CATALOGUE[draw(st.sampled_from(list(CATALOGUE)))]
    names = st.sampled_from([p.name for p in spec.params] + ["bogus"])
    params = draw(st.dictionaries(names, _JSON | _value(draw(st.sampled_from(spec.params))), max_size=4))
    shapes = [
        {"type": spec.type, "params": params},
        {"type": spec.type},
        {"type": spec.type, "params": params, "id": 7},
        {"type": 5, "params": params},
    ]
    return draw(st.sampled_from(shapes)) if draw(st.integers(0, 4)) == 0 else shapes[0]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(_any_command(), max_size=3),
    st.dictionaries(st.sampled_from(["author", "title", "project", "notes", "commands"]), _JSON, max_size=3),
)
def test_any_json_comes_back_as_it_was(commands: list[Any], top: dict[str, Any]) -> None:
    """A batch's JSON drawn in the editor and submitted is the same JSON: nothing the editor cannot show is
    coerced into what it can (``"labels_add": "x"`` stays a string for the core to refuse, as the API does)."""
    body = {"commands": commands, **top}
    assert from_form(_submitted(from_body(body))).body() == body


def test_a_string_for_a_list_stays_a_string() -> None:
    """The issue's case: ``labels_add: "x"`` is drawn as the JSON ``"x"`` and read back as the string ``"x"``."""
    draft = from_body(
        {
            "author": "a",
            "title": "t",
            "commands": [{"type": "ensure_fields", "params": {"key": "K-1", "labels_add": "x"}}],
        }
    )
    (view,) = command_views(draft)
    shown = {f.param: (f.editor, f.value) for f in view.fields}
    assert shown["labels_add"] == ("json", '"x"')
    assert from_form(_submitted(draft)).body()["commands"][0]["params"] == {"key": "K-1", "labels_add": "x"}
