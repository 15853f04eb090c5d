"""How a client command is declared and put into ``sdlc-hub``'s argument tree.

A command is a :class:`ClientCommand`: its path (``("batch", "submit")``: the group, then the command; a group
gets its own subcommand parser once), its help, a function adding its arguments, and the function that runs it
(``args`` → exit code). A module of :data:`MODULES` lists its commands in ``COMMANDS``; the modules are imported
when the parser is built, which costs no more than argparse (what a command needs at run time — httpx, the
core's wording — it imports when it runs).
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable, Sequence

import attrs

from adapters.cli_config import CommandLine, Option

__all__ = ["HUB", "MODULES", "TOKEN", "ClientCommand", "add_client_commands", "client_commands"]

#: The modules of :mod:`hub_app.client_cli` that declare commands, in the order ``--help`` lists them.
MODULES = ("batch", "batch_wait", "export", "undo", "admin", "audit", "completion")

HUB = Option("hub", env="SDLC_HUB_URL", key="hub", metavar="URL", required=True, help="the hub's URL (its public URL)")
TOKEN = Option("token", secret=True, required=True, help="an interface (or admin) token of the hub")

#: Help of each group of commands.
GROUPS = {
    "batch": "batches: submit a plan, follow it, show, list, cancel, approve, reject, undo, export",
    "project": "the hub's projects (Jira labels with their boards)",
    "settings": "the hub's settings",
    "issue": "issues of the hub's mirror of Jira",
    "audit": "the hash-chained audit: export it (admin), verify an export offline",
}


@attrs.frozen(kw_only=True)
class ClientCommand:
    """One client command: where it sits (``("batch", "wait")``), what ``--help`` says, its arguments and its run."""

    path: tuple[str, ...]
    help: str
    arguments: Callable[[argparse.ArgumentParser], object]
    run: Callable[[argparse.Namespace], int]
    #: Whether it needs ``--hub`` and ``--token`` (``completion`` does not).
    talks_to_hub: bool = True


def client_commands() -> list[ClientCommand]:
    """Every command the modules of :data:`MODULES` declare."""
    found: list[ClientCommand] = []
    for name in MODULES:
        module = importlib.import_module(f"hub_app.client_cli.{name}")
        found.extend(module.COMMANDS)
    return found


def add_client_commands(cli: CommandLine, sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Put every client command into ``sub`` (``sdlc-hub``'s subcommands), each group under its own parser."""
    groups: dict[str, argparse._SubParsersAction[argparse.ArgumentParser]] = {}
    for command in client_commands():
        *group_path, name = command.path
        parent = sub
        if group_path:
            [group] = group_path
            if group not in groups:
                parser = sub.add_parser(group, help=GROUPS.get(group, group))
                groups[group] = parser.add_subparsers(dest=f"{group}_command", required=True, metavar="COMMAND")
            parent = groups[group]
        parser = parent.add_parser(name, help=command.help, description=command.help)
        command.arguments(parser)
        options: Sequence[Option] = (HUB, TOKEN) if command.talks_to_hub else ()
        cli.add(parser, *options)
        parser.set_defaults(client_run=command.run, command_tree=cli.parser)
