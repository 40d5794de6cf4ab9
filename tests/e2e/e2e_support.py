"""The real app in a subprocess and a headless Chromium driving it (Playwright, no bundled browser).

`seqdesk_app` starts `python -m gui --browser --port P` on a fresh data folder and waits for
`/api/health`; `browser` launches Debian's Chromium. Without Chromium (or Playwright) the tests
skip, except under CI=true, where a missing browser is a failure.

Screenshots go to `build/screenshots/` (ignored by git), so a test run changes no tracked file;
`SEQDESK_SCREENSHOTS=assets/screenshots` (a folder, relative to the repository or absolute) writes
them there instead, e.g. to refresh the README's pictures.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("SEQDESK_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
START_TIMEOUT = 45.0
DEFAULT_SCREENSHOTS = ROOT / "build" / "screenshots"


def _missing(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"end-to-end tests need a browser under CI: {reason}")
    pytest.skip(reason)


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


def _wait_until_up(proc: subprocess.Popen[bytes], url: str, log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the app exited with {proc.returncode}:\n{log.read_text(errors='replace')[-4000:]}")
        try:
            with urllib.request.urlopen(url + "/api/health", timeout=1) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.1)  # polling a process we cannot get an event from; bounded by the deadline
    raise RuntimeError(f"the app did not answer within {START_TIMEOUT:g}s:\n{log.read_text(errors='replace')[-4000:]}")


@pytest.fixture(scope="module")
def seqdesk_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    folder = tmp_path_factory.mktemp("seqdesk-e2e")
    with running_app(folder, folder / "data") as app:
        yield app


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
        _wait_until_up(proc, base_url, log)
        yield RunningApp(base_url, data_dir, log, proc)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("Playwright is not installed (pip install playwright; never `playwright install`)")
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        _missing(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    page = context.new_page()
    page.set_default_timeout(15_000)
    try:
        yield page
    finally:
        context.close()


def screenshot_dir() -> Path:
    """The folder screenshots go to (made if missing): build/screenshots/, or `SEQDESK_SCREENSHOTS`."""
    chosen = os.environ.get("SEQDESK_SCREENSHOTS", "").strip()
    folder = ROOT / chosen if chosen else DEFAULT_SCREENSHOTS  # an absolute path stays itself
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _screenshot(page: Any, name: str) -> Path:
    path = screenshot_dir() / name
    page.screenshot(path=str(path), full_page=True, animations="disabled")
    return path


@pytest.fixture
def screenshot() -> Any:
    """`screenshot(page, "inbox.png")` saves the whole page (animations finished) into `screenshot_dir()`."""
    return _screenshot


def settled(page: Any, wait_ms: int = 20_000) -> None:
    """Wait until the page's connection to the app is up and nothing on it is moving.

    What is clicked or typed before the connection is up never reaches the app, and a click while a
    section slides open (a Quasar expansion, labels moving up) can land beside its target."""
    page.wait_for_function("window.socket && window.socket.connected", timeout=wait_ms)
    page.wait_for_function("document.getAnimations().every(a => a.playState !== 'running')", timeout=wait_ms)


def open_palette(base_url: str, page: Any, search: str, wait_ms: int = 20_000) -> Any:
    """A new sequence's first group, its tool palette opened and searched for `search`: the dialog."""
    from playwright.sync_api import expect

    page.goto(f"{base_url}/sequences/new")
    add_group = page.get_by_role("button", name="Add your first group")
    add_tool = page.get_by_role("button", name="Add a tool").first
    expect(add_group.or_(add_tool).first).to_be_visible(timeout=wait_ms)  # the editor is drawn: then look
    if add_group.count():
        add_group.click()
    page.get_by_role("button", name="Add a tool").first.click()
    dialog = page.locator(".q-dialog")
    dialog.get_by_label("Search tools").fill(search)
    return dialog
