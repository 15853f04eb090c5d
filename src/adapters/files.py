"""Content-addressed file store under the hub's data dir: ``<root>/<sha[:2]>/<sha>``.

A file is written to a temporary name while its sha256 is computed, then renamed into place, so a reader
never sees half a file and the same bytes are stored once.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from collections.abc import AsyncIterable, Iterable
from pathlib import Path

import attrs

__all__ = ["FileStore", "FileTooLargeError", "StoredFile", "is_sha256"]

_SHA = re.compile(r"[0-9a-f]{64}")


def is_sha256(value: str) -> bool:
    """64 lower-case hex characters."""
    return bool(_SHA.fullmatch(value))


class FileTooLargeError(Exception):
    """The upload passed ``max_file_bytes``; nothing was kept."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"файл больше {limit} байт")
        self.limit = limit


@attrs.frozen(kw_only=True)
class StoredFile:
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

    async def put_stream(self, chunks: AsyncIterable[bytes], *, limit: int) -> StoredFile:
        """Store the bytes of ``chunks``; raise :class:`FileTooLargeError` past ``limit`` bytes."""
        self.root.mkdir(parents=True, exist_ok=True)
        digest = hashlib.sha256()
        size = 0
        fd, tmp_name = tempfile.mkstemp(dir=self.root, prefix=".upload-")
        tmp = Path(tmp_name)
        try:
            with os.fdopen(fd, "wb") as out:
                async for chunk in chunks:
                    size += len(chunk)
                    if size > limit:
                        raise FileTooLargeError(limit)
                    digest.update(chunk)
                    out.write(chunk)
            return self._place(tmp, digest.hexdigest(), size)
        finally:
            tmp.unlink(missing_ok=True)  # noqa: ASYNC240 — a local file, gone in microseconds

    def put_bytes(self, chunks: Iterable[bytes] | bytes, *, limit: int) -> StoredFile:
        """The synchronous twin of :meth:`put_stream` (tests, CLI)."""
        if isinstance(chunks, bytes):
            chunks = [chunks]
        self.root.mkdir(parents=True, exist_ok=True)
        digest = hashlib.sha256()
        size = 0
        fd, tmp_name = tempfile.mkstemp(dir=self.root, prefix=".upload-")
        tmp = Path(tmp_name)
        try:
            with os.fdopen(fd, "wb") as out:
                for chunk in chunks:
                    size += len(chunk)
                    if size > limit:
                        raise FileTooLargeError(limit)
                    digest.update(chunk)
                    out.write(chunk)
            return self._place(tmp, digest.hexdigest(), size)
        finally:
            tmp.unlink(missing_ok=True)

    def _place(self, tmp: Path, sha256: str, size: int) -> StoredFile:
        target = self.path(sha256)
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists() and target.stat().st_size == size:
            return StoredFile(sha256=sha256, size=size)
        tmp.replace(target)
        return StoredFile(sha256=sha256, size=size)
