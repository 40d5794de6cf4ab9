"""When SeqDesk is started while it already runs (a second click on its desktop entry), or cannot
start at all: the person sees what happened, not only a line on a terminal nobody reads.

`focus_running` asks the running app (its address from the data folder's endpoint file, never a
token on disk: `SEQDESK_TOKEN` when it wants one) to bring its window to the front.
`tell_person` shows a message in a dialog when there is no terminal: zenity, kdialog or xmessage
on Linux, the system's own dialog on macOS and Windows; it always writes to stderr too.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

APP_NAME = "SeqDesk"
FOCUS_PATH = "/api/window/focus"


def focus_running(data_dir: Path, token: str | None, timeout: float = 8.0) -> tuple[bool, str]:
    """(True, what happened) when the running app showed itself; (False, why not) otherwise."""
    from gui.remote import read_endpoint

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
    request = urllib.request.Request(url + FOCUS_PATH, data=b"{}", method="POST", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            body = json.loads(answer.read() or b"{}")
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        return False, f"{APP_NAME} is already running at {url}, but did not answer ({reason}): open it there."
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
