"""The app starter: the real app (`python -m gui --browser --port P`) in a subprocess, on a data folder
of the test's, until `/api/health` answers; ended (terminated, then killed) afterwards.

`seqdesk_app` is one app per test module (the module's tests share it: what one saves the next sees);
`running_app(folder, data_dir)` starts one for a single test.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from support.waiting import wait_until_sync

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 45.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def clean_env(data_dir: Path) -> dict[str, str]:
    """The parent's environment minus pytest's and NiceGUI's markers (or NiceGUI thinks it is under test)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTEST_", "NICEGUI_")) and k not in ("SEQDESK_MEMORY", "SEQDESK_TOKEN")}
    env["SEQDESK_DATA"] = str(data_dir)
    env["PYTHONUNBUFFERED"] = "1"
    return env


@dataclass
class RunningApp:
    base_url: str
    data_dir: Path
    log: Path
    proc: subprocess.Popen[bytes] | None = None  # the app's process (to close or kill it), when started here

    def api(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base_url + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read() or b"null")


def app_command(port: int) -> list[str]:
    return [sys.executable, "-m", "gui", "--browser", "--port", str(port)]


def _log_tail(log: Path) -> str:
    return log.read_text(errors="replace")[-4000:]


def wait_until_up(proc: subprocess.Popen[bytes], url: str, log: Path) -> None:
    """Until the app at `url` answers `/api/health`; a clear error (with its log) if it exits or never does."""

    def up() -> bool:
        if proc.poll() is not None:
            raise RuntimeError(f"the app exited with {proc.returncode}:\n{_log_tail(log)}")
        try:
            with urllib.request.urlopen(url + "/api/health", timeout=1) as response:
                return response.status == 200
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            return False

    try:
        wait_until_sync(up, f"the app at {url} to answer /api/health", timeout=START_TIMEOUT, every=0.1)
    except AssertionError as gave_up:
        raise RuntimeError(f"{gave_up}:\n{_log_tail(log)}") from None


@contextlib.contextmanager
def running_app(folder: Path, data_dir: Path) -> Iterator[RunningApp]:
    """The app on a free port over `data_dir`, its output in `folder`/app.log, until it is up; ended afterwards."""
    log = folder / "app.log"
    port = free_port()
    with log.open("wb") as out:
        proc = subprocess.Popen(app_command(port), cwd=ROOT,
                                env=clean_env(data_dir), stdout=out, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(proc, base_url, log)
        yield RunningApp(base_url, data_dir, log, proc)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


@pytest.fixture(scope="module")
def seqdesk_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    folder = tmp_path_factory.mktemp("seqdesk-e2e")
    with running_app(folder, folder / "data") as app:
        yield app


def process_gone(pid: int) -> bool:
    """Whether the process `pid` has ended (a zombie nobody reaped yet counts: it holds nothing any more)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return False
