"""The mirror's tables — issues, their links and their journal — as named queries over core records.

Refresh pages arrive as :class:`~reconcile.vocabulary.records.MirrorIssue` and
:class:`~reconcile.vocabulary.records.HistoryEntry` values and are written set-based (``INSERT … ON CONFLICT DO
UPDATE``), a few statements a page whatever its size, compiled once per database and fed without SQLAlchemy's per-row
work (:mod:`~adapters.storage.bulk_rows`). Links are replaced per issue: those touching the page's issues that Jira no
longer shows on either side go; so are the issues' label rows (kept while an issue is not vanished), which let the
database find, order (by
:func:`~reconcile.vocabulary.records.natural_key`, stored with each issue and label), count and page a project's slice.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

import attrs
from sqlalchemy import (
    BindParameter,
    Delete,
    Dialect,
    Row,
    Select,
    Text,
    bindparam,
    cast,
    delete,
    func,
    or_,
    select,
    update,
)
from sqlalchemy.dialects import postgresql
from sqlalchemy.ext.asyncio import AsyncSession

from adapters.storage.bulk_rows import BulkRows
from adapters.storage.generation import Generation, bump_generation
from adapters.storage.models import HistoryEntryRow, MirrorIssueRow, MirrorLabelRow, MirrorLinkRow, table_of
from adapters.storage.records import MirrorEntry, Sighting
from reconcile.jira import Arrival, to_apply
from reconcile.vocabulary import (
    ISSUE_TEXT_FIELDS,
    HistoryEntry,
    HistoryItem,
    MirrorIssue,
    MirrorLink,
    SprintRef,
    converter,
    natural_key,
)

__all__ = ["MirrorRepository"]

_ISSUE = table_of(MirrorIssueRow)
_LINK = table_of(MirrorLinkRow)
_LABEL = table_of(MirrorLabelRow)
_HISTORY = table_of(HistoryEntryRow)
#: The columns a refresh page writes for each issue.
_ISSUE_COLUMNS = ("key", "sort_key", *ISSUE_TEXT_FIELDS, "labels", "sprint")
_HISTORY_COLUMNS = ("issue_key", "jira_id", "created", "author", "items")
_Updated = Mapping[str, str | None]
#: The issue's JSON columns besides its text fields (a caller of :meth:`MirrorRepository.entries` may skip them).
_PARTS = ("labels", "sprint")


def _link(row: Row[Any]) -> MirrorLink:
    values = row._mapping
    return MirrorLink(id=values["jira_id"], type=values["type"], source=values["source"], target=values["target"])


def _history_entry(row: Row[Any]) -> HistoryEntry:
    return HistoryEntry(
        key=row.issue_key,
        id=row.jira_id,
        created=row.created,
        author=row.author,
        items=tuple(converter.structure(item, HistoryItem) for item in row.items or ()),
    )


def _issue(
    row: Row[Any], links: Sequence[MirrorLink], fields: Sequence[str] = ISSUE_TEXT_FIELDS, parts: Sequence[str] = _PARTS
) -> MirrorIssue:
    values = row._mapping  # by name from the mapping: twice as fast as attributes, which counts at 10 000 rows
    sprint = values["sprint"] if "sprint" in parts else None  # what the row does not hold, the record has not
    return MirrorIssue(
        key=values["key"],
        **{name: values[name] for name in fields},
        labels=tuple(values["labels"] or ()) if "labels" in parts else (),
        sprint=SprintRef(id=sprint["id"], name=sprint["name"], state=sprint["state"]) if sprint else None,
        links=tuple(links),
    )


def _narrowed(query: Select[Any], *, text: str | None, status: str | None) -> Select[Any]:
    """The slice's filters: ``text`` in the key or summary (case-insensitive), the exact ``status``."""
    if text:
        pattern = "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        query = query.where(or_(_ISSUE.c.key.ilike(pattern, escape="\\"), _ISSUE.c.summary.ilike(pattern, escape="\\")))
    if status:
        query = query.where(_ISSUE.c.status == status)
    return query


def _json_keys(keys: Iterable[str]) -> str:
    """The value of a :func:`_json_set` parameter."""
    return json.dumps(sorted(set(keys)))


def _json_set(data: BindParameter[str], *, postgres: bool) -> Select[tuple[str]]:
    """``SELECT`` of the strings of a JSON array parameter."""
    if postgres:
        return select(func.json_array_elements_text(cast(data, postgresql.JSON)).table_valued("value").c.value)
    return select(func.json_each(data).table_valued("value").c.value)


