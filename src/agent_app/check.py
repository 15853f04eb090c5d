"""``sdlc-agent check`` (DESIGN.md 5.5, 5.7; issue 32 item 6): the hub and Jira tried once each, then what the policy
needs of this Jira, one line each — ``ok: …`` or what is wrong and the fix; exit 2 when any line is not ``ok``.

- each allowed project is read (``GET /rest/api/2/project/{key}``): one that does not exist, or that the agent's
  Jira user cannot browse (Jira answers both with 404), fails the check;
- the field ids the bank pins (``--field``) are verified against Jira's field list as every delivery's mapping
  will be (:func:`reconcile.guard.fields.verified_mapping`), each printed with Jira's name and schema.

Decision where the spec is silent: the hub's ``jira_project`` and its field mapping reach the agent only in a
delivery's context (the agent role reads nothing else of the hub's settings), so ``check`` does not claim a
command to learn them; it says so in its fields line, and ``run`` judges each delivery's mapping.
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import quote

import attrs
import httpx

from adapters.jira_http import JiraError, JiraHttp, explain_jira
from adapters.targets import shown
from reconcile.config import EpicLink, Settings
from reconcile.executors import JiraCall
from reconcile.guard import AgentPolicy, JiraField, verified_mapping

__all__ = ["jira_lines"]

#: Settings that map no field: the rows of ``verified_mapping`` are then the bank's pins alone.
_NOTHING_MAPPED = attrs.evolve(
    Settings(), fields={}, epic_link=EpicLink(mode="parent", field_id=None), epic_name_field_id=None
)


async def _project_line(jira: JiraHttp, key: str) -> str:
    where = f"jira at {shown(jira.target.base_url)}"
    call = JiraCall(method="GET", path=f"/rest/api/2/project/{quote(key, safe='')}")
    answer = (await jira.send(call)).answer
    if answer.ok:
        name = answer.json.get("name") if isinstance(answer.json, Mapping) else None
        return f"ok: project {key} ({name or 'no name'}) at {where}"
    error = JiraError.answered(call, answer)
    return (
        f"{where}: project {key}: {error}: the project does not exist or the agent's Jira user cannot browse it; "
        "fix --allow-project or the user's permissions"
    )


def _field_lines(fields: Mapping[str, JiraField], pins: Mapping[str, str]) -> list[str]:
    rows = verified_mapping(_NOTHING_MAPPED, fields, pins)
    lines = []
    for role, field_id, problem in rows:
        if problem is not None:
            lines.append(f"field {role} = {field_id}: {problem}: fix --field {role}=…")
            continue
        field = fields[field_id]
        lines.append(f"ok: field {role} = {field_id} ({field.name}, {field.custom or field.type}): pinned, verified")
    pinned = ", ".join(sorted(pins)) or "none"
    lines.append(
        f"ok: fields: {len(fields)} in Jira; pinned: {pinned}; the hub's mapping is verified against them "
        "on every delivery"
    )
    return lines


async def jira_lines(jira: JiraHttp, policy: AgentPolicy) -> list[str]:
    """The lines of what the policy needs of this Jira (after Jira answered the agent): projects, then fields."""
    try:
        lines = [await _project_line(jira, key) for key in policy.allow_projects]
        lines += _field_lines(await jira.jira_fields(), policy.fields)
    except (JiraError, httpx.TransportError) as exc:
        lines = [explain_jira(jira.target, exc)]
    return lines
