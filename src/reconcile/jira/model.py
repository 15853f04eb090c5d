"""Jira issue JSON → normalised mirror records (DESIGN.md sections 4, 5.2 and 6).

Pure: the only inputs are Jira's JSON and the settings. Rules kept here, in one place:

- links are ``source → target`` = Jira's ``inwardIssue → outwardIssue``; seen from issue X an entry with
  ``outwardIssue: Y`` is ``X → Y`` and one with ``inwardIssue: Y`` is ``Y → X``;
- the sprint field comes as old greenhopper strings (``…Sprint@1a2b[id=7,state=ACTIVE,name=…]``) or as
  objects; the mirror keeps the active sprint, else the latest future one, else none;
- ``created``/``updated`` and changelog times become UTC ISO-8601 with ``Z``; ``updated`` keeps Jira's millisecond
  (the mirror's upsert rule tells two states of one second apart by it).

Jira's answers are read strictly where Jira's own fields have a known shape: a field of the wrong type, a time
that is no time, a link without its issue raise :class:`~reconcile.vocabulary.errors.JiraAnswerError` naming the issue
key and the field (never a Python ``TypeError`` or ``AttributeError``), so one odd issue is reported as unreadable
instead of failing everything read with it. Custom fields whose shape depends on the instance (the sprint,
the planned dates, the epic link) are read leniently: what cannot be understood there is ``None``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import date, datetime
from typing import Any

import attrs

from reconcile.config.settings import Settings
from reconcile.jira.answers import jira_id, jira_list, jira_object, jira_text, jira_time, opt_object, opt_text
from reconcile.vocabulary.errors import JiraAnswerError
from reconcile.vocabulary.records import (
    HistoryEntry,
    HistoryItem,
    MirrorIssue,
    MirrorLink,
    SprintRef,
    converter,
    oversized,
)
from reconcile.vocabulary.text import bad_place, utc_text

__all__ = [
    "SPRINT_KEYS",
    "SprintInfo",
    "epic_key_of",
    "histories_from_jira",
    "issue_fields",
    "issue_from_jira",
    "links_from_jira",
    "mirror_fields",
    "parse_sprint_string",
    "sprint_infos",
    "sprint_of",
    "to_utc_z",
]

SPRINT_KEYS: tuple[str, ...] = (
    "id",
    "rapidViewId",
    "state",
    "name",
    "startDate",
    "endDate",
    "completeDate",
    "activatedDate",
    "sequence",
    "goal",
    "autoStartStop",
    "synced",
    "incompleteIssuesDestinationId",
)

_NULL = "<null>"
_INT_KEYS = frozenset({"id", "rapidViewId", "sequence", "incompleteIssuesDestinationId"})
_BOOL_KEYS = frozenset({"autoStartStop", "synced"})
_DATE_KEYS = frozenset({"startDate", "endDate", "completeDate", "activatedDate"})
# Bounded: Python refuses to turn more than 4 300 digits into an int, and no Jira id is that long.
_INT_RE = re.compile(r"-?[0-9]{1,18}")
_STATE_RE = re.compile(r"[A-Za-z_]+")
_BOUNDARY_RE = re.compile(r",(" + "|".join(SPRINT_KEYS) + r")=")
_START_RE = re.compile(r"(" + "|".join(SPRINT_KEYS) + r")=")


def _value_fits(key: str, value: str) -> bool:
    """Whether ``value`` can be the rendering of sprint property ``key`` (only name and goal are free text)."""
    if value == _NULL:
        return True
    if key in _INT_KEYS:
        return _INT_RE.fullmatch(value) is not None
    if key == "state":
        return _STATE_RE.fullmatch(value) is not None
    if key in _BOOL_KEYS:
        return value in ("true", "false")
    if key in _DATE_KEYS:
        return "," not in value
    return True  # name and goal: free text


def parse_sprint_string(text: str) -> dict[str, str | None]:
    """Parse a greenhopper sprint string into its properties (``<null>`` → ``None``).

    The properties are separated by commas, but names and goals may contain commas, brackets and ``=``.
    Boundaries are therefore only the ``,<known key>=`` places, and among the possible splits the parser
    takes the one where every key appears once and every non-text value has its type's shape, preferring
    to split as early as possible. Raises ``ValueError`` when no split fits.
    """
    body = text[text.find("[") + 1 :]  # no bracket: find gives -1, the whole text
    if body.endswith("]"):
        body = body[:-1]
    head = _START_RE.match(body)
    if head is None:
        raise ValueError(f"не строка спринта: {text!r}")
    candidates = [(m.start(), m.group(1)) for m in _BOUNDARY_RE.finditer(body)]

    def search(pos: int, key: str, index: int, seen: frozenset[str]) -> dict[str, str] | None:
        # The boundaries from ``index`` on all lie past this key's ``=`` (a boundary starts with a comma).
        value_start = pos + len(key) + 1
        for j in range(index, len(candidates)):
            next_pos, next_key = candidates[j]
            value = body[value_start:next_pos]
            if not _value_fits(key, value):
                continue
            if next_key in seen:  # ``seen`` holds ``key`` too
                continue
            rest = search(next_pos + 1, next_key, j + 1, seen | {next_key})
            if rest is not None:
                return {key: value, **rest}
        value = body[value_start:]
        return {key: value} if _value_fits(key, value) else None

    first_key = head.group(1)
    parsed = search(0, first_key, 0, frozenset({first_key}))
    if parsed is None:
        raise ValueError(f"не разобрать строку спринта: {text!r}")
    return {k: (None if v == _NULL else v) for k, v in parsed.items()}


def _int_or_none(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and _INT_RE.fullmatch(value):
        return int(value)
    return None


@attrs.frozen(kw_only=True)
class SprintInfo:
    """One sprint as the issue's sprint field names it (either form); ``state`` is lower case; ``board_id`` its
    board when the field says (``rapidViewId`` in the old string form)."""

    id: int
    name: str
    state: str
    sequence: int | None = None
    board_id: int | None = None

    def ref(self) -> SprintRef:
        return SprintRef(id=self.id, name=self.name, state=self.state)

    @property
    def is_open(self) -> bool:
        return self.state in ("active", "future")


def _sprint_info(value: Any) -> SprintInfo | None:
    if isinstance(value, str):
        try:
            props: Mapping[str, Any] = parse_sprint_string(value)
        except ValueError:
            return None
    elif isinstance(value, Mapping):
        props = value
    else:
        return None
    sprint_id = _int_or_none(props.get("id"))
    if sprint_id is None:
        return None
    return SprintInfo(
        id=sprint_id,
        name=str(props.get("name") or ""),
        state=str(props.get("state") or "").lower(),
        sequence=_int_or_none(props.get("sequence")),
        board_id=_int_or_none(props.get("rapidViewId", props.get("boardId", props.get("originBoardId")))),
    )


def sprint_infos(value: Any) -> list[SprintInfo]:
    """Every sprint the sprint field names, in the field's order (unparseable entries are left out)."""
    if value is None:
        return []
    items: Iterable[Any] = value if isinstance(value, list) else [value]
    return [info for info in (_sprint_info(item) for item in items) if info is not None]


