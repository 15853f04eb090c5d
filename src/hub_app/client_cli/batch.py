"""``sdlc-hub batch submit|show|list|cancel|approve|reject``: batches through the hub's HTTP API."""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from typing import TYPE_CHECKING, Any

from hub_app.client_cli.batch_wait import follow, state_words
from hub_app.client_cli.common import fail, result_words, run_against_hub, subject
from hub_app.client_cli.registry import ClientCommand

if TYPE_CHECKING:
    from adapters.interface_client import InterfaceClient

__all__ = ["COMMANDS", "content_key"]


def content_key(body: Any) -> str:
    """The key a submission without ``--idempotency-key`` sends: the sha256 of the plan's canonical JSON, so the
    same plan submitted again within 24 h (a retried script) answers its first batch."""
    from reconcile.queue import canonical_json  # noqa: PLC0415

    return "sha256:" + hashlib.sha256(canonical_json(body)).hexdigest()


def _read_plan(path: str) -> Any:
    try:
        text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()  # noqa: PTH123, SIM115
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        return json.loads(text)
    except ValueError as exc:
        raise ValueError(f"{'stdin' if path == '-' else path} is not JSON: {exc}") from None


def _print_dry_run(planned: dict[str, Any]) -> None:
    print(f"plan of «{planned['title']}» ({len(planned['commands'])} commands), nothing queued:")
    for command in planned["commands"]:
        prediction = command["prediction"]
        print(f"  #{command['seq']} {command['type']} {subject(command)}: {prediction['status']}")
        for write in prediction["writes"]:
            print(f"      {write.get('method', '')} {write.get('path', '')}".rstrip())
        if prediction.get("error"):
            print(f"      ! {prediction['error']}")
        for unknown in prediction.get("unknown") or ():
            print(f"      ? {unknown}")
    print(f"estimate: {planned['estimate_seconds']:g} s")


def _submit(args: argparse.Namespace, client: InterfaceClient) -> int:
    try:
        body = _read_plan(args.file)
    except ValueError as exc:
        return fail(str(exc))
    if args.dry_run:
        _print_dry_run(client.dry_run(body))
        return 0
    created = client.submit(body, key=args.idempotency_key or content_key(body))
    batch = created.batch
    if created.replayed:
        print(f"batch {batch['id']} was submitted before with this key: the same batch, not queued again")
    else:
        print(
            f"batch {batch['id']} queued: {len(batch['commands'])} commands, estimate {batch['estimate_seconds']:g} s"
        )
    approval = batch.get("approval") or {}
    if approval.get("state") == "pending":
        print(f"batch {batch['id']} waits for a person's approval: {client.hub_url}/batches/{batch['id']}")
    if args.wait:
        return follow(client, batch["id"], out=sys.stdout)
    return 0


def _show(args: argparse.Namespace, client: InterfaceClient) -> int:
    batch = client.batch(args.id)
    progress = batch["progress"]
    print(
        f"batch {batch['id']} «{batch['title']}» by {batch['author']} ({batch.get('token_name') or 'hub'}), "
        f"created {batch['created_at']}: {state_words(batch['state'])}, "
        f"{progress['finished']}/{progress['total']} finished"
    )
    for command in batch["commands"]:
        words = result_words(command)
        line = f"  #{command['seq']} {command['type']} {subject(command)}: {command['status']}"
        print(f"{line} — {words}" if words else line)
    return 0


def _list(args: argparse.Namespace, client: InterfaceClient) -> int:
    listed = client.batches(state=args.state, author=args.author, limit=args.limit)
    for batch in listed["items"]:
        progress = batch["progress"]
        print(
            f"{batch['id']}\t{batch['state']}\t{progress['finished']}/{progress['total']}\t"
            f"{batch.get('token_name') or 'hub'}\t{batch['created_at']}\t{batch['title']}"
        )
    return 0


def _cancel(args: argparse.Namespace, client: InterfaceClient) -> int:
    batch = client.cancel(args.id, force=args.force)
    cancelled = sum(1 for c in batch["commands"] if c["status"] == "cancelled")
    print(f"batch {batch['id']}: {state_words(batch['state'])}, {cancelled} commands cancelled")
    return 0


def _approval_body(client: InterfaceClient, batch_id: int) -> dict[str, Any]:
    """What an approval sends: the digest of the plan the hub offers, when it offers one (a person approves the
    plan they could read), else nothing."""
    plan = client.plan(batch_id)
    digest = plan.get("digest") or ((plan.get("approval") or {}).get("plan") or {}).get("digest")
    return {"plan": digest} if isinstance(digest, str) else {}


def _approve(args: argparse.Namespace, client: InterfaceClient) -> int:
    batch = client.approve(args.id, _approval_body(client, args.id))
    print(f"batch {batch['id']} approved by {batch['approval']['by']}: {state_words(batch['state'])}")
    return 0


def _reject(args: argparse.Namespace, client: InterfaceClient) -> int:
    batch = client.reject(args.id, args.reason)
    print(f"batch {batch['id']} rejected: {args.reason}")
    return 0


def _submit_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file", metavar="FILE|-", help="the batch as JSON ({author, title, commands, …}); - reads stdin"
    )
    parser.add_argument("--dry-run", action="store_true", help="print the plan (each command's writes); queue nothing")
    parser.add_argument("--wait", action="store_true", help="then follow it to its end (as batch wait)")
    parser.add_argument(
        "--idempotency-key",
        metavar="K",
        help="one key per intended batch (default: derived from the plan's content, so a rerun within 24 h "
        "answers the batch it made)",
    )


def _id(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("id", type=int, metavar="ID", help="the batch's id")


def _list_arguments(parser: argparse.ArgumentParser) -> None:
    states = ("awaiting_approval", "queued", "running", "done", "done_with_errors", "cancelled", "rejected")
    parser.add_argument("--state", choices=states, help="only batches in this state")
    parser.add_argument("--author", metavar="TOKEN", help="only batches created with this token")
    parser.add_argument("--limit", type=int, default=100, help="at most this many, newest first (default 100)")


def _cancel_arguments(parser: argparse.ArgumentParser) -> None:
    _id(parser)
    parser.add_argument("--force", action="store_true", help="the command the agent holds too")


def _reject_arguments(parser: argparse.ArgumentParser) -> None:
    _id(parser)
    parser.add_argument("--reason", required=True, help="why (its commands' error says it)")


COMMANDS = [
    ClientCommand(
        path=("batch", "submit"),
        help="submit a batch (a plan file)",
        arguments=_submit_arguments,
        run=run_against_hub(_submit),
    ),
    ClientCommand(path=("batch", "show"), help="a batch and its commands", arguments=_id, run=run_against_hub(_show)),
    ClientCommand(
        path=("batch", "list"), help="batches, newest first", arguments=_list_arguments, run=run_against_hub(_list)
    ),
    ClientCommand(
        path=("batch", "cancel"),
        help="cancel a batch's queued commands",
        arguments=_cancel_arguments,
        run=run_against_hub(_cancel),
    ),
    ClientCommand(
        path=("batch", "approve"),
        help="approve a batch waiting for a person (not your own)",
        arguments=_id,
        run=run_against_hub(_approve),
    ),
    ClientCommand(
        path=("batch", "reject"),
        help="reject a batch waiting for a person",
        arguments=_reject_arguments,
        run=run_against_hub(_reject),
    ),
]
