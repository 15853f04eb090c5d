"""What every client command shares: the hub client from ``--hub``/``--token``, one line per error with exit code
2, and a command's subject and result as a person reads them."""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from adapters.interface_client import InterfaceClient

__all__ = ["REFUSED", "fail", "hub_client", "result_words", "run_against_hub", "subject"]

#: The exit code of a refused request, an unreachable hub or a mistake in the command line.
REFUSED = 2


def fail(message: str, *, out: TextIO | None = None) -> int:
    """One line on stderr; exit code :data:`REFUSED`."""
    print(f"sdlc-hub: {message}", file=out or sys.stderr)
    return REFUSED


def hub_client(args: argparse.Namespace) -> InterfaceClient:
    from adapters.interface_client import InterfaceClient  # noqa: PLC0415 — only when a command runs

    hub: str = args.hub
    if not hub.startswith(("http://", "https://")):
        raise ValueError(f"--hub {hub}: give the hub's URL with http:// or https://")
    return InterfaceClient(hub, args.token)


def _refusal_lines(detail: str, errors: tuple[dict[str, Any], ...]) -> list[str]:
    """The hub's ``detail``, then each further error of a refused batch, one line each."""
    lines = [detail]
    lines += [str(e.get("message")) for e in errors if e.get("message") and e.get("message") != detail]
    return lines


def run_against_hub(
    action: Callable[[argparse.Namespace, InterfaceClient], int],
) -> Callable[[argparse.Namespace], int]:
    """A command's run: ``action`` with the hub client; a refusal or an unreachable hub is one line per error on
    stderr and exit code 2."""

    @functools.wraps(action)
    def run(args: argparse.Namespace) -> int:
        from adapters.interface_client import Refused, Unreachable  # noqa: PLC0415 — httpx only when it runs

        try:
            with hub_client(args) as client:
                return action(args, client)
        except Refused as exc:
            for line in _refusal_lines(exc.detail, exc.errors):
                fail(line)
            return REFUSED
        except (Unreachable, ValueError) as exc:
            return fail(str(exc))

    return run


def subject(command: Mapping[str, Any]) -> str:
    """What a command is about: its issue's key, a link's ends, a temp key's issue, a refresh's keys or JQL."""
    params = command.get("params") or {}
    if isinstance(params.get("source"), str) and isinstance(params.get("target"), str):
        return f"{params['source']} → {params['target']}"
    for name in ("key", "temp_key"):
        if isinstance(params.get(name), str):
            return str(params[name])
    if isinstance(params.get("keys"), list):
        return ", ".join(str(k) for k in params["keys"])
    if isinstance(params.get("jql"), str):
        return str(params["jql"])
    return ""


def result_words(command: Mapping[str, Any]) -> str:
    """Its result in words (the page's, :mod:`reconcile.outlook.readable`), or its error."""
    from reconcile.outlook import result_in_words  # noqa: PLC0415

    words = "; ".join(result_in_words(command["type"], command.get("params") or {}, command.get("result")))
    error = command.get("error")
    return f"{words}; {error}" if words and error else (words or error or "")
