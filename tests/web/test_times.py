"""Times in the Jira user's time zone (DESIGN.md 8, round 3), UTC on hover; in UTC, said so, while the agent
has not reported a zone (no zone is assumed)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hub_app.web.labels import when
from hub_app.web.render import TEMPLATES
from tests.hub.support import cmd, create_ok

from .conftest import Api, Open
from .support import Browser, cells

pytestmark = pytest.mark.anyio

_CREATED = re.compile(r'<time datetime="2026-10-22T09:00:00Z" title="22.10.2026 09:00:00 UTC">([^<]+)</time>')


async def _shown(person: Browser) -> set[str]:
    """How the queue page shows the tests' one moment (the batch created, the agent seen, the command claimed)."""
    return set(_CREATED.findall((await person.get("/")).text))


async def test_times_are_utc_and_say_so_until_a_zone_is_known(browser: Open, api: Api) -> None:
    await create_ok(api, [cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23")])
    person = await browser("interface")
    assert await _shown(person) == {"22.10.2026 09:00:00 UTC"}


async def test_times_are_in_the_jira_users_zone_with_utc_on_hover(browser: Open, api: Api) -> None:
    """The agent reported Europe/Moscow: 12:00 MSK shown, 09:00 UTC in the title and the datetime."""
    await create_ok(api, [cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23")])
    assert (await api.claim(jira_time_zone="Europe/Moscow")).status_code == 200
    person = await browser("interface")
    assert await _shown(person) == {"22.10.2026 12:00:00 MSK"}
    page = (await person.get("/")).text
    assert cells(page, "batches")[1][3] == "22.10.2026 12:00:00 MSK"


async def test_a_zone_that_is_no_zone_is_utc(browser: Open, api: Api) -> None:
    await create_ok(api, [cmd("ensure_fields", key="AURORA-1", duedate="2026-10-23")])
    assert (await api.claim(jira_time_zone="Mars/Olympus_Mons")).status_code == 200
    person = await browser("interface")
    assert await _shown(person) == {"22.10.2026 09:00:00 UTC"}


def test_the_one_filter_reads_every_shape() -> None:
    """Hub times, Jira's own offsets and naive times (UTC); what is no time is shown as it came."""
    assert when("2026-10-22T09:00:00Z", "Asia/Omsk") == "22.10.2026 15:00:00 +06"
    assert when("2026-10-22T12:00:00+03:00") == "22.10.2026 09:00:00 UTC"
    assert when("2026-10-22T09:00:00", "Europe/Moscow") == "22.10.2026 12:00:00 MSK"
    assert when("вчера", "Europe/Moscow") == "вчера"
    assert when(None) == "—"


def test_every_template_shows_times_through_the_filter() -> None:
    """No template formats a moment itself: every ``…_at`` value goes through ``| when``."""
    raw = re.compile(r"\{\{[^}]*\b\w+_at\b(?![^}]*\|\s*when)[^}]*\}\}")
    offenders = [
        f"{path.name}: {match}" for path in Path(TEMPLATES).glob("*.html") for match in raw.findall(path.read_text())
    ]
    assert offenders == []
