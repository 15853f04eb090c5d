"""Field ids checked against the simulator's ``GET /rest/api/2/field`` before any call of a command (DESIGN.md 5.7,
issue 31 finding 3): a hostile mapping writes nothing, a sound one writes as before."""

from __future__ import annotations

import pytest

from reconcile.config.settings import Settings
from tests.support import seed_result

from .sim_support import Bench

pytestmark = pytest.mark.anyio


def context(**fields: str) -> dict[str, object]:
    settings = Settings().agent_context()
    return {**settings, "fields": {**settings["fields"], **fields}}


async def test_planned_start_mapped_to_the_epic_link_writes_no_epic(bench: Bench) -> None:
    """The finding: ``fields.planned_start`` = the Epic Link field, ``planned_start: "HR-3"``: failed with Jira's
    name of the field, zero calls, the issue's epic untouched."""
    before = bench.sim.raw_issue("AURORA-1538")
    outcome = await bench.run(
        "ensure_fields",
        {"key": "AURORA-1538", "planned_start": "HR-3"},
        context=context(planned_start="customfield_10100"),
    )
    assert (outcome.report.status, outcome.report.error) == ("failed", "поле customfield_10100 — не дата (Epic Link)")
    assert (outcome.jira_calls, bench.sim.calls) == (0, [])
    assert bench.sim.raw_issue("AURORA-1538") == before


@pytest.mark.parametrize(
    ("command_type", "params", "fields", "error"),
    [
        (
            "ensure_sprint",
            {"key": "AURORA-1538", "sprint": "Спринт 2", "board_id": 4216},
            {"sprint": "customfield_11200"},
            "поле customfield_11200 — не спринт (Плановое начало)",
        ),
        (
            "ensure_issue",
            {"temp_key": "new:1", "issue_type": "task", "summary": "Сверка", "planned_end": "2026-12-01"},
            {"planned_end": "customfield_99999"},
            "поля customfield_99999 нет в Jira (planned_end)",
        ),
        (
            "refresh",
            {"keys": ["AURORA-1538"]},
            {"sprint": "summary,customfield_10100"},
            'недопустимый id поля sprint: "summary,customfield_10100"',
        ),
    ],
)
async def test_a_mapping_jira_does_not_confirm_fails_before_any_call(
    bench: Bench, command_type: str, params: dict[str, object], fields: dict[str, str], error: str
) -> None:
    """A sprint field that is a date, a field Jira does not have, a list where one id belongs: zero calls."""
    outcome = await bench.run(command_type, params, context=context(**fields))
    assert (outcome.report.status, outcome.report.error, bench.sim.calls) == ("failed", error, [])


async def test_a_pinned_field_refuses_the_hubs_other_mapping(bench: Bench) -> None:
    """The bank pins planned_start to 11200; the hub maps it to 11201 (a date too): refused, zero calls; with the
    pinned mapping the write goes through."""
    pins = {"planned_start": "customfield_11200"}
    params = {"key": "AURORA-1538", "planned_start": "2026-12-01"}
    refused = await bench.run("ensure_fields", params, context=context(planned_start="customfield_11201"), pins=pins)
    assert (refused.report.error, bench.sim.calls) == (
        "поле planned_start: хаб указал customfield_11201, политика агента — customfield_11200",
        [],
    )
    done = await bench.run("ensure_fields", params, context=context(), pins=pins)
    assert (done.report.status, seed_result(done.report.result)) == ("done", {"changed": ["planned_start"]})
    assert bench.sim.raw_issue("AURORA-1538")["custom"]["customfield_11200"] == "2026-12-01"
