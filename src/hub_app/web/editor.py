"""The batch editor's draft: a batch as form fields and back, generated from the command catalogue.

A :class:`Draft` is what the editor holds (the batch's author, title, project and commands in order); it becomes
the body of ``POST /batches`` (:meth:`Draft.body`) and is read back from one (:func:`from_body`: the JSON view) or
from the editor's form (:func:`from_form`). Each parameter is one field whose shape is its catalogue entry's
:class:`~reconcile.catalogue.Editor` kind: a line of text, several lines, a date, a list (one item a line), yes/no,
a status path (one status a line). An empty field is a parameter not given. A parameter the catalogue does not
know for the type stays in the draft as JSON text (the core then names it, as the API does).

:func:`command_views` is what the template draws: each command's fields with their label, help, value, the
earlier commands' temp keys to pick from, and the errors the core found next to them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

import attrs
from litestar.datastructures import FormMultiDict

from reconcile.batch_errors import BatchError
from reconcile.catalogue import CATALOGUE, Editor, Param
from reconcile.commands import is_temp_key

__all__ = [
    "PICKED_TEMP_KEYS",
    "CommandView",
    "Draft",
    "DraftCommand",
    "FieldView",
    "command_views",
    "from_body",
    "from_form",
]

PICKED_TEMP_KEYS = 20
_LISTS = frozenset({Editor.LIST, Editor.KEY_LIST})
_SPLIT = re.compile(r"[\r\n,]+")
_PATH = re.compile(r"[\r\n,→]+")
_TEMP_NUMBER = re.compile(r"^new:([1-9][0-9]*)$")


@attrs.frozen(kw_only=True)
class DraftCommand:
    type: str
    params: Mapping[str, Any] = attrs.field(factory=dict)


@attrs.frozen(kw_only=True)
class Draft:
    author: str = ""
    title: str = ""
    project: str = ""
    commands: tuple[DraftCommand, ...] = ()
    # The commands a draft retries (``/new?retry=``): the batch it makes waits again when theirs did.
    retry_of: tuple[int, ...] = ()

    def body(self) -> dict[str, Any]:
        """The body of ``POST /batches``; an empty author or title is left out (the core names it)."""
        body: dict[str, Any] = {}
        if self.author.strip():
            body["author"] = self.author.strip()
        if self.title.strip():
            body["title"] = self.title.strip()
        if self.project.strip():
            body["project"] = self.project.strip()
        body["commands"] = [{"type": c.type, "params": dict(c.params)} for c in self.commands]
        return body

    def json_text(self) -> str:
        return json.dumps(self.body(), ensure_ascii=False, indent=2)

    def added(self, command_type: str) -> Draft:
        """One more command of ``command_type`` at the end; a creating type gets the next free temp key."""
        params: dict[str, Any] = {}
        spec = CATALOGUE.get(command_type)
        if spec is not None and spec.creates_issue:
            params["temp_key"] = f"new:{self._next_temp_number()}"
        return attrs.evolve(self, commands=(*self.commands, DraftCommand(type=command_type, params=params)))

    def _next_temp_number(self) -> int:
        numbers = [0]
        for command in self.commands:
            found = _TEMP_NUMBER.match(str(command.params.get("temp_key", "")))
            if found:
                numbers.append(int(found.group(1)))
        return max(numbers) + 1

    def moved(self, index: int, step: int) -> Draft:
        """Command ``index`` (1-based) one place up (``step`` -1) or down (+1); at an end nothing moves."""
        commands = list(self.commands)
        other = index - 1 + step
        if 1 <= index <= len(commands) and 0 <= other < len(commands):
            commands[index - 1], commands[other] = commands[other], commands[index - 1]
        return attrs.evolve(self, commands=tuple(commands))

    def removed(self, index: int) -> Draft:
        return attrs.evolve(self, commands=tuple(c for i, c in enumerate(self.commands, start=1) if i != index))


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def from_body(body: Any, *, author: str = "") -> Draft:
    """A batch body (the JSON view, a retry) as a draft; what is not a command object is kept as an empty one of
    an unknown type, so the core still names it."""
    if not isinstance(body, dict):
        return Draft(author=author)
    commands = []
    raw = body.get("commands")
    for item in raw if isinstance(raw, list) else []:
        if isinstance(item, dict):
            params = item.get("params")
            commands.append(
                DraftCommand(type=str(item.get("type", "")), params=dict(params) if isinstance(params, dict) else {})
            )
        else:
            commands.append(DraftCommand(type=""))
    return Draft(
        author=author or _text(body.get("author")),
        title=_text(body.get("title")),
        project=_text(body.get("project")),
        commands=tuple(commands),
    )


def field_name(index: int, param: str) -> str:
    return f"c{index}.{param}"


def _shown(editor: Editor | None, value: Any) -> str:
    """A parameter's value as its field's text."""
    if value is None:
        return ""
    if editor is Editor.YES_NO and isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str) and editor is not None:
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value) and editor is Editor.STATUS_PATH:
        return " → ".join(value)
    if isinstance(value, list) and all(isinstance(v, str) for v in value) and editor in _LISTS:
        return "\n".join(value)
    return json.dumps(value, ensure_ascii=False)


def _read(editor: Editor | None, text: str) -> Any:
    """A field's text as the parameter's value; ``None``: not given."""
    if editor is None or editor is Editor.JSON_OBJECT:  # JSON as typed (plain text when it is none)
        try:
            return json.loads(text) if text.strip() else None
        except ValueError:
            return text
    if editor in _LISTS:
        items = [item.strip() for item in _SPLIT.split(text) if item.strip()]
        return items or None
    if editor is Editor.STATUS_PATH:
        steps = [step.strip() for step in _PATH.split(text) if step.strip()]
        return None if not steps else steps[0] if len(steps) == 1 else steps
    if editor is Editor.YES_NO:
        return {"true": True, "false": False}.get(text)
    if editor is Editor.MULTILINE_TEXT:
        return text.replace("\r\n", "\n") if text else None
    return text.strip() or None


def _params_of(form: FormMultiDict, index: int, command_type: str) -> dict[str, Any]:
    spec = CATALOGUE.get(command_type)
    params: dict[str, Any] = {}
    for param in spec.params if spec is not None else ():
        text = _text(form.get(field_name(index, param.name)))
        picked = _text(form.get(field_name(index, param.name) + ".new"))
        value = picked or _read(param.editor, text)
        if value is not None:
            params[param.name] = value
    for name in _text(form.get(field_name(index, "_extra"))).split(","):
        if name:
            value = _read(None, _text(form.get(field_name(index, "x." + name))))
            if value is not None:
                params[name] = value
    return params


def from_form(form: FormMultiDict) -> Draft:
    """The editor's form as a draft: ``c<i>.type`` for each command in order, ``c<i>.<param>`` its fields."""
    commands = []
    index = 1
    while (command_type := form.get(field_name(index, "type"))) is not None:
        kind = _text(command_type)
        commands.append(DraftCommand(type=kind, params=_params_of(form, index, kind)))
        index += 1
    retry_of = tuple(int(v) for v in _text(form.get("retry_of")).split(",") if v.isdigit())
    return Draft(
        author=_text(form.get("author")),
        title=_text(form.get("title")),
        project=_text(form.get("project")),
        commands=tuple(commands),
        retry_of=retry_of,
    )


