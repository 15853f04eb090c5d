"""``sdlc-agent check`` against the simulator (a real server) and a hub that takes the agent's token (issue 32 item
6, DESIGN.md 5.7): each allowed project read from Jira, a project Jira lacks failing the check in one line, the
pinned fields verified against Jira's field list."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from agent_app.cli import main
from jira_sim import Simulator
from jira_sim.instance import _SYSTEM as SYSTEM
from jira_sim.serving import serve_app_in_thread, serve_in_thread


async def _hub(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """A hub as ``check`` sees one: ``/health`` answers, and the agent's token is taken (an unknown command: 404)."""
    if scope["type"] != "http":
        return
    status = 200 if scope["path"] == "/health" else 404
    body = json.dumps({"status_code": status, "detail": "команды 0 нет"}).encode()
    await send({"type": "http.response.start", "status": status, "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": body})


@pytest.fixture
def urls() -> Iterator[tuple[str, str]]:
    with serve_app_in_thread(_hub) as hub, serve_in_thread(Simulator()) as jira:
        yield hub, jira


def check(urls: tuple[str, str], *policy: str) -> int:
    hub, jira = urls
    argv = ["check", "--hub", hub, "--hub-token", "agent-secret", "--jira", jira, "--jira-token", "pat"]
    return main([*argv, "--log-format", "json", *policy])


@pytest.mark.usefixtures("logging_restored")
def test_a_project_jira_does_not_have_fails_the_check(
    urls: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """``--allow-project NOPE``: one line with Jira's 404 and the fix, exit 2; AURORA is ``ok`` by its name."""
    assert check(urls, "--allow-project", "AURORA", "--allow-project", "NOPE") == 2
    lines = capsys.readouterr().out.splitlines()
    jira = f"jira at {urls[1]}"
    assert lines[:4] == [
        f"ok: hub at {urls[0]} takes the agent's token",
        f"ok: {jira} answers as bridge-user",
        f"ok: project AURORA (Аврора) at {jira}",
        f"{jira}: project NOPE: HTTP 404: No project could be found with key 'NOPE'.: the project does not exist or "
        "the agent's Jira user cannot browse it; fix --allow-project or the user's permissions",
    ]
    assert lines[-1] == (
        "ok: policy: projects AURORA, NOPE; types all; read-only no; min gap none; writes per hour unlimited"
    )


@pytest.mark.usefixtures("logging_restored")
def test_pinned_fields_are_verified_and_printed(urls: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    """Pins matching Jira's schema are printed with Jira's name and plugin: exit 0; a pin of the Epic Link field
    as the planned start fails with the delivery's words and the fix."""
    pins = ["--field", "planned_start=customfield_11200", "--field", "sprint=customfield_10104"]
    assert check(urls, "--allow-project", "AURORA", *pins) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[3:5] == [
        "ok: field sprint = customfield_10104 (Sprint, com.pyxis.greenhopper.jira:gh-sprint): pinned, verified",
        "ok: field planned_start = customfield_11200 (Плановое начало, "
        "com.atlassian.jira.plugin.system.customfieldtypes:datepicker): pinned, verified",
    ]
    fields = len(Simulator().store.fields) + len(SYSTEM)
    assert lines[5] == (
        f"ok: fields: {fields} in Jira; pinned: planned_start, sprint; the hub's mapping is verified against them "
        "on every delivery"
    )
    assert check(urls, "--allow-project", "AURORA", "--field", "planned_start=customfield_10100") == 2
    assert capsys.readouterr().out.splitlines()[3] == (
        "field planned_start = customfield_10100: поле customfield_10100 — не дата (Epic Link): "
        "fix --field planned_start=…"
    )
