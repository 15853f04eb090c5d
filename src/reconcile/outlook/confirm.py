"""Confirmation by state (seed 001 «Подтверждение по состоянию», change 000).

After any refresh, a command in ``claimed`` whose desired result is visible in the mirror becomes
``confirmed_by_state``. :func:`mirror_needs` says which mirror records the check reads; :func:`confirm`
decides. ``params`` are the command's params as delivered (temp keys substituted); a command that still
references a temp key is never confirmed. Each type's entry (:mod:`reconcile.types.binding`) names its check
(:mod:`reconcile.types.state_checks`):

- ``ensure_fields``: every given field equals the mirror's (strings by :func:`reconcile.vocabulary.text.same_text`:
  CRLF == LF, ``null`` == ""; the summary after trimming spaces at both ends, as Jira stores it and the agent
  compares it); ``labels_add`` all present, ``labels_remove`` all absent;
- ``ensure_status``: the status equals the last step of the path;
- ``ensure_sprint``: the sprint's name equals ``sprint``; ``backlog`` (or ``null``) means no sprint;
- ``ensure_link``: the wanted link is there — ``source → target`` of the Jira type
  ``link_types[link_type]``, or ``target → source`` when that type is symmetric — and there is no conflict:
  no link of another type from ``link_types`` between the two issues in either direction, and no
  ``target → source`` link of the wanted type when it is not symmetric. Links are read from the source
  issue's mirror record, as the agent reads the source's ``issuelinks``; with ``present: false``, that the
  wanted link is not there;
- ``ensure_issue``: a mirror issue with the same ``summary`` after trimming spaces at both ends (Jira trims
  the summary it stores; the agent's duplicate search compares the same way), ``reporter`` = the agent's
  ``jira_user``, ``created`` not earlier than 7 days before ``now``; never while ``jira_user`` is unknown.
  When several match, the oldest (``created``, then key) wins, as in the agent. The confirmation carries
  its key;
- ``ensure_comment``, ``ensure_attachment``, ``refresh``: never (no comments or attachments in the mirror).

A command's desired state is a conjunction of **aspects** (:func:`aspects`): each field of an ``ensure_fields``
(each label of ``labels_add``/``labels_remove`` on its own), the status, the sprint, the link. Each aspect is
the command narrowed to it, checked by the same :func:`confirm`; the command holds exactly when all its aspects
do. Drift (:mod:`reconcile.outlook.drift`) checks them one by one.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

import attrs

from reconcile.queue.tempkeys import temp_refs
from reconcile.types.binding import TYPES
from reconcile.types.state_checks import ISSUE_LOOKBACK, AgentFacts, LooksAt, LooksFor
from reconcile.vocabulary.catalogue import CATALOGUE, AspectKind
from reconcile.vocabulary.records import MirrorIssue

__all__ = [
    "ISSUE_LOOKBACK",
    "AgentFacts",
    "Aspect",
    "Confirmation",
    "MirrorNeeds",
    "aspect_names",
    "aspects",
    "confirm",
    "holds",
    "mirror_needs",
    "narrow",
    "subject",
]


@attrs.frozen(kw_only=True)
class Confirmation:
    """The command is ``confirmed_by_state``; ``key`` is the found issue's key for ``ensure_issue``."""

    key: str | None = None


@attrs.frozen(kw_only=True)
class MirrorNeeds:
    """Mirror records the confirmation of one command reads.

    ``keys``: the issues by key. ``summary``: for ``ensure_issue``, the issues with this summary, already
    trimmed (the mirror keeps Jira's trimmed summary; the storage may narrow them further by ``reporter``
    and ``created``).
    """

    keys: tuple[str, ...] = ()
    summary: str | None = None


@attrs.frozen(kw_only=True)
class Aspect:
    """One part of a command's desired state: ``name`` on the issue ``key`` (a link's source), and the command
    narrowed to it (``params``: :func:`holds`, or :func:`confirm`, of these checks this aspect alone).

    Names: the field (``duedate``, ``epic_key``, …), ``label:<label>``, ``status``, ``sprint``, ``link``.
    """

    key: str
    name: str
    params: Mapping[str, Any]


def subject(command_type: str, params: Mapping[str, Any]) -> str | None:
    """The issue whose mirror record shows the command's state: its ``key``, a link's ``source``."""
    spec = CATALOGUE.get(command_type)
    name = spec.subject if spec is not None else None
    key: str | None = params.get(name) if name is not None else None  # validated: text
    return key


