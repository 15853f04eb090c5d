"""``sdlc-hub completion bash|zsh``: shell completion generated from ``sdlc-hub``'s own argument tree (every
subcommand and option, the client commands and the server's), so it never falls behind the command line.

The script is a table: for each path of subcommands, the words that may follow (its subcommands and options).
Bash completes with it; zsh runs the same function through ``bashcompinit``. Files complete as usual
(``complete -o default``): ``batch submit <TAB>`` offers the plan files.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator

from hub_app.client_cli.registry import ClientCommand

__all__ = ["COMMANDS", "completion_script", "word_table"]


def _children(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    found: dict[str, argparse.ArgumentParser] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            found.update(action.choices)
    return found


def word_table(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], list[str]]]:
    """Each path of subcommands with the words that may follow it, the root (``()``) first."""
    children = _children(parser)
    options = sorted(flag for action in parser._actions for flag in action.option_strings if flag.startswith("--"))
    yield path, [*children, *options]
    for name, child in children.items():
        yield from word_table(child, (*path, name))


def completion_script(parser: argparse.ArgumentParser, shell: str) -> str:
    """The completion script of ``parser``'s program for ``shell`` (``bash`` or ``zsh``)."""
    table = list(word_table(parser))
    known = "|".join(f'" {" ".join(path)}"' for path, _ in table if path)
    cases = "\n".join(
        f'    "{" " + " ".join(path) if path else ""}") words="{" ".join(words)}" ;;' for path, words in table
    )
    body = f"""_sdlc_hub() {{
  local cur="${{COMP_WORDS[COMP_CWORD]}}" path="" words="" w
  for w in "${{COMP_WORDS[@]:1:COMP_CWORD-1}}"; do
    case "$path $w" in
      {known}) path="$path $w" ;;
    esac
  done
  case "$path" in
{cases}
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}}
complete -o default -F _sdlc_hub sdlc-hub
"""
    if shell == "zsh":
        return "autoload -U +X bashcompinit && bashcompinit\n" + body
    return body


def _run(args: argparse.Namespace) -> int:
    tree: argparse.ArgumentParser = args.command_tree  # the whole program's, the server's commands too
    sys.stdout.write(completion_script(tree, args.shell))
    return 0


COMMANDS = [
    ClientCommand(
        path=("completion",),
        help='print the shell completion script: eval "$(sdlc-hub completion bash)" (or zsh)',
        arguments=lambda p: p.add_argument("shell", choices=("bash", "zsh")),
        run=_run,
        talks_to_hub=False,
    )
]
