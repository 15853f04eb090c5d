"""One administrative statement on the test PostgreSQL server (``CREATE DATABASE`` and ``DROP DATABASE`` of the
per-run databases): used by the test fixtures, the end-to-end fixtures and the fuzz run."""

from __future__ import annotations

from sqlalchemy.engine import make_url

PG_DEFAULT = "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"


async def admin_sql(url: str, sql: str) -> None:
    """Run ``sql`` on the server of ``url`` (its database, else ``postgres``), outside any transaction."""
    import asyncpg

    parsed = make_url(url)
    conn = await asyncpg.connect(
        host=parsed.host or "127.0.0.1",
        port=parsed.port or 5432,
        user=parsed.username or "postgres",
        password=parsed.password,
        database=parsed.database or "postgres",
        timeout=5,
    )
    try:
        await conn.execute(sql)
    finally:
        await conn.close()
