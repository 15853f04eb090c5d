"""End-to-end fixtures: real ``jira-sim``, ``sdlc-hub serve`` and ``sdlc-agent run`` processes on loopback."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from e2e_support import E2E_PACING

from loopback.stack import Stack, start_stack


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    """Hub + simulator with the sample projects and scaled-down pacing; start the agent with ``stack.start_agent``."""
    running = start_stack(tmp_path, pacing=E2E_PACING, claim_wait_seconds=1.0)
    try:
        yield running
    finally:
        running.stop()