def sprint_of(value: Any) -> SprintRef | None:
    """The mirror's sprint: the active one, else the latest future one (highest sequence, then id)."""
    infos = sprint_infos(value)

    def order(info: SprintInfo) -> tuple[int, int]:
        return (info.sequence if info.sequence is not None else info.id, info.id)

    for state in ("active", "future"):
        matching = [info for info in infos if info.state == state]
        if matching:
            return max(matching, key=order).ref()
    return None


def links_from_jira(key: str, issuelinks: Any) -> tuple[MirrorLink, ...]:
    """Jira's ``issuelinks`` of issue ``key`` normalised to ``inwardIssue → outwardIssue``."""
    links: list[MirrorLink] = []
    for index, raw in enumerate(jira_list(issuelinks, key, "issuelinks")):
        where = f"issuelinks[{index}]"
        entry = jira_object(raw, key, where)
        link_type = jira_object(entry.get("type"), key, f"{where}.type")
        type_name = jira_text(link_type.get("name"), key, f"{where}.type.name")
        link_id = jira_id(entry.get("id"), key, f"{where}.id")
        outward = opt_object(entry.get("outwardIssue"), key, f"{where}.outwardIssue")
        inward = opt_object(entry.get("inwardIssue"), key, f"{where}.inwardIssue")
        if outward is not None:
            target = jira_text(outward.get("key"), key, f"{where}.outwardIssue.key")
            links.append(MirrorLink(id=link_id, type=type_name, source=key, target=target))
        elif inward is not None:
            source = jira_text(inward.get("key"), key, f"{where}.inwardIssue.key")
            links.append(MirrorLink(id=link_id, type=type_name, source=source, target=key))
        else:
            raise JiraAnswerError(key, where, "нет ни outwardIssue, ни inwardIssue")
    return tuple(links)


