"""TLS and proxies per target (DESIGN.md 10) over real sockets: the hub served over HTTPS by uvicorn with mutual
TLS, the simulator over HTTPS with a certificate of another CA, both made in the test (``trustme``); a wrong CA
or a missing client certificate ends in one line naming the URL and the fix, and the hub shows it."""

from __future__ import annotations

import logging
import random
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import httpx
import pytest

from adapters.clock import FakeClock
from adapters.hub_client import HubClient, HubUnreachable
from adapters.jira_http import JiraHttp
from adapters.targets import BadSetting, Target, explain, ssl_context
from agent_app.cli import main
from agent_app.journal import Journal
from agent_app.loop import Agent
from hub_app.app import create_app
from hub_app.bodies.admin import TokenIn
from hub_app.operations import admin
from hub_app.runtime.hub import open_hub
from jira_sim import Simulator
from reconcile.types.binding import executor_for

from .agent_fakes import AURORA_ONLY
from .tls_servers import Pki, make_pki, serve_https

pytestmark = pytest.mark.anyio

#: The policy of these agents: the sample's Jira project only (DESIGN.md 5.5).


@attrs.frozen(kw_only=True)
class Https:
    hub_url: str
    jira_url: str
    hub_pki: Pki
    jira_pki: Pki
    tokens: dict[str, str]
    sim: Simulator


@pytest.fixture
def https(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Https]:
    root = tmp_path_factory.mktemp("tls")
    hub_pki, jira_pki = make_pki(root / "hub", "hub"), make_pki(root / "jira", "jira")
    tokens: dict[str, str] = {}
    sim = Simulator()

    async def hub_app() -> Any:
        hub = await open_hub(data_dir=root / "data")
        async with hub.unit() as unit:
            for role in ("agent", "interface"):
                tokens[role] = (await admin.add_token(unit, TokenIn(name=f"t-{role}", role=role))).secret
        return create_app(hub, close_hub=True, mcp=False)

    async def jira_app() -> Any:
        return sim.asgi

    with serve_https(hub_app, hub_pki, mutual=True) as hub_url, serve_https(jira_app, jira_pki) as jira_url:
        yield Https(hub_url=hub_url, jira_url=jira_url, hub_pki=hub_pki, jira_pki=jira_pki, tokens=tokens, sim=sim)


def hub_target(https: Https, *, client_cert: bool = True) -> Target:
    pki = https.hub_pki
    return Target(
        name="hub",
        url=https.hub_url,
        ca_bundle=str(pki.ca),
        client_cert=str(pki.client_cert) if client_cert else None,
        client_key=str(pki.client_key) if client_cert else None,
    )


def interface(https: Https) -> httpx.AsyncClient:
    """A planner's client of the hub (with a certificate too: the hub asks every client for one)."""
    target = hub_target(https)
    return httpx.AsyncClient(
        base_url=https.hub_url,
        verify=ssl_context(target),
        headers={"Authorization": f"Bearer {https.tokens['interface']}"},
    )


class StopAfter(FakeClock):
    """A fake clock that asks the agent to stop after ``sleeps`` waits (the agent would back off forever)."""

    def __init__(self, sleeps: int) -> None:
        super().__init__(start=0.0)
        self.limit = sleeps
        self.agent: Agent | None = None

    async def sleep(self, seconds: float) -> None:
        await super().sleep(seconds)
        if len(self.sleeps) >= self.limit and self.agent is not None:
            self.agent.request_stop()


def make_agent(tmp_path: Path, https: Https, jira: Target, clock: FakeClock, name: str = "journal.json") -> Agent:
    agent = Agent(
        hub=HubClient(hub_target(https), https.tokens["agent"]),
        jira=JiraHttp.connect(jira, token="pat", clock=clock),
        journal=Journal(tmp_path / name),
        clock=clock,
        agent_id="agent-tls",
        version="0.1.0",
        claim_wait=0,
        rng=random.Random(7),
        policy=AURORA_ONLY,
        executor_for=executor_for,
    )
    if isinstance(clock, StopAfter):
        clock.agent = agent
    return agent


async def close(agent: Agent) -> None:
    await agent.hub.aclose()
    await agent.jira.aclose()


async def test_mutual_tls_takes_the_agent_with_its_certificate_and_refuses_it_without(https: Https) -> None:
    """The hub asks for a client certificate: with it the claim is answered (204: nothing queued); without
    it the connection is closed, and the error says which setting gives one."""
    async with HubClient(hub_target(https), https.tokens["agent"]) as hub:
        assert await hub.claim(agent_id="agent-probe", version="v", wait=0) is None
    async with HubClient(hub_target(https, client_cert=False), https.tokens["agent"]) as hub:
        with pytest.raises(HubUnreachable) as caught:
            await hub.claim(agent_id="agent-probe", version="v", wait=0)
    message = str(caught.value)
    assert message.startswith(f"POST /agent/claim: hub at {https.hub_url} ")
    assert "--hub-client-cert" in message


