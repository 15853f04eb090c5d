"""The executors' shared fixture: a fresh simulator bench for each test that asks for one."""

from __future__ import annotations

import pytest

from .sim_support import Bench, make_bench


@pytest.fixture
async def bench() -> Bench:
    return make_bench()