def to_utc_z(value: Any) -> str | None:
    """A Jira timestamp (``2026-10-22T12:00:00.000+0300``) as UTC ISO-8601 with ``Z``, seconds precision.

    Lenient (an unreadable value comes back as it is): for times of our own making; Jira's answers are read
    with :func:`reconcile.jira.answers.jira_time`.
    """
    if not isinstance(value, str) or not value:
        return None
    try:
        return utc_text(datetime.fromisoformat(value))  # a time without an offset is UTC (as utc_text takes it)
    except (ValueError, OverflowError):
        return value


def _date(value: Any) -> str | None:
    """A date field (``yyyy-MM-dd``); date-time values of custom fields keep their date part."""
    if not isinstance(value, str) or not value:
        return None
    return value[:10]


def _due_date(value: Any, key: str) -> str | None:
    """Jira's ``duedate``: ``yyyy-MM-dd`` or ``null``."""
    text = opt_text(value, key, "duedate")
    if text is None:
        return None
    try:
        if len(text) == 10:
            return date.fromisoformat(text).isoformat()
    except ValueError:
        pass
    raise JiraAnswerError(key, "duedate", f"не дата: {text[:40]!r}")


def _name(value: Any, key: str, field: str) -> str | None:
    """The ``name`` of a user, status or priority object (``null`` → ``None``)."""
    found = opt_object(value, key, field)
    return None if found is None else opt_text(found.get("name"), key, f"{field}.name")


def epic_key_of(fields: Mapping[str, Any], settings: Settings) -> str | None:
    """The epic key by ``epic_link.mode``: the custom field, or ``fields.parent.key``."""
    if settings.epic_link.mode == "parent":
        parent = fields.get("parent")
        if isinstance(parent, Mapping) and parent.get("key"):
            return str(parent["key"])
        return None
    value = fields.get(settings.epic_link.field_id or "")
    if isinstance(value, str) and value:
        return value
    if isinstance(value, Mapping) and value.get("key"):
        return str(value["key"])
    return None


def mirror_fields(settings: Settings) -> list[str]:
    """The fields read for the mirror and for every diff (DESIGN.md 5.2)."""
    names = [
        "summary",
        "description",
        "status",
        "priority",
        "duedate",
        "labels",
        "assignee",
        "reporter",
        "created",
        "updated",
        "issuelinks",
    ]
    for logical in ("sprint", "planned_start", "planned_end"):
        field_id = settings.fields.get(logical)
        if field_id:
            names.append(field_id)
    if settings.epic_link.mode == "parent":
        names.append("parent")
    elif settings.epic_link.field_id:
        names.append(settings.epic_link.field_id)
    return list(dict.fromkeys(names))


def issue_fields(raw: Any, key: str) -> Mapping[str, Any]:
    """The ``fields`` object of an issue answer (``GET /issue`` or a search hit); ``null`` reads as empty."""
    issue = jira_object(raw, key, "ответ")
    return opt_object(issue.get("fields"), key, "fields") or {}


def _custom(fields: Mapping[str, Any], settings: Settings, logical: str) -> Any:
    """The value of the custom field set up for ``logical`` (``fields.sprint``, …): ``None`` when none is."""
    field_id = settings.fields.get(logical)
    return fields.get(field_id) if field_id else None


