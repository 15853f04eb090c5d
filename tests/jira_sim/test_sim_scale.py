"""The simulator at scale (DESIGN 9, "At scale"): the generated seed, and a query evaluated once per store version.

Not timed: the tests count evaluations (``store.searches.evaluations``) instead of measuring time.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime, timedelta

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jira_sim import Simulator
from jira_sim.generated import generated_seed
from tests.support import T0

pytestmark = pytest.mark.anyio

REFRESH = 'project = AURORA AND labels in ("AWPCA", "STOCKS_DRRK")'
SMALL = Simulator(generated_seed(60), clock=lambda: T0)


class MovableClock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def moving() -> MovableClock:
    return MovableClock()


@pytest.fixture
def big(moving: MovableClock) -> Simulator:
    return Simulator(generated_seed(250), clock=moving)


@pytest.fixture
async def jira(big: Simulator) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=big.asgi)
    headers = {"Authorization": "Bearer secret-token"}
    async with httpx.AsyncClient(transport=transport, base_url="http://jira.test", headers=headers) as client:
        yield client


async def page(jira: httpx.AsyncClient, jql: str, start: int, size: int = 100) -> dict[str, object]:
    r = await jira.post("/rest/api/2/search", json={"jql": jql, "startAt": start, "maxResults": size, "fields": []})
    assert r.status_code == 200, r.text
    body: dict[str, object] = r.json()
    return body


def keys_of(body: dict[str, object]) -> list[str]:
    issues = body["issues"]
    assert isinstance(issues, list)
    return [i["key"] for i in issues]


def test_generated_seed_follows_its_rules() -> None:
    """100 generated issues: 63 AWPCA, 32 STOCKS_DRRK, 5 unlabelled, 12 links, 17 in the active sprint, 9 next."""
    sim = Simulator(generated_seed(100), clock=lambda: T0)
    store = sim.store

    def count(jql: str) -> int:
        return len(store.search(jql, "bridge-user").keys)

    assert (count("labels = AWPCA"), count("labels = STOCKS_DRRK"), count("labels is EMPTY")) == (63, 32, 5)
    assert (count("sprint = 7"), count("sprint = 8"), count("sprint = 6")) == (17, 9, 5)
    assert count("status = Готово") == 25
    assert len(store.links) == 12
    assert [(link.inward, link.outward) for link in store.links_of("AURORA-25")] == [("AURORA-25", "AURORA-27")]
    assert sim.raw_issue("AURORA-100")["labels"] == []
    assert sim.raw_issue("AURORA-5")["description"] == "Строка 1 задачи 5\r\nСтрока 2"
    created = store.issues["AURORA-1"].created, store.issues["AURORA-100"].created
    assert (created[1] - created[0]).total_seconds() == 99 * 60


async def test_a_walk_of_every_page_evaluates_the_query_once(jira: httpx.AsyncClient, big: Simulator) -> None:
    """Three pages of the refresh query cost one evaluation and concatenate to the whole ordered result."""
    before = big.store.searches.evaluations
    seen: list[str] = []
    for start in (0, 100, 200):
        body = await page(jira, REFRESH, start)
        assert body["total"] == 238
        seen += keys_of(body)
    assert big.store.searches.evaluations == before + 1
    assert seen == list(big.store.search(REFRESH, "bridge-user").keys)
    assert seen[:3] == ["AURORA-1", "AURORA-2", "AURORA-3"]
    assert len(seen) == len(set(seen)) == 238


async def test_any_write_makes_the_next_page_evaluate_again(jira: httpx.AsyncClient, big: Simulator) -> None:
    """A label added between two pages shows in the next page's total; a comment alone also starts a new version."""
    await page(jira, REFRESH, 0)
    before = big.store.searches.evaluations
    edit = {"update": {"labels": [{"add": "AWPCA"}]}}
    assert (await jira.put("/rest/api/2/issue/AURORA-20", json=edit)).status_code == 204
    second = await page(jira, REFRESH, 100)
    assert (second["total"], big.store.searches.evaluations) == (239, before + 1)
    await page(jira, REFRESH, 200)
    assert big.store.searches.evaluations == before + 1
    assert (await jira.post("/rest/api/2/issue/AURORA-1/comment", json={"body": "x"})).status_code == 201
    await page(jira, REFRESH, 200)
    assert big.store.searches.evaluations == before + 2


