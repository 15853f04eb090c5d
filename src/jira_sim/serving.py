"""Serving a simulator (or another ASGI app, such as a test's webhook receiver) over real HTTP from a background
thread, for synchronous clients in tests and benchmarks.

The listening socket is bound and listening before the server thread starts, so a client may connect at once
(its connection waits in the backlog until uvicorn accepts it): no polling for readiness.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn

from jira_sim.asgi import App
from jira_sim.simulator import Simulator

__all__ = ["serve_app_in_thread", "serve_in_thread"]


@contextmanager
def serve_in_thread(sim: Simulator, host: str = "127.0.0.1") -> Iterator[str]:
    """Serve ``sim`` with uvicorn on a free port of ``host`` while the block runs; yields the base URL."""
    with serve_app_in_thread(sim.asgi, host) as url:
        yield url


@contextmanager
def serve_app_in_thread(app: App, host: str = "127.0.0.1") -> Iterator[str]:
    """Serve the ASGI ``app`` with uvicorn on a free port of ``host`` while the block runs; yields the base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, 0))
    sock.listen(128)
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", lifespan="off", timeout_keep_alive=75)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="jira-sim", daemon=True)
    thread.start()
    try:
        yield f"http://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