def aspect_names(command_type: str, params: Mapping[str, Any]) -> tuple[str, ...]:
    """The names of the command's aspects whose state the mirror shows, in the catalogue's parameter order.

    None for ``ensure_issue`` (its confirmation looks for the issue, not at it), for the types never confirmed,
    and for a command that still references a temp key. A label both added and removed counts once.
    """
    entry = TYPES.get(command_type)
    if (
        entry is None
        or not isinstance(entry.confirmation, LooksAt)
        or subject(command_type, params) is None
        or temp_refs(command_type, params)
    ):
        return ()
    kind = entry.spec.sets
    if kind is not AspectKind.FIELDS:
        return (kind.value,) if kind is not None else ()
    names: list[str] = []
    # The catalogue's order, not the stored params' (PostgreSQL's JSONB does not keep the order of keys); the
    # validation admits no other parameter, and the labels only as lists.
    for param in entry.spec.params:
        name = param.name
        if name not in params or name in (entry.spec.subject, "if_unchanged"):
            continue
        if name in ("labels_add", "labels_remove"):
            names.extend(f"label:{label}" for label in params[name])
        else:
            names.append(name)
    return tuple(dict.fromkeys(names))


def narrow(command_type: str, params: Mapping[str, Any], name: str) -> Aspect:
    """The command narrowed to its aspect ``name``; a label both added and removed is removed (the agent
    removes last)."""
    key = subject(command_type, params) or ""
    if CATALOGUE[command_type].sets is not AspectKind.FIELDS:
        # The state alone: what a re-assertion of it (drift's «Вернуть») must make true whatever Jira holds now.
        return Aspect(key=key, name=name, params={k: v for k, v in params.items() if k != "if_unchanged"})
    if name.startswith("label:"):
        label = name.removeprefix("label:")
        verb = "labels_remove" if label in (params.get("labels_remove") or ()) else "labels_add"
        return Aspect(key=key, name=name, params={"key": key, verb: [label]})
    return Aspect(key=key, name=name, params={"key": key, name: params.get(name)})


def aspects(command_type: str, params: Mapping[str, Any]) -> tuple[Aspect, ...]:
    """The command as its aspects (:func:`aspect_names`), each narrowed to itself."""
    return tuple(narrow(command_type, params, name) for name in aspect_names(command_type, params))


def mirror_needs(command_type: str, params: Mapping[str, Any]) -> MirrorNeeds:
    """Which mirror records :func:`confirm` needs for this command (nothing for types never confirmed)."""
    entry = TYPES.get(command_type)
    if entry is None or temp_refs(command_type, params):
        return MirrorNeeds()
    if isinstance(entry.confirmation, LooksAt):
        return MirrorNeeds(keys=(params[entry.spec.subject or ""],))  # required, and validated as text
    if isinstance(entry.confirmation, LooksFor):
        return MirrorNeeds(summary=params["summary"].strip())
    return MirrorNeeds()


def confirm(
    command_type: str,
    params: Mapping[str, Any],
    *,
    mirror: Mapping[str, MirrorIssue],
    facts: AgentFacts,
    link_types: Mapping[str, str],
    now: datetime,
) -> Confirmation | None:
    """A :class:`Confirmation` when the command's desired result is visible in ``mirror``, else ``None``.

    ``mirror`` maps keys to mirror records and holds at least what :func:`mirror_needs` names (for
    ``ensure_issue``, the records are scanned by value).
    """
    if temp_refs(command_type, params):
        return None
    check = TYPES[command_type].confirmation  # a type the catalogue does not know: temp_refs raised KeyError
    if isinstance(check, LooksFor):
        key = check.find(params, mirror.values(), facts, now)
        return Confirmation(key=key) if key is not None else None
    ok = isinstance(check, LooksAt) and check.match(params, mirror, facts, link_types)
    return Confirmation() if ok else None


def holds(
    command_type: str,
    params: Mapping[str, Any],
    *,
    mirror: Mapping[str, MirrorIssue],
    facts: AgentFacts,
    link_types: Mapping[str, str],
) -> bool:
    """:func:`confirm` of a command that has aspects (:func:`aspect_names`), or of one of them (``params`` of
    :func:`narrow`), without looking for temp keys again: whether ``mirror`` shows its state."""
    check = TYPES[command_type].confirmation
    return isinstance(check, LooksAt) and check.match(params, mirror, facts, link_types)
