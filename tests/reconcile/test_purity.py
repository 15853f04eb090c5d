"""The reconcile core is pure: importing all of it loads no I/O framework."""

from __future__ import annotations

import subprocess
import sys

FORBIDDEN = ("httpx", "sqlalchemy", "litestar", "asyncio", "asyncpg", "aiosqlite", "uvicorn", "socket", "mcp")

PROBE = """
import importlib, pkgutil, sys
import reconcile
for module in pkgutil.walk_packages(reconcile.__path__, "reconcile."):
    importlib.import_module(module.name)
print(" ".join(sorted({name.split(".")[0] for name in sys.modules})))
"""


def test_import_reconcile_loads_no_io_framework() -> None:
    """`import reconcile` and every submodule leave httpx, sqlalchemy, litestar and asyncio unloaded."""
    loaded = subprocess.run([sys.executable, "-c", PROBE], check=True, capture_output=True, text=True).stdout.split()
    assert "reconcile" in loaded
    assert [name for name in FORBIDDEN if name in loaded] == []
