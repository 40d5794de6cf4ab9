"""`seqdesk --connect URL`: a team server's app (`seqdesk serve`) in this desktop's window, or in the
browser with `--browser`. Nothing is served here and no data folder is opened: the window shows the
server's own pages, and the person signs in on its sign-in page (name and password, or the company's
sign-in).

Before anything opens the server must answer, or the command ends (exit 2) with a sentence. A personal
token (`SEQDESK_TOKEN`) does not sign the window in: the server has no way to trade one for a session
(a session is made only by a sign-in), so it stays with the CLI's doors (`seqdesk run|ask|mcp --connect`).
"""

from __future__ import annotations

import asyncio
import sys
import webbrowser

import httpx

from gui.i18n import _

TIMEOUT = 10.0  # s for the server to answer before the window opens


async def probe(url: str) -> str | None:
    """What stops the window on the server at `url` (None: nothing, it answers as a SeqDesk)."""
    try:
        async with httpx.AsyncClient(base_url=url, timeout=TIMEOUT) as client:
            health = await client.get("/api/health")
    except httpx.HTTPError as exc:
        return _("cannot reach the SeqDesk server at {url}: {reason}").format(url=url, reason=exc)
    if health.status_code != 200:
        return _("{url} answered HTTP {status}: is it a SeqDesk server?").format(url=url, status=health.status_code)
    return None


def open_team_app(url: str, token: str | None, *, browser_only: bool, browser: str | None = None) -> int:
    """Open the app of the team server at `url`; the exit code (0 once its window is closed). `token`
    (a personal token in the environment) is only said to be left to the CLI."""
    from gui.core.errors import Invalid
    from gui.serving import team_url

    def say(problem: str) -> int:
        print(f"seqdesk: {problem}", file=sys.stderr, flush=True)
        return 2

    try:
        url = team_url(url)
    except Invalid as exc:
        return say(str(exc))
    problem = asyncio.run(probe(url))
    if problem:
        return say(problem)
    if token:
        print("seqdesk: " + _("the window does not use SEQDESK_TOKEN (a personal token is for seqdesk run, ask "
                              "and mcp): sign in on the server's page."), file=sys.stderr, flush=True)
    from gui.window import _find_browser, _has_display, _has_pywebview

    sign_in = " " + _("Sign in on its page.")
    opened = _("Opened the team's SeqDesk at {url} in your browser.").format(url=url) + sign_in
    if browser_only or not _has_display():
        if browser_only and webbrowser.open(url + "/"):
            print(opened)
            return 0
        return say(_("no window can be opened here: open {url} in a browser.").format(url=url) + sign_in)
    if _has_pywebview():
        return _pywebview(url)
    found = _find_browser(browser)
    if found is None:
        webbrowser.open(url + "/")
        print(opened)
        return 0
    try:
        return asyncio.run(_app_window(found, url))
    except KeyboardInterrupt:
        return 0


async def _app_window(found: str, url: str) -> int:
    """A Chromium-family app window on the server's page (its sign-in page first), until it closes."""
    import shutil
    import tempfile

    from gui.devtools_pipe import start_browser
    from gui.window import AppWindow

    window = AppWindow(found, url + "/")
    window.profile = tempfile.mkdtemp(prefix="seqdesk-connect-")  # a throw-away profile: nothing kept here
    try:
        process, pipe = await start_browser(window.command())
        print(_("The team's SeqDesk at {url} is opening in its window: sign in on its page.").format(url=url),
              flush=True)
        try:
            await process.wait()
            return 0
        finally:
            if pipe is not None:
                pipe.close()
            if process.returncode is None:
                process.terminate()
    finally:
        shutil.rmtree(window.profile, ignore_errors=True)


def _pywebview(url: str) -> int:
    """A pywebview window on the server's page (its sign-in page first), until it closes."""
    import webview

    window = webview.create_window("SeqDesk", url + "/", width=1280, height=860)
    if window is None:
        return 2
    webview.start()
    return 0
