"""What «Новый пакет»'s editor draws of a :class:`~hub_app.web.editor.form.Draft`: each command's fields with their
label, help and value, the earlier commands' temp keys to pick from, and the errors the core found next to them, in the
words on screen.

A value its field would not give back as it is (:func:`~hub_app.web.editor.form.fits`), a parameter the type does not
have, and a command that is not ``{type, params}`` are drawn as JSON fields, so the JSON view → editor → JSON round
trip changes nothing and the core names what is wrong, as the API does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from hub_app.web.editor.form import RAW, Draft, DraftCommand, as_json, field_name, fits, shown
from reconcile.batches import BatchError
from reconcile.vocabulary import CATALOGUE, Editor, Param, in_labels, is_temp_key

__all__ = ["PICKED_TEMP_KEYS", "CommandView", "FieldView", "command_views"]

PICKED_TEMP_KEYS = 20


@attrs.frozen(kw_only=True)
class FieldView:
    name: str  # the form field's name
    param: str
    label: str
    doc: str
    editor: str  # the Editor kind's value; "json" for a parameter the type does not have
    value: str
    required: bool
    picked: str = ""  # the earlier temp key chosen for a key field
    errors: tuple[str, ...] = ()


@attrs.frozen(kw_only=True)
class CommandView:
    index: int
    type: str
    label: str
    doc: str
    known: bool
    fields: tuple[FieldView, ...]  # shown: the required ones, those of the type's condition, those with a value
    more: tuple[FieldView, ...]  # the other optional ones, folded («Ещё параметры»)
    extra: str  # the names of the parameters the type does not have, comma-separated
    # (temp key, what it creates) of the last PICKED_TEMP_KEYS commands before that define one (all of them are in
    # the page's list of keys: a picker per field of every one would grow with the square of the batch)
    temp_keys: tuple[tuple[str, str], ...]
    errors: tuple[str, ...] = ()  # the errors about no one field


def _field(
    index: int,
    param: Param,
    params: Mapping[str, Any],
    *,
    required: bool,
    errors: Sequence[str],
    temp_keys: Mapping[str, str],
) -> FieldView:
    value = params.get(param.name)
    picked = value if param.editor is Editor.ISSUE_KEY and isinstance(value, str) and value in temp_keys else ""
    return FieldView(
        name=field_name(index, param.name),
        param=param.name,
        label=param.label,
        doc=param.doc,
        editor=param.editor.value,
        value="" if picked else shown(param.editor, value),
        required=required,
        picked=picked,
        errors=tuple(errors),
    )


def _json_field(index: int, name: str, value: Any, param: Param | None, errors: Sequence[str]) -> FieldView:
    """A value no field of its kind would give back as it is (or of a parameter the type does not have): JSON."""
    doc = "параметра с таким именем у этого типа нет"
    if param is not None:
        doc = f"{param.doc}; значение не того вида, что ждёт поле, — показано как JSON, как есть"
    return FieldView(
        name=field_name(index, "x." + name),
        param=name,
        label=param.label if param is not None else name,
        doc=doc,
        editor="json",
        value=as_json(value),
        required=False,
        errors=tuple(errors),
    )


def _raw_view(index: int, command: DraftCommand, errors: Sequence[str]) -> CommandView:
    raw = FieldView(
        name=field_name(index, RAW),
        param=RAW,
        label="Команда (JSON)",
        doc="не объект {type, params}: показана как JSON, как есть",
        editor="json",
        value=command.raw or "",
        required=False,
    )
    return CommandView(
        index=index,
        type="",
        label="команда в JSON",
        doc="",
        known=False,
        fields=(raw,),
        more=(),
        extra="",
        temp_keys=(),
        errors=tuple(errors),
    )


def _command_view(
    index: int, command: DraftCommand, mine: Sequence[tuple[str | None, str]], temp_keys: Mapping[str, str]
) -> CommandView:
    """One command's fields: its type's parameters by kind (a value that does not fit its field as JSON) and the
    parameters the type does not have, as JSON."""
    spec = CATALOGUE.get(command.type)
    known = {p.name: p for p in spec.params} if spec is not None else {}
    fields = []
    as_json_too = [name for name in command.params if name not in known]
    for param in known.values():
        near = [message for about, message in mine if about == param.name]
        value = command.params.get(param.name)
        if param.name in command.params and not fits(param.editor, value):
            fields.append(_json_field(index, param.name, value, param, near))
            as_json_too.insert(0, param.name)
            continue
        required = spec is not None and param in spec.required
        fields.append(_field(index, param, command.params, required=required, errors=near, temp_keys=temp_keys))
    for name in (n for n in command.params if n not in known):
        near = [message for about, message in mine if about == name]
        fields.append(_json_field(index, name, command.params[name], None, near))
    shown = {f.param for f in fields if f.errors}
    folded = tuple(
        f
        for f in fields
        if spec is not None
        and not f.required
        and f.param not in spec.at_least_one
        and not (f.value or f.picked or f.errors)
        and f.editor != "json"
    )
    return CommandView(
        index=index,
        type=command.type,
        label=spec.label if spec is not None else "неизвестный тип",
        doc=spec.doc if spec is not None else "",
        known=spec is not None,
        fields=tuple(f for f in fields if f not in folded),
        more=folded,
        extra=",".join(as_json_too),
        temp_keys=tuple(temp_keys.items()),
        errors=tuple(message for about, message in mine if about not in shown),
    )


def command_views(draft: Draft, errors: Sequence[BatchError] = ()) -> tuple[CommandView, ...]:
    """Every command of the draft as the editor draws it, each error of the core next to its command (and its
    field, when it names one), in the words on screen (:func:`reconcile.vocabulary.error_words.in_labels`)."""
    by_command: dict[int, list[tuple[str | None, str]]] = {}
    for error in errors:
        if error.command is not None and 1 <= error.command <= len(draft.commands):
            kind = draft.commands[error.command - 1].type
            by_command.setdefault(error.command, []).append((error.param, in_labels(error.message, kind)))
    views = []
    defined: list[tuple[str, str]] = []
    for index, command in enumerate(draft.commands, start=1):
        mine = by_command.get(index, [])
        if command.raw is not None:
            views.append(_raw_view(index, command, [message for _, message in mine]))
            continue
        views.append(_command_view(index, command, mine, dict(defined[-PICKED_TEMP_KEYS:])))
        spec = CATALOGUE.get(command.type)
        if spec is not None and spec.creates_issue and is_temp_key(command.params.get("temp_key")):
            defined.append((command.params["temp_key"], str(command.params.get("summary") or "")))
    return tuple(views)
