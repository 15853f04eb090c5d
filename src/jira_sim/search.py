"""JQL search over the store: the issues a query matches, in its order, evaluated once per query and version.

A full walk of a result's pages must cost what one evaluation costs plus the pages (DESIGN 9, "At scale"):
the issues are indexed by project and label (rebuilt lazily after a change) and their facts kept until they
change, a query's evaluated result is kept for the store's version (and the clock, when the query reads it),
and every page only slices it.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime
from zoneinfo import ZoneInfo

import attrs

from jira_sim import jql, jql_facts
from jira_sim.jql_syntax import JqlError
from jira_sim.model import Issue, JiraError
from jira_sim.state import StoreState

__all__ = ["Search", "SearchCache", "SearchResult"]

_KEPT_RESULTS = 32  # results kept per store version; a walk reads one query's pages in turn


@attrs.frozen(kw_only=True)
class SearchResult:
    """The keys a query matched, in order, and its warnings (values ignored when not strict)."""

    keys: tuple[str, ...]
    warnings: tuple[str, ...]
    at: datetime | None  # the clock the result was evaluated at, when the query reads the clock


@attrs.define
class SearchCache:
    """Evaluated results and indexes of one store version, facts per issue revision; ``evaluations`` counts."""

    version: int = -1
    results: dict[tuple[str, str, bool], SearchResult] = attrs.Factory(dict)
    by_project: dict[str, list[str]] = attrs.Factory(dict)
    by_label: dict[str, set[str]] = attrs.Factory(dict)
    facts: dict[str, tuple[int, jql_facts.IssueFacts]] = attrs.Factory(dict)  # key → (the issue's revision, its facts)
    evaluations: int = 0


class Search(StoreState):
    searches: SearchCache

    def search(self, query: str, user: str, *, strict: bool = True) -> SearchResult:
        """The keys of the issues matching ``query`` in order, and the warnings (when not ``strict``)."""
        cache = self._current_cache()
        now = self.now()
        wanted = (query, user, strict)
        kept = cache.results.get(wanted)
        if kept is not None and kept.at in (None, now):
            return kept
        compiled = self._compile(query, user, now, strict=strict)
        cache.evaluations += 1
        facts = [self._kept_facts(self.issues[key]) for key in self._candidates(compiled.required)]
        ordered = compiled.sort([f for f in facts if compiled.matches(f)])
        result = SearchResult(
            keys=tuple(f.key for f in ordered),
            warnings=compiled.warnings,
            at=now if compiled.uses_now else None,
        )
        if len(cache.results) >= _KEPT_RESULTS:
            cache.results.pop(next(iter(cache.results)))
        cache.results[wanted] = result
        return result

    def issues_of(self, keys: Iterable[str]) -> list[Issue]:
        return [self.issues[key] for key in keys]

    def facts(self, issue: Issue) -> jql_facts.IssueFacts:
        project = self.projects[issue.project]
        status = self.statuses[issue.status_id]
        return jql_facts.IssueFacts(
            key=issue.key,
            project_key=project.key,
            project_name=project.name,
            project_id=project.id,
            issuetype=self.issue_types[issue.issuetype_id],
            issuetype_id=issue.issuetype_id,
            status=status.name,
            status_id=status.id,
            status_category=status.category,
            priority=self.priorities.get(issue.priority_id or ""),
            priority_id=issue.priority_id,
            labels=tuple(issue.labels),
            reporter=issue.reporter,
            assignee=issue.assignee,
            creator=issue.creator,
            created=issue.created,
            updated=issue.updated,
            duedate=date.fromisoformat(issue.duedate) if issue.duedate else None,
            sprints=tuple(self._sprint_facts(s) for s in issue.sprint_ids),
            summary=issue.summary,
            description=issue.description,
            epic_link=issue.epic,
        )

    def _kept_facts(self, issue: Issue) -> jql_facts.IssueFacts:
        """The issue's facts, built again only when it changed since they were kept (revision 0 is the seed's)."""
        kept = self.searches.facts.get(issue.key)
        if kept is not None and kept[0] == issue.revision:
            return kept[1]
        facts = self.facts(issue)
        self.searches.facts[issue.key] = (issue.revision, facts)
        return facts

    def _sprint_facts(self, sprint_id: int) -> jql_facts.SprintFacts:
        s = self.sprints[sprint_id]
        return jql_facts.SprintFacts(id=s.id, name=s.name, state=s.state)

    def _compile(self, query: str, user: str, now: datetime, *, strict: bool) -> jql_facts.Compiled:
        ctx = jql_facts.JqlContext(
            now=now,
            user=user,
            zone=ZoneInfo(self.users[user].time_zone),
            projects=tuple((p.key, p.name, p.id) for p in self.projects.values()),
            users=tuple(self.users),
            statuses=tuple((s.id, s.name) for s in self.statuses.values()),
            issue_types=tuple(self.issue_types.items()),
            priorities=tuple(self.priorities.items()),
            sprints=tuple(self._sprint_facts(s) for s in self.sprints),
            issue_keys=self.issues.keys(),
            key_of_id=self._key_of_id,
            epic_link_field=self.epic_link_field or "customfield_10100",
            strict=strict,
        )
        try:
            return jql.compile_query(query, ctx)
        except JqlError as exc:
            raise JiraError(400, exc.messages) from None

    def _key_of_id(self, issue_id: str) -> str | None:
        found = self._issues_by_id.get(issue_id)
        return None if found is None else found.key

    def _current_cache(self) -> SearchCache:
        """The cache of this version: results and indexes of an older one are dropped, the indexes rebuilt."""
        cache = self.searches
        if cache.version != self.version:
            cache.version = self.version
            cache.results.clear()
            cache.by_project = {}
            cache.by_label = {}
            for issue in self.issues.values():
                cache.by_project.setdefault(issue.project.lower(), []).append(issue.key)
                for label in issue.labels:
                    cache.by_label.setdefault(label.lower(), set()).add(issue.key)
        return cache

    def _candidates(self, required: tuple[tuple[str, frozenset[str]], ...]) -> Iterable[str]:
        """The keys that may match: all issues, narrowed by every indexed condition of the query."""
        if not required:
            return self.issues.keys()
        cache = self.searches
        found: set[str] | None = None
        for field, values in required:
            if field == "project":
                keys = {key for value in values for key in cache.by_project.get(value, ())}
            elif field == "labels":
                keys = {key for value in values for key in cache.by_label.get(value, ())}
            else:
                keys = {value.upper() for value in values if value.upper() in self.issues}
            found = keys if found is None else found & keys
        return found or ()
