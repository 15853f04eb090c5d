"""``sdlc-hub batch export ID --format csv|json``: every command of a batch with its result in words and its Jira
writes, for a report or a spreadsheet."""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hub_app.client_cli.common import result_words, run_against_hub, subject
from hub_app.client_cli.registry import ClientCommand

if TYPE_CHECKING:
    from adapters.interface_client import InterfaceClient

__all__ = ["COLUMNS", "COMMANDS", "rows"]

#: The export's columns, in order.
COLUMNS = ("batch", "seq", "command", "type", "subject", "status", "result", "error", "jira_writes", "finished_at")


def _writes(command: Mapping[str, Any]) -> list[str]:
    """Its Jira writes as ``METHOD path → status``."""
    return [
        f"{op.get('method', '')} {op.get('path', '')} → {op.get('status', '')}"
        for op in command.get("operations") or ()
        if isinstance(op, Mapping)
    ]


def rows(batch: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A row per command of the batch, by :data:`COLUMNS`."""
    return [
        {
            "batch": batch["id"],
            "seq": command["seq"],
            "command": command["id"],
            "type": command["type"],
            "subject": subject(command),
            "status": command["status"],
            "result": result_words(command) if command["status"] != "failed" else "",
            "error": command.get("error") or "",
            "jira_writes": _writes(command),
            "finished_at": command.get("finished_at") or "",
        }
        for command in batch["commands"]
    ]


def _export(args: argparse.Namespace, client: InterfaceClient) -> int:
    found = rows(client.batch(args.id))
    if args.format == "json":
        json.dump(found, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return 0
    writer = csv.DictWriter(sys.stdout, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in found:
        writer.writerow({**row, "jira_writes": "; ".join(row["jira_writes"])})
    return 0


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("id", type=int, metavar="ID", help="the batch's id")
    parser.add_argument("--format", choices=("csv", "json"), default="csv", help="csv (default) or json")


COMMANDS = [
    ClientCommand(
        path=("batch", "export"),
        help="every command with its result in words and its Jira writes, as CSV or JSON",
        arguments=_arguments,
        run=run_against_hub(_export),
    )
]
