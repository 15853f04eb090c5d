"""The editor's fields give back the params they were drawn from: a command of any type, its parameters of the
catalogue's kinds, drawn as fields and read back from the submitted form, is the same command."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from litestar.datastructures import FormMultiDict

from hub_app.web.editor import Draft, DraftCommand, command_views, from_form
from reconcile.catalogue import CATALOGUE, Editor, Param

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
