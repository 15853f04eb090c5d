"""``sdlc-hub``: serve the hub, migrate its database, manage API tokens, run the demo.

Every subcommand takes ``--data-dir`` (env ``SDLC_HUB_DATA_DIR``, default ``./.sdlc-hub``) and
``--database-url`` (env ``SDLC_HUB_DATABASE_URL``; default SQLite in the data dir).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TypeVar

import uvicorn

from adapters.files import FileStore
from adapters.logs import configure_logging
from adapters.storage.database import Database
from adapters.storage.engine import make_engine, sqlite_url
from hub_app import admin
from hub_app.app import create_app
from hub_app.bodies import TokenIn
from hub_app.roles import Role
from hub_app.runtime import Hub, open_hub
from hub_app.views import TokenView
from reconcile.errors import ReconcileError

__all__ = ["main"]

T = TypeVar("T")


def _storage_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=argparse.SUPPRESS,
        help="data directory: SQLite database and files (env SDLC_HUB_DATA_DIR, default ./.sdlc-hub)",
    )
    parser.add_argument(
        "--database-url",
        default=argparse.SUPPRESS,
        help="postgresql+asyncpg://… or sqlite+aiosqlite:///… (env SDLC_HUB_DATABASE_URL)",
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sdlc-hub", description="The sdlc-hub server and its administration.")
    _storage_options(parser)
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run the HTTP API (migrations run on start)")
    _storage_options(serve)
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8700)

    migrate = sub.add_parser("migrate", help="bring the database schema up to date")
    _storage_options(migrate)

    token = sub.add_parser("token", help="API tokens")
    token_sub = token.add_subparsers(dest="token_command", required=True)
    add = token_sub.add_parser("add", help="create a token; its secret is printed once, alone on the last line")
    _storage_options(add)
    add.add_argument("name")
    add.add_argument("--role", required=True, choices=[role.value for role in Role])
    listing = token_sub.add_parser("list", help="list tokens")
    _storage_options(listing)
    revoke = token_sub.add_parser("revoke", help="revoke a token")
    _storage_options(revoke)
    revoke.add_argument("name")

    sub.add_parser("demo", help="hub + agent + Jira simulator on loopback with a sample batch", add_help=False)
    return parser


def _storage(args: argparse.Namespace) -> tuple[Path, str | None]:
    data_dir = getattr(args, "data_dir", None) or Path(os.environ.get("SDLC_HUB_DATA_DIR") or ".sdlc-hub")
    url = getattr(args, "database_url", None) or os.environ.get("SDLC_HUB_DATABASE_URL") or None
    return data_dir, url


async def _with_hub(args: argparse.Namespace, action: Callable[[Hub], Awaitable[T]]) -> T:
    data_dir, url = _storage(args)
    hub = await open_hub(data_dir=data_dir, database_url=url)
    try:
        return await action(hub)
    finally:
        await hub.close()


async def _token_add(hub: Hub, name: str, role: str) -> str:
    async with hub.unit() as unit:
        created = await admin.add_token(unit, TokenIn(name=name, role=role))  # type: ignore[arg-type]
    return created.secret


async def _token_list(hub: Hub) -> list[TokenView]:
    async with hub.unit() as unit:
        return await admin.list_tokens(unit)


async def _token_revoke(hub: Hub, name: str) -> TokenView:
    async with hub.unit() as unit:
        return await admin.revoke_token(unit, name)


def _serve(args: argparse.Namespace) -> int:
    data_dir, url = _storage(args)
    asyncio.run(_with_hub(args, lambda hub: asyncio.sleep(0)))  # migrations, before serving
    hub = Hub(database=Database(make_engine(url or sqlite_url(data_dir))), files=FileStore(data_dir / "files"))
    app = create_app(hub, close_hub=True)
    print(f"sdlc-hub: http://{args.host}:{args.port} (data dir {data_dir.resolve()})", flush=True)
    # A claim may be waiting in a long poll for up to claim_wait_seconds: on SIGTERM it is cut after a second
    # (the agent sees a dropped connection and claims again from the next hub), not waited for.
    # Idle keep-alive outlives the clients' 5 s pool expiry, so a client never reuses a connection the hub is
    # closing at that very moment.
    configure_logging("info")
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        log_config=None,  # the process's one log format (adapters.logs), not uvicorn's own handlers
        log_level="info",
        timeout_graceful_shutdown=1,
        timeout_keep_alive=75,
    )
    return 0


def _demo_position(argv: Sequence[str]) -> int | None:
    """Where ``demo`` stands when it is the subcommand (after storage options only)."""
    i = 0
    while i < len(argv):
        token = argv[i]
        if token in ("--data-dir", "--database-url"):
            i += 2
        elif token.startswith(("--data-dir=", "--database-url=")):
            i += 1
        else:
            return i if token == "demo" else None
    return None


def _run_demo(argv: Sequence[str], position: int) -> int:
    from loopback import demo  # noqa: PLC0415 — starts processes; imported only when asked for

    prefix = argparse.ArgumentParser(add_help=False)
    _storage_options(prefix)
    args = prefix.parse_args(argv[:position])
    if getattr(args, "data_dir", None):
        os.environ["SDLC_HUB_DATA_DIR"] = str(args.data_dir)
    if getattr(args, "database_url", None):
        os.environ["SDLC_HUB_DATABASE_URL"] = args.database_url
    code: int = demo.run(list(argv[position + 1 :]))
    return code


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    position = _demo_position(argv)
    if position is not None:
        return _run_demo(argv, position)
    args = _parser().parse_args(argv)
    try:
        if args.command == "serve":
            return _serve(args)
        if args.command == "migrate":
            asyncio.run(_with_hub(args, lambda hub: asyncio.sleep(0)))
            print("sdlc-hub: the schema is up to date")
            return 0
        if args.token_command == "add":
            secret = asyncio.run(_with_hub(args, lambda hub: _token_add(hub, args.name, args.role)))
            print(f"token {args.name} ({args.role}) created; its secret, shown only now:")
            print(secret)
            return 0
        if args.token_command == "list":
            for token in asyncio.run(_with_hub(args, _token_list)):
                revoked = f" revoked {token.revoked_at}" if token.revoked_at else ""
                print(f"{token.name}\t{token.role}\tcreated {token.created_at}{revoked}")
            return 0
        if args.token_command == "revoke":
            token = asyncio.run(_with_hub(args, lambda hub: _token_revoke(hub, args.name)))
            print(f"token {token.name} revoked at {token.revoked_at}")
            return 0
    except ReconcileError as exc:
        print(f"sdlc-hub: {exc.message}", file=sys.stderr)
        return 1
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
