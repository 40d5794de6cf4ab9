"""A headless Chromium driving the app (Playwright, Debian's Chromium, no bundled browser), and the
screenshots it takes.

Without Chromium (or Playwright) the tests skip, except under CI=true, where a missing browser is a
failure. Screenshots go to `build/screenshots/` (ignored by git), so a test run changes no tracked
file; `SEQDESK_SCREENSHOTS=assets/screenshots` (a folder, relative to the repository or absolute)
writes them there instead, e.g. to refresh the README's pictures.

One browser per test module, each test in a context of its own (`page`), so no cookie, storage or page
is shared between tests. Not one per session: between two calls, Playwright's sync API leaves its
event loop marked as running in the test's thread, so no async test could run while it is open.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support.app import ROOT

CHROMIUM = os.environ.get("SEQDESK_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
DEFAULT_SCREENSHOTS = ROOT / "build" / "screenshots"


def missing(reason: str) -> None:
    """Skip for want of a browser; under CI=true, fail."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"end-to-end tests need a browser under CI: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing("Playwright is not installed (pip install playwright; never `playwright install`)")
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        missing(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
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
