"""What connecting to servers that need a key or a sign-in costs.

A script, not a test: `python tests/bench/bench_mcp_auth.py [--repeat 10]`. Against the test servers
of `tests/mcp/auth_server.py` on loopback, it measures (medians, milliseconds):

- choosing the secret store in a fresh process (`import keyring` and asking its backends), the cost
  `LazySecrets` keeps off start-up;
- a secret written and read back in the private file;
- a whole sign-in: discovery, dynamic client registration, the sign-in page (which consents at
  once), the callback, the token exchange;
- connecting (initialize and the tool list) with a kept token, with a header, and to a server that
  refuses (until its state says "needs you to sign in").
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from support.mcp_auth import auth_server, follow_sign_in, query_of  # noqa: E402

from gui.core.asks.elicitation import NoopElicitationHandler  # noqa: E402
from gui.core.tools.registry import Registry  # noqa: E402
from gui.mcp.client import McpConnection  # noqa: E402
from gui.mcp.config import McpServerConfig  # noqa: E402
from gui.mcp.secrets import FileSecrets, SecretStore  # noqa: E402
from gui.mcp.sign_in import SignIns  # noqa: E402

REDIRECT = "http://127.0.0.1:9/oauth/callback"


async def timed(repeat: int, one: Callable[[int], Awaitable[None]]) -> list[float]:
    samples = []
    for i in range(repeat):
        start = time.perf_counter()
        await one(i)
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def show(what: str, samples: list[float]) -> None:
    print(f"{what:<52} median {statistics.median(samples):8.1f} ms   ({', '.join(f'{s:.0f}' for s in samples)})")


def choose_store_in_a_fresh_process() -> float:
    code = ("import time; from gui.mcp.secrets import usable_keyring; t = time.perf_counter(); usable_keyring(); "
            "print((time.perf_counter() - t) * 1000)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


async def sign_in(secrets: SecretStore, config: McpServerConfig) -> None:
    sign_ins = SignIns(secrets)
    url = await sign_ins.start(config, REDIRECT)
    assert url is not None
    back = query_of(await follow_sign_in(url))
    done = sign_ins.answer(back["state"], back["code"], back.get("iss"))
    await asyncio.wait_for(done.finished.wait(), 15)
    assert done.error is None, done.error


async def connect(config: McpServerConfig, secrets: SecretStore, until: str) -> None:
    conn = McpConnection(config, Registry([]), NoopElicitationHandler(), secrets=secrets, backoff=(30.0, 30.0))
    await conn.start()
    state = await conn.wait_for("connected", "down", timeout=15)
    assert state.status == until, state.last_error
    await conn.stop()


async def main(repeat: int) -> None:
    show("choose the secret store (fresh process)", [choose_store_in_a_fresh_process() for _ in range(repeat)])
    with tempfile.TemporaryDirectory() as folder:
        secrets = FileSecrets(Path(folder) / "mcp-secrets.json")

        async def write_read(i: int) -> None:
            secrets.set(f"s{i}/headers", "{}" * 200)
            assert secrets.get(f"s{i}/headers")

        show("secret written and read back (0600 file)", await timed(repeat, write_read))
        async with auth_server("oauth") as oauth, auth_server("header", "X-Api-Key", "k") as keyed, \
                auth_server("refuse") as refusing:
            guarded = McpServerConfig(name="guarded", transport="http", url=f"{oauth}/mcp")
            show("whole sign-in (discovery, registration, code, token)",
                 await timed(repeat, lambda _i: sign_in(secrets, guarded)))
            show("connect with the kept token", await timed(repeat, lambda _i: connect(guarded, secrets, "connected")))
            header = McpServerConfig(name="keyed", transport="http", url=f"{keyed}/mcp", headers={"X-Api-Key": "k"})
            show("connect with a header", await timed(repeat, lambda _i: connect(header, secrets, "connected")))
            locked = McpServerConfig(name="locked", transport="http", url=f"{refusing}/mcp")
            show("a refusing server until 'needs you to sign in'",
                 await timed(repeat, lambda _i: connect(locked, secrets, "down")))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=10)
    logging.disable(logging.WARNING)  # the refusing server's "is down" warnings, ten times over
    asyncio.run(main(parser.parse_args().repeat))
