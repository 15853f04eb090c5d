"""``sdlc-hub batch undo ID [--dry-run]``: take a batch back (DESIGN.md 6.4) — the plan of its inverse first, then
the inverse batch, which waits for approval where the hub says so."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hub_app.client_cli.common import run_against_hub
from hub_app.client_cli.registry import ClientCommand

if TYPE_CHECKING:
    from adapters.interface_client import InterfaceClient

__all__ = ["COMMANDS", "undo_lines"]


def undo_lines(answer: Mapping[str, Any]) -> list[str]:
    """What the undo answer says, a line each: every command of the batch with what becomes of it, the changes
    people made since (kept), and the inverse batch when it was created."""
    lines = [f"undo of batch {answer['undo_of']}: «{answer['title']}»"]
    for item in answer.get("items") or ():
        lines.append(f"  {item.get('seq')}. {item.get('type')}: {item.get('text')}")
    lines += [f"  kept: {kept.get('text')}" for kept in answer.get("kept") or ()]
    created = answer.get("batch")
    if created:
        waits = " (waits for approval)" if created.get("approval") else ""
        lines.append(f"created batch {created['id']}{waits}")
    elif answer.get("dry_run"):
        lines.append("nothing queued (--dry-run)")
    return lines


def _undo(args: argparse.Namespace, client: InterfaceClient) -> int:
    for line in undo_lines(client.undo(args.id, dry_run=args.dry_run)):
        print(line)
    return 0


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("id", type=int, metavar="ID", help="the batch to take back")
    parser.add_argument("--dry-run", action="store_true", help="print the plan of the undo; queue nothing")


COMMANDS = [
    ClientCommand(
        path=("batch", "undo"),
        help="take a batch back: the inverse of its writes, newest first (--dry-run: the plan only)",
        arguments=_arguments,
        run=run_against_hub(_undo),
    )
]