@attrs.frozen
class _PageWrites:
    """The statements that write a refresh page, built once per database."""

    issues: BulkRows
    unlabel: Delete
    label: BulkRows
    unlink: Delete
    link: BulkRows
    history: BulkRows


_WRITES: dict[str, _PageWrites] = {}


def _page_writes(dialect: Dialect) -> _PageWrites:
    """The statements of ``dialect``'s database (compiled with the first engine's: every engine is made alike)."""
    return _WRITES.get(dialect.name) or _WRITES.setdefault(dialect.name, _compiled_page_writes(dialect))


def _compiled_page_writes(dialect: Dialect) -> _PageWrites:
    postgres = dialect.name == "postgresql"
    keys = _json_set(bindparam("keys", type_=Text), postgres=postgres)
    shown = _json_set(bindparam("shown", type_=Text), postgres=postgres)
    return _PageWrites(
        issues=BulkRows(
            _ISSUE, _ISSUE_COLUMNS, dialect, shared=("refreshed_at", "vanished_at", "seen_by"), key=("key",)
        ),
        unlabel=delete(_LABEL).where(_LABEL.c.issue_key.in_(keys)),
        label=BulkRows(_LABEL, ("label", "issue_key", "sort_key"), dialect),
        # links touching the page's issues that Jira no longer shows on either side
        unlink=delete(_LINK).where(
            (_LINK.c.source.in_(keys) | _LINK.c.target.in_(keys)) & _LINK.c.jira_id.not_in(shown)
        ),
        link=BulkRows(_LINK, ("jira_id", "type", "source", "target"), dialect, key=("jira_id",)),
        history=BulkRows(_HISTORY, _HISTORY_COLUMNS, dialect, key=("issue_key", "jira_id")),
    )


