"""Team servers for the tests: real `seqdesk serve --store postgresql://…` processes on one real
PostgreSQL database (tests/support/postgres.py), each on a free port, reached over real HTTP.

A team's server has no shared token: people sign in. `team_person(url)` adds the tests' admin (every
built-in role, `PERSON`) to the database through the core's accounts, as `seqdesk people add` does, and
makes them a personal token. `team_servers(folder, url, n)` does that first, then starts n servers side
by side and waits until each answers `/api/health`; each `TeamServer` talks to its server as that
person (the token as a bearer). They are ended afterwards (terminated, then killed).
`TeamServer.kill()` ends one at once (SIGKILL), as a machine that dies would.
"""

from __future__ import annotations

import asyncio
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

PERSON = "ada"  # the tests' admin on a team's database: every built-in role
TOKEN_LABEL = "team tests"  # the label of the personal token the servers are spoken to with
APPROVER = "bea"  # an approver: who started a run may not approve its risky step, so another person does


PASSWORD = "a-long-enough-password"  # every person the tests add signs in with it


async def _add_person(url: str, name: str, label: str, roles: tuple[str, ...] | None) -> str:
    from gui.app import team_accounts
    from gui.core.people import BUILT_IN_ROLES
    from gui.settings import load_settings

    async with team_accounts(load_settings(store=url)) as accounts:
        if not await accounts.exists(name):
            await accounts.add(name, roles or BUILT_IN_ROLES, password=PASSWORD)
        return await accounts.make_token(name, label)


def team_person(url: str, name: str = PERSON, label: str = TOKEN_LABEL, *,
                roles: tuple[str, ...] | None = None) -> str:
    """A new personal token of `name`, added to the database at `url` when not there yet, with `roles`
    (None: every built-in role, an admin), as `seqdesk people add` and `people token` do."""
    result: list[str] = []  # made on a loop of its own, in a thread: a test's loop may be running here
    worker = threading.Thread(target=lambda: result.append(asyncio.run(_add_person(url, name, label, roles))))
    worker.start()
    worker.join(60)
    assert result, f"could not add {name} to the team's database"
    return result[0]


@dataclass
class TeamServer:
    name: str
    base_url: str
    log: Path
    proc: subprocess.Popen[bytes]
    token: str  # the personal token of PERSON
    approver_token: str  # the personal token of APPROVER

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def approve(self, interaction_id: str) -> Any:
        """Approve a request as APPROVER (PERSON started the runs: the starter may not approve them)."""
        answer = httpx.post(f"{self.base_url}/api/interactions/{interaction_id}/respond",
                            json={"kind": "approval", "decision": "approved"},
                            headers={"Authorization": f"Bearer {self.approver_token}"}, timeout=20)
        assert answer.status_code < 300, f"{self.name} approving {interaction_id}: HTTP {answer.status_code} " \
                                         f"{answer.text}\n{self.log_tail()}"
        return answer.json()

    def api(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        answer = httpx.request(method, self.base_url + path, json=body, headers=self.headers, timeout=20)
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
    env.pop("SEQDESK_TOKEN", None)  # a team's server has no shared token: one given is refused
    env["SEQDESK_NO_DIALOG"] = "1"
    env.update(extra)
    return env


@contextlib.contextmanager
def team_servers(folder: Path, url: str, n: int, *, args: tuple[str, ...] = (),
                 **env: str) -> Iterator[list[TeamServer]]:
    """`n` servers on the database at `url` (`args` added to each command), started side by side, each
    spoken to as PERSON (added first, with a new token; APPROVER too, to approve); ended afterwards."""
    token = team_person(url)
    approver_token = team_person(url, APPROVER, roles=("approver",))
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
            servers.append(TeamServer(name, f"http://127.0.0.1:{port}", log, proc, token, approver_token))
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
                client.stream("GET", server.base_url + "/api/events", headers=server.headers) as answer:
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
