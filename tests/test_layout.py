"""The tests' one import mode: every folder of tests is a package, and a test module reaches another one as
``tests.…`` or relatively, never by a bare name that works only when its folder is put on ``sys.path``."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

TESTS = Path(__file__).resolve().parent
SOURCES = sorted(TESTS.rglob("*.py"))


def _bare_names() -> set[str]:
    """Names of the tests' own modules and folders that no installed or ``src`` module answers to."""
    names = {path.stem for path in SOURCES if path.stem not in ("__init__", "conftest")}
    names |= {path.parent.name for path in SOURCES if path.parent != TESTS}
    return {name for name in names if importlib.util.find_spec(name) is None}


def test_every_folder_of_tests_is_a_package() -> None:
    """A folder holding Python files has its ``__init__.py`` (pytest then names its modules ``tests.…``)."""
    folders = {path.parent for path in SOURCES}
    assert sorted(str(f.relative_to(TESTS.parent)) for f in folders if not (f / "__init__.py").is_file()) == []


def test_no_test_module_imports_another_by_its_bare_name() -> None:
    """``from agent_fakes import …`` or ``from hub.support import …`` are the old rootdir imports: refused."""
    bare = _bare_names()
    found = []
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules = [node.module]
            elif isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            else:
                continue
            found += [f"{path.relative_to(TESTS.parent)}: {m}" for m in modules if m.partition(".")[0] in bare]
    assert found == []


def test_every_test_module_that_starts_the_stack_is_marked_e2e() -> None:
    """A module of ``tests/e2e`` or one that starts the processes of ``loopback.stack`` is marked ``e2e``: the quick
    path (``nox -s quick``, ``-m "not e2e and not browser"``) leaves real processes to the default sessions."""
    unmarked = []
    for path in SOURCES:
        if not path.name.startswith("test_"):
            continue
        text = path.read_text(encoding="utf-8")
        starts_processes = path.parent.name == "e2e" or "loopback.stack import" in text
        if starts_processes and "pytest.mark.e2e" not in text:
            unmarked.append(str(path.relative_to(TESTS.parent)))
    assert unmarked == []
