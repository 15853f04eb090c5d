"""``sdlc-hub batch wait ID`` (and ``batch submit --wait``): follow a batch to its end with one long poll at a time
(``GET /batches/{id}?wait=55&since=…``, answered at the first change), never a polling loop.

On a terminal one live line is redrawn every second from the last answer (done/failed counts, the state in words,
elapsed, ETA, the pause the agent keeps before the command it holds); otherwise a plain line per change of a
command. The last line names every command. Exit code: 0 every command done, 1 something failed, was skipped or
cancelled (or the batch was rejected), 3 the batch waits for a person's approval, 2 refused or unreachable.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import sys
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TextIO

from hub_app.client_cli.common import result_words, run_against_hub, subject
from hub_app.client_cli.registry import ClientCommand

if TYPE_CHECKING:
    from adapters.interface_client import Followed, InterfaceClient

__all__ = ["COMMANDS", "WAITS_FOR_APPROVAL", "exit_code", "follow", "live_line", "state_words"]

#: The exit code of a batch that waits for a person's approval.
WAITS_FOR_APPROVAL = 3
#: The longest wait of one poll (the hub's limit).
POLL_SECONDS = 55
_EXIT = {"done": 0, "done_with_errors": 1, "cancelled": 1, "rejected": 1, "awaiting_approval": WAITS_FOR_APPROVAL}
_WORDS = {
    "awaiting_approval": "waiting for approval",
    "queued": "queued",
    "running": "running",
    "done": "done",
    "done_with_errors": "done with errors",
    "cancelled": "cancelled",
    "rejected": "rejected",
}


def state_words(state: str) -> str:
    return _WORDS.get(state, state)


def exit_code(batch: Mapping[str, Any]) -> int | None:
    """What ``batch wait`` ends with for the batch as it stands; ``None`` while it runs or is queued."""
    return _EXIT.get(str(batch.get("state")))


def duration(seconds: float) -> str:
    """``42 s``, ``4 min 05 s``, ``2 h 03 min``."""
    whole = max(0, round(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    return f"{minutes} min {secs:02d} s" if minutes else f"{secs} s"


def _counts(batch: Mapping[str, Any]) -> str:
    by = batch["progress"]["by_status"]
    done = by.get("done", 0) + by.get("confirmed_by_state", 0)
    parts = [f"{done}/{batch['progress']['total']} done"]
    parts += [f"{by[s]} {s}" for s in ("failed", "skipped", "cancelled") if by.get(s)]
    return ", ".join(parts)


def _pause(batch: Mapping[str, Any], pacing: Mapping[str, float], since_answer: float) -> str:
    """The pause the agent keeps before a write of the command it holds: its type's gap less its time so far."""
    for command in batch["commands"]:
        if command["status"] == "claimed":
            gap = float(pacing.get(command["type"], 0))
            left = gap - float(command.get("duration_seconds") or 0) - since_answer
            about = f"{command['type']} {subject(command)}".strip()
            return f" · pause ≤ {duration(left)} before {about}" if left > 0 else f" · writing {about}"
    return ""


def live_line(batch: Mapping[str, Any], *, since_answer: float = 0, pacing: Mapping[str, float] = {}) -> str:
    """The live line of a batch, ``since_answer`` seconds after the hub's answer."""
    progress = batch["progress"]
    running = batch["state"] == "running"
    elapsed = float(progress.get("elapsed_seconds") or 0) + (since_answer if running else 0)
    left = float(progress.get("eta_seconds", progress.get("remaining_seconds")) or 0)
    eta = f" · ETA {duration(max(0.0, left - since_answer))}" if exit_code(batch) is None else ""
    return (
        f"batch {batch['id']} {state_words(batch['state'])}: {_counts(batch)} · elapsed {duration(elapsed)}{eta}"
        f"{_pause(batch, pacing, since_answer) if running else ''}"
    )


def change_lines(seen: dict[int, str], batch: Mapping[str, Any]) -> list[str]:
    """A line per command whose status changed since ``seen`` (updated); a command still queued is not news."""
    lines = []
    progress = batch["progress"]
    for command in batch["commands"]:
        before = seen.get(command["id"])
        seen[command["id"]] = command["status"]
        if before == command["status"] or (before is None and command["status"] == "queued"):
            continue
        words = result_words(command)
        line = (
            f"[{progress['finished']}/{progress['total']}] #{command['seq']} {command['type']} {subject(command)}: "
            f"{command['status']}"
        )
        lines.append(f"{line} — {words}" if words else line)
    return lines


def final_line(batch: Mapping[str, Any]) -> str:
    """The batch's end, naming every command with its status."""
    named = ", ".join(
        f"#{c['seq']} {c['type']} {subject(c)} {c['status']}".replace("  ", " ") for c in batch["commands"]
    )
    return f"batch {batch['id']} {state_words(batch['state'])}: {named}"


def follow(client: InterfaceClient, batch_id: int, *, out: TextIO, clock: Callable[[], float] = time.monotonic) -> int:
    """Follow the batch until it ends or waits for approval; its exit code (:func:`exit_code`)."""
    terminal = out.isatty()
    pacing: Mapping[str, float] = (client.settings().get("pacing") or {}) if terminal else {}
    seen: dict[int, str] = {}
    followed = client.follow(batch_id)
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="batch-wait") as pool:
        while True:
            batch = followed.batch
            if not terminal:
                for line in change_lines(seen, batch):
                    print(line, file=out, flush=True)
            code = exit_code(batch)
            if code is not None:
                if terminal:
                    out.write("\r\x1b[2K")
                print(final_line(batch), file=out, flush=True)
                return code
            followed = _next(pool, client, followed, out=out if terminal else None, pacing=pacing, clock=clock)


def _next(
    pool: concurrent.futures.ThreadPoolExecutor,
    client: InterfaceClient,
    followed: Followed,
    *,
    out: TextIO | None,
    pacing: Mapping[str, float],
    clock: Callable[[], float],
) -> Followed:
    """The next answer of the long poll; meanwhile, on a terminal, the live line redrawn every second."""
    answered = clock()
    batch_id = int(followed.batch["id"])
    pending = pool.submit(client.follow, batch_id, wait=POLL_SECONDS, since=followed.stamp)
    while True:
        if out is not None:
            out.write("\r\x1b[2K" + live_line(followed.batch, since_answer=clock() - answered, pacing=pacing))
            out.flush()
        try:
            return pending.result(timeout=1 if out is not None else None)
        except concurrent.futures.TimeoutError:
            continue


def _wait(args: argparse.Namespace, client: InterfaceClient) -> int:
    return follow(client, args.id, out=sys.stdout)


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("id", type=int, metavar="ID", help="the batch's id")


COMMANDS = [
    ClientCommand(
        path=("batch", "wait"),
        help="follow a batch to its end: exit 0 all done, 1 something failed or was cancelled, 3 waits for approval",
        arguments=_arguments,
        run=run_against_hub(_wait),
    )
]
