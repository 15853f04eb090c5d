"""The code's structure, read from its imports: no import circle anywhere in ``src``, and the hub a stack whose
three doors are peers (README.md, the package table)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

#: The hub's floors, top first: a module imports only modules of its own floor or of the floors below it.
HUB_FLOORS: tuple[tuple[str, ...], ...] = (
    ("cli", "client_cli", "audit_cli", "app", "serving"),
    ("api", "web", "mcp"),  # the doors
    # the operations
    (
        "batches",
        "approvals",
        "claims",
        "reports",
        "events",
        "freshness",
        "mirror",
        "drift",
        "admin",
        "plan",
        "undo",
        "overview",
        "idempotency",
        "following",
        "predict",
        "audit",
        "overview",
    ),
    ("lookups", "request_text", "connection"),
    ("runtime", "longpoll"),
    ("metrics",),
    ("answers", "bodies", "refusals", "roles", "public_url"),
)
DOORS = HUB_FLOORS[1]


def _module(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module(path): path for path in SRC.rglob("*.py")}


def _imports(name: str) -> Iterator[str]:
    """The modules of ``src`` that module ``name`` imports, wherever the import stands (a function, a
    ``TYPE_CHECKING`` block): a circle is one whichever way it is taken."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            # ``from package import module`` imports that module; ``from module import name``, the module
            found = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
        else:
            continue
        for target in found:
            if target in MODULES and target != name:
                yield target


def _circles() -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan's algorithm)."""
    graph = {name: sorted(set(_imports(name))) for name in MODULES}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(name: str) -> None:
        index[name] = low[name] = len(index)
        stack.append(name)
        on_stack.add(name)
        for target in graph[name]:
            if target not in index:
                visit(target)
                low[name] = min(low[name], low[target])
            elif target in on_stack:
                low[name] = min(low[name], index[target])
        if low[name] == index[name]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == name:
                    break
            if len(group) > 1:
                circles.append(sorted(group))

    for name in sorted(graph):
        if name not in index:
            visit(name)
    return circles


def _floor(name: str) -> tuple[int, str]:
    """The floor of a module of the hub and its room (``hub_app.api.batches`` → the floor of ``api``)."""
    room = name.split(".")[1] if "." in name else ""
    for number, floor in enumerate(HUB_FLOORS):
        if room in floor:
            return number, room
    raise AssertionError(f"{name} stands on no floor of HUB_FLOORS: add it where its imports put it")


def test_no_module_of_src_takes_part_in_an_import_circle() -> None:
    """Every import runs one way: no group of modules imports itself round, however long the way."""
    assert _circles() == []


def test_the_hub_is_a_stack_whose_doors_are_peers() -> None:
    """A module of the hub imports nothing from a floor above its own, and no door imports another door."""
    wrong = []
    for name in sorted(m for m in MODULES if m.startswith("hub_app.")):
        floor, room = _floor(name)
        for target in _imports(name):
            if not target.startswith("hub_app."):
                continue
            to_floor, to_room = _floor(target)
            if to_floor < floor or (room in DOORS and to_room in DOORS and to_room != room):
                wrong.append(f"{name} -> {target}")
    assert wrong == []
