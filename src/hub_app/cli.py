"""``sdlc-hub``: serve the hub, migrate its database, manage API tokens, run the demo; and, as a client of a hub
over HTTP, submit and follow batches, manage projects and settings (:mod:`hub_app.client_cli`).

Every subcommand takes ``--data-dir`` (env ``SDLC_HUB_DATA_DIR``, default ``./.sdlc-hub``),
``--database-url`` (env ``SDLC_HUB_DATABASE_URL`` or ``SDLC_HUB_DATABASE_URL_FILE``; default SQLite in the data
dir), ``--config FILE`` (env ``SDLC_HUB_CONFIG``) and ``--log-level``; each flag is also an environment variable
and a key of the TOML config file (:mod:`adapters.cli_config`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import logging
import os
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from adapters.cli_config import CommandLine, Option, package_version
from adapters.logs import configure_logging
from hub_app.client_cli import add_client_commands
from hub_app.client_cli.audit_file import cli_actor
from hub_app.mcp.clients import ALL, KEY_NOTE, McpClient, snippets
from hub_app.runtime.roles import INTERFACE, Role

if TYPE_CHECKING:
    from hub_app.answers.admin import TokenView
    from hub_app.runtime.hub import Hub
    from hub_app.runtime.public_url import PublicUrl

# Each subcommand imports what it needs when it runs: `token add` must start in well under a second, without
# the web framework, the server, the MCP library (bench/bench_cli.py measures it).

__all__ = ["command_line", "main"]

T = TypeVar("T")


DATA_DIR = Option("data-dir", type=Path, default=Path(".sdlc-hub"), help="data directory: SQLite database and files")
DATABASE_URL = Option(
    "database-url",
    secret=True,  # may carry the database password
    help="postgresql+asyncpg://… or sqlite+aiosqlite:///… (default: SQLite in the data directory)",
)
STORAGE = (DATA_DIR, DATABASE_URL)
PUBLIC_URL = Option(
    "public-url",
    help="the URL people and assistants reach the hub at (default http://<host>:<port> of serve): every link the hub "
    "gives is built from it, and /mcp refuses another Origin or Host",
)
MAX_PORT = 65535
#: ``--print-mcp-config``'s choices: a client, or all of them.
MCP_CLIENTS = (*(client.value for client in McpClient), ALL)


def command_line() -> CommandLine:
    cli = CommandLine(
        "sdlc-hub",
        env_prefix="SDLC_HUB",
        description="The sdlc-hub server and its administration; a client of a hub (batch, project, settings, issue).",
    )
    cli.add(cli.parser, *STORAGE)
    sub = cli.parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run the HTTP API (migrations run on start)")
    cli.add(
        serve,
        *STORAGE,
        Option("host", default="127.0.0.1", help="the address to listen on"),
        Option("port", type=int, default=8700, help="the port to listen on (0: any free one)"),
        Option(
            "request-timeout",
            type=float,
            default=30.0,
            help="seconds a client may take to send a request's head, pause inside its body, or send a body of up "
            "to 10 MiB whole (a larger one proportionally longer), before the connection is closed",
        ),
        PUBLIC_URL,
        Option(
            "forwarded-allow-ips",
            default="127.0.0.1",
            help="addresses of the TLS proxies whose X-Forwarded-For/-Proto are trusted (comma-separated, or *)",
        ),
    )
    cli.add(sub.add_parser("migrate", help="bring the database schema up to date"), *STORAGE)

    token = sub.add_parser("token", help="API tokens")
    token_sub = token.add_subparsers(dest="token_command", required=True)
    add = token_sub.add_parser("add", help="create a token; its secret is printed once, alone on the last line")
    cli.add(add, *STORAGE, PUBLIC_URL)
    add.add_argument("name")
    add.add_argument("--role", required=True, choices=[role.value for role in Role])
    add.add_argument(
        "--needs-approval",
        action="store_true",
        help="every batch this token creates waits for a person's approval (interface tokens: an AI assistant's)",
    )
    add.add_argument(
        "--print-mcp-config",
        nargs="?",
        const=ALL,
        choices=MCP_CLIENTS,
        metavar="{" + ",".join(MCP_CLIENTS) + "}",
        help="also print the MCP configuration of an assistant's client (default all) with the new secret, for "
        "the hub's /mcp at --public-url (docs/assistants.md)",
    )
    cli.add(token_sub.add_parser("list", help="list tokens"), *STORAGE)
    revoke = token_sub.add_parser("revoke", help="revoke a token")
    cli.add(revoke, *STORAGE)
    revoke.add_argument("name")

    sub.add_parser("demo", help="hub + agent + Jira simulator on loopback with a sample batch", add_help=False)
    add_client_commands(cli, sub)
    return cli


def _storage(args: argparse.Namespace) -> tuple[Path, str | None]:
    data_dir: Path = args.data_dir
    url: str | None = args.database_url
    return data_dir, url


class _Unusable(Exception):
    """The database cannot be used: one line on stderr, exit code 2, no traceback."""


async def _with_hub(args: argparse.Namespace, action: Callable[[Hub], Awaitable[T]]) -> T:
    from sqlalchemy.exc import DBAPIError  # noqa: PLC0415 - see the note on imports above

    from adapters.storage.engine import DatabaseUrlError, check_url, sqlite_url  # noqa: PLC0415
    from hub_app.runtime.hub import open_hub  # noqa: PLC0415

    data_dir, url = _storage(args)
    _warn_if_new_default_database(args)
    try:
        shown = check_url(url or sqlite_url(data_dir)).render_as_string(hide_password=True)
        hub = await open_hub(data_dir=data_dir, database_url=url)
    except DatabaseUrlError as exc:
        raise _Unusable(str(exc)) from None
    except (OSError, TimeoutError, DBAPIError) as exc:
        raise _Unusable(f"cannot open the database {shown}: {_reason(exc)}") from None
    try:
        return await action(hub)
    finally:
        await hub.close()


async def _migrated(hub: Hub) -> tuple[str, ...]:
    return hub.migrated


def _migrate_summary(applied: Sequence[str]) -> str:
    """What ``migrate`` did, in one line: the migrations it applied, or that there were none to apply."""
    from adapters.storage.engine import head_revision  # noqa: PLC0415

    if not applied:
        return f"the schema is already at {head_revision()}; nothing to apply"
    noun = "migration" if len(applied) == 1 else "migrations"
    return f"applied {len(applied)} {noun} ({', '.join(applied)}); the schema is at {head_revision()}"


def _warn_if_new_default_database(args: argparse.Namespace) -> None:
    """One line on stderr when a subcommand is about to create an empty database in the default data dir that
    nobody chose: tokens added from another directory would seem to vanish otherwise."""
    from adapters.storage.engine import SQLITE_FILE  # noqa: PLC0415

    data_dir, url = _storage(args)
    if url is None and "data_dir" in args.defaulted and not (data_dir / SQLITE_FILE).exists():
        print(
            f"sdlc-hub: warning: no hub database in {data_dir.resolve()} (the default --data-dir); creating a new,"
            " empty one. Give --data-dir or SDLC_HUB_DATA_DIR to use an existing hub's.",
            file=sys.stderr,
        )


async def _token_add(hub: Hub, name: str, role: str, *, needs_approval: bool) -> str:
    from hub_app.bodies.admin import TokenIn  # noqa: PLC0415
    from hub_app.operations import admin  # noqa: PLC0415

    async with hub.unit(**cli_actor()) as unit:
        body = TokenIn(name=name, role=role, needs_approval=needs_approval)  # type: ignore[arg-type]
        created = await admin.add_token(unit, body)
    return created.secret


def _add_token(args: argparse.Namespace) -> int:
    """``token add``: the secret alone on the last line; with ``--print-mcp-config``, the MCP configuration of the
    chosen clients before it (it holds the secret too)."""
    which: str | None = args.print_mcp_config
    if which is not None and Role(args.role) not in INTERFACE:
        print(
            f"sdlc-hub: --print-mcp-config is for an interface or admin token; /mcp refuses role {args.role}",
            file=sys.stderr,
        )
        return 1
    public_url = _public_url(args) if which is not None else None
    if public_url is not None and "public_url" in args.defaulted:
        print(
            f"sdlc-hub: warning: no --public-url or SDLC_HUB_PUBLIC_URL; the configuration names {public_url.url}"
            " (serve's default). Give the URL assistants reach the hub at.",
            file=sys.stderr,
        )
    add = functools.partial(_token_add, name=args.name, role=args.role, needs_approval=args.needs_approval)
    secret = asyncio.run(_with_hub(args, add))
    created = f"token {args.name} ({args.role}{', approval: required' if args.needs_approval else ''}) created"
    if which is None or public_url is None:
        print(f"{created}; its secret, shown only now:")
    else:
        print(f"{created}; the MCP configuration below holds its secret: keep it private")
        for snippet in snippets(which, public_url, secret):
            print(f"\n{snippet.where}:\n{snippet.text}")
        print(f"\n{KEY_NOTE[0]}:\n{KEY_NOTE[1]}")
        print("\nits secret, shown only now:")
    print(secret)
    return 0


async def _token_list(hub: Hub) -> list[TokenView]:
    from hub_app.operations import admin  # noqa: PLC0415

    async with hub.unit() as unit:
        return await admin.list_tokens(unit)


async def _token_revoke(hub: Hub, name: str) -> TokenView:
    from hub_app.operations import admin  # noqa: PLC0415

    async with hub.unit(**cli_actor()) as unit:
        return await admin.revoke_token(unit, name)


def _serve(args: argparse.Namespace) -> int:
    import uvicorn  # noqa: PLC0415

    from adapters.files import FileStore  # noqa: PLC0415
    from adapters.storage.database import Database  # noqa: PLC0415
    from adapters.storage.engine import make_engine, sqlite_url  # noqa: PLC0415
    from hub_app.app import create_app  # noqa: PLC0415
    from hub_app.runtime.hub import Hub, tune_gc  # noqa: PLC0415
    from hub_app.serving import HubServer, with_request_timeout  # noqa: PLC0415
    from hub_app.web import session_key  # noqa: PLC0415

    if not 0 <= args.port <= MAX_PORT:
        raise _Unusable(f"--port {args.port} is not a TCP port (0 to {MAX_PORT})")
    if not args.request_timeout > 0:
        raise _Unusable(f"--request-timeout {args.request_timeout:g} must be a positive number of seconds")
    tune_gc()
    public_url = _public_url(args)
    data_dir, url = _storage(args)
    asyncio.run(_with_hub(args, lambda hub: asyncio.sleep(0)))  # migrations, before serving
    hub = Hub(database=Database(make_engine(url or sqlite_url(data_dir))), files=FileStore(data_dir / "files"))
    app = create_app(hub, close_hub=True, web_key=session_key(data_dir), public_url=public_url)
    # Litestar installs its own logging configuration when the app is built: take the process's back.
    configure_logging(args.log_level, fmt=args.log_format, secrets=_secrets(args))
    log = logging.getLogger("hub_app.cli")
    log.info(
        "serving",
        extra={
            "url": f"http://{args.host}:{args.port}",
            "public_url": public_url.url,
            "data_dir": str(data_dir.resolve()),
            "version": package_version(),
        },
    )
    if args.public_url is None and args.host in ("0.0.0.0", "::"):
        log.warning("public_url_not_set", extra={"public_url": public_url.url, "fix": "set --public-url"})
    # Idle keep-alive outlives the clients' 5 s pool expiry, so a client never reuses a connection the hub is
    # closing at that very moment. On SIGTERM the long polls end at once with 204 (HubServer); what else is open
    # gets a second to finish.
    config = uvicorn.Config(
        app,
        host=args.host,
        port=args.port,
        log_config=None,  # the process's one log format (adapters.logs), not uvicorn's own handlers
        log_level=args.log_level.lower(),
        http=with_request_timeout(args.request_timeout),
        timeout_graceful_shutdown=1,
        timeout_keep_alive=75,
        proxy_headers=True,
        forwarded_allow_ips=args.forwarded_allow_ips,
    )
    HubServer(config, hub).run()
    return 0


def _operator_message(exc: Exception, args: argparse.Namespace) -> str:
    """A token command's refusal in the CLI's language (English): the API words it in Russian, for planners."""
    from reconcile.vocabulary import ConflictError, NotFoundError, ValidationError  # noqa: PLC0415

    name = getattr(args, "name", "")
    if isinstance(exc, ConflictError):
        return f"a token named {name} already exists"
    if isinstance(exc, NotFoundError):
        return f"no token named {name}"
    if isinstance(exc, ValidationError) and getattr(args, "needs_approval", False) and args.role != "interface":
        return f"--needs-approval is for an interface token only, not for role {args.role}"
    if isinstance(exc, ValidationError):
        return f"{name!r} cannot be a token name: give a non-empty name"
    return f"refused: {type(exc).__name__}"


def _public_url(args: argparse.Namespace) -> PublicUrl:
    from hub_app.runtime.public_url import DEFAULT_HOST, DEFAULT_PORT, PublicUrl, PublicUrlError  # noqa: PLC0415

    try:
        return PublicUrl.of(
            args.public_url,
            listen_host=getattr(args, "host", DEFAULT_HOST),  # token add has no --host nor --port: serve's defaults
            listen_port=getattr(args, "port", DEFAULT_PORT),
        )
    except PublicUrlError as exc:
        raise _Unusable(str(exc)) from None


def _reason(exc: BaseException) -> str:
    """The driver's own words, on one line (``connection refused``, ``database "x" does not exist``)."""
    from sqlalchemy.exc import DBAPIError  # noqa: PLC0415

    cause: BaseException = exc.orig if isinstance(exc, DBAPIError) and exc.orig is not None else exc
    text = str(cause).strip() or type(cause).__name__
    if text.startswith("<class '"):  # SQLAlchemy's asyncpg adapter: "<class 'asyncpg….Error'>: the message"
        text = text.split(": ", 1)[-1]
    return " ".join(text.split())


