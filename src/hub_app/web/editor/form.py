"""The batch editor's draft: a batch as form fields and back, generated from the command catalogue.

A :class:`Draft` is what the editor holds (the batch's author, title, project and commands in order); it becomes
the body of ``POST /batches`` (:meth:`Draft.body`) and is read back from one (:func:`from_body`: the JSON view) or
from the editor's form (:func:`from_form`). Each parameter is one field whose shape is its catalogue entry's
:class:`~reconcile.vocabulary.catalogue.Editor` kind: a line of text, several lines, a date, a list (one item a line),
yes/no, a status path (one status a line). An empty field is a parameter not given.

The JSON view → editor → JSON round trip changes nothing (issue 32): a value its field would not give back as it
is — a parameter the type does not have, a string where a list is expected, ``null``, a text with blanks around
it — stays a JSON field (the core then names it, as the API does); a command that is not ``{type, params}`` stays
JSON whole; the batch's other keys (``notes``) and an author, title or project that is not a string ride along
unseen (:attr:`Draft.extra`).

What the editor draws of a draft is :mod:`hub_app.web.editor.views`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import attrs
from litestar.datastructures import FormMultiDict

from reconcile.vocabulary import CATALOGUE, Editor

__all__ = ["RAW", "Draft", "DraftCommand", "as_json", "field_name", "fits", "from_body", "from_form", "shown"]

_LISTS = frozenset({Editor.LIST, Editor.KEY_LIST})
_SPLIT = re.compile(r"[\r\n,]+")
_PATH = re.compile(r"[\r\n,→]+")
_TEMP_NUMBER = re.compile(r"^new:([1-9][0-9]*)$")
_TOP = ("author", "title", "project", "commands")
#: Editors drawn as a ``<textarea>`` (a line break is kept; the browser sends it as CRLF, the HTML parser drops
#: one leading line break); the others are one-line inputs or selects (no line break survives them).
_AREAS = frozenset({Editor.MULTILINE_TEXT, Editor.LIST, Editor.KEY_LIST})
#: What a command whose JSON is not ``{type, params}`` is drawn as.
RAW = "raw"


@attrs.frozen(kw_only=True)
class DraftCommand:
    type: str
    params: Mapping[str, Any] = attrs.field(factory=dict)
    # The command as JSON text when it is not an object ``{type: <text>, params: <object>}``: kept as typed.
    raw: str | None = None


@attrs.frozen(kw_only=True)
class Draft:
    author: str = ""
    title: str = ""
    project: str = ""
    commands: tuple[DraftCommand, ...] = ()
    # The commands a draft retries (``/new?retry=``): the batch it makes waits again when theirs did.
    retry_of: tuple[int, ...] = ()
    # The body's keys the editor has no field for (``notes``; an author, title or project that is not text), as
    # they came: a field given overrides its key.
    extra: Mapping[str, Any] = attrs.field(factory=dict)

    def body(self) -> dict[str, Any]:
        """The body of ``POST /batches``; an empty author or title is left out (the core names it)."""
        body: dict[str, Any] = {name: self.extra[name] for name in _TOP[:3] if name in self.extra}
        if self.author.strip():
            body["author"] = self.author.strip()
        if self.title.strip():
            body["title"] = self.title.strip()
        if self.project.strip():
            body["project"] = self.project.strip()
        commands = [_command_body(c) for c in self.commands]
        body["commands"] = self.extra["commands"] if "commands" in self.extra and not commands else commands
        body.update((name, value) for name, value in self.extra.items() if name not in _TOP)
        return body

    def extra_text(self) -> str:
        """:attr:`extra` as the form carries it (empty when there is none)."""
        return json.dumps(dict(self.extra), ensure_ascii=False) if self.extra else ""

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


def _command_body(command: DraftCommand) -> Any:
    if command.raw is not None:
        return _json_or_text(command.raw)
    return {"type": command.type, "params": dict(command.params)}


def _json_or_text(text: str) -> Any:
    """JSON typed into a field; text that is no JSON, as it is (the core names what is wrong with it)."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _draft_command(item: Any) -> DraftCommand:
    if isinstance(item, dict) and set(item) == {"type", "params"}:
        kind, params = item["type"], item["params"]
        if isinstance(kind, str) and isinstance(params, dict):
            return DraftCommand(type=kind, params=dict(params))
    return DraftCommand(type="", raw=json.dumps(item, ensure_ascii=False, indent=2))


