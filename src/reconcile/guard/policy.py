"""The bank's own policy, which the agent enforces whatever the hub sends (DESIGN.md 5.5).

The hub lives outside the firewall; the agent is the bank's trust boundary. Its policy comes from the bank
(flags, ``SDLC_AGENT_*``, the agent's TOML), never from the hub. This module holds the rules as values and
decisions, so the agent (the guarantee) and the hub (its own door, a convenience) judge alike:

- :func:`refusal`: why a delivered command must not run (a key of another project, a refused type, a JQL that
  does not parse with Jira's grammar, is empty or sorts: «JQL не принят агентом: <why> (позиция N)»), or
  ``None``; the agent reports such a command ``failed`` with that message after zero Jira calls;
- :func:`scoped_params`: the delivered parameters with every JQL replaced by ``project in (<allowed>) AND
  (<tree>)``, the canonical text of the parsed JQL (:mod:`reconcile.guard.jql`), never the hub's text;
- :meth:`AgentPolicy.gap`: the pause the agent keeps, never below the bank's floor for the type;
- :func:`budget_wait`: how long the write budget (writes per hour) makes the next write wait.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from reconcile.config.settings import Settings
from reconcile.guard.jql import JqlProblem, client_jql, within_projects
from reconcile.vocabulary.catalogue import CATALOGUE, REFRESH_TYPE, read_only_types
from reconcile.vocabulary.commands import is_jira_key, key_params
from reconcile.vocabulary.notices import seconds_text

__all__ = [
    "ANY_TYPE",
    "BUDGET_WINDOW_SECONDS",
    "READ_ONLY_TYPES",
    "AgentPolicy",
    "agent_jql",
    "budget_wait",
    "key_project",
    "refusal",
    "scoped_params",
]

#: The write budget counts the writes of the last hour.
BUDGET_WINDOW_SECONDS = 3600.0
#: What a read-only agent may run: the types that only read Jira.
READ_ONLY_TYPES: tuple[str, ...] = read_only_types(CATALOGUE)
#: The key of ``min_gap`` that sets the floor of every type without its own.
ANY_TYPE = "*"


@attrs.frozen(kw_only=True)
class AgentPolicy:
    """What the bank lets its agent do. ``allow_projects`` is required (an agent that may touch nothing is of no
    use, and a default of "everything" is what the policy exists to prevent)."""

    allow_projects: tuple[str, ...]
    allow_types: tuple[str, ...] = tuple(CATALOGUE)
    read_only: bool = False
    min_gap: Mapping[str, float] = attrs.field(factory=dict)
    max_writes_per_hour: int = 0
    #: The hub is not told Jira's address (``serverInfo``'s ``baseUrl``): the page then links to no issue in Jira.
    hide_jira_url: bool = False
    #: Field ids the bank pins by role (``planned_start`` → ``customfield_11200``): a hub mapping that differs is
    #: refused (:mod:`reconcile.guard.fields`).
    fields: Mapping[str, str] = attrs.field(factory=dict)

    @property
    def types(self) -> tuple[str, ...]:
        """The types the agent runs: the allowed ones, only ``refresh`` when read-only (catalogue order)."""
        allowed = set(self.allow_types) & (set(READ_ONLY_TYPES) if self.read_only else set(CATALOGUE))
        return tuple(t for t in CATALOGUE if t in allowed)

    def floor(self, command_type: str) -> float:
        """The bank's least gap before (and between the writes of) a command of this type."""
        return float(self.min_gap.get(command_type, self.min_gap.get(ANY_TYPE, 0.0)))

    def gap(self, command_type: str, pause_seconds: float) -> float:
        """What the agent waits: the hub's ``pause_seconds``, never less than the bank's floor."""
        return max(float(pause_seconds), self.floor(command_type))

    def describe(self) -> str:
        """One line for the agent's start and ``sdlc-agent check``."""
        types = "all" if set(self.types) == set(CATALOGUE) else ", ".join(self.types) or "none"
        gaps = ", ".join(f"{t}={seconds_text(s)} s" for t, s in sorted(self.min_gap.items())) or "none"
        budget = str(self.max_writes_per_hour) if self.max_writes_per_hour else "unlimited"
        pins = "".join(f"; field {role}={field_id}" for role, field_id in self.fields.items())
        return (
            f"projects {', '.join(self.allow_projects)}; types {types}; read-only {'yes' if self.read_only else 'no'}; "
            f"min gap {gaps}; writes per hour {budget}{pins}"
        )


