"""The plan a person approves (DESIGN.md 6.5): a batch's write lines, their digest, and what each delivery carries.

A batch waiting for approval keeps :class:`PlanSnapshot` ``{digest, lines, at}``: the lines of its unfinished
commands as the dry run predicts them from the mirror (:mod:`reconcile.types.write_lines`), each with its command's
``seq``, and ``digest`` = sha256 of their canonical JSON. The approver sends the digest of the plan they read; the
hub computes the plan again and refuses (:class:`PlanChanged`, 409) when the digests differ: the mirror moved
since the person looked. Each delivery of an approved command carries that command's lines
(:func:`approved_for`), with the temp keys created since substituted; the agent writes nothing else.

An approval also ends (:func:`expired`): an approved batch none of whose commands was delivered within
``approval_ttl_hours`` waits again, since what was approved is no longer what the mirror shows.

Pure: predictions, keys and the clock come in as values.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

import attrs

from reconcile.batches.validation import NewCommand
from reconcile.queue.tempkeys import temp_refs
from reconcile.types.prediction import Prediction
from reconcile.types.write_lines import WriteLine
from reconcile.vocabulary.canonical import canonical_json, sha256_hex
from reconcile.vocabulary.commands import is_temp_key
from reconcile.vocabulary.errors import ConflictError
from reconcile.vocabulary.text import utc_text
from reconcile.vocabulary.wording import field_change, field_name, field_value, show

__all__ = [
    "PLAN_CHANGED",
    "PLAN_NEEDED",
    "PlanChanged",
    "PlanSnapshot",
    "StalePlan",
    "approved_for",
    "expired",
    "line_words",
    "plan_digest",
    "plan_line_json",
    "snapshot",
]

PLAN_CHANGED = "план изменился — посмотрите и одобрите заново"
PLAN_NEEDED = "plan — ожидается дайджест одобряемого плана (digest из GET /batches/{id}/plan)"


def _iso(at: datetime) -> str:
    return utc_text(at, "micro")


@attrs.frozen(kw_only=True)
class PlanSnapshot:
    """A batch's plan at one moment: the write lines (JSON, each with ``seq``), their digest, and when."""

    digest: str
    lines: tuple[Mapping[str, Any], ...]
    at: datetime

    def to_json(self) -> dict[str, Any]:
        return {"digest": self.digest, "lines": [dict(line) for line in self.lines], "at": _iso(self.at)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PlanSnapshot:
        return cls(
            digest=str(data["digest"]),
            lines=tuple(data.get("lines") or ()),
            at=datetime.fromisoformat(str(data["at"])),
        )


@attrs.frozen(kw_only=True)
class StalePlan:
    """Why an approved batch waits again: the agent found writes not approved (``difference``) at ``at``."""

    difference: tuple[Mapping[str, Any], ...]
    at: datetime

    def to_json(self) -> dict[str, Any]:
        return {"difference": [dict(item) for item in self.difference], "at": _iso(self.at)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> StalePlan:
        return cls(difference=tuple(data.get("difference") or ()), at=datetime.fromisoformat(str(data["at"])))


class PlanChanged(ConflictError):
    """The plan approved is not the plan now (409 «план изменился — посмотрите и одобрите заново»); ``plan`` is
    the current one, which the answer carries."""

    def __init__(self, plan: PlanSnapshot) -> None:
        super().__init__(PLAN_CHANGED)
        self.plan = plan


def plan_line_json(seq: int, line: WriteLine) -> dict[str, Any]:
    return {"seq": seq, **line.to_json()}


def plan_digest(lines: Sequence[Mapping[str, Any]]) -> str:
    """sha256 (hex) of the lines' canonical JSON."""
    return sha256_hex(canonical_json(list(lines)))


def snapshot(
    commands: Sequence[NewCommand],
    predictions: Sequence[Prediction | None],
    *,
    to_be_created: Iterable[str],
    now: datetime,
) -> PlanSnapshot:
    """The plan of ``commands`` with their ``predictions`` (``None``: the command will be skipped, no lines).

    A command that names an issue the batch has still to create (a temp key among ``to_be_created``) vouches for
    nothing its writes find there: the issue's fields are Jira's defaults until it exists.
    """
    pending = frozenset(to_be_created)
    lines: list[dict[str, Any]] = []
    for command, prediction in zip(commands, predictions, strict=True):
        if prediction is None:
            continue
        unknown = any(key in pending for key in temp_refs(command.type, command.params))
        for line in prediction.lines:
            if unknown and line.aspect != "issue":
                line = line.vouching_nothing_before()  # noqa: PLW2901
            lines.append(plan_line_json(command.seq, line))
    return PlanSnapshot(digest=plan_digest(lines), lines=tuple(lines), at=now)


def _substituted(value: Any, resolved: Mapping[str, str]) -> Any:
    if isinstance(value, str):
        return resolved.get(value, value) if is_temp_key(value) else value
    if isinstance(value, Mapping):
        return {k: _substituted(v, resolved) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_substituted(v, resolved) for v in value]
    return value


def approved_for(plan: PlanSnapshot, seq: int, *, resolved_temp_keys: Mapping[str, str]) -> list[dict[str, Any]]:
    """The approved lines of the batch's command ``seq`` (without ``seq``), the temp keys created since the plan
    was computed replaced by their keys: what its delivery carries as ``context.approved``."""
    return [
        _substituted({k: v for k, v in line.items() if k != "seq"}, resolved_temp_keys)
        for line in plan.lines
        if line.get("seq") == seq
    ]


def expired(approved_at: datetime | None, *, delivered_since: bool, now: datetime, ttl_hours: float) -> bool:
    """Whether an approval given at ``approved_at`` has lapsed: nothing of the batch was delivered since
    (``delivered_since``) and ``ttl_hours`` have passed."""
    if approved_at is None or delivered_since:
        return False
    return now - approved_at >= timedelta(hours=ttl_hours)


def _link_words(link: Any) -> str:
    if isinstance(link, Mapping) and {"type", "source", "target"} <= set(link):
        return f"«{link['type']}» {link['source']} → {link['target']}"
    return show(link)


def line_words(line: Mapping[str, Any]) -> str:
    """A plan line as a person reads it: «AURORA-1533 ~ название: «Сверка» → «Сверка v2»» (without ``from``:
    «? →», the plan could not vouch for it)."""
    key, aspect, after = line.get("key"), str(line.get("aspect")), line.get("to")
    before = line.get("from")
    known = "from" in line
    if aspect == "issue":
        return f"{key} + задача {show(after)}"
    if aspect == "link":
        return f"{key} - связь {_link_words(before)}" if after is None else f"{key} + связь {_link_words(after)}"
    if aspect == "labels" and isinstance(after, Mapping):
        verb, label = next(iter(after.items()), ("?", "?"))
        return f"{key} {'+' if verb == 'add' else '-'} метка {show(label)}"
    if aspect in ("comment", "attachment"):
        return f"{key} + {'комментарий' if aspect == 'comment' else 'вложение'} {show(after)}"
    if aspect == "sprint":  # no sprint is the backlog, before as after
        before, after = ("бэклог" if v is None else v for v in (before, after))
    if aspect == "status":
        return f"{key} ~ статус: {show(before) if known else '?'} → {show(after)}"
    if not known:
        return f"{key} ~ {field_name(aspect)}: ? → {field_value(aspect, after)}"
    return f"{key} ~ {field_change(aspect, before, after)}"
