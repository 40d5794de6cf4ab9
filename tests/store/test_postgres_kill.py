"""A process killed (SIGKILL) while it writes to the PostgreSQL store loses no write it was told was
done: every run and answer a child printed as saved is there, whole, after the kill."""

from __future__ import annotations

from pathlib import Path

import pytest

from gui.pgstore import open_pg_stores

pytestmark = [pytest.mark.postgres, pytest.mark.slow]
KILLS = 10
HERE = Path(__file__).resolve().parent


async def test_killed_writers_lose_no_acknowledged_write(spawn, seqdesk_database_url):
    acknowledged: list[str] = []
    for kill in range(KILLS):
        child = spawn(str(HERE / "postgres_writer_child.py"), seqdesk_database_url, f"k{kill}")
        assert child.next_line(timeout=30) == "ready"
        for _ in range(5 + kill % 7):  # killed at a different point of its writes each time
            acknowledged.append(child.next_line().removeprefix("saved "))
        acknowledged += [line.removeprefix("saved ") for line in child.kill() if line.startswith("saved ")]
    stores = await open_pg_stores(seqdesk_database_url, secret_key="")
    try:
        lost = [rid for rid in acknowledged if await stores.runs.get(rid) is None
                or (await stores.interactions.get(rid)) is None
                or (await stores.interactions.get(rid)).status != "resolved"]
        assert lost == [], f"{len(lost)} acknowledged writes lost of {len(acknowledged)}"
    finally:
        await stores.close()