def key_project(key: str) -> str | None:
    """The Jira project of an issue key (``AURORA`` of ``AURORA-1538``), ``None`` when it is not a Jira key."""
    return key.rpartition("-")[0] if is_jira_key(key) else None


def agent_jql(projects: Sequence[str], jql: str) -> str:
    """What the agent sends Jira for a JQL of the hub's: ``project in (<projects>) AND (<tree>)``, the tree's
    canonical text, never the hub's (call after :func:`refusal` said ``None``: a JQL it refuses raises
    ``ValueError``)."""
    condition = client_jql(jql)
    if isinstance(condition, JqlProblem):
        raise ValueError(f"JQL не принят агентом: {condition}")
    return within_projects(projects, condition)


def _keys(command_type: str, params: Mapping[str, Any]) -> list[str]:
    """Every issue key a command names (temp keys are resolved before delivery; anything else is a key too)."""
    keys: list[str] = []
    for name in key_params(command_type):
        value = params.get(name)
        if isinstance(value, str):
            keys.append(value)
        elif isinstance(value, list):
            keys.extend(str(v) for v in value)
    return keys


def _jqls(command_type: str, params: Mapping[str, Any]) -> list[str]:
    if command_type != REFRESH_TYPE:
        return []
    found = [params["jql"]] if isinstance(params.get("jql"), str) else []
    history = params.get("history")
    if isinstance(history, Mapping) and isinstance(history.get("jql"), str):
        found.append(history["jql"])
    return found


def _project_refused(project: str, policy: AgentPolicy) -> str:
    return f"проект {project} не разрешён агенту (разрешены: {', '.join(policy.allow_projects)})"


def refusal(
    policy: AgentPolicy, command_type: str, params: Mapping[str, Any], context: Mapping[str, Any]
) -> str | None:
    """Why the agent must not run this delivery (the message of its ``failed`` report), or ``None``.

    Checked: the type (allowed, and ``refresh`` only when read-only); every key (``key``, ``source``,
    ``target``, ``keys``, ``epic_key``) is ``<allowed project>-<n>``; the project an ``ensure_issue`` creates
    in (the context's ``jira_project``); every JQL (``jql``, ``history.jql``) parses as a client's JQL.
    """
    if command_type not in policy.types:
        allowed = ", ".join(policy.types) or "нет"
        return f"тип команды {command_type} не разрешён агенту (разрешены: {allowed})"
    for key in _keys(command_type, params):
        project = key_project(key)
        if project is None:
            return f"ключ {key} не разрешён агенту (разрешены проекты: {', '.join(policy.allow_projects)})"
        if project not in policy.allow_projects:
            return _project_refused(project, policy)
    if CATALOGUE[command_type].creates_issue:  # the project it creates its issue in
        project = context.get("jira_project", Settings().jira_project)
        if project not in policy.allow_projects:
            return _project_refused(str(project), policy)
    for jql in _jqls(command_type, params):
        condition = client_jql(jql)
        if isinstance(condition, JqlProblem):
            return f"JQL не принят агентом: {condition}"
    return None


def scoped_params(policy: AgentPolicy, command_type: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """The parameters the executor gets: a refresh's ``jql`` and ``history.jql`` parsed and written anew inside
    the allowed projects (:func:`agent_jql`; call after :func:`refusal` said ``None``)."""
    scoped = dict(params)
    if command_type != REFRESH_TYPE:
        return scoped
    if isinstance(scoped.get("jql"), str):
        scoped["jql"] = agent_jql(policy.allow_projects, scoped["jql"])
    history = scoped.get("history")
    if isinstance(history, Mapping) and isinstance(history.get("jql"), str):
        scoped["history"] = {**history, "jql": agent_jql(policy.allow_projects, history["jql"])}
    return scoped


def budget_wait(writes: Iterable[float], *, now: float, max_writes_per_hour: int) -> float:
    """Seconds until the next write fits the budget: ``0`` while fewer than ``max_writes_per_hour`` writes were
    made in the last hour (``writes``: their times on the agent's monotonic clock), else until the oldest of
    them leaves the window. ``max_writes_per_hour = 0`` is no budget."""
    if max_writes_per_hour <= 0:
        return 0.0
    recent = sorted(t for t in writes if t > now - BUDGET_WINDOW_SECONDS)
    if len(recent) < max_writes_per_hour:
        return 0.0
    return max(recent[-max_writes_per_hour] + BUDGET_WINDOW_SECONDS - now, 0.0)
