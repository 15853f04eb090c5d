"""Auth, injected faults, recorded calls and the /_sim control API of the simulator."""

from __future__ import annotations

import base64

import httpx
import pytest

from jira_sim import Simulator, load_sample

pytestmark = pytest.mark.anyio

UNAUTHENTICATED = {
    "errorMessages": ["You are not authenticated. Authentication required to perform this operation."],
    "errors": {},
}


@pytest.mark.parametrize(
    "authorization",
    [None, "Bearer ", "Basic " + base64.b64encode(b"stranger:pw").decode(), "Basic !!!", "Token abc"],
)
async def test_missing_or_bad_auth_is_401(make_client, authorization: str | None) -> None:
    """No credentials, an empty bearer token or an unknown basic user answer 401 with Jira's body."""
    headers = {} if authorization is None else {"Authorization": authorization}
    async with make_client(**headers) as client:
        r = await client.get("/rest/api/2/myself")
    assert r.status_code == 401
    assert r.json() == UNAUTHENTICATED


async def test_429_with_retry_after_then_normal(jira: httpx.AsyncClient, sim: Simulator) -> None:
    """A 429 fault answers once with Retry-After and rate-limit headers, then the call goes through."""
    sim.add_fault(path_regex=r"/issue/AURORA-1537$", status=429, retry_after=7)
    first = await jira.get("/rest/api/2/issue/AURORA-1537")
    assert first.status_code == 429
    assert first.headers["retry-after"] == "7"
    assert first.headers["x-ratelimit-remaining"] == "0"
    second = await jira.get("/rest/api/2/issue/AURORA-1537")
    assert second.status_code == 200
    assert [c["status"] for c in sim.calls] == [429, 200]


async def test_fault_times_count_down_and_filters_apply(jira: httpx.AsyncClient, sim: Simulator) -> None:
    """times=2 fails two matching calls; other methods and paths are not touched; fractions are kept."""
    sim.add_fault(method="POST", path_regex="/search", status=503, times=2, retry_after=0.25)
    assert (await jira.get("/rest/api/2/search", params={"jql": "key = AURORA-1"})).status_code == 200
    r1 = await jira.post("/rest/api/2/search", json={"jql": "key = AURORA-1"})
    r2 = await jira.post("/rest/api/2/search", json={"jql": "key = AURORA-1"})
    r3 = await jira.post("/rest/api/2/search", json={"jql": "key = AURORA-1"})
    assert (r1.status_code, r2.status_code, r3.status_code) == (503, 503, 200)
    assert r1.headers["retry-after"] == "0.25"
    assert r1.headers["content-type"] == "text/html;charset=UTF-8"
    assert [(c["method"], c["status"]) for c in sim.calls] == [
        ("GET", 200),
        ("POST", 503),
        ("POST", 503),
        ("POST", 200),
    ]


async def test_429_without_retry_after_has_no_header(jira: httpx.AsyncClient, sim: Simulator) -> None:
    """retry_after=None sends no Retry-After (the agent then waits its default)."""
    sim.add_fault(status=429)
    r = await jira.get("/rest/api/2/myself")
    assert r.status_code == 429
    assert "retry-after" not in r.headers


async def test_drop_reaches_the_client_and_is_recorded(jira: httpx.AsyncClient, sim: Simulator) -> None:
    """A drop fault raises httpx.RemoteProtocolError in-process; the call is recorded with status 0."""
    sim.add_fault(path_regex="/issueLink$", status="drop")
    body = {"type": {"name": "Связанные"}, "inwardIssue": {"key": "AURORA-1"}, "outwardIssue": {"key": "AURORA-1538"}}
    with pytest.raises(httpx.RemoteProtocolError):
        await jira.post("/rest/api/2/issueLink", json=body)
    assert sim.raw_issue("AURORA-1")["links"] == []
    assert (await jira.post("/rest/api/2/issueLink", json=body)).status_code == 201
    assert [c["status"] for c in sim.calls] == [0, 201]


async def test_pass_fault_only_delays(jira: httpx.AsyncClient, sim: Simulator) -> None:
    """status="pass" with latency answers normally after the delay."""
    sim.add_fault(status="pass", latency=0.01)
    assert (await jira.get("/rest/api/2/myself")).status_code == 200


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"status": 500}, "fault status must be one of 429, 503, 'drop', 'pass', not 500"),
        ({"times": 0}, "fault times must be a positive integer, not 0"),
        ({"latency": -1}, "fault latency and retry_after must not be negative"),
    ],
)
def test_add_fault_validates(sim: Simulator, kwargs: dict, message: str) -> None:
    """Bad fault parameters raise ValueError naming the problem."""
    with pytest.raises(ValueError, match="^" + message.replace("(", r"\(").replace(")", r"\)") + "$"):
        sim.add_fault(**kwargs)