def _own(value: Any) -> bool:
    """Whether a top-level value is one the editor's field gives back as it is (a text, not empty, without blanks
    around)."""
    return isinstance(value, str) and bool(value) and value == value.strip()


def from_body(body: Any, *, author: str = "") -> Draft:
    """A batch body (the JSON view, a retry) as a draft that gives the same body back (see the module docstring);
    a body that is not an object is an empty draft (the page shows the core's refusal of it instead)."""
    if not isinstance(body, dict):
        return Draft(author=author)
    raw = body.get("commands")
    commands = tuple(_draft_command(item) for item in raw) if isinstance(raw, list) else ()
    fields = {name: body[name] for name in _TOP[:3] if _own(body.get(name))}
    extra = {name: value for name, value in body.items() if name not in fields and name != "commands"}
    if "commands" in body and not isinstance(raw, list):
        extra["commands"] = raw
    return Draft(
        author=author or fields.get("author", ""),
        title=fields.get("title", ""),
        project=fields.get("project", ""),
        commands=commands,
        extra=extra,
    )


def field_name(index: int, param: str) -> str:
    return f"c{index}.{param}"


def shown(editor: Editor, value: Any) -> str:
    """A parameter's value as its field's text (``""`` for none; the field kind's own shape for a value that fits
    it, else JSON)."""
    if value is None:
        return ""
    if editor is Editor.YES_NO and isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value) and editor is Editor.STATUS_PATH:
        return " → ".join(value)
    if isinstance(value, list) and all(isinstance(v, str) for v in value) and editor in _LISTS:
        return "\n".join(value)
    return as_json(value)


def as_json(value: Any) -> str:
    """A value drawn as a JSON field."""
    return json.dumps(value, ensure_ascii=False)


def _read(editor: Editor, text: str) -> Any:
    """A field's text as the parameter's value; ``None``: not given."""
    if editor is Editor.JSON_OBJECT:  # JSON as typed (plain text when it is none)
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


def fits(editor: Editor, value: Any) -> bool:
    """Whether the field of ``editor`` gives ``value`` back as it is once drawn and submitted by a browser (else
    the value is drawn as JSON): the same type and value after :func:`_shown` and :func:`_read`, and no line break
    a browser would change (CR; a textarea's leading one; any in a one-line input)."""
    if value is None:
        return False
    texts = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    for text in texts:
        if not isinstance(text, str) or "\r" in text:
            return False
        if editor in _AREAS and text.startswith("\n"):
            return False
        if editor not in _AREAS and "\n" in text:
            return False
    back = _read(editor, shown(editor, value))
    return type(back) is type(value) and back == value


def _params_of(form: FormMultiDict, index: int, command_type: str) -> dict[str, Any]:
    spec = CATALOGUE.get(command_type)
    params: dict[str, Any] = {}
    for param in spec.params if spec is not None else ():
        text = _text(form.get(field_name(index, param.name)))
        picked = _text(form.get(field_name(index, param.name) + ".new"))  # a temp key of the batch
        picked = picked or _text(form.get(field_name(index, param.name) + ".pick")).strip()  # a mirror's value
        value = picked or _read(param.editor, text)
        if value is not None:
            params[param.name] = value
    for name in _text(form.get(field_name(index, "_extra"))).split(","):
        text = _text(form.get(field_name(index, "x." + name)))
        if name and text.strip():  # a JSON field left empty is a parameter not given; ``null`` is null
            params[name] = _json_or_text(text)
    return params


def _extra_of(form: FormMultiDict) -> dict[str, Any]:
    found = _json_or_text(_text(form.get("extra"))) if _text(form.get("extra")).strip() else {}
    return found if isinstance(found, dict) else {}


def from_form(form: FormMultiDict) -> Draft:
    """The editor's form as a draft: ``c<i>.type`` for each command in order, ``c<i>.<param>`` its fields (or
    ``c<i>.raw``, the command as JSON)."""
    commands = []
    index = 1
    while (command_type := form.get(field_name(index, "type"))) is not None:
        kind = _text(command_type)
        raw = form.get(field_name(index, RAW))
        if isinstance(raw, str):
            commands.append(DraftCommand(type="", raw=raw))
        else:
            commands.append(DraftCommand(type=kind, params=_params_of(form, index, kind)))
        index += 1
    retry_of = tuple(int(v) for v in _text(form.get("retry_of")).split(",") if v.isdigit())
    return Draft(
        author=_text(form.get("author")),
        title=_text(form.get("title")),
        project=_text(form.get("project")),
        commands=tuple(commands),
        retry_of=retry_of,
        extra=_extra_of(form),
    )
