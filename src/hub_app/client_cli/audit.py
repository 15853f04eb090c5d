"""``sdlc-hub audit export [filters] > f.jsonl`` (admin, over HTTP) and ``sdlc-hub audit verify FILE`` (offline):
the hash-chained audit handed to an auditor and checked by them (DESIGN.md 6.6)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from hub_app.client_cli.common import run_against_hub
from hub_app.client_cli.registry import ClientCommand

if TYPE_CHECKING:
    from adapters.interface_client import InterfaceClient

__all__ = ["COMMANDS"]

#: The filters of ``GET /audit`` a command line may set.
FILTERS = ("since", "until", "batch", "kind", "actor")


def _export(args: argparse.Namespace, client: InterfaceClient) -> int:
    params = {name: getattr(args, name) for name in FILTERS if getattr(args, name) is not None}
    params["format"] = args.format
    client.audit(params, sys.stdout.buffer.write)
    sys.stdout.flush()
    return 0


def _verify(args: argparse.Namespace) -> int:
    from hub_app.client_cli.audit_file import verify_file  # noqa: PLC0415 — what verifying needs, only when it runs

    return verify_file(args.file)


def _export_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--since", help="from this time (ISO-8601)")
    parser.add_argument("--until", help="up to this time (ISO-8601)")
    parser.add_argument("--batch", type=int, help="only the records of this batch")
    parser.add_argument("--kind", help="only records of this kind (batch_created, jira_write, …)")
    parser.add_argument("--actor", help="only records of this actor")
    parser.add_argument("--format", choices=("jsonl", "csv"), default="jsonl", help="jsonl (default) or csv")


COMMANDS = [
    ClientCommand(
        path=("audit", "export"),
        help="the audit as JSON lines (or CSV) on standard output, streamed; an admin token",
        arguments=_export_arguments,
        run=run_against_hub(_export),
    ),
    ClientCommand(
        path=("audit", "verify"),
        help="check an export offline: exit 0 with the count and the head hash, 1 naming the first broken record",
        arguments=lambda p: p.add_argument("file", type=Path, help="the export (JSON lines or CSV; - for stdin)"),
        run=_verify,
        talks_to_hub=False,
    ),
]