# --- what the template draws ----------------------------------------------------------------------------


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
        value="" if picked else _shown(param.editor, value),
        required=required,
        picked=picked,
        errors=tuple(errors),
    )


def command_views(draft: Draft, errors: Sequence[BatchError] = ()) -> tuple[CommandView, ...]:
    """Every command of the draft as the editor draws it, each error of the core next to its command (and its
    field, when it names one)."""
    by_command: dict[int, list[BatchError]] = {}
    for error in errors:
        if error.command is not None:
            by_command.setdefault(error.command, []).append(error)
    views = []
    defined: list[tuple[str, str]] = []
    for index, command in enumerate(draft.commands, start=1):
        temp_keys = dict(defined[-PICKED_TEMP_KEYS:])
        spec = CATALOGUE.get(command.type)
        mine = by_command.get(index, [])
        known_params = {p.name for p in spec.params} if spec is not None else set()
        fields = []
        if spec is not None:
            for param in spec.params:
                near = [e.message for e in mine if e.param == param.name]
                fields.append(
                    _field(
                        index, param, command.params, required=param in spec.required, errors=near, temp_keys=temp_keys
                    )
                )
        extra = [name for name in command.params if name not in known_params]
        for name in extra:
            fields.append(
                FieldView(
                    name=field_name(index, "x." + name),
                    param=name,
                    label=name,
                    doc="параметра с таким именем у этого типа нет",
                    editor="json",
                    value=_shown(None, command.params[name]),
                    required=False,
                    errors=tuple(e.message for e in mine if e.param == name),
                )
            )
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
        views.append(
            CommandView(
                index=index,
                type=command.type,
                label=spec.label if spec is not None else "неизвестный тип",
                doc=spec.doc if spec is not None else "",
                known=spec is not None,
                fields=tuple(f for f in fields if f not in folded),
                more=folded,
                extra=",".join(extra),
                temp_keys=tuple(temp_keys.items()),
                errors=tuple(e.message for e in mine if e.param not in shown),
            )
        )
        if spec is not None and spec.creates_issue and is_temp_key(command.params.get("temp_key")):
            defined.append((command.params["temp_key"], str(command.params.get("summary") or "")))
    return tuple(views)
