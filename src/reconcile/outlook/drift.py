"""Drift (DESIGN.md section 6.1): desired states a batch made true that the mirror no longer shows.

Every ``done`` or ``confirmed_by_state`` command states a desired state of one or more **aspects**: each field
of an ``ensure_fields`` (each label on its own), the status of an ``ensure_status``, the sprint of an
``ensure_sprint``, the link of an ``ensure_link``, the existence of the issue an ``ensure_issue`` made. Per
aspect only the latest command that set it counts (:func:`latest_settings`); it drifts when the confirmation
rules (:func:`reconcile.outlook.confirm.confirm`, the same code that confirms by state), applied to the current mirror
for that aspect alone, no longer hold (:func:`find_drift`). The journal says who changed it last and when
(:func:`attribute`); :func:`reapply_body` is the batch that puts the chosen commands' drifted aspects back.

Decisions where the design is silent:

- "later" is the order the commands were finished in (the caller passes them oldest first);
- two links between the same two issues are one aspect, whatever their direction and type: the confirmation
  of either counts the other as a conflict, so the later one always wins (a replaced link is not drift);
- a command is judged only on a mirror record read since it finished (not between its report and its tail
  refresh, when the mirror still shows the state before it);
- an issue absent from the mirror is not judged (the mirror does not cover it); a vanished one is judged only
  for its existence, and only when a batch created it: its fields are gone with it;
- the existence of an issue is not in Jira's journal (``changed_by`` and ``changed_at`` stay ``None``); the
  planned dates are custom fields the journal names by their display names, which the hub does not know, so
  their entry is the latest one that moved a custom date to the value the mirror shows now.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

import attrs

from reconcile.batches.bodies import retry_params
from reconcile.jira.replaced import conflicts_of_result
from reconcile.outlook.confirm import AgentFacts, Aspect, aspect_names, holds, narrow, subject
from reconcile.queue.tempkeys import TempKeyOutcome, outcome_of, resolved_keys, result_key, substitute
from reconcile.vocabulary.catalogue import CATALOGUE, AspectKind, setting_types
from reconcile.vocabulary.commands import DATE_RE
from reconcile.vocabulary.lifecycle import CommandStatus
from reconcile.vocabulary.records import (
    ISSUE_TEXT_FIELDS,
    HistoryEntry,
    HistoryItem,
    MirrorIssue,
    MirrorLink,
    natural_key,
)

__all__ = [
    "SETTING_TYPES",
    "Drift",
    "MirrorReads",
    "SetCommand",
    "Setting",
    "attribute",
    "find_drift",
    "journal_keys",
    "latest_settings",
    "mirror_reads",
    "natural_key",
    "reapply_body",
]

#: The command types whose state drift follows: those that set an aspect.
SETTING_TYPES = setting_types(CATALOGUE)

_EXISTENCE = AspectKind.EXISTENCE.value
_DONE = CommandStatus.DONE.value


@attrs.frozen(kw_only=True)
class SetCommand:
    """A ``done`` or ``confirmed_by_state`` command as stored: params as enqueued (temp keys not substituted),
    ``result`` (read for an ``ensure_issue``'s key) and when it finished."""

    id: int
    batch_id: int
    type: str
    params: Mapping[str, Any]
    temp_key: str | None = None
    result: Mapping[str, Any] | None = None
    finished_at: datetime | None = None


@attrs.frozen(kw_only=True)
class Setting:
    """A command with the aspects no later command set: ``params`` with temp keys substituted, ``key`` the issue
    (a link's source, the issue an ``ensure_issue`` created), ``aspects`` its own."""

    command: SetCommand
    key: str
    params: Mapping[str, Any]
    aspects: tuple[str, ...]


@attrs.frozen(kw_only=True)
class Drift:
    """One drifted aspect: what the command wanted, what the mirror shows now, who changed it last and when.

    ``params`` is the command narrowed to the aspect (what :func:`reapply_body` re-asserts).
    """

    command_id: int
    batch_id: int
    key: str
    type: str
    aspect: str
    wanted: Any
    now: Any
    changed_by: str | None = None
    changed_at: str | None = None
    # Not in the answers (``doc: False``): what reapply re-asserts, not what a person reads.
    params: Mapping[str, Any] = attrs.field(factory=dict, eq=False, repr=False, metadata={"doc": False})


def _slot(key: str, name: str, params: Mapping[str, Any]) -> tuple[str, ...]:
    """The identity of an aspect for supersession: a link is its (unordered) pair of issues."""
    if name == "link":
        # ``target`` is a required issue key of ``ensure_link`` (the catalogue).
        return (*sorted((key, params["target"])), name)
    return key, name


def _setting_of(command: SetCommand, resolved: Mapping[str, str]) -> tuple[str, Mapping[str, Any], tuple[str, ...]]:
    """The command's issue, its params with temp keys substituted, and the names of its aspects."""
    params = substitute(command.type, command.params, resolved)
    if CATALOGUE[command.type].creates_issue:
        key = result_key(command.result)
        return key or "", params, (_EXISTENCE,) if key else ()
    # An aspect an only-if-unchanged command left alone (a conflict) it did not set: an earlier command still does.
    left = {conflict.field for conflict in conflicts_of_result(command.result)}
    names = tuple(name for name in aspect_names(command.type, params) if name not in left)
    return subject(command.type, params) or "", params, names


def latest_settings(commands: Iterable[SetCommand]) -> list[Setting]:
    """Per aspect, the latest of ``commands`` (given oldest first) that set it: the commands that still set
    something, each with the aspects that are its own, oldest first.

    Temp keys are substituted by the keys their batch's ``ensure_issue`` created (those are among
    ``commands``: a dependent command runs only after its issue exists).
    """
    ordered = [c for c in commands if c.type in SETTING_TYPES]
    created: dict[int, dict[str, TempKeyOutcome]] = {}
    for command in ordered:
        if command.temp_key:  # only an ``ensure_issue`` defines a temp key
            created.setdefault(command.batch_id, {})[command.temp_key] = outcome_of(_DONE, command.result)
    resolved = {batch_id: resolved_keys(outcomes) for batch_id, outcomes in created.items()}
    found = [_setting_of(command, resolved.get(command.batch_id, {})) for command in ordered]
    slots = [[(name, _slot(key, name, params)) for name in names] for key, params, names in found]
    latest: dict[tuple[str, ...], int] = {}
    for index, own_slots in enumerate(slots):
        latest.update((slot, index) for _, slot in own_slots)
    settings: list[Setting] = []
    for index, (key, params, _) in enumerate(found):
        own = tuple(name for name, slot in slots[index] if latest[slot] == index)
        if own:
            command = ordered[index]
            settings.append(Setting(command=command, key=key, params=params, aspects=own))
    return settings


def _wanted_and_now(aspect: Aspect, issue: MirrorIssue, link_types: Mapping[str, str]) -> tuple[Any, Any]:
    params = aspect.params
    if aspect.name.startswith("label:"):
        label = aspect.name.removeprefix("label:")
        return "labels_add" in params, label in issue.labels
    if aspect.name == "status":
        target = params.get("target")
        return (target[-1] if isinstance(target, list | tuple) and target else target), issue.status
    if aspect.name == "sprint":
        return params.get("sprint") or "backlog", issue.sprint.name if issue.sprint is not None else "backlog"
    if aspect.name == "link":
        source, target = params.get("source"), params.get("target")
        logical = params["link_type"]
        wanted = {
            "source": source,
            "target": target,
            "type": link_types.get(logical, logical),  # a required text (the catalogue)
        }
        between = [link for link in issue.links if {link.source, link.target} == {source, target}]
        # A removal (``present: false``) wants no such link.
        return None if params.get("present") is False else wanted, [_link_json(link) for link in between]
    # Every other aspect is a field ``ensure_fields`` sets, which the mirror record holds by that name.
    return params.get(aspect.name), getattr(issue, aspect.name)


def _link_json(link: MirrorLink) -> dict[str, str]:
    return {"source": link.source, "target": link.target, "type": link.type}


def _ends(key: str, params: Mapping[str, Any], command_type: str) -> tuple[str, ...]:
    target = params.get("target") if CATALOGUE[command_type].sets is AspectKind.LINK else None
    return (key, target) if isinstance(target, str) else (key,)


@attrs.frozen(kw_only=True)
class MirrorReads:
    """What :func:`find_drift` reads of the mirror for some settings: the records of ``keys`` (a link: both ends),
    of their text fields only ``fields``, the links only of ``linked`` (the links' sources), the labels only when
    a label was set (or a project's drift is asked for: its label) and the sprints only when a sprint was."""

    keys: frozenset[str]
    fields: frozenset[str]
    linked: frozenset[str]
    labels: bool = False
    sprints: bool = False


def mirror_reads(settings: Iterable[Setting]) -> MirrorReads:
    """What the mirror must hold for :func:`find_drift` to judge ``settings``."""
    keys: set[str] = set()
    fields: set[str] = set()
    linked: set[str] = set()
    labels = sprints = False
    for setting in settings:
        command_type, params = setting.command.type, setting.params
        keys.update(_ends(setting.key, params, command_type))
        kind = CATALOGUE[command_type].sets
        if kind is AspectKind.FIELDS:
            fields.update(name for name in params if name in ISSUE_TEXT_FIELDS)
            labels = labels or "labels_add" in params or "labels_remove" in params
        elif kind is AspectKind.STATUS:
            fields.add("status")
        elif kind is AspectKind.SPRINT:
            sprints = True
        elif kind is AspectKind.LINK:
            linked.add(setting.key)
    return MirrorReads(
        keys=frozenset(keys), fields=frozenset(fields), linked=frozenset(linked), labels=labels, sprints=sprints
    )


def _drift(setting: Setting, aspect: Aspect, wanted: Any, now: Any) -> Drift:
    command = setting.command
    return Drift(
        command_id=command.id,
        batch_id=command.batch_id,
        key=aspect.key,
        type=command.type,
        aspect=aspect.name,
        wanted=wanted,
        now=now,
        params=aspect.params,
    )


def find_drift(
    settings: Iterable[Setting],
    *,
    mirror: Mapping[str, MirrorIssue],
    vanished: Mapping[str, MirrorIssue] | None = None,
    facts: AgentFacts,
    link_types: Mapping[str, str],
    project: str | None = None,
    read_at: Mapping[str, datetime] | None = None,
) -> list[Drift]:
    """The drifted aspects among ``settings`` (from :func:`latest_settings`), by key in natural order.

    ``mirror`` holds the mirror records not vanished, ``vanished`` the vanished ones (with at least what
    :func:`mirror_reads` names); with ``project``, only
    aspects of issues carrying its label (a link: either end) are judged. ``read_at`` says when the mirror last
    read each issue (a vanished one: when it found it gone): a command is judged only on a record read since it
    finished, so a batch whose tail refresh has not run yet does not show as drift.
    """
    gone = vanished or {}
    records = (*mirror.values(), *gone.values())
    in_project = {record.key for record in records if project in record.labels} if project is not None else None
    found: list[Drift] = []
    for setting in settings:
        command_type, params = setting.command.type, setting.params
        ends = _ends(setting.key, params, command_type)
        if in_project is not None and not any(key in in_project for key in ends):
            continue
        finished, seen = setting.command.finished_at, (read_at or {}).get(setting.key)
        if finished is not None and seen is not None and seen < finished:
            continue
        if CATALOGUE[command_type].creates_issue:
            if setting.key in gone:
                found.append(_drift(setting, Aspect(key=setting.key, name=_EXISTENCE, params=params), True, False))
            continue
        issue = mirror.get(setting.key)
        if issue is None or any(key in gone for key in ends):
            continue
        # A command holds exactly when each of its aspects does: most hold, and are checked once, whole.
        if holds(command_type, params, mirror=mirror, facts=facts, link_types=link_types):
            continue
        for name in setting.aspects:
            aspect = narrow(command_type, params, name)
            if not holds(command_type, aspect.params, mirror=mirror, facts=facts, link_types=link_types):
                found.append(_drift(setting, aspect, *_wanted_and_now(aspect, issue, link_types)))
    found.sort(key=lambda d: (natural_key(d.key), d.command_id))
    return found


# The journal's names of the fields (Jira names a custom field by its display name).
_JOURNAL_FIELDS: dict[str, tuple[str, ...]] = {
    "summary": ("summary",),
    "description": ("description",),
    "priority": ("priority",),
    "duedate": ("duedate",),
    "assignee": ("assignee",),
    "epic_key": ("epic link", "parent", "parent link"),
    "status": ("status",),
    "sprint": ("sprint",),
    "link": ("link",),
}
_SYSTEM_FIELDS = frozenset(name for names in _JOURNAL_FIELDS.values() for name in names) | {"labels"}


def _date(value: str | None) -> str | None:
    head = (value or "")[:10]
    return head if DATE_RE.match(head) else None


def _words(text: str | None) -> list[str]:
    return text.split() if text else []


def _touches(item: HistoryItem, drift: Drift, seen_from: str) -> bool:
    field = item.field.casefold()
    if drift.aspect.startswith("label:"):
        label = drift.aspect.removeprefix("label:")
        return field == "labels" and (label in _words(item.from_string)) != (label in _words(item.to_string))
    if drift.aspect == "link":
        other = drift.params.get("target") if seen_from == drift.key else drift.key
        return field == "link" and other in (item.from_, item.to)
    if drift.aspect in ("planned_start", "planned_end"):
        moved = {_date(item.from_), _date(item.from_string), _date(item.to), _date(item.to_string)} - {None}
        return field not in _SYSTEM_FIELDS and bool(moved) and _date(item.to or item.to_string) == _date(drift.now)
    return field in _JOURNAL_FIELDS[drift.aspect]


def journal_keys(items: Iterable[Drift]) -> list[str]:
    """The issues whose journal :func:`attribute` reads for ``items`` (a link: both ends)."""
    keys: list[str] = []
    for drift in items:
        if drift.aspect == _EXISTENCE:
            continue
        keys.append(drift.key)
        target = drift.params.get("target") if drift.aspect == "link" else None
        if isinstance(target, str):
            keys.append(target)
    return list(dict.fromkeys(keys))


def attribute(items: Sequence[Drift], journal: Mapping[str, Sequence[HistoryEntry]]) -> list[Drift]:
    """``items`` with ``changed_by`` and ``changed_at`` of the latest journal entry that touched each aspect."""
    answered: list[Drift] = []
    for drift in items:
        latest: HistoryEntry | None = None
        ends = journal_keys([drift])  # none for an existence
        for key in ends:
            for entry in journal.get(key, ()):
                if any(_touches(item, drift, key) for item in entry.items) and (
                    latest is None or (entry.created, entry.id) > (latest.created, latest.id)
                ):
                    latest = entry
        if latest is None:
            answered.append(drift)
        else:
            answered.append(attrs.evolve(drift, changed_by=latest.author, changed_at=latest.created))
    return answered


def _merged(items: Sequence[Drift]) -> dict[str, Any]:
    """One command's drifted aspects as its params (an ``ensure_fields`` keeps only the drifted fields)."""
    params: dict[str, Any] = {}
    for drift in items:
        for name, value in drift.params.items():
            if name in ("labels_add", "labels_remove"):
                params[name] = [*params.get(name, []), *value]
            else:
                params[name] = value
    return params


def reapply_body(items: Sequence[Drift], *, author: str, title: str, project: str | None) -> dict[str, Any]:
    """The batch that re-asserts the drifted aspects of the commands of ``items``, one command each, in the order
    they were first set (by command id); ``ensure_issue`` temp keys renumbered ``new:1…`` in this batch."""
    by_command: dict[int, list[Drift]] = {}
    for drift in sorted(items, key=lambda d: d.command_id):
        by_command.setdefault(drift.command_id, []).append(drift)
    commands: list[dict[str, Any]] = []
    created = 0
    for found in by_command.values():
        params = _merged(found)
        if CATALOGUE[found[0].type].creates_issue:
            created += 1
            params["temp_key"] = f"new:{created}"
        commands.append({"type": found[0].type, "params": retry_params(found[0].type, params)})
    body = {"author": author, "title": title, "commands": commands}
    if project is not None:
        body["project"] = project
    return body
