"""What the page knows of Jira itself, read once per request before a view runs: its address (every issue links
to ``<base URL>/browse/KEY``) and its user's time zone (times are shown in it), both as the agent reported them
(:class:`~adapters.storage.records.AgentStatusRecord`). Unknown until an agent has claimed: no links to Jira, and
times in UTC, said so."""

from __future__ import annotations

from hub_app.runtime.connection import HubRequest, hub_of

__all__ = ["jira_facts"]


async def jira_facts(request: HubRequest) -> None:
    """``before_request`` of the page's views: ``request.state.jira_base_url`` and ``jira_time_zone``."""
    async with hub_of(request).unit() as unit:
        status = await unit.db.admin.agent_status()
    request.state.jira_base_url = status.jira_base_url if status is not None else None
    request.state.jira_time_zone = status.jira_time_zone if status is not None else None
