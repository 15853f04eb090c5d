"""The hub's settings: their defaults, merge and validation, the settings form, what undo does.

The apps and other tools import from this face only; its modules are the inside."""

from __future__ import annotations

from reconcile.config.form import FormSection, as_typed, settings_form, settings_from_form
from reconcile.config.settings import EpicLink, Settings, merge_settings, settings_from_json, settings_to_json

__all__ = [
    "EpicLink",
    "FormSection",
    "Settings",
    "as_typed",
    "merge_settings",
    "settings_form",
    "settings_from_form",
    "settings_from_json",
    "settings_to_json",
]
