"""The settings as a form (DESIGN.md 8, round 3): one section per setting with its label and description (the
``metadata`` next to each definition in :mod:`reconcile.config.settings`), one field per value, and the form's values
back as a whole settings object, which :func:`reconcile.config.settings.settings_from_json` validates as any other.

A field's kind follows the setting's type: a text, a text that may be empty (``null``), a number, a whole number,
yes/no, a choice; a nested object (``epic_link``, ``approval``) and the issue types give one field per value; the
pacing one per command type (named by the catalogue); a map of names (``fields``, ``link_types``) is a text of
``имя = значение`` lines.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from enum import StrEnum
from typing import Any

import attrs

from reconcile.config.settings import Settings
from reconcile.vocabulary.catalogue import CATALOGUE
from reconcile.vocabulary.errors import ValidationError

__all__ = ["FormField", "FormSection", "Kind", "as_typed", "settings_form", "settings_from_form"]


class Kind(StrEnum):
    TEXT = "text"
    OPTIONAL_TEXT = "optional_text"
    NUMBER = "number"
    WHOLE = "whole"
    YES_NO = "yes_no"
    CHOICE = "choice"
    PAIRS = "pairs"
    LINES = "lines"


_KINDS = {"str": Kind.TEXT, "str | None": Kind.OPTIONAL_TEXT, "float": Kind.NUMBER, "int": Kind.WHOLE}


@attrs.frozen(kw_only=True)
class FormField:
    """One input: ``name`` is its path (``epic_link.mode``), ``value`` what the form shows."""

    name: str
    label: str
    doc: str
    kind: Kind
    value: str
    choices: tuple[str, ...] = ()


@attrs.frozen(kw_only=True)
class FormSection:
    """One setting: its label, description and fields."""

    name: str
    label: str
    doc: str
    fields: tuple[FormField, ...]


def _shown(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "да" if value else "нет"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _leaf(name: str, field: Any, value: Any, *, label: str | None = None) -> FormField:
    meta = field.metadata
    choices = tuple(meta.get("choices", ()))
    kinds = {**_KINDS, "list[str]": Kind.LINES}
    kind = Kind.YES_NO if field.type == "bool" else Kind.CHOICE if choices else kinds[field.type]
    if kind is Kind.LINES:
        value = "\n".join(value)
    return FormField(
        name=name, label=label or meta["label"], doc=meta["doc"], kind=kind, value=_shown(value), choices=choices
    )


def _fields(name: str, field: Any, value: Any) -> Iterator[FormField]:
    meta = field.metadata
    if attrs.has(type(value)):
        for sub in attrs.fields(type(value)):
            inner = getattr(value, sub.name)
            if attrs.has(type(inner)):  # an object inside a setting (undo.created_issue): its values each
                yield from _fields(f"{name}.{sub.name}", sub, inner)
            else:
                yield _leaf(f"{name}.{sub.name}", sub, inner)
    elif field.type == "dict[str, str]":
        text = "\n".join(f"{key} = {item}" for key, item in value.items())
        yield FormField(name=name, label=meta["label"], doc=meta["doc"], kind=Kind.PAIRS, value=text)
    elif field.type == "dict[str, float]":
        for command_type, gap in value.items():
            spec = CATALOGUE.get(command_type)
            label = f"{spec.label} ({command_type})" if spec else command_type
            yield FormField(
                name=f"{name}.{command_type}", label=label, doc=meta["doc"], kind=Kind.NUMBER, value=_shown(gap)
            )
    elif field.type.startswith("dict[str, "):
        for key, ref in value.items():
            for sub in attrs.fields(type(ref)):
                yield _leaf(
                    f"{name}.{key}.{sub.name}", sub, getattr(ref, sub.name), label=f"{key}: {sub.metadata['label']}"
                )
    else:
        yield _leaf(name, field, value)


def settings_form(settings: Settings) -> tuple[FormSection, ...]:
    """The form of ``settings``: a section per setting, in the definitions' order."""
    return tuple(
        FormSection(
            name=field.name,
            label=field.metadata["label"],
            doc=field.metadata["doc"],
            fields=tuple(_fields(field.name, field, getattr(settings, field.name))),
        )
        for field in attrs.fields(Settings)
    )


def _number(text: str, *, whole: bool) -> Any:
    """A number typed (a decimal comma too); what is no number is handed on as typed, for validation to refuse."""
    cleaned = text.strip().replace(",", ".").replace(" ", "")
    try:
        return int(cleaned) if whole else (int(cleaned) if cleaned.lstrip("-").isdigit() else float(cleaned))
    except ValueError:
        return text


def _pairs(name: str, text: str) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        key, sep, value = line.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise ValidationError(f"настройки: {name}, строка {number} — ожидается «имя = значение»")
        pairs[key.strip()] = value.strip()
    return pairs


def _value(field: FormField, form: Mapping[str, str]) -> Any:
    text = form.get(field.name, "")
    if field.kind is Kind.YES_NO:
        return text not in ("", "0", "нет")
    if field.kind is Kind.OPTIONAL_TEXT:
        return text.strip() or None
    if field.kind in (Kind.NUMBER, Kind.WHOLE):
        return _number(text, whole=field.kind is Kind.WHOLE)
    if field.kind is Kind.PAIRS:
        return _pairs(field.name, text)
    if field.kind is Kind.LINES:
        return [line.strip() for line in text.splitlines() if line.strip()]
    return text.strip()


def settings_from_form(form: Mapping[str, str], current: Settings) -> dict[str, Any]:
    """The whole settings object the form says (every field of :func:`settings_form` of ``current``), as JSON: the
    caller validates it with :func:`~reconcile.config.settings.settings_from_json`. An issue type's empty id or name is
    not set."""
    data: dict[str, Any] = {}
    for section in settings_form(current):
        for field in section.fields:
            place = data
            *path, last = field.name.split(".")
            for part in path:
                place = place.setdefault(part, {})
            place[last] = _value(field, form)
    issue_types = data.get("issue_types", {})  # no issue type set: no field, no key
    for name, ref in list(issue_types.items()):
        issue_types[name] = {k: v for k, v in ref.items() if v is not None}
    created = data["undo"]["created_issue"]
    if created["label"] is None:
        del created["label"]
    return data


def _typed(field: FormField, form: Mapping[str, str]) -> str:
    return _shown(_value(field, form)) if field.kind is Kind.YES_NO else form.get(field.name, "")


def as_typed(sections: tuple[FormSection, ...], form: Mapping[str, str]) -> tuple[FormSection, ...]:
    """The form again with what was typed in it (a refused form is shown as the person left it)."""
    return tuple(
        attrs.evolve(section, fields=tuple(attrs.evolve(f, value=_typed(f, form)) for f in section.fields))
        for section in sections
    )
