"""What TLS costs the agent: building a target's TLS context, and a claim to the hub over mutual TLS.

Run: ``PYTHONPATH=src python bench/bench_agent_tls.py [--claims N]``. The hub (SQLite in a temporary directory)
is served by uvicorn over HTTPS asking for a client certificate, with a CA and certificates made by ``trustme``
(the helpers of ``tests/agent/tls_servers.py``). Prints the mean milliseconds of: a TLS context from the OS
trust store, one from a CA bundle with a client certificate, an empty claim (204) on a kept-alive connection,
and one on a new connection each time (the handshake included). A measurement, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository: the agent tests' TLS servers

from adapters.hub_client import HubClient
from adapters.targets import Target, ssl_context
from hub_app.app import create_app
from hub_app.bodies.admin import TokenIn
from hub_app.operations import admin
from hub_app.runtime.hub import open_hub
from tests.agent.tls_servers import make_pki, serve_https


def mean_ms(call: Callable[[], Any], runs: int) -> float:
    start = time.perf_counter()
    for _ in range(runs):
        call()
    return (time.perf_counter() - start) / runs * 1000


async def claims(target: Target, token: str, runs: int, *, fresh: bool) -> float:
    async with HubClient(target, token) as hub:
        await hub.claim(agent_id="bench", version="v", wait=0)
        start = time.perf_counter()
        for _ in range(runs):
            if fresh:
                async with HubClient(target, token) as other:
                    await other.claim(agent_id="bench", version="v", wait=0)
            else:
                await hub.claim(agent_id="bench", version="v", wait=0)
        return (time.perf_counter() - start) / runs * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--claims", type=int, default=30)
    runs = parser.parse_args().claims
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        pki = make_pki(root / "pki")
        tokens: dict[str, str] = {}

        async def hub_app() -> Any:
            hub = await open_hub(data_dir=root / "data")
            async with hub.unit() as unit:
                tokens["agent"] = (await admin.add_token(unit, TokenIn(name="bench", role="agent"))).secret
            return create_app(hub, close_hub=True, mcp=False)

        with serve_https(hub_app, pki, mutual=True) as url:
            target = Target(
                name="hub",
                url=url,
                ca_bundle=str(pki.ca),
                client_cert=str(pki.client_cert),
                client_key=str(pki.client_key),
            )
            os_store = mean_ms(lambda: ssl_context(Target(name="hub", url=url)), 10)
            bundle = mean_ms(lambda: ssl_context(target), 10)
            print(f"TLS context, OS trust store: {os_store:.1f} ms; CA bundle + client certificate: {bundle:.1f} ms")
            kept = asyncio.run(claims(target, tokens["agent"], runs, fresh=False))
            fresh = asyncio.run(claims(target, tokens["agent"], runs, fresh=True))
            print(f"empty claim over mutual TLS: {kept:.1f} ms kept-alive, {fresh:.1f} ms with a new connection")


if __name__ == "__main__":
    main()
