"""A process killed (SIGKILL) while it writes to the PostgreSQL store loses no write it was told was
done: every run and answer a child printed as saved is there, whole, after 50 kills, and still after
the server itself then crashes and recovers. The server runs with `fsync=on`, as a real one does."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from gui.pgstore import open_pg_stores
from gui.pgstore.schema import migrate

pytestmark = [pytest.mark.postgres, pytest.mark.slow]
KILLS = 50
HERE = Path(__file__).resolve().parent


async def test_killed_writers_lose_no_acknowledged_write(spawn, durable_postgres_server):
    url = durable_postgres_server.create_database()
    migrate(url)
    acknowledged: list[str] = []
    began = time.monotonic()
    for kill in range(KILLS):
        child = spawn(str(HERE / "postgres_writer_child.py"), url, f"k{kill}")
        assert child.next_line(timeout=60) == "ready"
        for _ in range(5 + kill % 7):  # killed at a different point of its writes each time
            acknowledged.append(child.next_line().removeprefix("saved "))
        acknowledged += [line.removeprefix("saved ") for line in child.kill() if line.startswith("saved ")]
    durable_postgres_server.crash_and_restart()  # and the server too, as a crash would stop it
    stores = await open_pg_stores(url, secret_key="")
    try:
        lost = [rid for rid in acknowledged if await stores.runs.get(rid) is None
                or (await stores.interactions.get(rid)) is None
                or (await stores.interactions.get(rid)).status != "resolved"]
        print(f"{KILLS} SIGKILLs and a server crash (fsync on): {len(acknowledged)} acknowledged writes, "
              f"{len(lost)} lost, in {time.monotonic() - began:.0f} s")
        assert lost == [], f"{len(lost)} acknowledged writes lost of {len(acknowledged)}"
    finally:
        await stores.close()
