"""What the simulator's JQL reads about an issue and its caller, and what a compiled query is (:mod:`jira_sim.jql`
compiles; :mod:`jira_sim.search` builds the facts from the store)."""

from __future__ import annotations

from collections.abc import Callable, Sequence, Set
from datetime import date, datetime
from zoneinfo import ZoneInfo

import attrs

__all__ = ["INDEXED_FIELDS", "Compiled", "IssueFacts", "JqlContext", "Predicate", "SprintFacts"]


@attrs.frozen(kw_only=True)
class SprintFacts:
    id: int
    name: str
    state: str  # "closed" | "active" | "future"


@attrs.frozen(kw_only=True)
class IssueFacts:
    """What JQL may ask about one issue."""

    key: str
    project_key: str
    project_name: str
    project_id: str
    issuetype: str
    issuetype_id: str
    status: str
    status_id: str
    status_category: str  # "new" | "indeterminate" | "done"
    priority: str | None = None
    priority_id: str | None = None
    labels: tuple[str, ...] = ()
    reporter: str | None = None
    assignee: str | None = None
    creator: str | None = None
    created: datetime
    updated: datetime
    duedate: date | None = None
    sprints: tuple[SprintFacts, ...] = ()
    summary: str = ""
    description: str | None = None
    epic_link: str | None = None

    @property
    def number(self) -> int:
        return int(self.key.rsplit("-", 1)[1])


@attrs.frozen(kw_only=True)
class JqlContext:
    """The caller and the instance vocabulary that values are checked against."""

    now: datetime
    user: str
    zone: ZoneInfo
    projects: tuple[tuple[str, str, str], ...] = ()  # (key, name, id)
    users: tuple[str, ...] = ()
    statuses: tuple[tuple[str, str], ...] = ()  # (id, name)
    issue_types: tuple[tuple[str, str], ...] = ()  # (id, name)
    priorities: tuple[tuple[str, str], ...] = ()  # (id, name)
    sprints: tuple[SprintFacts, ...] = ()
    issue_keys: Set[str] = frozenset()
    key_of_id: Callable[[str], str | None] = lambda _issue_id: None  # an issue's key by its numeric id
    epic_link_field: str = "customfield_10100"
    strict: bool = True


Predicate = Callable[[IssueFacts], bool]


#: Fields whose ``=``/``in`` values an index can answer: a store narrows the issues it evaluates by them.
INDEXED_FIELDS = ("project", "labels", "key")


@attrs.frozen
class Compiled:
    """A compiled query: the filter, a sort key and warnings (values ignored when not strict).

    ``required`` lists conditions every match meets, ``(field of INDEXED_FIELDS, lower-case values)``: a match
    has one of the values (its project key, one of its labels, its key). ``uses_now`` says that the result
    depends on the clock (relative dates, ``now()``, ``startOfDay()``), not only on the issues and the caller.
    """

    matches: Predicate
    sort: Callable[[Sequence[IssueFacts]], list[IssueFacts]]
    warnings: tuple[str, ...]
    required: tuple[tuple[str, frozenset[str]], ...] = ()
    uses_now: bool = False
