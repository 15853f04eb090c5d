"""Bodies about the mirror: a note, and the MCP tools' arguments naming a project's slice or an issue."""

from __future__ import annotations

import attrs

from hub_app.bodies.parsing import meta

__all__ = ["IssueRef", "NoteIn", "SliceArgs"]


@attrs.frozen(kw_only=True)
class NoteIn:
    key: str = attrs.field(metadata=meta("nonempty", "ключ задачи Jira (AURORA-1538)"))
    text: str = attrs.field(metadata=meta("nonempty"))


@attrs.frozen(kw_only=True)
class SliceArgs:
    project: str = attrs.field(metadata=meta("nonempty", "проект хаба (метка Jira)"))
    limit: int | None = attrs.field(default=None, metadata=meta("int", minimum=0))
    offset: int | None = attrs.field(default=None, metadata=meta("int", minimum=0))


@attrs.frozen(kw_only=True)
class IssueRef:
    key: str = attrs.field(metadata=meta("nonempty", "ключ задачи Jira (AURORA-1538)"))
