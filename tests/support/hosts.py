"""A team's workers for the tests: `seqdesk worker --name NAME` as a child process, on the session's
Temporal dev server, in this network namespace or in one the test made (`Namespaces`, as root).

A worker in a namespace of its own has its own host name too (a UTS namespace: `hostname` there says
NAME), and reaches the dev server, which binds loopback in the root namespace, through `socat`: one
listens on the namespace's loopback and passes each connection over a unix socket (the namespaces
share the file system) to a second in the root namespace, which connects to the server. No address
outside loopback is used. Where namespaces cannot be made (not root, no `ip`, no `socat`), the tests
that need them skip, saying why; under CI=true they fail.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from gui.tools.processes import parent_death_signal
from support.temporal import TemporalServer
from support.waiting import wait_until, wait_until_sync

NAMESPACE_PORT = 7233  # where a worker in a namespace dials the server (that namespace's loopback)


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "NICEGUI_"))}


@dataclass
class Worker:
    """One `seqdesk worker` process; `kill` as a crash would, `start` again with the same name."""

    name: str
    url: str
    log: Path
    prefix: list[str] = field(default_factory=list)  # runs it inside a namespace
    process: subprocess.Popen[bytes] | None = None
    starts: int = 0

    @property
    def state(self) -> Path:
        """Its state folder, beside its log: the same one each time it starts."""
        return self.log.parent / f"{self.log.stem}-state"

    def start(self) -> Worker:
        self.starts += 1
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                [*self.prefix, sys.executable, "-m", "gui", "worker", "--name", self.name, "--executor", self.url,
                 "--state", str(self.state)],
                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=_env(),
                preexec_fn=parent_death_signal())
        return self

    def wait_serving(self, timeout: float = 60.0) -> None:
        def said() -> bool:
            if self.process is not None and self.process.poll() is not None:
                raise AssertionError(f"the worker {self.name} ended: {self.log.read_text(errors='replace')[-2000:]}")
            # it says so once it polls its queue and is in the hosts list
            return self.log.read_text(errors="replace").count("serving as the host") >= self.starts

        wait_until_sync(said, f"the worker {self.name} serving", timeout=timeout)

    def run(self, timeout: float = 60.0) -> Worker:
        self.start()
        self.wait_serving(timeout)
        return self

    def kill(self) -> None:
        """SIGKILL, as a crash: it says nothing, its commands die with it."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


@contextmanager
def workers(server: TemporalServer, names: list[str], folder: Path) -> Iterator[dict[str, Worker]]:
    """A worker per name, in this namespace, each serving before the block begins."""
    made = {name: Worker(name, server.url, folder / f"worker-{name}.log") for name in names}
    try:
        for worker in made.values():
            worker.start()
        for worker in made.values():
            worker.wait_serving()
        yield made
    finally:
        for worker in made.values():
            worker.stop()


async def hosts_up(engine: Any, names: list[str], timeout: float = 60.0) -> None:
    """Until the engine's hosts list says each of `names` is up."""
    async def up() -> bool:
        return {h.name for h in await engine.hosts() if h.state == "up"} >= set(names)

    await wait_until(up, f"the hosts {', '.join(names)} listed up", timeout=timeout)


def missing(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"the three-host test needs network namespaces under CI: {reason}")
    pytest.skip(reason)


class Namespaces:
    """Network namespaces made by the test, each with its loopback up and a port on it that reaches
    the dev server (socat), removed on `close`."""

    def __init__(self, server: TemporalServer, folder: Path) -> None:
        self.server = server
        self.folder = folder
        self.tag = uuid.uuid4().hex[:6]
        self.made: list[str] = []
        self.relays: list[subprocess.Popen[bytes]] = []

    @staticmethod
    def check() -> None:
        """Skip (fail under CI) where namespaces cannot be made here."""
        if os.geteuid() != 0:
            missing("making network namespaces needs root")
        for tool in ("ip", "socat", "unshare"):
            if shutil.which(tool) is None:
                missing(f"`{tool}` is not installed (apt-get install iproute2 socat util-linux)")
        probe = f"sdprobe{uuid.uuid4().hex[:6]}"
        made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
        if made.returncode != 0:
            missing(f"`ip netns add` failed here: {made.stderr.strip()}")
        subprocess.run(["ip", "netns", "del", probe], capture_output=True)

    def _relay(self, *argv: str) -> None:
        self.relays.append(subprocess.Popen(list(argv), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                            stdin=subprocess.DEVNULL, preexec_fn=parent_death_signal()))

    def make(self, host: str) -> list[str]:
        """A namespace for `host`; the command prefix that runs a program in it, named `host`."""
        ns = f"sd{self.tag}{host}"[:15]
        subprocess.run(["ip", "netns", "add", ns], check=True, capture_output=True)
        self.made.append(ns)
        subprocess.run(["ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up"], check=True, capture_output=True)
        sock = self.folder / f"{ns}.sock"
        self._relay("socat", f"UNIX-LISTEN:{sock},fork", f"TCP:{self.server.address}")
        wait_until_sync(sock.exists, f"the relay of {ns}", timeout=10)
        self._relay("ip", "netns", "exec", ns, "socat",
                    f"TCP-LISTEN:{NAMESPACE_PORT},bind=127.0.0.1,fork,reuseaddr", f"UNIX-CONNECT:{sock}")
        return ["ip", "netns", "exec", ns, "unshare", "--uts", "sh", "-c", f'hostname {host} && exec "$@"', "sh"]

    @property
    def url(self) -> str:
        """The executor address a worker in a namespace dials."""
        return f"temporal://127.0.0.1:{NAMESPACE_PORT}/{self.server.namespace}"

    def close(self) -> None:
        for relay in self.relays:
            relay.terminate()
        for relay in self.relays:
            try:
                relay.wait(5)
            except subprocess.TimeoutExpired:
                relay.kill()
        for ns in self.made:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
