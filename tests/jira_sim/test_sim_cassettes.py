"""The simulator answers the recorded cassettes' requests with their status codes and (at least) their keys."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from jira_sim import Simulator, load_sample

pytestmark = pytest.mark.anyio

CASSETTES = {
    path.stem: yaml.safe_load(path.read_text(encoding="utf-8"))
    for path in sorted((Path(__file__).parents[1] / "cassettes").glob("*.yaml"))
}


def _planned_start_not_on_screen(seed: dict[str, Any]) -> None:
    next(f for f in seed["fields"] if f["id"] == "customfield_11200")["editable"] = False


# cassettes recorded against a Jira configured differently from the sample
SEED_CHANGES = {"ensure_fields_rejected": _planned_start_not_on_screen}


def missing_keys(expected: Any, actual: Any, path: str = "") -> list[str]:
    """Key paths of ``expected`` absent from ``actual``; values and list lengths may differ."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        # a link shows either inwardIssue or outwardIssue: which one is data, not shape
        sides = {"inwardIssue", "outwardIssue"}
        either = sides if sides & set(actual) else set()
        out = [f"{path}/{k}" for k in expected if k not in actual and k not in either]
        for k, v in expected.items():
            if k in actual and v is not None and actual[k] is not None:
                out += missing_keys(v, actual[k], f"{path}/{k}")
        return out
    if isinstance(expected, list) and isinstance(actual, list) and actual:
        out = []
        for item in expected:
            # compare with the actual element that shares most keys (links have inward or outward issues)
            best = max(
                actual, key=lambda a: len(set(a) & set(item)) if isinstance(a, dict) and isinstance(item, dict) else 0
            )
            out += missing_keys(item, best, f"{path}[]")
        return sorted(set(out))
    return []


def with_sample_ids(uri: str, sim: Simulator) -> str:
    """The request URI with ids the cassettes invented replaced by the sample's (same kind of object)."""

    def comment(m: re.Match[str]) -> str:
        comments = sim.raw_issue(m[1])["comments"]
        known = {c["id"] for c in comments}
        return m[0] if m[2] in known else f"/issue/{m[1]}/comment/{comments[0]['id']}"

    def link(m: re.Match[str]) -> str:
        return m[0] if m[1] in sim.store.links else f"/issueLink/{next(iter(sim.store.links))}"

    def sprint(m: re.Match[str]) -> str:
        return m[0] if int(m[1]) in sim.store.sprints else "/sprint/8/"

    uri = re.sub(r"/issue/([A-Z]+-\d+)/comment/(\d+)", comment, uri)
    uri = re.sub(r"/issueLink/(\d+)", link, uri)
    return re.sub(r"/sprint/(\d+)/", sprint, uri)


@pytest.mark.parametrize("cassette", sorted(CASSETTES))
async def test_cassette_requests_get_the_recorded_shape(cassette: str, clock) -> None:
    """Replaying each recorded request gives the recorded status and every recorded key."""
    seed = load_sample()
    SEED_CHANGES.get(cassette, lambda _seed: None)(seed)
    sim = Simulator(seed, clock=clock)
    recorded = CASSETTES[cassette]
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=sim.asgi), base_url="http://jira.test") as client:
        for n, interaction in enumerate(recorded["interactions"]):
            request, response = interaction["request"], interaction["response"]
            uri = with_sample_ids(request["uri"], sim)
            headers = {k: v[0] for k, v in (request.get("headers") or {}).items()}
            if cassette != "unauthorized":
                headers["Authorization"] = "Bearer token"
            status = response["status"]["code"]
            if status in (429, 503):
                retry = (response.get("headers") or {}).get("Retry-After", [None])[0]
                sim.add_fault(status=status, retry_after=None if retry is None else float(retry))
            body = request.get("body") or ""
            answer = await client.request(request["method"], uri, content=body.encode("utf-8"), headers=headers)
            where = f"{cassette}[{n}] {request['method']} {uri}"
            assert answer.status_code == status, f"{where}: {answer.text}"
            text = response["body"]["string"]
            if not text:
                continue
            expected = json.loads(text)
            assert missing_keys(expected, answer.json()) == [], where