async def test_a_query_that_reads_the_clock_is_kept_only_for_that_instant(
    jira: httpx.AsyncClient, big: Simulator, moving: MovableClock
) -> None:
    """created >= -61d is evaluated once while the clock stands still, again when it moves."""
    jql = "project = AURORA AND created >= -61d"
    before = big.store.searches.evaluations
    first = await page(jira, jql, 0)
    await page(jira, jql, 100)
    assert big.store.searches.evaluations == before + 1
    moving.now += timedelta(days=1)
    later = await page(jira, jql, 0)
    assert big.store.searches.evaluations == before + 2
    assert (first["total"], later["total"]) == (250, 1)


async def test_each_caller_and_validation_mode_has_its_own_result(big: Simulator) -> None:
    """currentUser() differs by caller; the same query by another user or non-strict is evaluated on its own."""
    store = big.store
    jql = "reporter = currentUser()"
    before = store.searches.evaluations
    mine = store.search(jql, "bridge-user")
    theirs = store.search(jql, "ivanov")
    lenient = store.search(jql, "bridge-user", strict=False)
    assert store.searches.evaluations == before + 3
    assert (len(mine.keys), len(theirs.keys), lenient.keys == mine.keys) == (83, 84, True)
    assert store.search(jql, "ivanov") is theirs


def test_a_reset_never_answers_from_the_facts_of_a_forgotten_issue(big: Simulator) -> None:
    """After a reset, an issue created again under the same key is searched by its new summary, not the old one."""
    store = big.store
    fields = {"project": {"key": "AURORA"}, "issuetype": {"name": "Задача"}}
    assert store.create_issue({"fields": {**fields, "summary": "Альфа"}}, "bridge-user").key == "AURORA-251"
    assert store.search("summary ~ Альфа", "bridge-user").keys == ("AURORA-251",)
    big.reset()
    assert store.create_issue({"fields": {**fields, "summary": "Бета"}}, "bridge-user").key == "AURORA-251"
    assert store.search("summary ~ Альфа", "bridge-user").keys == ()
    assert store.search("summary ~ Бета", "bridge-user").keys == ("AURORA-251",)


CLAUSES = st.sampled_from(
    [
        "project = AURORA",
        "project in (AURORA)",
        "labels = AWPCA",
        "labels in (STOCKS_DRRK, AWPCA)",
        "labels = kind-dev",
        "labels is EMPTY",
        "key in (AURORA-3, AURORA-20, AURORA-41)",
        "key = AURORA-7",
        "status = Готово",
        "statusCategory != Done",
        "sprint in openSprints()",
        "sprint = 6",
        "reporter = currentUser()",
    ]
)


@st.composite
def queries(draw: st.DrawFn) -> str:
    def combine(depth: int) -> str:
        if depth == 0 or draw(st.booleans()):
            return draw(CLAUSES)
        op = draw(st.sampled_from([" AND ", " OR ", " AND NOT "]))
        return f"({combine(depth - 1)}{op}{combine(depth - 1)})"

    return combine(3)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=queries(), order=st.sampled_from(["", " ORDER BY key DESC", " ORDER BY status, created DESC"]))
def test_narrowing_by_the_indexes_never_changes_a_result(query: str, order: str) -> None:
    """A query answers the same keys in the same order with and without index narrowing (NOT NOT hides it)."""
    store = SMALL.store
    narrowed = store.search(query + order, "bridge-user").keys
    everything = store.search(f"NOT (NOT ({query})){order}", "bridge-user").keys
    assert narrowed == everything
