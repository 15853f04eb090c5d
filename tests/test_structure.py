"""The code's structure, read from its imports: no import circle anywhere in ``src``; each folder of ``reconcile``
and ``hub_app`` is one floor, and a module imports nothing from a floor above its own nor from a peer on its floor
(README.md, the package table); a package's ``_private`` modules stay inside it; the apps reach ``reconcile`` through
its faces; modules read top to bottom."""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

#: The floors of each layered package, top first. A room is a folder (or a top-level module); a module imports only
#: modules of its own room or of rooms on the floors below. Rooms on one floor are peers: they import each other not
#: at all. Every room of the package stands on a floor (a new folder is placed here, where its imports put it).
FLOORS: dict[str, tuple[tuple[str, ...], ...]] = {
    "reconcile": (
        ("outlook",),  # what a person reads: the dry run, plans and their approval, progress, confirmation, drift, undo
        ("types",),  # each command type bound whole
        ("executors",),  # the sans-I/O executors
        ("batches",),  # a batch as submitted
        ("jira", "queue", "audit"),  # Jira as the core sees it; the queue's decisions; the audit's chain
        ("guard",),  # the bank's policy, JQL, paths and fields checked, the hub's scope
        ("config",),  # the hub's settings
        ("vocabulary",),  # the words every floor speaks
    ),
    "hub_app": (
        ("cli",),
        ("client_cli", "app", "serving"),
        ("api", "web", "mcp"),  # the doors
        ("dispatch",),  # the agent's claims, reports and events, and the queue's overview
        ("operations",),  # what the doors ask: batches, plans, approvals, undo, the mirror, drift, admin, audit
        ("runtime",),
        ("answers",),
        ("bodies",),
    ),
}
DOORS = FLOORS["hub_app"][2]
#: The packages that reach ``reconcile`` through its faces only.
APPS = ("hub_app", "agent_app", "adapters", "jira_sim", "loopback")
#: Folders that hold no modules of the package's own.
NOT_ROOMS = {"__init__", "__pycache__", "py.typed", "static", "templates", "migrations", "versions"}


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
    """The floor of a module of a layered package and its room (``hub_app.api.batches`` → the floor of ``api``)."""
    package, _, rest = name.partition(".")
    room = rest.split(".")[0]
    for number, floor in enumerate(FLOORS[package]):
        if room in floor:
            return number, room
    raise AssertionError(f"{name} stands on no floor of FLOORS[{package!r}]: add it where its imports put it")


def test_no_module_of_src_takes_part_in_an_import_circle() -> None:
    """Every import runs one way: no group of modules imports itself round, however long the way."""
    assert _circles() == []


def test_every_room_of_a_layered_package_stands_on_a_floor() -> None:
    """The floors are the folders: each folder (and each entry-point module) of ``reconcile`` and ``hub_app`` is one
    room of :data:`FLOORS`, and each room of it exists."""
    for package, floors in FLOORS.items():
        rooms = {room for floor in floors for room in floor}
        here = {p.stem if p.is_file() else p.name for p in (SRC / package).iterdir()} - NOT_ROOMS
        assert here == rooms, package


def test_each_layered_package_is_a_stack_whose_peers_import_each_other_not() -> None:
    """A module of ``reconcile`` or ``hub_app`` imports nothing from a floor above its own nor from a peer room on
    its floor (the hub's three doors are peers, as the core's ``jira`` and ``queue`` are)."""
    wrong = []
    for package in FLOORS:
        for name in sorted(m for m in MODULES if m.startswith(f"{package}.")):
            floor, room = _floor(name)
            for target in _imports(name):
                if not target.startswith(f"{package}."):
                    continue
                to_floor, to_room = _floor(target)
                if to_floor < floor or (to_floor == floor and to_room != room):
                    wrong.append(f"{name} -> {target}")
    assert wrong == []