async def test_calls_record_rest_calls_only(jira: httpx.AsyncClient, sim: Simulator) -> None:
    """calls hold {method, path, status, at} without query strings and without /_sim calls."""
    await jira.get("/rest/api/2/issue/AURORA-1", params={"fields": "summary"})
    await jira.get("/_sim/calls")
    await jira.get("/rest/api/2/issue/AURORA-0")
    assert sim.calls == [
        {"method": "GET", "path": "/rest/api/2/issue/AURORA-1", "status": 200, "at": "2026-10-22T09:00:00Z"},
        {"method": "GET", "path": "/rest/api/2/issue/AURORA-0", "status": 404, "at": "2026-10-22T09:00:00Z"},
    ]
    sim.clear_calls()
    assert sim.calls == []


async def test_control_api_over_http(make_client, sim: Simulator) -> None:
    """/_sim/faults, /_sim/calls, /_sim/state and /_sim/reset work without auth."""
    async with make_client() as control, make_client(Authorization="Bearer t") as jira:
        r = await control.post(
            "/_sim/faults", json={"method": "GET", "path_regex": "myself", "status": 429, "retry_after": 2, "times": 1}
        )
        assert r.status_code == 201
        assert (await jira.get("/rest/api/2/myself")).status_code == 429
        assert (await control.post("/_sim/faults", json={"status": "drop", "times": 3})).status_code == 201
        assert (await control.delete("/_sim/faults")).status_code == 204
        assert (await jira.get("/rest/api/2/myself")).status_code == 200
        calls = (await control.get("/_sim/calls")).json()
        assert [(c["path"], c["status"]) for c in calls] == [("/rest/api/2/myself", 429), ("/rest/api/2/myself", 200)]
        assert (await control.delete("/_sim/calls")).status_code == 204
        assert (await control.get("/_sim/calls")).json() == []

        await jira.put("/rest/api/2/issue/AURORA-1", json={"fields": {"summary": "Новая тема"}})
        state = (await control.get("/_sim/state/issues/AURORA-1")).json()
        assert state == sim.raw_issue("AURORA-1")
        assert state["summary"] == "Новая тема"
        assert state["changelog"][-1]["items"][0]["fromString"] == "Сверка остатков по счетам ДРРК"
        assert (await control.get("/_sim/state/issues/AURORA-4242")).status_code == 404

        assert (await control.post("/_sim/reset")).status_code == 204
        assert sim.raw_issue("AURORA-1")["summary"] == "Сверка остатков по счетам ДРРК"
        assert sim.calls == []


async def test_control_api_refuses_bad_fault(make_client) -> None:
    """A fault with an unknown key or status answers 400."""
    async with make_client() as control:
        r = await control.post("/_sim/faults", json={"status": 429, "colour": "red"})
        assert (r.status_code, r.json()["errorMessages"]) == (400, ["unknown fault keys: colour"])
        r = await control.post("/_sim/faults", json={"status": 418})
        assert r.status_code == 400


async def test_reset_restores_counters_and_issues(jira: httpx.AsyncClient, sim: Simulator) -> None:
    """After reset the next created issue is AURORA-1590 again and created issues are gone."""
    fields = {"project": {"key": "AURORA"}, "issuetype": {"id": "3"}, "summary": "x"}
    assert (await jira.post("/rest/api/2/issue", json={"fields": fields})).json()["key"] == "AURORA-1590"
    sim.reset()
    assert (await jira.get("/rest/api/2/issue/AURORA-1590")).status_code == 404
    assert (await jira.post("/rest/api/2/issue", json={"fields": fields})).json()["key"] == "AURORA-1590"


def test_load_sample_is_a_fresh_copy_with_the_scenario_issues() -> None:
    """load_sample() returns the shipped seed with the issues the seed scenarios name."""
    sample = load_sample()
    sample["issues"].clear()
    keys = {i["key"] for i in load_sample()["issues"]}
    assert {
        "AURORA-1",
        "AURORA-1445",
        "AURORA-1446",
        "AURORA-1500",
        "AURORA-1533",
        "AURORA-1537",
        "AURORA-1538",
    } <= keys
    assert Simulator().raw_issue("AURORA-1533")["duedate"] == "2026-10-23"


async def test_unknown_rest_path_and_wrong_method(jira: httpx.AsyncClient) -> None:
    """An unknown resource is 404, a known one with another method 405."""
    r = await jira.get("/rest/api/2/nothing")
    assert r.status_code == 404
    assert r.json() == {"message": "null for uri: http://jira.test/rest/api/2/nothing", "status-code": 404}
    assert (await jira.delete("/rest/api/2/myself")).status_code == 405