def _secrets(args: argparse.Namespace) -> tuple[str, ...]:
    """The values no log line may show: secret options, and the password inside the database URL."""
    from sqlalchemy.engine import make_url  # noqa: PLC0415
    from sqlalchemy.exc import ArgumentError  # noqa: PLC0415

    secrets: tuple[str, ...] = args.secrets
    database_url = getattr(args, "database_url", None)  # a client command has none
    if database_url:
        with contextlib.suppress(ArgumentError, ValueError):
            password = make_url(database_url).password
            if password:
                secrets += (str(password),)
    return secrets


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
    for option in STORAGE:
        prefix.add_argument(option.flag, default=argparse.SUPPRESS)
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
    from reconcile.vocabulary import ReconcileError  # noqa: PLC0415 - cheap, but after --help/--version

    args = command_line().parse(argv)
    configure_logging(args.log_level, fmt=args.log_format, secrets=_secrets(args))
    if getattr(args, "client_run", None) is not None:
        # A client command's output is its answer: the HTTP client's own lines only when debugging.
        logging.getLogger("httpx").setLevel(logging.DEBUG if args.log_level == "DEBUG" else logging.WARNING)
        code: int = args.client_run(args)
        return code
    if args.command == "token" and args.log_level != "DEBUG":
        # A token command's output is its answer; the schema upgrade it may run first is shown by migrate/serve.
        logging.getLogger("alembic").setLevel(logging.WARNING)
    try:
        if args.command == "serve":
            return _serve(args)
        if args.command == "migrate":
            applied = asyncio.run(_with_hub(args, _migrated))
            print(f"sdlc-hub: {_migrate_summary(applied)}")
            return 0
        if args.token_command == "add":
            return _add_token(args)
        if args.token_command == "list":
            for token in asyncio.run(_with_hub(args, _token_list)):
                approval = "\tapproval: required" if token.needs_approval else ""
                revoked = f" revoked {token.revoked_at}" if token.revoked_at else ""
                print(f"{token.name}\t{token.role}{approval}\tcreated {token.created_at}{revoked}")
            return 0
        if args.token_command == "revoke":
            token = asyncio.run(_with_hub(args, lambda hub: _token_revoke(hub, args.name)))
            print(f"token {token.name} revoked at {token.revoked_at}")
            return 0
    except ReconcileError as exc:
        print(f"sdlc-hub: {_operator_message(exc, args)}", file=sys.stderr)
        return 1
    except _Unusable as exc:
        print(f"sdlc-hub: {exc}", file=sys.stderr)
        return 2
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