class MirrorRepository:
    def __init__(self, session: AsyncSession) -> None:
        self._session = session

    def _postgres(self) -> bool:
        return self._session.get_bind().dialect.name == "postgresql"

    def _key_set(self, keys: Iterable[str]) -> Select[tuple[str]]:
        """``SELECT`` of ``keys`` from one JSON parameter: a set of any size in one statement, one bound value."""
        return _json_set(bindparam("keys", _json_keys(keys), type_=Text), postgres=self._postgres())

    def _writes(self) -> _PageWrites:
        return _page_writes(self._session.get_bind().dialect)

    async def links_of(self, keys: Sequence[str]) -> dict[str, list[MirrorLink]]:
        """Every link touching each key (a link seen from both sides is stored once)."""
        found: dict[str, list[MirrorLink]] = {key: [] for key in keys}
        if not keys:
            return found
        wanted = self._key_set(keys)
        query = select(_LINK).where(_LINK.c.source.in_(wanted) | _LINK.c.target.in_(wanted)).order_by(_LINK.c.id)
        for row in (await self._session.execute(query)).all():
            for key in {row.source, row.target}:
                if key in found:
                    found[key].append(_link(row))
        return found

    async def _entries(
        self, rows: Sequence[Row[Any]], fields: Sequence[str] = ISSUE_TEXT_FIELDS, linked: Iterable[str] | None = None
    ) -> list[MirrorEntry]:
        parts = [name for name in _PARTS if name in rows[0]._fields] if rows else []  # those the rows hold
        links = await self.links_of([row.key for row in rows] if linked is None else list(linked))
        return [
            MirrorEntry(
                issue=_issue(row, links.get(row.key, ()), fields, parts),
                refreshed_at=row.refreshed_at,
                vanished_at=row.vanished_at,
            )
            for row in rows
        ]

    async def updated_of(self, keys: Iterable[str]) -> dict[str, str | None]:
        """The ``updated`` of each of ``keys`` the mirror holds (what the upsert rule compares)."""
        rows = select(_ISSUE.c.key, _ISSUE.c.updated).where(_ISSUE.c.key.in_(self._key_set(keys)))
        return dict((await self._session.execute(rows)).all())

    async def issues(self, keys: Iterable[str]) -> dict[str, MirrorIssue]:
        """The mirror records of ``keys`` that the mirror holds, with their links."""
        return {key: entry.issue for key, entry in (await self.entries(keys)).items()}

    async def issues_with_summary(self, *summaries: str) -> dict[str, MirrorIssue]:
        """The mirror issues whose summary is one of ``summaries`` (two statements whatever their number)."""
        if not summaries:
            return {}
        query = select(_ISSUE).where(_ISSUE.c.summary.in_(self._key_set(summaries)))
        rows = (await self._session.execute(query)).all()
        return {entry.issue.key: entry.issue for entry in await self._entries(rows)}

    async def labels(self, keys: Iterable[str]) -> dict[str, tuple[str, ...]]:
        """The labels of the mirror issues among ``keys`` (a key absent from the answer is not in the mirror)."""
        wanted = sorted(set(keys))
        if not wanted:
            return {}
        query = select(_ISSUE.c.key, _ISSUE.c.labels).where(_ISSUE.c.key.in_(wanted))
        return {key: tuple(labels or ()) for key, labels in (await self._session.execute(query)).all()}

    async def entry(self, key: str) -> MirrorEntry | None:
        rows = (await self._session.execute(select(_ISSUE).where(_ISSUE.c.key == key))).all()
        entries = await self._entries(rows)
        return entries[0] if entries else None

    def _slice(self, project: str | None, *, text: str | None, status: str | None) -> Select[Any]:
        if project is None:
            query = select(_ISSUE)
        else:  # the label rows are those of issues not vanished
            query = select(_ISSUE).join(_LABEL, _LABEL.c.issue_key == _ISSUE.c.key).where(_LABEL.c.label == project)
        return _narrowed(query, text=text, status=status)

    async def slice(
        self, project: str | None, *, limit: int, offset: int, text: str | None = None, status: str | None = None
    ) -> tuple[list[MirrorEntry], int]:
        """A page of a project's slice (its label, exact match, not vanished) or of every issue, in natural key
        order; ``text`` narrows it to keys or summaries containing it (case-insensitive), ``status`` to that
        exact status. The database filters, counts and pages: a page costs the same at any size of the mirror."""
        if project is not None and not text and not status:
            return await self._label_page(project, limit=limit, offset=offset)
        query = self._slice(project, text=text, status=status)
        total = await self._session.scalar(
            select(func.count()).select_from(query.with_only_columns(_ISSUE.c.id).subquery())
        )
        page = query.order_by(_ISSUE.c.sort_key, _ISSUE.c.key).limit(limit).offset(offset)
        return await self._entries((await self._session.execute(page)).all()), total or 0

    async def _label_page(self, label: str, *, limit: int, offset: int) -> tuple[list[MirrorEntry], int]:
        """The unfiltered slice: the page is a range of the label's index (paged before any issue is read, so
        the plan does not depend on the database's statistics), counted without reading an issue."""
        mine = _LABEL.c.label == label
        total = await self._session.scalar(select(func.count()).select_from(_LABEL).where(mine))
        page = (
            select(_LABEL.c.issue_key, _LABEL.c.sort_key)
            .where(mine)
            .order_by(_LABEL.c.sort_key, _LABEL.c.issue_key)
            .limit(limit)
            .offset(offset)
            .subquery()
        )
        query = select(_ISSUE).join(page, page.c.issue_key == _ISSUE.c.key).order_by(page.c.sort_key, page.c.issue_key)
        return await self._entries((await self._session.execute(query)).all()), total or 0

    async def statuses(self, project: str) -> list[str]:
        """The statuses the issues of a project's slice have, in alphabetical order."""
        members = select(_LABEL.c.issue_key).where(_LABEL.c.label == project)
        query = select(_ISSUE.c.status).where(_ISSUE.c.key.in_(members), _ISSUE.c.status.is_not(None)).distinct()
        return sorted(status for status in (await self._session.scalars(query)).all() if status is not None)

    async def history(self, key: str, *, limit: int, offset: int) -> tuple[list[HistoryEntry], int]:
        """A page of an issue's journal, oldest first."""
        where = _HISTORY.c.issue_key == key
        total = await self._session.scalar(select(func.count()).select_from(_HISTORY).where(where)) or 0
        query = select(_HISTORY).where(where).order_by(_HISTORY.c.created, _HISTORY.c.id).limit(limit).offset(offset)
        return [_history_entry(row) for row in (await self._session.execute(query)).all()], total

    async def entries(
        self, keys: Iterable[str], *, fields: Iterable[str] | None = None, linked: Iterable[str] | None = None
    ) -> dict[str, MirrorEntry]:
        """The mirror records of ``keys`` that the mirror holds, vanished or not, with their links (two
        statements whatever the number of keys).

        A caller that reads a few fields of many issues names them: only ``fields`` of the text fields, the labels
        and the sprint are read (the others stay empty: no description is read when none is asked for), and the
        links only of ``linked`` (the others have none).
        """
        wanted = None if fields is None else set(fields)
        chosen = tuple(name for name in (*ISSUE_TEXT_FIELDS, *_PARTS) if wanted is None or name in wanted)
        columns = [_ISSUE.c[name] for name in ("key", *chosen, "refreshed_at", "vanished_at")]
        query = select(*columns).where(_ISSUE.c.key.in_(self._key_set(keys)))
        rows = (await self._session.execute(query)).all()
        texts = tuple(name for name in chosen if name not in _PARTS)
        return {entry.issue.key: entry for entry in await self._entries(rows, texts, linked)}

    async def journals(self, keys: Iterable[str]) -> dict[str, list[HistoryEntry]]:
        """The journal of each of ``keys``, oldest first (a key without entries is absent)."""
        query = (
            select(_HISTORY)
            .where(_HISTORY.c.issue_key.in_(self._key_set(keys)))
            .order_by(_HISTORY.c.issue_key, _HISTORY.c.created, _HISTORY.c.id)
        )
        found: dict[str, list[HistoryEntry]] = {}
        for row in (await self._session.execute(query)).all():
            found.setdefault(row.issue_key, []).append(_history_entry(row))
        return found

    async def upsert_issues(
        self,
        issues: Sequence[MirrorIssue],
        *,
        command_id: int | None,
        now: datetime,
        stored: _Updated | None = None,
        full: bool = False,
    ) -> list[str]:
        """Records of a refresh page (``command_id``; ``full``: a full refresh's) or of webhook events (``None``) that
        the upsert rule lets in (:mod:`reconcile.jira.mirror_rule`), with labels and links; the keys written. Under the
        queue lock. ``stored``: :meth:`updated_of` of the records' keys, when the caller read it already."""
        if not issues:
            return []
        arrival = Arrival.EVENT if command_id is None else Arrival.FULL_READ if full else Arrival.READ
        if stored is None and arrival is not Arrival.FULL_READ:
            stored = await self.updated_of(i.key for i in issues)
        latest = to_apply(issues, stored or {}, arrival)
        if not latest:
            return []
        keys = _json_keys(latest)
        writes = self._writes()
        page = [
            {
                "key": issue.key,
                "sort_key": natural_key(issue.key),
                **{name: getattr(issue, name) for name in ISSUE_TEXT_FIELDS},
                "labels": list(issue.labels),
                "sprint": converter.unstructure(issue.sprint) if issue.sprint is not None else None,
            }
            for issue in latest.values()
        ]
        await writes.issues.run(self._session, page, refreshed_at=now, vanished_at=None, seen_by=command_id)
        await bump_generation(self._session, Generation.MIRROR)
        await self._session.execute(writes.unlabel, {"keys": keys})
        labels = [
            {"label": name, "issue_key": row["key"], "sort_key": row["sort_key"]}
            for row in page
            for name in dict.fromkeys(row["labels"])
        ]
        if labels:
            await writes.label.run(self._session, labels)
        shown = {link.id: link for issue in latest.values() for link in issue.links}
        await self._session.execute(writes.unlink, {"keys": keys, "shown": _json_keys(shown)})
        if shown:
            links = [{"jira_id": i, "type": k.type, "source": k.source, "target": k.target} for i, k in shown.items()]
            await writes.link.run(self._session, links)
        return list(latest)

    async def upsert_history(self, entries: Sequence[HistoryEntry]) -> None:
        """A page's (or events') journal entries, unique by (issue, Jira history id); drift reads them."""
        if not entries:
            return
        await bump_generation(self._session, Generation.MIRROR)
        latest = {(entry.key, entry.id): entry for entry in entries}
        await self._writes().history.run(
            self._session,
            [
                {
                    "issue_key": entry.key,
                    "jira_id": entry.id,
                    "created": entry.created,
                    "author": entry.author,
                    "items": [converter.unstructure(item) for item in entry.items],
                }
                for entry in latest.values()
            ],
        )

    async def not_vanished(self) -> list[Sighting]:
        """When each issue not vanished was last returned, and by which refresh (a full run vanishes the rest)."""
        query = select(_ISSUE.c.key, _ISSUE.c.labels, _ISSUE.c.seen_by, _ISSUE.c.refreshed_at).where(
            _ISSUE.c.vanished_at.is_(None)
        )
        return [
            Sighting(key=key, labels=tuple(labels or ()), seen_by=seen_by, refreshed_at=refreshed_at)
            for key, labels, seen_by, refreshed_at in (await self._session.execute(query)).all()
        ]

    async def vanish(self, keys: Sequence[str], *, now: datetime) -> None:
        """The issues leave their slices (a later page that returns one brings it back)."""
        if not keys:
            return
        await self._session.execute(update(_ISSUE).where(_ISSUE.c.key.in_(self._key_set(keys))).values(vanished_at=now))
        await self._session.execute(delete(_LABEL).where(_LABEL.c.issue_key.in_(self._key_set(keys))))
        await bump_generation(self._session, Generation.MIRROR)
