"""Uploads (issue 24, item 8): the file store holds at most ``max_store_bytes`` (past it: 413, nothing kept), and a
file that no queued or claimed command names is pruned ``file_retention_hours`` after its last upload, at the
next upload (the hub's clock decides, so the tests move it)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from sqlalchemy import select

from adapters.storage.models import FileRow, table_of
from hub_app.runtime.hub import Hub
from tests.support import cmd

from .conftest import Api, Clock
from .support import claim_ok, create, done

pytestmark = pytest.mark.anyio


async def _upload(api: Api, content: bytes) -> int:
    response = await api.client.post("/files", content=content, headers=api.auth("interface"))
    return int(response.status_code)


async def _recorded(hub: Hub) -> list[str]:
    async with hub.database.engine.connect() as conn:
        return sorted((await conn.scalars(select(table_of(FileRow).c.sha256))).all())


def _sha(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


def _on_disk(hub: Hub) -> list[str]:
    root: Path = hub.files.root
    return sorted(path.name for path in root.rglob("*") if path.is_file())


async def test_an_upload_past_the_store_quota_is_413_and_keeps_nothing(api: Api, hub: Hub) -> None:
    """60 bytes stored under a 100-byte store: 50 more → 413 saying how full the store is; neither a record nor
    the bytes (nor a temporary file) of the refused upload are left."""
    assert (await api.patch("/settings", {"max_store_bytes": 100})).status_code == 200
    assert await _upload(api, b"a" * 60) == 201
    response = await api.client.post("/files", content=b"b" * 50, headers=api.auth("interface"))
    assert response.status_code == 413
    assert response.json() == {
        "status_code": 413,
        "detail": "хранилище файлов заполнено: занято 60 из max_store_bytes = 100 байт, файл в 50 байт не помещается",
    }
    assert await _recorded(hub) == [_sha(b"a" * 60)]
    assert _on_disk(hub) == [_sha(b"a" * 60)]


async def test_the_same_bytes_again_take_no_room(api: Api, hub: Hub) -> None:
    """Uploading bytes the store already has is not refused by a full store."""
    assert (await api.patch("/settings", {"max_store_bytes": 100})).status_code == 200
    assert await _upload(api, b"a" * 60) == 201
    assert await _upload(api, b"a" * 60) == 201
    assert await _recorded(hub) == [_sha(b"a" * 60)]


async def test_an_unneeded_file_is_pruned_once_its_retention_passes(api: Api, hub: Hub, clock: Clock) -> None:
    """With a 24 h retention, a file no command names stays 23 h 59 min; the first upload at 24 h removes its record
    and bytes, and a batch naming it is then told to upload it again."""
    assert (await api.patch("/settings", {"file_retention_hours": 24})).status_code == 200
    old = b"old file"
    assert await _upload(api, old) == 201
    clock.advance(hours=23, minutes=59)
    assert await _upload(api, b"second") == 201
    assert _sha(old) in await _recorded(hub)
    clock.advance(minutes=1)
    assert await _upload(api, b"third") == 201
    assert await _recorded(hub) == sorted([_sha(b"second"), _sha(b"third")])
    assert _sha(old) not in _on_disk(hub)
    assert (await api.get(f"/agent/files/{_sha(old)}", role="agent")).status_code == 404
    refused = await create(api, [cmd("ensure_attachment", key="AURORA-1", file=_sha(old), filename="a.xlsx")])
    assert refused.json()["detail"] == f"команда 1: файл {_sha(old)} не загружен: POST /files"


async def test_a_file_a_queued_or_claimed_command_names_is_kept(api: Api, hub: Hub, clock: Clock) -> None:
    """Past its retention a file stays while its ``ensure_attachment`` is queued, then claimed; once the command
    is done the next upload prunes it."""
    assert (await api.patch("/settings", {"file_retention_hours": 1})).status_code == 200
    content = b"PK\x03\x04 xlsx"
    assert await _upload(api, content) == 201
    batch = await create(api, [cmd("ensure_attachment", key="AURORA-1", file=_sha(content), filename="a.xlsx")])
    assert batch.status_code == 201, batch.text
    clock.advance(hours=2)
    assert await _upload(api, b"while queued") == 201
    delivery = await claim_ok(api)
    clock.advance(hours=2)
    assert await _upload(api, b"while claimed") == 201
    assert _sha(content) in await _recorded(hub)
    assert _sha(content) in _on_disk(hub)
    await done(api, delivery["id"], {"attachment": {"id": "1"}})
    assert await _upload(api, b"after") == 201
    assert _sha(content) not in await _recorded(hub)
    assert _sha(content) not in _on_disk(hub)


async def test_a_new_upload_of_the_same_bytes_counts_retention_anew(api: Api, hub: Hub, clock: Clock) -> None:
    """Uploaded again 20 h later, a file with a 24 h retention is kept 24 h from then."""
    assert (await api.patch("/settings", {"file_retention_hours": 24})).status_code == 200
    assert await _upload(api, b"report") == 201
    clock.advance(hours=20)
    assert await _upload(api, b"report") == 201
    clock.advance(hours=4)
    assert await _upload(api, b"other") == 201
    assert _sha(b"report") in await _recorded(hub)
    clock.advance(hours=20)
    assert await _upload(api, b"last") == 201
    assert _sha(b"report") not in await _recorded(hub)


async def test_pruning_runs_before_the_quota_is_checked(api: Api, hub: Hub, clock: Clock) -> None:
    """A store full of files past their retention takes a new upload: they are pruned first."""
    assert (await api.patch("/settings", {"max_store_bytes": 100, "file_retention_hours": 1})).status_code == 200
    assert await _upload(api, b"a" * 90) == 201
    assert await _upload(api, b"b" * 20) == 413
    clock.advance(hours=1)
    assert await _upload(api, b"b" * 20) == 201
    assert await _recorded(hub) == [_sha(b"b" * 20)]


@pytest.mark.parametrize(
    ("change", "detail"),
    [
        ({"max_store_bytes": 0}, "настройки: max_store_bytes — положительное целое не больше 9007199254740992"),
        ({"file_retention_hours": 0}, "настройки: file_retention_hours — положительное число не больше 87600"),
    ],
)
async def test_the_store_settings_are_checked(api: Api, change: dict[str, int], detail: str) -> None:
    """The quota is a positive whole number of bytes, the retention a positive number of hours: else 422."""
    before = (await api.get("/settings")).json()
    response = await api.patch("/settings", change)
    assert response.status_code == 422
    assert response.json()["detail"] == detail
    assert (await api.get("/settings")).json() == before
    assert (before["max_store_bytes"], before["file_retention_hours"]) == (10737418240, 168)
