"""docs/library.md's examples of ``reconcile`` used from another tool run as written."""

from __future__ import annotations

import doctest
from pathlib import Path

LIBRARY = Path(__file__).resolve().parents[1] / "docs" / "library.md"


def test_the_library_guide_runs_as_written() -> None:
    """Every example of the guide gives the output it shows: validation, estimate, dry run, agent policy."""
    failed, attempted = doctest.testfile(
        str(LIBRARY), module_relative=False, optionflags=doctest.NORMALIZE_WHITESPACE, verbose=False
    )
    assert attempted >= 20
    assert failed == 0
