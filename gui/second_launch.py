"""One app per data folder, whichever door comes first; and when SeqDesk cannot start, the person
sees why, not only a line on a terminal nobody reads.

`focus_running` asks the running app (its address from the data folder's endpoint file, never a
token on disk: `SEQDESK_TOKEN` when it wants one) to bring its window to the front; an app started
in the background opens its window then (the app started afterwards joins it). With `address_only`
(`seqdesk --browser`) the app shows nothing and only gives its address, which the person opens in
their browser; an app started in the background is theirs from then on all the same. (Before that,
the app's start waits out an app that is ending: `gui.app.wait_out_ending`; an app started in the
background does too, and leaves the folder to the app that serves it.)
`start_background` starts the app without a window for a door that needs one (`seqdesk mcp`): the
door then goes through it, and the person answers in its inbox (notified as for any request) or
opens SeqDesk, which joins it. A door may start it first (`spawn_background`) and wait for it later
(`Starting.wait`), so that the app comes up while the door imports what it needs; the app says it
serves through a pipe (`tell_ready`), so nobody waits longer than it takes. Where the folder's app
listens is its endpoint file (`write_endpoint`, `read_endpoint`): its address, never its token.
`close_when_unneeded` ends such an app once the program it was started for has gone and nothing
runs or waits there, unless the person opened its window.
`tell_person` shows a message in a dialog when there is no terminal: zenity, kdialog or xmessage
on Linux, the system's own dialog on macOS and Windows; it always writes to stderr too.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from gui.atomic import atomic_write

APP_NAME = "SeqDesk"
FOCUS_PATH = "/api/window/focus"
BACKGROUND_FOR = "SEQDESK_BACKGROUND_FOR"  # set for an app started in the background: the pid it serves
BACKGROUND_LOG = "background.log"
READY_FD = "SEQDESK_READY_FD"  # set for an app started in the background: where it says it serves
READY = b"ready\n"
ENDPOINT_FILE = "seqdesk.endpoint.json"
START_SECONDS = 90.0
OTHER_APP_SECONDS = 15.0  # how long an app's start waits for another holding the folder to let go of it, or serve
# What the app started in the background runs (`spawn_background`), with the garbage collector off while it
# starts: what start-up makes lives as long as the app (`gc.freeze` once it is up, where the collector comes on
# again), and the collections it would pass through were a tenth of its start.
START_BACKGROUND_APP = ("import gc; gc.disable(); from gui.app import start_background_app; "
                        "raise SystemExit(start_background_app())")


def focus_running(data_dir: Path, token: str | None, timeout: float = 8.0, *,
                  address_only: bool = False) -> tuple[bool, str]:
    """(True, what happened) when the running app showed itself (with `address_only`: gave its
    address for the person's browser); (False, why not) otherwise."""
    endpoint = read_endpoint(data_dir)
    if not endpoint:
        return False, (f"{APP_NAME} is already running with this data folder ({data_dir}), but it does not say "
                       "where: close it first, or wait a moment and start it again.")
    url = str(endpoint.get("url", "")).rstrip("/")
    if endpoint.get("token_required") and not token:
        return False, (f"{APP_NAME} is already running at {url}. It was started with a token, so open it there "
                       "and log in.")
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    asked = json.dumps({"address_only": True} if address_only else {}).encode()
    import urllib.error  # here, not above: a door that starts the app imports it no sooner (`spawn_background`)
    import urllib.request

    request = urllib.request.Request(url + FOCUS_PATH, data=asked, method="POST", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            body = json.loads(answer.read() or b"{}")
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        return False, f"{APP_NAME} is already running at {url}, but did not answer ({reason}): open it there."
    if address_only and body.get("joined"):
        return True, f"{APP_NAME} is already running at {url}/: open it in your browser."
    if body.get("focused"):
        return True, f"{APP_NAME} is already open: its window was brought to the front."
    return False, f"{APP_NAME} is already running: {body.get('reason') or 'open ' + url}."


def has_terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def tell_person(message: str, *, error: bool = True) -> str:
    """Write `message` to stderr, and show it in a dialog when nobody reads a terminal; says how."""
    print(f"seqdesk: {message}", file=sys.stderr, flush=True)
    if has_terminal() or os.environ.get("SEQDESK_NO_DIALOG"):
        return "terminal"
    return show_dialog(message, error=error)


def dialog_command(message: str, *, error: bool = True) -> list[str] | None:
    """The command that shows `message` in a dialog on this desktop, or None."""
    if sys.platform == "darwin":
        text = message.replace("\\", "\\\\").replace('"', '\\"')
        return ["osascript", "-e", f'display dialog "{text}" with title "{APP_NAME}" buttons {{"OK"}}']
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return None
    if shutil.which("zenity"):
        return ["zenity", "--error" if error else "--info", f"--title={APP_NAME}", "--no-markup", f"--text={message}"]
    if shutil.which("kdialog"):
        return ["kdialog", "--title", APP_NAME, "--error" if error else "--msgbox", message]
    if shutil.which("xmessage"):
        return ["xmessage", "-center", "-title", APP_NAME, "-buttons", "OK:0", message]
    return None


def show_dialog(message: str, *, error: bool = True) -> str:
    if sys.platform == "win32":
        import ctypes

        ctypes.windll.user32.MessageBoxW(None, message, APP_NAME, 0x10 if error else 0x40)  # type: ignore[attr-defined]
        return "dialog"
    command = dialog_command(message, error=error)
    if command is None:
        return "terminal"
    try:
        subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    except OSError:
        return "terminal"
    return "dialog"


def start_background(data_dir: Path, token: str | None, timeout: float = START_SECONDS) -> dict[str, object]:
    """The endpoint of the app serving `data_dir`, started in the background (no window) for this
    process when none does; Unavailable (with the end of its log) when it does not come up in time.
    Two doors starting at once start two apps: one gets the folder, the other ends, and both doors
    find the one that got it."""
    endpoint = read_endpoint(data_dir)
    if endpoint is not None:
        return endpoint
    return spawn_background(data_dir, token).wait(timeout)


class Starting:
    """An app being started in the background for this process (`spawn_background`): `wait` for it."""

    def __init__(self, data_dir: Path, child: subprocess.Popen[bytes], ready: int | None) -> None:
        self.data_dir = data_dir
        self.child = child
        self._ready = ready  # the pipe's end the app writes READY to (None where there is no such pipe)

    def wait(self, timeout: float = START_SECONDS) -> dict[str, object]:
        """The endpoint of the app serving the folder once it serves: this one (it says so through
        the pipe), or the one that got the folder first (this one then ends); Unavailable, with the
        end of its log, when none comes up within `timeout` s."""
        from gui.core.errors import Unavailable

        deadline = time.monotonic() + timeout
        if self._ready is not None:
            said = _read_within(self._ready, timeout)
            os.close(self._ready)
            self._ready = None
            endpoint = read_endpoint(self.data_dir)
            if said == READY and endpoint is not None:
                return endpoint
        while time.monotonic() < deadline:  # it ended without a word: another app may serve the folder
            ended = self.child.poll() is not None
            endpoint = read_endpoint(self.data_dir)
            if endpoint is not None and app_answers(str(endpoint["url"])):
                return endpoint
            if ended:  # it left the folder to an app that serves it (above), or could not start (its log says why)
                break
            time.sleep(0.1)  # no pipe to say it (Windows): nothing to wait on but its files and its port
        if self.child.poll() is None:
            self.child.terminate()
        log = self.data_dir / BACKGROUND_LOG
        tail = log.read_text(encoding="utf-8", errors="replace")[-800:] if log.exists() else ""
        raise Unavailable(f"{APP_NAME} could not be started in the background on {self.data_dir}"
                          + (f": {tail.strip()}" if tail.strip() else ""))


    def abandon(self) -> None:
        """End it now, unwaited for: the door that started it goes elsewhere after all (it would
        otherwise end by itself once this process has gone, `close_when_unneeded`)."""
        if self._ready is not None:
            os.close(self._ready)
            self._ready = None
        if self.child.poll() is None:
            self.child.terminate()


def spawn_background(data_dir: Path, token: str | None) -> Starting:
    """Start the app on `data_dir` in the background (no window) for this process, without waiting
    for it: `Starting.wait`. It goes straight to the app (`gui.app.start_background_app`), past the
    command line's parser."""
    env = {**os.environ, "SEQDESK_DATA": str(data_dir), BACKGROUND_FOR: str(os.getpid()), "SEQDESK_NO_DIALOG": "1"}
    env.pop("SEQDESK_MEMORY", None)
    if token:
        env["SEQDESK_TOKEN"] = token
    read_end, write_end = os.pipe() if os.name == "posix" else (None, None)
    if write_end is not None:
        env[READY_FD] = str(write_end)
    try:
        with (data_dir / BACKGROUND_LOG).open("ab") as out:
            child = subprocess.Popen([sys.executable, "-c", START_BACKGROUND_APP],
                                     stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env,
                                     start_new_session=True, pass_fds=() if write_end is None else (write_end,))
    except BaseException:
        for end in (read_end, write_end):
            if end is not None:
                os.close(end)
        raise
    if write_end is not None:
        os.close(write_end)  # the app holds the only writing end: its exit is the pipe's end
    return Starting(data_dir, child, read_end)


def _read_within(fd: int, timeout: float) -> bytes:
    """What the app wrote to the pipe `fd` once it wrote it or ended (b""), or b"" after `timeout` s."""
    said = b""
    deadline = time.monotonic() + timeout
    while len(said) < len(READY):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            return b""
        chunk = os.read(fd, len(READY) - len(said))
        if not chunk:
            return said
        said += chunk
    return said


async def tell_ready(host: str, port: int) -> None:
    """In an app started in the background by `spawn_background`: tell the door that started it that
    it serves now (call once its engine is open and its endpoint written; this waits for the port)."""
    fd = os.environ.pop(READY_FD, "")
    if not fd.isdigit():
        return
    await wait_listening(host, port)
    try:
        os.write(int(fd), READY)
    except OSError:
        pass  # the door is gone: nobody waits
    finally:
        os.close(int(fd))


async def wait_listening(host: str, port: int, timeout: float = 15.0, every: float = 0.01) -> None:
    """Once `host:port` accepts connections (at most `timeout` s): the server of this process binds
    it after its start-up handlers ran, and says so to no one."""
    import asyncio  # here, not above: a door that starts the app imports it no sooner (`spawn_background`)

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            _, writer = await asyncio.open_connection(host, port)
        except OSError:
            await asyncio.sleep(every)  # a refused connection returns at once: look again soon
            continue
        writer.close()
        return


def data_folder(data: Path | None) -> Path:
    """The data folder `data` names (the settings' `data`), or else the platform's, as it is: neither
    created nor checked (`gui.store.datadir` does both, as the app opens it)."""
    import platformdirs

    return (data or Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))).expanduser().absolute()


