"""Values the whole suite shares: the instant its clocks start, a stored file's sha256, the base JQL of the seed's
projects, the command types as a refusal lists them, and a command as a batch body writes it."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from reconcile.vocabulary.catalogue import CATALOGUE

#: The seed's morning (22.10.2026 09:00 UTC, the simulator sample's ``reference_now``): where the suite's fake
#: clocks and simulators start.
T0 = datetime(2026, 10, 22, 9, 0, tzinfo=UTC)

#: A file the hub holds, named by its sha256.
SHA = "0123456789abcdef" * 4

#: The sync run's base JQL for the hub project AWPCA alone, and for AWPCA and STOCKS_DRRK.
BASE_AWPCA = 'project = AURORA AND labels in ("AWPCA")'
BASE_BOTH = 'project = AURORA AND labels in ("AWPCA", "STOCKS_DRRK")'


#: The command types as the refusals list them: the catalogue's, in its order.
TYPE_LIST = ", ".join(CATALOGUE)


def cmd(type_: str, **params: Any) -> dict[str, Any]:
    """A command as a batch body holds it."""
    return {"type": type_, "params": params}


def seed_result(result: Mapping[str, Any]) -> dict[str, Any]:
    """A result as seed 001 and DESIGN 5.3 name it: without ``undo``, what its write replaced (DESIGN 6.4), which
    tests of their own pin (tests/executors/test_executor_undo.py)."""
    return {name: value for name, value in result.items() if name != "undo"}
