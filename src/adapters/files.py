"""Content-addressed file store under the hub's data dir: ``<root>/<sha[:2]>/<sha>``.

A file is written to a temporary name while its sha256 is computed (it is *staged*), then renamed into place,
so a reader never sees half a file and the same bytes are stored once. Between the two the hub decides whether
the store may hold it (``max_store_bytes``).
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from collections.abc import AsyncIterable, Iterable
from pathlib import Path

import attrs

from reconcile.vocabulary import TooLargeError

__all__ = ["FileStore", "FileTooLargeError", "StagedFile", "StoredFile", "is_sha256"]

_SHA = re.compile(r"[0-9a-f]{64}")


def is_sha256(value: str) -> bool:
    """64 lower-case hex characters."""
    return bool(_SHA.fullmatch(value))


class FileTooLargeError(TooLargeError):
    """The upload passed ``max_file_bytes``; nothing was kept (HTTP 413)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"файл больше max_file_bytes = {limit} байт")
        self.limit = limit


@attrs.frozen(kw_only=True)
class StoredFile:
    sha256: str
    size: int


@attrs.frozen(kw_only=True)
class StagedFile:
    """An upload in a temporary file of the store, its sha256 and size known, not yet in its place."""

    path: Path
    sha256: str
    size: int


@attrs.define
class FileStore:
    root: Path

    def path(self, sha256: str) -> Path:
        if not is_sha256(sha256):
            raise ValueError(f"not a sha256: {sha256!r}")
        return self.root / sha256[:2] / sha256

    def size(self, sha256: str) -> int | None:
        """The stored size, or ``None`` when the file is not (or no longer) there."""
        if not is_sha256(sha256):
            return None
        try:
            return self.path(sha256).stat().st_size
        except FileNotFoundError:
            return None

    def read(self, sha256: str) -> bytes | None:
        try:
            return self.path(sha256).read_bytes()
        except (FileNotFoundError, ValueError):
            return None

    def delete(self, sha256: str) -> None:
        self.path(sha256).unlink(missing_ok=True)

    async def stage_stream(self, chunks: AsyncIterable[bytes], *, limit: int) -> StagedFile:
        """Write ``chunks`` to a temporary file of the store; :class:`FileTooLargeError` past ``limit`` bytes (and
        nothing kept). The caller then places it (:meth:`place`) or drops it (:meth:`discard`)."""
        staging = _Staging(self.root, limit)
        try:
            async for chunk in chunks:
                staging.write(chunk)
        except BaseException:
            staging.abandon()
            raise
        return staging.done()

    def stage_bytes(self, chunks: Iterable[bytes] | bytes, *, limit: int) -> StagedFile:
        """The synchronous twin of :meth:`stage_stream` (tests, CLI)."""
        staging = _Staging(self.root, limit)
        try:
            for chunk in [chunks] if isinstance(chunks, bytes) else chunks:
                staging.write(chunk)
        except BaseException:
            staging.abandon()
            raise
        return staging.done()

    def place(self, staged: StagedFile) -> StoredFile:
        """Move a staged file to its place (the same bytes already there: the staged copy is dropped)."""
        target = self.path(staged.sha256)
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists() and target.stat().st_size == staged.size:
            staged.path.unlink(missing_ok=True)
        else:
            staged.path.replace(target)
        return StoredFile(sha256=staged.sha256, size=staged.size)

    @staticmethod
    def discard(staged: StagedFile) -> None:
        """Drop a staged file that was not placed (nothing happens when it was)."""
        staged.path.unlink(missing_ok=True)

    async def put_stream(self, chunks: AsyncIterable[bytes], *, limit: int) -> StoredFile:
        """Store the bytes of ``chunks``; raise :class:`FileTooLargeError` past ``limit`` bytes."""
        return self.place(await self.stage_stream(chunks, limit=limit))

    def put_bytes(self, chunks: Iterable[bytes] | bytes, *, limit: int) -> StoredFile:
        """The synchronous twin of :meth:`put_stream` (tests, CLI)."""
        return self.place(self.stage_bytes(chunks, limit=limit))


class _Staging:
    """A temporary file of the store being written, its sha256 computed on the way."""

    def __init__(self, root: Path, limit: int) -> None:
        root.mkdir(parents=True, exist_ok=True)
        self.limit, self.size, self.digest = limit, 0, hashlib.sha256()
        fd, name = tempfile.mkstemp(dir=root, prefix=".upload-")
        self.path = Path(name)
        self.out = os.fdopen(fd, "wb")

    def write(self, chunk: bytes) -> None:
        self.size += len(chunk)
        if self.size > self.limit:
            raise FileTooLargeError(self.limit)
        self.digest.update(chunk)
        self.out.write(chunk)

    def done(self) -> StagedFile:
        self.out.close()
        return StagedFile(path=self.path, sha256=self.digest.hexdigest(), size=self.size)

    def abandon(self) -> None:
        self.out.close()
        self.path.unlink(missing_ok=True)