async def test_wrong_ca_is_one_line_naming_the_url_and_the_fix_and_last_error(
    https: Https, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Jira's certificate is checked against the hub's CA (the wrong bundle): the agent logs one line naming
    Jira's URL and --jira-ca-bundle, backs off (no claim meanwhile), and /agent-status shows the line; an agent
    given the right bundle then claims, which clears it."""
    caplog.set_level(logging.INFO, logger="agent_app")
    clock = StopAfter(3)
    wrong = Target(name="jira", url=https.jira_url, ca_bundle=str(https.hub_pki.ca))
    agent = make_agent(tmp_path, https, wrong, clock)
    await agent.run()
    await close(agent)
    lines = [r for r in caplog.records if r.getMessage() == "unreachable"]
    assert len(lines) == 1
    line = lines[0].__dict__["error"]
    assert line.startswith(f"TLS verification of jira at {https.jira_url} failed (")
    assert line.endswith(
        f"with the CA bundle {https.hub_pki.ca}: give the CA that signed its certificate with --jira-ca-bundle "
        "(or SDLC_AGENT_JIRA_CA_BUNDLE)"
    )
    assert len(clock.sleeps) == 3
    assert [r.__dict__["what"] for r in caplog.records if r.getMessage() == "retry"] == ["jira"] * 3
    async with interface(https) as planner:
        status = (await planner.get("/agent-status")).json()
        assert (status["agent_id"], status["online"], status["last_error"]) == ("agent-tls", True, line)
        right = Target(name="jira", url=https.jira_url, ca_bundle=str(https.jira_pki.ca))
        fixed = make_agent(tmp_path, https, right, FakeClock())
        ctx = await fixed.context()
        await fixed.step(ctx)
        await close(fixed)
        status = (await planner.get("/agent-status")).json()
    assert (status["last_error"], status["jira_user"]) == (None, ctx.jira_user)


async def test_a_command_over_https_both_ways(https: Https, tmp_path: Path) -> None:
    """Each target with its own CA bundle (and the hub with the client certificate): a command goes through."""
    body = {
        "author": "тест",
        "title": "tls",
        "commands": [{"type": "ensure_fields", "params": {"key": "AURORA-1537", "priority": "High"}}],
    }
    async with interface(https) as planner:
        created = (await planner.post("/batches", json=body)).json()
        agent = make_agent(
            tmp_path,
            https,
            Target(name="jira", url=https.jira_url, ca_bundle=str(https.jira_pki.ca)),
            FakeClock(),
            name="j2.json",
        )
        ctx = await agent.context()
        for _ in range(3):
            await agent.step(ctx)
        await close(agent)
        batch = (await planner.get(f"/batches/{created['id']}")).json()
    first = batch["commands"][0]
    assert (first["status"], first["error"]) == ("done", None)
    assert https.sim.raw_issue("AURORA-1537")["priority"] == "High"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


async def test_a_proxy_per_target_and_no_proxy(https: Https, monkeypatch: pytest.MonkeyPatch) -> None:
    """A target's proxy is used (here one that is down: the error names it, without its password) unless
    NO_PROXY names the host."""
    port = free_port()
    proxy = f"http://agent:proxy-pass@127.0.0.1:{port}"
    target = Target(name="jira", url=https.jira_url, ca_bundle=str(https.jira_pki.ca), proxy=proxy)
    monkeypatch.setenv("NO_PROXY", "jira.bank")
    jira = JiraHttp.connect(target, token="pat")
    with pytest.raises(httpx.TransportError) as caught:
        await jira.myself()
    await jira.aclose()
    # The proxy's password never reaches a log line (nor the hub's last_error).
    assert explain(target, caught.value).endswith(f"and the proxy http://***@127.0.0.1:{port} (--jira-proxy, NO_PROXY)")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    jira = JiraHttp.connect(target, token="pat")
    name, _ = await jira.myself()
    await jira.aclose()
    assert name


@pytest.mark.parametrize(
    ("target", "message"),
    [
        (
            Target(name="hub", url="hub.bank:8000"),
            "--hub 'hub.bank:8000' is not an http(s) URL: write it with its scheme, e.g. https://hub.bank:8000",
        ),
        (
            Target(name="jira", url="https://jira.bank", ca_bundle="/nonexistent/ca.pem"),
            "--jira-ca-bundle /nonexistent/ca.pem: cannot read a PEM CA bundle ([Errno 2] No such file or directory)",
        ),
        (
            Target(name="hub", url="https://hub.bank", client_key="/k.pem"),
            "--hub-client-key needs --hub-client-cert",
        ),
        (
            Target(name="hub", url="https://hub.bank", proxy="proxy.bank:3128"),
            "--hub-proxy 'proxy.bank:3128' is not a proxy URL: e.g. http://proxy.bank:3128",
        ),
    ],
)
def test_a_wrong_setting_is_one_line_naming_it(target: Target, message: str) -> None:
    with pytest.raises(BadSetting) as caught:
        target.check()
    assert str(caught.value) == message


async def test_a_wrong_jira_context_path_says_so(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Jira's base URL without its context path (or with a wrong one): 404 on the first call becomes one line
    that names the URL and says to check the context path, not a bare "HTTP 404"."""
    caplog.set_level(logging.INFO, logger="agent_app")
    sim = Simulator()
    clock = StopAfter(2)
    jira = JiraHttp.connect(
        "http://jira.bank/jira", token="pat", clock=clock, transport=httpx.ASGITransport(app=sim.asgi)
    )
    hub = HubClient("http://hub.bank", "t", transport=httpx.MockTransport(lambda r: httpx.Response(204)))
    agent = Agent(
        hub=hub,
        jira=jira,
        journal=Journal(tmp_path / "j.json"),
        clock=clock,
        agent_id="a",
        version="v",
        policy=AURORA_ONLY,
        executor_for=executor_for,
    )
    clock.agent = agent
    await agent.run()
    await close(agent)
    assert [r.__dict__["error"] for r in caplog.records if r.getMessage() == "unreachable"] == [
        "jira at http://jira.bank/jira answered GET /rest/api/2/myself with HTTP 404: check the Jira base URL and "
        "its context path (e.g. https://host/jira) in --jira"
    ]


@pytest.mark.usefixtures("logging_restored")
def test_check_says_what_is_wrong_per_target_and_logs_no_secret(
    https: Https, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``sdlc-agent check`` with the secrets from a file and the environment (none on the command line): the
    hub over mutual TLS is fine, Jira's CA is the wrong one; one line each, exit 2, no secret printed."""
    token_file = tmp_path / "hub-token"
    token_file.write_text(https.tokens["agent"], encoding="utf-8")
    monkeypatch.setenv("SDLC_AGENT_HUB_TOKEN_FILE", str(token_file))
    monkeypatch.setenv("SDLC_AGENT_JIRA_TOKEN", "jira-secret-pat")
    pki = https.hub_pki
    argv = ["check", "--hub", https.hub_url, "--hub-ca-bundle", str(pki.ca), "--hub-client-cert", str(pki.client_cert)]
    argv += ["--hub-client-key", str(pki.client_key), "--jira", https.jira_url, "--jira-ca-bundle", str(pki.ca)]
    argv += ["--log-level", "debug", "--log-format", "json"]
    monkeypatch.setenv("SDLC_AGENT_ALLOW_PROJECTS", "AURORA")
    assert main(argv) == 2
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[0] == f"ok: hub at {https.hub_url} takes the agent's token"
    assert lines[1].startswith(f"TLS verification of jira at {https.jira_url} failed (")
    assert lines[2] == "ok: policy: projects AURORA; types all; read-only no; min gap none; writes per hour unlimited"
    assert len(lines) == 3
    assert [s for s in (https.tokens["agent"], "jira-secret-pat") if s in out + err + " ".join(argv)] == []
    monkeypatch.setenv("SDLC_AGENT_JIRA_CA_BUNDLE", str(https.jira_pki.ca))
    argv[argv.index("--jira-ca-bundle") : argv.index("--jira-ca-bundle") + 2] = []
    assert main(argv) == 0
    assert capsys.readouterr().out.splitlines()[1].startswith(f"ok: jira at {https.jira_url} answers as ")


async def test_ssl_cert_file_redirects_the_os_trust_store(https: Https, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a target's own bundle the OS trust store is used, and OpenSSL's SSL_CERT_FILE redirects it (as
    docs/agent.md says: for both targets at once); REQUESTS_CA_BUNDLE is not read."""
    target = Target(name="jira", url=https.jira_url)
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(https.jira_pki.ca))
    jira = JiraHttp.connect(target, token="pat")
    with pytest.raises(httpx.ConnectError) as caught:
        await jira.myself()
    await jira.aclose()
    assert explain(target, caught.value).endswith(
        "with the OS trust store: give the CA that signed its certificate "
        "with --jira-ca-bundle (or SDLC_AGENT_JIRA_CA_BUNDLE)"
    )
    monkeypatch.setenv("SSL_CERT_FILE", str(https.jira_pki.ca))
    jira = JiraHttp.connect(target, token="pat")
    name, _ = await jira.myself()
    await jira.aclose()
    assert name
