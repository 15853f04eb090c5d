"""``nox -l`` lists each session with the first line of its docstring: that line must be a whole sentence."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import nox.registry

NOXFILE = Path(__file__).resolve().parents[1] / "noxfile.py"


def test_every_session_is_listed_with_a_whole_sentence() -> None:
    """The first docstring line of every session ends its sentence, and the line after it is blank (or absent)."""
    spec = importlib.util.spec_from_file_location("sdlc_hub_noxfile", NOXFILE)
    assert spec is not None and spec.loader is not None
    spec.loader.exec_module(importlib.util.module_from_spec(spec))
    sessions = nox.registry.get()
    assert {"lint", "typecheck", "tests", "quick", "e2e-postgresql", "mutate", "bench", "fuzz"} <= set(sessions)
    for name, func in sessions.items():
        lines = (func.__doc__ or "").strip().splitlines()
        assert lines, name
        assert lines[0].endswith("."), (name, lines[0])
        assert len(lines) == 1 or not lines[1].strip(), (name, lines[:2])