def test_a_private_module_is_imported_only_inside_its_package() -> None:
    """A ``_private`` module (``reconcile.executors._run``) is its package's inside: others use the package's face."""
    wrong = []
    for name in sorted(MODULES):
        for target in _imports(name):
            parts = target.split(".")
            private = [i for i, part in enumerate(parts) if part.startswith("_")]
            inside = ".".join(parts[: private[0]]) if private else ""
            if private and name != inside and not name.startswith(f"{inside}."):
                wrong.append(f"{name} -> {target}")
    assert wrong == []


def _reconcile_imports(path: Path) -> Iterator[tuple[str, str]]:
    """``(module, name)`` of every import from ``reconcile`` in ``path`` (``name`` is ``*`` for ``import …``)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "reconcile":
            for alias in node.names:
                yield node.module or "", alias.name
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "reconcile":
                    yield alias.name, "*"


def test_the_apps_reach_reconcile_only_through_its_faces() -> None:
    """``adapters``, ``hub_app``, ``agent_app``, ``jira_sim`` and ``loopback`` take from ``reconcile`` or one of its
    folders only what that face's ``__all__`` offers: the modules behind it are free to change."""
    wrong = []
    for app in APPS:
        for path in sorted((SRC / app).rglob("*.py")):
            for module, name in _reconcile_imports(path):
                face = importlib.import_module(module)
                if module.count(".") > 1 or name not in getattr(face, "__all__", ()):
                    wrong.append(f"{path.relative_to(SRC)}: from {module} import {name}")
    assert wrong == []


def test_reconcile_names_its_public_face() -> None:
    """``reconcile`` says what other tools may use, each folder says what it offers, and every name offered is there."""
    faces = ["reconcile", *(f"reconcile.{room}" for floor in FLOORS["reconcile"] for room in floor)]
    for name in faces:
        face = importlib.import_module(name)
        assert face.__all__, name
        assert [n for n in face.__all__ if not hasattr(face, n)] == [], name


def test_no_folder_of_reconcile_or_the_hub_holds_more_than_twelve_modules() -> None:
    """A room that grows past twelve modules asks for a folder of its own."""
    crowded = {}
    for package in FLOORS:
        for folder in [SRC / package, *(p for p in (SRC / package).rglob("*") if p.is_dir())]:
            if NOT_ROOMS & set(folder.relative_to(SRC).parts):
                continue
            modules = [p for p in folder.glob("*.py") if p.name != "__init__.py"]
            if len(modules) > 12:
                crowded[folder.relative_to(SRC).as_posix()] = len(modules)
    assert crowded == {}


def test_modules_read_top_to_bottom() -> None:
    """No module of ``src`` over 450 lines and no function over 80 (the migrations aside: each is one revision),
    the simulator's included."""
    long_modules, long_functions = [], []
    for path in sorted(SRC.rglob("*.py")):
        if "migrations" in path.parts:
            continue
        text = path.read_text(encoding="utf-8")
        if len(text.splitlines()) > 450:
            long_modules.append(path.relative_to(SRC).as_posix())
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno - node.lineno >= 80:
                long_functions.append(f"{path.relative_to(SRC).as_posix()}:{node.name}")
    assert (long_modules, long_functions) == ([], [])


def test_the_hub_makes_a_batch_in_one_place() -> None:
    """Needs, reads, validation and storage of a batch are one function of ``hub_app.operations.batches``: no other
    module of the hub validates or stores a batch body itself (a retry, an undo, drift's repair and the hub's
    refreshes all go through it)."""
    steps = {"batch_needs", "validate_batch", "add_batch"}
    wrong = []
    for path in sorted((SRC / "hub_app").rglob("*.py")):
        if path == SRC / "hub_app" / "operations" / "batches.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                if name in steps:
                    wrong.append(f"{path.relative_to(SRC)}:{node.lineno} {name}")
    assert wrong == []


def test_no_banner_comment_parts_a_module() -> None:
    """A ``# --- something ---`` banner is a module name in hiding: a module either is one or becomes two."""
    banners = [
        f"{path.relative_to(SRC).as_posix()}:{number}"
        for path in sorted(SRC.rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if line.lstrip().startswith("# ---")
    ]
    assert banners == []
