"""`seqdesk --connect URL`: a team server's app (`seqdesk serve`) in this desktop's window, or in the
browser with `--browser`. Nothing is served here and no data folder is opened: the window shows the
server's own pages.

Before anything opens the server must answer, or the command ends (exit 2) with a sentence. When the
server wants a token, the one given (`--token` / `SEQDESK_TOKEN`), else one typed at the terminal, is
checked first (a wrong one ends it too), and the app window starts signed in: its session cookie is
set through the window's DevTools pipe, as the server's login sets it (an HMAC of the token, never the
token). Without a token here (no terminal to ask at, or `--browser`), the server's login page asks.
"""

from __future__ import annotations

import asyncio
import getpass
import sys
import webbrowser
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import httpx

from gui.i18n import _

if TYPE_CHECKING:
    from gui.devtools_pipe import DevToolsPipe

TIMEOUT = 10.0  # s for the server to answer before the window opens


async def probe(url: str, token: str | None) -> tuple[bool, str | None]:
    """Whether the server at `url` wants a token, and what stops the window (None: nothing)."""
    try:
        async with httpx.AsyncClient(base_url=url, timeout=TIMEOUT) as client:
            health = await client.get("/api/health")
            if health.status_code != 200:
                return False, _("{url} answered HTTP {status}: is it a SeqDesk server?").format(
                    url=url, status=health.status_code)
            needs = (await client.get("/api/tools")).status_code == 401
            if needs and token:
                answer = await client.get("/api/tools", headers={"Authorization": f"Bearer {token}"})
                if answer.status_code in (401, 429):
                    return needs, _("the SeqDesk server at {url} refused that token").format(url=url)
    except httpx.HTTPError as exc:
        return False, _("cannot reach the SeqDesk server at {url}: {reason}").format(url=url, reason=exc)
    return needs, None


def open_team_app(url: str, token: str | None, *, browser_only: bool, browser: str | None = None) -> int:
    """Open the app of the team server at `url`; the exit code (0 once its window is closed)."""
    from gui.core.errors import Invalid
    from gui.serving import team_url

    def say(problem: str) -> int:
        print(f"seqdesk: {problem}", file=sys.stderr, flush=True)
        return 2

    try:
        url = team_url(url)
    except Invalid as exc:
        return say(str(exc))
    needs, problem = asyncio.run(probe(url, token))
    if problem:
        return say(problem)
    if needs and not token and not browser_only and sys.stdin.isatty():
        token = getpass.getpass(_("Token for the SeqDesk server at {url}: ").format(url=url)).strip() or None
        if token:
            _needs, problem = asyncio.run(probe(url, token))
            if problem:
                return say(problem)
    from gui.window import _find_browser, _has_display, _has_pywebview

    login = " " + _("Its login page asks for the token.") if needs and not token else ""
    opened = _("Opened the team's SeqDesk at {url} in your browser.").format(url=url) + login
    if browser_only or not _has_display():
        if browser_only and webbrowser.open(url + "/"):
            print(opened)
            return 0
        return say(_("no window can be opened here: open {url} in a browser.").format(url=url) + login)
    if _has_pywebview():
        return _pywebview(url, token if needs else None)
    found = _find_browser(browser)
    if found is None:
        webbrowser.open(url + "/")
        print(opened)
        return 0
    try:
        return asyncio.run(_app_window(found, url, token if needs else None))
    except KeyboardInterrupt:
        return 0


def session_cookie(url: str, token: str) -> dict[str, object]:
    """The cookie the server's login would set for `token` (`gui.api.auth`), for the page at `url`."""
    from gui.api.auth import COOKIE, session_value

    return {"name": COOKIE, "value": session_value(token), "url": url + "/", "path": "/", "httpOnly": True,
            "sameSite": "Strict", "secure": urlsplit(url).scheme == "https"}


async def _app_window(found: str, url: str, token: str | None) -> int:
    """A Chromium-family app window on the server's page, signed in when a token is known; until it closes."""
    import shutil
    import tempfile

    from gui.devtools_pipe import start_browser
    from gui.window import AppWindow

    window = AppWindow(found, url + "/")
    window.profile = tempfile.mkdtemp(prefix="seqdesk-connect-")  # a throw-away profile: nothing kept here
    try:
        process, pipe = await start_browser(window.command())
        print(_("The team's SeqDesk at {url} is opening in its window.").format(url=url), flush=True)
        try:
            if token is not None and pipe is not None:
                await sign_in_window(pipe, url, token)
            await process.wait()
            return 0
        finally:
            if pipe is not None:
                pipe.close()
            if process.returncode is None:
                process.terminate()
    finally:
        shutil.rmtree(window.profile, ignore_errors=True)


async def sign_in_window(pipe: DevToolsPipe, url: str, token: str) -> None:
    """Set the session cookie in the window's browser, then load the app again (it may have shown the login)."""
    try:
        await pipe.call("Storage.setCookies", cookies=[session_cookie(url, token)])
        await pipe.navigate(url + "/")
    except (OSError, ConnectionError, TimeoutError) as exc:  # the login page asks instead
        print("seqdesk: " + _("could not sign the window in ({reason}): log in with the token").format(reason=exc),
              file=sys.stderr, flush=True)


def _pywebview(url: str, token: str | None) -> int:
    """A pywebview window on the server's page; with a token, its login form is filled in and sent."""
    import json

    import webview

    window = webview.create_window("SeqDesk", url + "/", width=1280, height=860)
    if window is None:
        return 2
    if token is not None:
        fill = ("(function(){var f=document.querySelector('form input[name=token]');if(f){f.value="
                + json.dumps(token) + ";f.form.submit();}})()")
        window.events.loaded += lambda: window.evaluate_js(fill)
    webview.start()
    return 0
