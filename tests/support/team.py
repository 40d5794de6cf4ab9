"""Team servers for the tests: real `seqdesk serve --store postgresql://…` processes on one real
PostgreSQL database (tests/support/postgres.py), each on a free port, reached over real HTTP.

`team_servers(folder, url, n)` starts n of them side by side and waits until each answers
`/api/health`; they are ended afterwards (terminated, then killed). `TeamServer.kill()` ends one at
once (SIGKILL), as a machine that dies would.
"""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from support.app import ROOT, clean_env, free_port, wait_until_up


@dataclass
class TeamServer:
    name: str
    base_url: str
    log: Path
    proc: subprocess.Popen[bytes]

    def api(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        answer = httpx.request(method, self.base_url + path, json=body, timeout=20)
        return answer.status_code, (answer.json() if answer.content else None)

    def ok(self, method: str, path: str, body: Any = None) -> Any:
        status, answer = self.api(method, path, body)
        assert status < 300, f"{self.name} {method} {path}: HTTP {status} {answer}\n{self.log_tail()}"
        return answer

    def log_tail(self) -> str:
        return self.log.read_text(errors="replace")[-3000:]

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)


def serve_env(folder: Path, **extra: str) -> dict[str, str]:
    env = clean_env(folder / "unused-data")  # a team server opens no data folder: nothing is made there
    env.pop("SEQDESK_DATA", None)
    env.pop("SEQDESK_STORE", None)
    env.pop("SEQDESK_CONNECT", None)
    env["SEQDESK_NO_DIALOG"] = "1"
    env.update(extra)
    return env


@contextlib.contextmanager
def team_servers(folder: Path, url: str, n: int, *, args: tuple[str, ...] = (),
                 **env: str) -> Iterator[list[TeamServer]]:
    """`n` servers on the database at `url` (`args` added to each command), started side by side; ended
    afterwards."""
    servers: list[TeamServer] = []
    try:
        for index in range(n):
            name = "ABCDEFG"[index]
            port = free_port()
            log = folder / f"serve-{name}.log"
            with log.open("wb") as out:
                command = [sys.executable, "-m", "gui", "serve", "--store", url, "--port", str(port), *args]
                proc = subprocess.Popen(command, cwd=ROOT, env=serve_env(folder, **env), stdout=out,
                                        stderr=subprocess.STDOUT)
            servers.append(TeamServer(name, f"http://127.0.0.1:{port}", log, proc))
        for server in servers:
            wait_until_up(server.proc, server.base_url, server.log)
        yield servers
    finally:
        for server in servers:
            if server.proc.poll() is None:
                server.proc.terminate()
        for server in servers:
            try:
                server.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.proc.kill()
                server.proc.wait(timeout=5)


def events_of(lines: list[str]) -> list[dict[str, Any]]:
    """The events on the `data:` lines of an event stream read so far."""
    found = []
    for line in list(lines):
        if line.startswith("data:"):
            with contextlib.suppress(ValueError):
                found.append(json.loads(line[5:]))
    return found


@contextlib.contextmanager
def event_stream(server: TeamServer) -> Iterator[list[str]]:
    """The lines of `server`'s `/api/events`, read in a thread into the list yielded, from the moment the
    stream is open (its first line); the stream is closed afterwards."""
    lines: list[str] = []
    opened = threading.Event()
    client = httpx.Client(timeout=httpx.Timeout(20, read=None))

    def read() -> None:
        with contextlib.suppress(httpx.HTTPError, RuntimeError), \
                client.stream("GET", server.base_url + "/api/events") as answer:
            for line in answer.iter_lines():
                lines.append(line)
                opened.set()

    reader = threading.Thread(target=read, daemon=True, name=f"events of {server.name}")
    reader.start()
    assert opened.wait(30), f"{server.name}'s event stream did not open\n{server.log_tail()}"
    try:
        yield lines
    finally:
        client.close()
