"""``jira-sim --host H --port N [--seed FILE]``: serve the simulator with uvicorn.

Each flag is also ``JIRA_SIM_<FLAG>`` and a key of ``--config FILE`` (:mod:`adapters.cli_config`); ``--version``.
"""

from __future__ import annotations

import asyncio
import gc
import json
import sys
from pathlib import Path

import uvicorn

from adapters.cli_config import CommandLine, Option
from adapters.logs import configure_logging
from jira_sim.simulator import Simulator

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    # Warnings only by default: an access line per request would slow the simulator down in benchmarks.
    cli = CommandLine(
        "jira-sim", env_prefix="JIRA_SIM", description="An in-memory Jira Data Center simulator", log_level="WARNING"
    )
    cli.add(
        cli.parser,
        Option("host", default="127.0.0.1", help="the address to listen on"),
        Option("port", type=int, default=8080, help="0 picks a free port"),
        Option("seed", type=Path, help="a seed JSON file (default: the built-in sample)"),
    )
    args = cli.parse(argv)
    configure_logging(args.log_level, fmt=args.log_format)
    seed = json.loads(args.seed.read_text(encoding="utf-8")) if args.seed else None
    sim = Simulator(seed)
    # The seed's objects live as long as the process: keep them out of the cyclic collector's full passes, whose
    # cost grows with the heap (without this a search page costs a third more at 10 000 issues than at 1 000).
    gc.freeze()
    # Keep-alive longer than httpx's 5 s pool expiry, like a real Jira behind its proxy: the client, not the
    # server, closes idle connections, so a request never races a server-side close.
    config = uvicorn.Config(
        sim.asgi,
        host=args.host,
        port=args.port,
        log_level=args.log_level.lower(),
        log_config=None,  # the process's log format (adapters.logs)
        lifespan="on",
        timeout_keep_alive=75,
    )
    server = uvicorn.Server(config)
    asyncio.run(_serve(server, args.host))
    return 0


async def _serve(server: uvicorn.Server, host: str) -> None:
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            await task
            return
        await asyncio.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    print(f"jira-sim listening on http://{shown}:{port}", flush=True)
    await task


if __name__ == "__main__":
    sys.exit(main())