def issue_from_jira(raw: Any, settings: Settings) -> MirrorIssue:
    """One issue of Jira's JSON (``GET /issue`` or a search hit) as a mirror record.

    Raises :class:`~reconcile.vocabulary.errors.JiraAnswerError` naming the key and the field when it cannot be read.
    """
    # An answer that is no object, or whose key cannot be read, has no key to name: «?» (a key holding a NUL is
    # not repeated into the message the hub stores).
    key = jira_text(jira_object(raw, "?", "ответ").get("key"), "?", "key")
    fields = issue_fields(raw, key)
    status = opt_object(fields.get("status"), key, "status")
    category = opt_object(status.get("statusCategory"), key, "status.statusCategory") if status else None
    labels = tuple(
        jira_text(label, key, f"labels[{i}]") for i, label in enumerate(jira_list(fields.get("labels"), key, "labels"))
    )
    issue = MirrorIssue(
        key=key,
        summary=opt_text(fields.get("summary"), key, "summary"),
        description=opt_text(fields.get("description"), key, "description"),
        status=_name(status, key, "status"),
        status_category=opt_text(category.get("key"), key, "status.statusCategory.key") if category else None,
        priority=_name(fields.get("priority"), key, "priority"),
        duedate=_due_date(fields.get("duedate"), key),
        planned_start=_date(_custom(fields, settings, "planned_start")),
        planned_end=_date(_custom(fields, settings, "planned_end")),
        labels=labels,
        epic_key=epic_key_of(fields, settings),
        assignee=_name(fields.get("assignee"), key, "assignee"),
        reporter=_name(fields.get("reporter"), key, "reporter"),
        created=jira_time(fields.get("created"), key, "created"),
        updated=jira_time(fields.get("updated"), key, "updated", millis=True),
        sprint=sprint_of(_custom(fields, settings, "sprint")),
        links=links_from_jira(key, fields.get("issuelinks")),
    )
    _check_record(issue, key)
    return issue


def _check_record(record: MirrorIssue | HistoryEntry, key: str, where: str = "") -> None:
    """What the hub would refuse is unreadable here: a text too long for its column, a NUL or lone surrogate."""
    problem = oversized(record)
    if problem is not None:
        field, _, what = problem.partition(" — ")
        raise JiraAnswerError(key, f"{where}{field}", what)
    found = bad_place(converter.unstructure(record))
    if found is not None:
        raise JiraAnswerError(key, f"{where}{found[0]}", "недопустимый символ")


def _str_or_none(value: Any) -> str | None:
    return None if value is None else str(value)


def histories_from_jira(key: str, changelog: Any, *, since: str | None = None) -> tuple[HistoryEntry, ...]:
    """The changelog histories of issue ``key``; with ``since`` (UTC ``Z``) only those created at or after it.

    Raises :class:`~reconcile.vocabulary.errors.JiraAnswerError` when the changelog cannot be read.
    """
    log = opt_object(changelog, key, "changelog") or {}
    since_utc = to_utc_z(since)
    entries: list[HistoryEntry] = []
    for index, raw in enumerate(jira_list(log.get("histories"), key, "changelog.histories")):
        where = f"changelog.histories[{index}]"
        history = jira_object(raw, key, where)
        created = jira_time(history.get("created"), key, f"{where}.created")
        if created is None:
            raise JiraAnswerError(key, f"{where}.created", "нет значения")
        if since_utc is not None and created < since_utc:
            continue
        items = tuple(
            HistoryItem(
                field=str(item.get("field") or ""),
                from_=_str_or_none(item.get("from")),
                from_string=_str_or_none(item.get("fromString")),
                to=_str_or_none(item.get("to")),
                to_string=_str_or_none(item.get("toString")),
            )
            for item in (
                jira_object(value, key, f"{where}.items[{i}]")
                for i, value in enumerate(jira_list(history.get("items"), key, f"{where}.items"))
            )
        )
        entry = HistoryEntry(
            key=key,
            id=jira_id(history.get("id"), key, f"{where}.id"),
            created=created,
            author=_name(history.get("author"), key, f"{where}.author"),
            items=items,
        )
        _check_record(entry, key, f"{where}.")
        entries.append(entry)
    return tuple(entries)
