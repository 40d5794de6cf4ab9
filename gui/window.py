"""How SeqDesk shows itself: a desktop window when it can, a browser tab when it must.

People who do not write code expect an app to open a window and to quit when it is closed. So
`run_ui` tries, in order:

1. pywebview (`pip install seqdesk[native]`): NiceGUI's native mode, a real window;
2. an installed Chromium, Chrome, Edge or Brave as an app window (`--app=URL`, no tabs or address
   bar) with its own profile in the data folder (`<data>/window/`: kept, so the window remembers
   its size, drafts and the notification permission), so it is a process of its own: when it
   exits, the app shuts down (`app.shutdown()`), which ends pending requests as `session_disposed`.
   The app keeps a DevTools pipe to it (`--remote-debugging-pipe`: file descriptors only this
   process holds, no port anyone else could reach) to bring the window to the front when SeqDesk
   is started a second time. As root, Chromium needs `--no-sandbox`; `--test-type` keeps it from
   showing its "unsupported command-line flag" warning bar over the app;
3. the default browser (the server keeps running until Ctrl+C).

`--browser` only serves (on 127.0.0.1 unless a host was asked for) and prints the address. An app
started in the background for a program (`gui.second_launch.start_background`) shows nothing until
SeqDesk is started again: then it opens its window as above (an app window, else a browser tab),
and is the person's like any other (closing that window quits it).
Whatever the mode: `reload=False`, and the interface never binds 0.0.0.0 unless asked to.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
import sys
import tempfile
import time
import webbrowser
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from gui.atomic import atomic_write
from gui.devtools_pipe import DevToolsPipe, start_browser
from gui.second_launch import FOCUS_PATH, wait_listening
from gui.ui.theme import APP_NAME, assets_dir

WINDOW_SIZE = (1280, 860)
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "microsoft-edge",
            "microsoft-edge-stable", "msedge", "brave-browser")
_KNOWN_PATHS = {
    "darwin": ["/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
               "/Applications/Chromium.app/Contents/MacOS/Chromium",
               "/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
               "/Applications/Brave Browser.app/Contents/MacOS/Brave Browser"],
    "win32": [r"%ProgramFiles%\Google\Chrome\Application\chrome.exe",
              r"%ProgramFiles(x86)%\Google\Chrome\Application\chrome.exe",
              r"%LocalAppData%\Google\Chrome\Application\chrome.exe",
              r"%ProgramFiles(x86)%\Microsoft\Edge\Application\msedge.exe",
              r"%ProgramFiles%\Microsoft\Edge\Application\msedge.exe"],
}
QUICK_EXIT_SECONDS = 5.0  # a browser that dies this fast did not show a window: fall back


def run_ui(*, host: str, port: int, browser_only: bool, token: str | None, browser: str | None = None,
           data_dir: Path | None = None, server: bool = False,
           background: Callable[[Callable[[], bool]], Awaitable[None]] | None = None) -> int:
    """Serve the app (pages and API are registered already) and show it; returns the exit code.
    `server`: a team's server (`seqdesk serve`), which shows nothing and says how desktops connect.
    `background`: started for a program, it shows nothing until asked (`POST /api/window/focus`);
    run at start-up with whether a person has joined it since, it decides when the app ends."""
    from nicegui import app, ui

    from gui.serving import HTTP_PARSER

    local_host = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    url = f"http://{_url_host(local_host)}:{port}/"
    storage_dir = _storage_dir(data_dir)
    options: dict = {
        "host": host, "port": port, "reload": False, "show": False, "title": APP_NAME, "favicon": _favicon(),
        "storage_secret": _storage_secret(storage_dir), "show_welcome_message": False,
        "uvicorn_logging_level": "warning",
        "http": HTTP_PARSER,  # the request gate sees a request line that names another host
    }
    mode = ("server" if server else "background" if background is not None else "browser" if browser_only
            else _window_mode(browser))

    async def announce() -> None:
        await wait_listening(local_host, port)
        login = " (log in with your token)" if token else ""
        where = {"browser": "Open it in your browser", "native": "Its window is opening",
                 "app-window": "Its window is opening", "default-browser": "Opening it in your browser",
                 "headless": "No display found: open it in a browser",
                 "background": "Started in the background for a program: start SeqDesk to see it",
                 "server": f"A team's server: open it in a browser, or connect a desktop with "
                           f"seqdesk --connect {url.rstrip('/')}"}[mode]
        print(f"{APP_NAME} is running at {url}{login}. {where}; press Ctrl+C to stop.", flush=True)
        if mode == "default-browser":
            webbrowser.open(url)

    from nicegui import background_tasks

    app.on_startup(lambda: background_tasks.create(announce(), name="seqdesk announce"))
    window: AppWindow | None = None
    if mode == "app-window":
        window = AppWindow(_find_browser(browser) or "", url, profile=_profile_dir(data_dir))
        app.on_startup(lambda: background_tasks.create(window.run(local_host, port), name="seqdesk window"))
        app.on_shutdown(window.close)
    if mode == "native":
        options.update(native=True, window_size=WINDOW_SIZE)
    shown = _register_focus(app, mode, window, url, Shown(browser, local_host, port, _profile_dir(data_dir)))
    if background is not None:
        app.on_startup(lambda: background_tasks.create(
            background(lambda: shown.window is not None or shown.tab or shown.address_given),
            name="seqdesk background"))
    try:
        ui.run(**options)
    except KeyboardInterrupt:
        return 0
    except SystemExit as exc:  # NiceGUI exits like this when the server cannot start (port taken...)
        return exc.code if isinstance(exc.code, int) else 1
    return 0


def configure_pages(data_dir: Path | None, server: Any) -> None:
    """What `ui.run` does with `run_ui`'s options before it serves, for an app whose server runs
    already (`gui.background_app`: it served the API alone until a person opened it): NiceGUI's
    settings (title, icon, no welcome), its middlewares (made plain by `gui.app.add_surfaces`), the
    signed session with the secret kept in the data folder, and `server` as the one
    `app.shutdown()` stops (closing the window quits the app, as it does a person's)."""
    from nicegui import core, storage
    from nicegui.middlewares import RedirectWithPrefixMiddleware, SetCacheControlMiddleware
    from nicegui.server import Server
    from starlette.middleware.gzip import GZipMiddleware

    core.app.config.add_run_config(reload=False, title=APP_NAME, viewport="width=device-width, initial-scale=1",
                                   favicon=_favicon(), dark=False, language=None, binding_refresh_interval=0.1,
                                   reconnect_timeout=3.0, message_history_length=1000, tailwind=True, unocss=None,
                                   prod_js=True, show_welcome_message=False, markdown=False)
    core.app.add_middleware(GZipMiddleware)
    core.app.add_middleware(RedirectWithPrefixMiddleware)
    core.app.add_middleware(SetCacheControlMiddleware)
    storage.set_storage_secret(_storage_secret(_storage_dir(data_dir)))
    Server.instance = server


def _favicon() -> Path | None:
    icon = assets_dir() / "icon.svg"
    return icon if icon.is_file() else None


def _window_mode(browser: str | None) -> str:
    if _has_pywebview():
        return "native"
    if not _has_display():
        return "headless"
    if _find_browser(browser):
        return "app-window"
    return "default-browser"


def _has_pywebview() -> bool:
    try:
        import webview  # noqa: F401
    except Exception:  # noqa: BLE001 - any failure to import means: no native window here
        return False
    return True


def _has_display() -> bool:
    if sys.platform in ("win32", "darwin"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _find_browser(chosen: str | None = None) -> str | None:
    """A Chromium-family browser that can open an `--app` window; `chosen` (SEQDESK_BROWSER) wins."""
    if chosen:
        return shutil.which(chosen) or (chosen if Path(chosen).is_file() else None)
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    for raw in _KNOWN_PATHS.get(sys.platform, []):
        path = Path(os.path.expandvars(raw))
        if path.is_file():
            return str(path)
    return None


def chromium_flags(*, root: bool) -> list[str]:
    """Flags for an app window that shows nothing but the app: no first-run page, no default-browser
    question, no sync; as root the sandbox must be off, and `--test-type` hides the warning bar
    Chromium would show about that flag."""
    flags = ["--no-first-run", "--no-default-browser-check", "--disable-sync", "--disable-features=Translate"]
    if root:
        flags += ["--no-sandbox", "--test-type"]
    return flags


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


class AppWindow:
    """A browser in `--app` mode as the app's window; its exit is the app's exit."""

    def __init__(self, browser: str, url: str, profile: Path | None = None) -> None:
        self.browser = browser
        self.url = url
        self.process: asyncio.subprocess.Process | None = None
        self.keep_profile = profile is not None
        self.profile = str(profile) if profile is not None else ""
        self.devtools: DevToolsPipe | None = None

    def command(self) -> list[str]:
        width, height = WINDOW_SIZE
        return [self.browser, f"--app={self.url}", f"--user-data-dir={self.profile}",
                f"--window-size={width},{height}", f"--class={APP_NAME}", *chromium_flags(root=_is_root()),
                *(["--remote-debugging-pipe"] if os.name == "posix" else [])]

    async def run(self, host: str, port: int) -> None:
        from nicegui import app

        await wait_listening(host, port)
        if not self.keep_profile:
            self.profile = tempfile.mkdtemp(prefix="seqdesk-window-")
        started = time.monotonic()
        try:
            self.process, self.devtools = await start_browser(self.command())
            code = await self.process.wait()
        except OSError as exc:
            print(f"{APP_NAME}: could not open a window ({exc}); open {self.url} in your browser.", flush=True)
            webbrowser.open(self.url)
            return
        finally:
            if self.devtools is not None:
                self.devtools.close()
                self.devtools = None
            if not self.keep_profile:
                shutil.rmtree(self.profile, ignore_errors=True)
        if time.monotonic() - started < QUICK_EXIT_SECONDS:
            if code != 0:
                print(f"{APP_NAME}: the window could not be opened; open {self.url} in your browser.", flush=True)
                webbrowser.open(self.url)
            else:  # the profile was open in a browser still running: it took the window over
                print(f"{APP_NAME}: the window opened in a browser that was already running; press Ctrl+C "
                      "to stop.", flush=True)
            return
        if not (app.is_stopping or app.is_stopped):
            app.shutdown()  # the person closed the window: quit, ending pending requests cleanly

    async def focus(self) -> bool:
        """Bring the window to the front (a second `seqdesk` asked for it); False if it cannot."""
        if self.devtools is None or self.process is None or self.process.returncode is not None:
            return False
        return await self.devtools.activate_page()

    def close(self) -> None:
        if self.process is not None and self.process.returncode is None:
            try:
                self.process.terminate()
            except ProcessLookupError:
                pass


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def _profile_dir(data_dir: Path | None) -> Path | None:
    """The app window's browser profile, kept in the data folder (None: a throw-away one)."""
    if data_dir is None:
        return None
    folder = data_dir / "window"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        os.chmod(folder, 0o700)
    except OSError:
        return None
    return folder


class Shown:
    """How an app started in the background shows itself once asked: its window, or a browser tab."""

    def __init__(self, browser: str | None, host: str, port: int, profile: Path | None) -> None:
        self.browser, self.host, self.port, self.profile = browser, host, port, profile
        self.window: AppWindow | None = None
        self.tab = False
        self.address_given = False  # a person's `seqdesk --browser` asked for its address: theirs now

    def open(self, url: str) -> bool:
        """Open the window (or a tab): False when this computer has no display to show it on."""
        from nicegui import background_tasks

        found = _find_browser(self.browser) if _has_display() else None
        if found:
            self.window = AppWindow(found, url, profile=self.profile)
            background_tasks.create(self.window.run(self.host, self.port), name="seqdesk window")
            return True
        if _has_display() or sys.platform in ("darwin", "win32"):
            self.tab = webbrowser.open(url)
            return self.tab
        return False


def _register_focus(app: Any, mode: str, window: AppWindow | None, url: str, shown: Shown) -> Shown:
    """`POST /api/window/focus`: a second `seqdesk` asks this one to show itself (behind the gates)."""
    from fastapi import Body

    from gui.api.body import json_response

    @app.post(FOCUS_PATH, include_in_schema=False)
    async def focus(asked: dict[str, Any] | None = Body(default=None)) -> Any:  # noqa: B008 - FastAPI's way
        if asked and asked.get("address_only") is True:  # `seqdesk --browser`: the person
            shown.address_given = True  # opens it in their browser; an app started for a program is theirs now
            return json_response({"joined": True, "url": url})
        if window is not None and await window.focus():
            return json_response({"focused": True})
        if mode == "background":  # the person starts SeqDesk: the app started for a program becomes theirs
            if shown.window is not None and await shown.window.focus():
                return json_response({"focused": True})
            if shown.open(url):
                return json_response({"focused": True, "how": "opened its window"})
        if mode == "default-browser":
            webbrowser.open(url)
            return json_response({"focused": True, "how": "opened a new browser tab"})
        why = {"browser": f"it runs without a window: open {url} in your browser",
               "server": f"it is a team's server, without a window: open {url} in your browser",
               "headless": f"this computer has no display: open {url} in a browser",
               "native": "its window could not be raised: look for it on the task bar",
               "background": f"it runs without a window and this computer has no display: open {url} in a browser"}.get(
            mode, "its window could not be raised: look for it on the task bar")
        return json_response({"focused": False, "reason": why})

    return shown


def _storage_dir(data_dir: Path | None) -> Path | None:
    """Keep NiceGUI's per-browser settings (dark mode) in the data folder, not the working folder."""
    from nicegui.storage import Storage

    try:
        if data_dir is None:
            raise FileNotFoundError("no data folder")
        folder = data_dir / "ui"
        folder.mkdir(parents=True, exist_ok=True)
    except Exception:  # noqa: BLE001 - preferences are not worth failing the start-up for
        folder = Path(tempfile.gettempdir()) / "seqdesk-ui"
        folder.mkdir(parents=True, exist_ok=True)
    Storage.path = folder
    return folder


def _storage_secret(folder: Path | None) -> str:
    """Signs the browser's session cookie; kept so preferences survive a restart."""
    if folder is None:
        return secrets.token_hex(32)
    path = folder / "session-secret"
    try:
        if path.is_file():
            text = path.read_text(encoding="utf-8").strip()
            if len(text) >= 32:
                return text
        secret = secrets.token_hex(32)
        atomic_write(path, secret.encode("utf-8"))  # readable by this user only
        return secret
    except OSError:
        return secrets.token_hex(32)

