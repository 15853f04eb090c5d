"""The tests the docs name exist where the docs say: a renamed or moved test file cannot leave a dead link."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
TEST_PATH = re.compile(r"\btests/[\w/]+\.py(?:::\w+)?")
TEST_NAME = re.compile(r"`(test_\w+)`")
DEFINED = re.compile(r"^\s*(?:async )?def (test_\w+)\(", re.MULTILINE)


def _tests_defined() -> dict[str, set[str]]:
    """Each test file under tests/ (relative to the root) with the test functions it defines."""
    return {
        path.relative_to(ROOT).as_posix(): set(DEFINED.findall(path.read_text(encoding="utf-8")))
        for path in (ROOT / "tests").rglob("test_*.py")
    }


def test_every_test_file_and_test_the_docs_name_exists() -> None:
    """A ``tests/….py`` path exists, and a ``tests/….py::test_name`` names a test that file defines."""
    defined = _tests_defined()
    dead = []
    for doc in DOCS:
        for found in TEST_PATH.findall(doc.read_text(encoding="utf-8")):
            path, _, name = found.partition("::")
            if not (ROOT / path).is_file() or (name and name not in defined.get(path, set())):
                dead.append(f"{doc.relative_to(ROOT)}: {found}")
    assert dead == []


def test_every_test_the_docs_name_alone_exists_once() -> None:
    """A test named without its file (`` `test_name` ``) is still one test of the suite, so it can be found."""
    counts: dict[str, int] = {}
    for names in _tests_defined().values():
        for name in names:
            counts[name] = counts.get(name, 0) + 1
    unclear = [
        f"{doc.relative_to(ROOT)}: {name} (defined {counts.get(name, 0)} times)"
        for doc in DOCS
        for name in TEST_NAME.findall(doc.read_text(encoding="utf-8"))
        if counts.get(name, 0) != 1
    ]
    assert unclear == []
