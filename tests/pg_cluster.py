"""The private PostgreSQL server of :mod:`loopback.postgres` as a pytest fixture helper: skipped where absent."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest

from loopback.postgres import Cluster, PostgresUnavailable
from loopback.postgres import private_cluster as _private_cluster

__all__ = ["Cluster", "private_cluster"]


@contextlib.contextmanager
def private_cluster() -> Iterator[Cluster]:
    """A server of the test's own (never the shared one), or the test skipped where PostgreSQL is absent."""
    try:
        with _private_cluster() as cluster:
            yield cluster
    except PostgresUnavailable as exc:  # raised only before the server exists
        pytest.skip(str(exc))
