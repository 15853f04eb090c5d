"""Convergence: after a done command, a refresh of its issues makes the hub's confirmation rule hold.

The executors (agent side) and the confirmation by state (hub side) are two readings of the same desired
state; this law ties them together on generated Jira states, through the real driver and the simulator.
"""

from __future__ import annotations

from typing import Any

import anyio
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from reconcile.config.settings import Settings
from reconcile.outlook.confirm import AgentFacts, confirm, mirror_needs
from tests.support import T0

from .sim_support import make_bench
from .test_executor_laws import commands, fields_command, other_commands

# ensure_comment and ensure_attachment have no confirmation by state (nothing of them is in the mirror).
status, link, sprint, _comment, issue, _attachment = other_commands()
confirmable = st.one_of(fields_command(), status, link, sprint, issue)


async def _converge(setup: list[tuple[str, dict[str, Any]]], command: tuple[str, dict[str, Any]]) -> tuple[Any, Any]:
    bench = make_bench()
    for type_, params in setup:
        await bench.run(type_, params, pause=5, files={})
    outcome = await bench.run(*command, pause=5, files={})
    type_, params = command
    facts = AgentFacts(jira_user="bridge-user", symmetric_link_types=await bench.jira.symmetric_link_types())
    keys = list(mirror_needs(type_, params).keys)
    if type_ == "ensure_issue" and outcome.report.status == "done":
        keys = [outcome.report.result["key"]]
    await bench.run("refresh", {"keys": keys}, pause=5)
    mirror = {issue.key: issue for page in bench.pages for issue in page.issues}
    await bench.jira.aclose()
    now = T0.replace(hour=12)
    found = confirm(type_, params, mirror=mirror, facts=facts, link_types=Settings().link_types, now=now)
    return outcome, found


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setup=st.lists(commands, max_size=2), command=confirmable)
def test_a_done_command_is_confirmed_by_the_refreshed_mirror(
    setup: list[tuple[str, dict[str, Any]]], command: tuple[str, dict[str, Any]]
) -> None:
    """For every confirmable type: done in Jira ⇒ confirmed by state after a refresh of its issues."""
    setup = [c for c in setup if c[0] != "ensure_attachment"]
    outcome, found = anyio.run(_converge, setup, command)
    event(f"{command[0]}: {outcome.report.status}")
    if outcome.report.status == "done":
        assert found is not None, (command, outcome.report)
        if command[0] == "ensure_issue":
            assert found.key == outcome.report.result["key"]
