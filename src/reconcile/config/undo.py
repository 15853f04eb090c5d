"""The setting ``undo`` (DESIGN.md 6.4): what the undo of a batch does with an issue the batch created.

Jira issues are not deleted by the hub: ``created_issue.mode`` ``leave`` (the default) lists the issue in the
undo's plan and leaves it; ``status`` moves it along ``path`` (statuses, as ``ensure_status.target``) and, when
``label`` is set, adds that label, so that a person finds and closes what the undone batch created.
"""

from __future__ import annotations

from typing import Any, Literal

import attrs

from reconcile.config.about import about
from reconcile.vocabulary.errors import ValidationError

__all__ = ["CreatedIssueUndo", "UndoSettings", "undo_from_json", "undo_to_json"]


@attrs.frozen(kw_only=True)
class CreatedIssueUndo:
    mode: Literal["leave", "status"] = attrs.field(
        default="leave",
        metadata=about(
            "созданная задача",
            "leave — оставить и назвать в плане отката; status — перевести по пути path и поставить метку label",
            choices=("leave", "status"),
        ),
    )
    path: list[str] = attrs.field(
        factory=list, metadata=about("путь статусов", "статусы по порядку, по одному в строке (для status)")
    )
    label: str | None = attrs.field(
        default=None, metadata=about("метка", "метка, которую откат ставит созданной задаче (для status)")
    )


@attrs.frozen(kw_only=True)
class UndoSettings:
    created_issue: CreatedIssueUndo = attrs.field(
        factory=CreatedIssueUndo,
        metadata=about("Созданная задача", "что откат пакета делает с задачей, которую пакет создал"),
    )


def undo_to_json(undo: UndoSettings) -> dict[str, Any]:
    created = undo.created_issue
    shown: dict[str, Any] = {"mode": created.mode}
    if created.path:  # mode status always has one (undo_from_json)
        shown["path"] = list(created.path)
    if created.label is not None:
        shown["label"] = created.label
    return {"created_issue": shown}


def _fail(message: str) -> ValidationError:
    return ValidationError(f"настройки: undo.created_issue{message}")


def undo_from_json(value: Any) -> UndoSettings:
    """``undo`` from JSON; :class:`ValidationError` naming the part that is wrong."""
    if not isinstance(value, dict) or set(value) - {"created_issue"}:
        raise ValidationError("настройки: undo — объект {created_issue}")
    created = value.get("created_issue", {"mode": "leave"})
    if not isinstance(created, dict) or set(created) - {"mode", "path", "label"}:
        raise _fail(" — объект {mode, path?, label?}")
    mode = created.get("mode", "leave")
    if mode not in ("leave", "status"):
        raise _fail(".mode — leave или status")
    path = created.get("path", [])
    if not isinstance(path, list) or not all(isinstance(step, str) and step.strip() for step in path):
        raise _fail(".path — список имён статусов")
    if mode == "status" and not path:
        raise _fail(".path обязателен при mode = status")
    label = created.get("label")
    if label is not None and (not isinstance(label, str) or not label.strip() or any(ch.isspace() for ch in label)):
        raise _fail(".label — метка Jira без пробелов")
    return UndoSettings(created_issue=CreatedIssueUndo(mode=mode, path=[s.strip() for s in path], label=label))
