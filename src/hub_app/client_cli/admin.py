"""``sdlc-hub project list|add|remove``, ``settings show|set|unset`` and ``issue show``: the hub's administration
and its mirror through the HTTP API (an admin token for the writes)."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from hub_app.client_cli.common import fail, run_against_hub
from hub_app.client_cli.registry import ClientCommand

if TYPE_CHECKING:
    from adapters.interface_client import InterfaceClient

__all__ = ["COMMANDS", "setting_patch"]


def _project_list(args: argparse.Namespace, client: InterfaceClient) -> int:
    for project in client.projects()["items"]:
        print(f"{project['name']}\tboard {project.get('board_id') or '-'}\t{project.get('board_type') or '-'}")
    return 0


def _project_add(args: argparse.Namespace, client: InterfaceClient) -> int:
    body: dict[str, Any] = {"name": args.name}
    if args.board_id is not None:
        body["board_id"] = args.board_id
    added = client.add_project(body)
    print(f"project {added['name']} added (board {added.get('board_id') or '-'})")
    return 0


def _project_remove(args: argparse.Namespace, client: InterfaceClient) -> int:
    client.remove_project(args.name)
    print(f"project {args.name} removed")
    return 0


def setting_patch(assignment: str, *, unset: bool = False) -> dict[str, Any]:
    """``KEY=VALUE`` (``pacing.ensure_fields=60``: a dotted key is an object's entry) as the PATCH that sets it;
    the value is JSON when it reads as JSON, else the text. ``unset``: ``KEY`` back to its default (``null``)."""
    if unset:
        path, value = assignment, None
    else:
        path, sep, text = assignment.partition("=")
        if not sep:
            raise ValueError(f"{assignment!r}: expected KEY=VALUE")
        try:
            value = json.loads(text)
        except ValueError:
            value = text
    if not path or any(not part for part in path.split(".")):
        raise ValueError(f"{path!r} is not a setting's key")
    patch: Any = value
    for part in reversed(path.split(".")):
        patch = {part: patch}
    result: dict[str, Any] = patch
    return result


def _settings_show(args: argparse.Namespace, client: InterfaceClient) -> int:
    print(json.dumps(client.settings(), ensure_ascii=False, indent=2))
    return 0


def _settings_change(args: argparse.Namespace, client: InterfaceClient) -> int:
    try:
        patch = setting_patch(args.assignment, unset=args.settings_command == "unset")
    except ValueError as exc:
        return fail(str(exc))
    settings = client.patch_settings(patch)
    key = args.assignment.partition("=")[0]
    value: Any = settings
    for part in key.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    print(f"{key} = {json.dumps(value, ensure_ascii=False)}")
    return 0


def _issue_show(args: argparse.Namespace, client: InterfaceClient) -> int:
    issue = client.issue(args.key)
    sprint = (issue.get("sprint") or {}).get("name")
    print(f"{issue['key']} «{issue['summary']}» — {issue['status']}")
    for name in ("assignee", "priority", "duedate", "planned_start", "planned_end", "epic_key"):
        if issue.get(name):
            print(f"  {name}: {issue[name]}")
    if issue.get("labels"):
        print(f"  labels: {', '.join(issue['labels'])}")
    if sprint:
        print(f"  sprint: {sprint}")
    for link in issue.get("links") or ():
        print(f"  link: {link['source']} {link['type']} {link['target']}")
    for note in issue.get("notes") or ():
        print(f"  note ({note['author']}, {note['created_at']}): {note['text']}")
    return 0


def _name(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", help="the project's name (its Jira label)")


def _project_add_arguments(parser: argparse.ArgumentParser) -> None:
    _name(parser)
    parser.add_argument("--board-id", type=int, help="its Jira board (for ensure_sprint)")


def _nothing(parser: argparse.ArgumentParser) -> None:
    del parser


COMMANDS = [
    ClientCommand(
        path=("project", "list"), help="the hub's projects", arguments=_nothing, run=run_against_hub(_project_list)
    ),
    ClientCommand(
        path=("project", "add"),
        help="add a project (admin)",
        arguments=_project_add_arguments,
        run=run_against_hub(_project_add),
    ),
    ClientCommand(
        path=("project", "remove"),
        help="remove a project (admin)",
        arguments=_name,
        run=run_against_hub(_project_remove),
    ),
    ClientCommand(
        path=("settings", "show"),
        help="the hub's settings as JSON",
        arguments=_nothing,
        run=run_against_hub(_settings_show),
    ),
    ClientCommand(
        path=("settings", "set"),
        help="set one setting (admin): KEY=VALUE, VALUE as JSON or text, pacing.ensure_fields=60",
        arguments=lambda p: p.add_argument("assignment", metavar="KEY=VALUE"),
        run=run_against_hub(_settings_change),
    ),
    ClientCommand(
        path=("settings", "unset"),
        help="a setting back to its default (admin)",
        arguments=lambda p: p.add_argument("assignment", metavar="KEY"),
        run=run_against_hub(_settings_change),
    ),
    ClientCommand(
        path=("issue", "show"),
        help="an issue of the hub's mirror with its links and notes",
        arguments=lambda p: p.add_argument("key", metavar="KEY"),
        run=run_against_hub(_issue_show),
    ),
]
