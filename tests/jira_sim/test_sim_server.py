"""The ``jira-sim`` console script as a real server on an ephemeral port."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from jira_sim.serving import serve_app_in_thread

LISTENING = re.compile(r"^jira-sim listening on (http://127\.0\.0\.1:(\d+))$")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    seed = json.loads((Path(__file__).parents[2] / "src/jira_sim/sample_seed.json").read_text(encoding="utf-8"))
    seed["projects"][0]["next_number"] = 7000
    seed_file = tmp_path / "seed.json"
    seed_file.write_text(json.dumps(seed, ensure_ascii=False), encoding="utf-8")
    script = Path(sys.executable).with_name("jira-sim")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "jira_sim.cli"]
    proc = subprocess.Popen(
        [*command, "--host", "127.0.0.1", "--port", "0", "--seed", str(seed_file)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()
        match = LISTENING.match(line)
        assert match, f"unexpected first line {line!r}"
        assert match[2] != "0"
        yield match[1]
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_real_server_answers_drops_and_resets(server: str) -> None:
    """On port 0 the server prints its real port, answers REST, cuts the connection on a drop, and resets."""
    with httpx.Client(base_url=server, headers={"Authorization": "Bearer t"}, timeout=5) as jira:
        assert jira.get("/rest/api/2/myself").json()["name"] == "bridge-user"
        fields = {"project": {"key": "AURORA"}, "issuetype": {"name": "Задача"}, "summary": "Через сокет"}
        assert jira.post("/rest/api/2/issue", json={"fields": fields}).json()["key"] == "AURORA-7000"
        assert jira.post("/_sim/faults", json={"path_regex": "/myself$", "status": "drop"}).status_code == 201
        with pytest.raises(httpx.RemoteProtocolError):
            jira.get("/rest/api/2/myself")
        assert jira.get("/rest/api/2/myself").status_code == 200
        calls = jira.get("/_sim/calls").json()
        assert [(c["method"], c["path"], c["status"]) for c in calls] == [
            ("GET", "/rest/api/2/myself", 200),
            ("POST", "/rest/api/2/issue", 201),
            ("GET", "/rest/api/2/myself", 0),
            ("GET", "/rest/api/2/myself", 200),
        ]
        assert jira.post("/_sim/reset").status_code == 204
        assert jira.get("/rest/api/2/issue/AURORA-7000").status_code == 404
        after = jira.get("/_sim/calls").json()
        assert [(c["path"], c["status"]) for c in after] == [("/rest/api/2/issue/AURORA-7000", 404)]


def test_real_server_limits_and_delivers_webhooks(server: str) -> None:
    """The jira-sim process: a rate limit's headers on an answer, and an edit's webhook posted over the network
    to a receiver while the edit was already answered."""
    received: list[bytes] = []

    async def receiver(scope: dict[str, Any], receive: Any, send: Any) -> None:
        message = await receive()
        received.append(message.get("body", b""))
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    with (
        serve_app_in_thread(receiver) as hook_url,
        httpx.Client(base_url=server, headers={"Authorization": "Bearer t"}, timeout=5) as jira,
    ):
        assert jira.post("/_sim/rate_limit", json={"fill_per_second": 100, "max": 50}).status_code == 201
        body = {"name": "agent", "url": f"{hook_url}/jira/webhook", "events": ["jira:issue_updated"]}
        registered = jira.post("/rest/jira-webhook/1.0/webhooks", json=body)
        assert (registered.status_code, registered.headers["x-ratelimit-remaining"]) == (201, "49")
        edit = jira.put("/rest/api/2/issue/AURORA-1533", json={"fields": {"summary": "По сети"}})
        assert edit.status_code == 204
        deadline = time.monotonic() + 10
        deliveries = jira.get("/_sim/webhook_deliveries").json()
        while any(d["status"] is None for d in deliveries) and time.monotonic() < deadline:
            time.sleep(0.02)
            deliveries = jira.get("/_sim/webhook_deliveries").json()
    assert [json.loads(b)["issue"]["fields"]["summary"] for b in received] == ["По сети"]
    assert [(d["event"], d["key"], d["status"]) for d in deliveries] == [("jira:issue_updated", "AURORA-1533", 204)]
