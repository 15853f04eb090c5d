"""Real HTTPS servers for the agent's TLS tests: an ASGI app served by uvicorn on a loopback port in a thread,
with certificates from a test CA (``trustme``), optionally asking for a client certificate (mutual TLS)."""

from __future__ import annotations

import asyncio
import socket
import ssl
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import attrs
import trustme
import uvicorn

#: Builds the app inside the server's own event loop (the hub's database engine must live there).
AppFactory = Callable[[], Awaitable[Any]]


@attrs.frozen(kw_only=True)
class Pki:
    """PEM files of a test CA, a server certificate for 127.0.0.1 and a client certificate, in ``directory``."""

    ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path


def make_pki(directory: Path, name: str = "bank") -> Pki:
    directory.mkdir(parents=True, exist_ok=True)
    ca = trustme.CA(organization_name=f"{name} test CA")
    server = ca.issue_cert("127.0.0.1", "localhost")
    client = ca.issue_cert("sdlc-agent@bank.test")
    pki = Pki(
        ca=directory / "ca.pem",
        server_cert=directory / "server.pem",
        server_key=directory / "server.key",
        client_cert=directory / "client.pem",
        client_key=directory / "client.key",
    )
    ca.cert_pem.write_to_path(str(pki.ca))
    server.private_key_pem.write_to_path(str(pki.server_key))
    server.cert_chain_pems[0].write_to_path(str(pki.server_cert))
    client.private_key_pem.write_to_path(str(pki.client_key))
    client.cert_chain_pems[0].write_to_path(str(pki.client_cert))
    return pki


@contextmanager
def serve_https(factory: AppFactory, pki: Pki, *, mutual: bool = False) -> Iterator[str]:
    """Serve the app over HTTPS until the block ends; yields its base URL."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        "unused:app",
        ssl_keyfile=str(pki.server_key),
        ssl_certfile=str(pki.server_cert),
        ssl_ca_certs=str(pki.ca) if mutual else None,
        ssl_cert_reqs=ssl.CERT_REQUIRED if mutual else ssl.CERT_NONE,
        log_config=None,
        log_level="warning",
        lifespan="on",
        timeout_graceful_shutdown=1,
    )
    started = threading.Event()
    failed: list[BaseException] = []
    box: dict[str, uvicorn.Server] = {}

    class Server(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets)
            started.set()

    async def main() -> None:
        config.app = await factory()
        server = Server(config)
        box["server"] = server
        await server.serve(sockets=[sock])

    def run() -> None:
        try:
            asyncio.run(main())
        except BaseException as exc:  # handed to the test below
            failed.append(exc)
            started.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    started.wait(30)
    if failed:
        raise failed[0]
    try:
        yield f"https://127.0.0.1:{port}"
    finally:
        box["server"].should_exit = True
        thread.join(10)
        sock.close()