def write_endpoint(folder: Path, url: str, *, token_required: bool, background: bool = False) -> Path:
    """Where the app listens, for the CLI and `seqdesk mcp`; whether it wants a token, never the token;
    whether it was started in the background for a program (`start_background`)."""
    path = folder / ENDPOINT_FILE
    atomic_write(path, json.dumps({"url": url, "token_required": token_required, "pid": os.getpid(),
                                   "background": background}).encode())
    return path


def read_endpoint(folder: Path) -> dict[str, Any] | None:
    """Where the app serving `folder` listens, if one does (its process alive)."""
    try:
        data = json.loads((folder / ENDPOINT_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    pid = data.get("pid")
    if not isinstance(pid, int) or not pid_alive(pid) or not isinstance(data.get("url"), str):
        return None
    return data


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def app_answers(url: str) -> bool:
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(url.rstrip("/") + "/api/health", timeout=2) as answer:
            return bool(answer.status == 200)
    except (urllib.error.URLError, OSError, ValueError):
        return False


def background_for() -> int | None:
    """The pid this app was started in the background for (`start_background`); None: a person started it."""
    value = os.environ.get(BACKGROUND_FOR, "")
    return int(value) if value.isdigit() else None


async def close_when_unneeded(pids: Callable[[], set[int]], busy: Callable[[], Awaitable[bool]],
                              joined: Callable[[], bool], close: Callable[[], None], every: float = 1.0) -> None:
    """Once every process in `pids` (the one it was started for, and each whose door used it since)
    has gone, `close` the app as soon as nothing is `busy` there (no run, no request waiting), unless
    a person `joined` it (opened its window: it is theirs now)."""
    import asyncio

    def needed() -> bool:
        return any(pid_alive(pid) for pid in pids())

    while True:
        await asyncio.sleep(every)  # other processes' lives: nothing to wait on but their pids
        if joined():
            return
        if needed() or await busy():
            continue
        if joined() or needed():  # a door came while it looked (its first request names its pid): it stays
            continue
        close()  # at once, after the last look: a door that comes from now on is told it is ending
        return
