"""A child that saves runs and answers requests on a PostgreSQL store as fast as it can, printing each
id once its save has returned (acknowledged), until it is killed. Run: python postgres_writer_child.py URL PREFIX"""

from __future__ import annotations

import asyncio
import sys

from contract_support import interaction, run

from gui.pgstore import open_pg_stores


async def main(url: str, prefix: str) -> None:
    stores = await open_pg_stores(url, secret_key="")
    print("ready", flush=True)
    n = 0
    while True:
        await stores.runs.save(run(f"{prefix}-{n}", status="running" if n % 2 else "succeeded"))
        await stores.interactions.save(interaction(f"{prefix}-{n}"))
        await stores.interactions.save(interaction(f"{prefix}-{n}", status="resolved"))
        print(f"saved {prefix}-{n}", flush=True)
        n += 1


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
