"""A second `seqdesk`, or one that cannot start: what the person is told, and where."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace

import pytest

from gui import second_launch
from gui.second_launch import close_when_unneeded, write_endpoint


def test_without_an_endpoint_it_says_it_cannot_find_the_running_one(tmp_path):
    shown, message = second_launch.focus_running(tmp_path, None)
    assert not shown and "already running with this data folder" in message


def test_an_app_with_a_token_needs_the_token(tmp_path):
    write_endpoint(tmp_path, "http://127.0.0.1:9", token_required=True)
    shown, message = second_launch.focus_running(tmp_path, None)
    assert not shown and "started with a token" in message and "http://127.0.0.1:9" in message


@pytest.mark.parametrize(("answer", "shown", "says"), [
    ({"focused": True}, True, "its window was brought to the front"),
    ({"focused": False, "reason": "it runs without a window: open http://x in your browser"}, False,
     "it runs without a window"),
])
def test_the_running_app_is_asked_to_show_itself(tmp_path, answer, shown, says):
    asked: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            asked.append(self.path)
            body = json.dumps(answer).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        write_endpoint(tmp_path, f"http://127.0.0.1:{server.server_address[1]}", token_required=False)
        result = second_launch.focus_running(tmp_path, None)
    finally:
        server.shutdown()
        server.server_close()
    assert asked == ["/api/window/focus"]
    assert result[0] is shown and says in result[1]


def test_a_dialog_is_used_when_no_terminal_reads_the_message(monkeypatch, capsys):
    monkeypatch.setattr(second_launch, "has_terminal", lambda: False)
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.delenv("SEQDESK_NO_DIALOG", raising=False)
    monkeypatch.setattr(second_launch.shutil, "which", lambda name: "/usr/bin/xmessage" if name == "xmessage" else None)
    started: list[list[str]] = []
    monkeypatch.setattr(second_launch.subprocess, "Popen", lambda command, **_: started.append(command))
    assert second_launch.tell_person("The data folder is in use.") == "dialog"
    assert started == [["xmessage", "-center", "-title", "SeqDesk", "-buttons", "OK:0", "The data folder is in use."]]
    assert "seqdesk: The data folder is in use." in capsys.readouterr().err  # and on stderr, always


def test_with_a_terminal_no_dialog_opens(monkeypatch, capsys):
    monkeypatch.setattr(second_launch, "has_terminal", lambda: True)
    monkeypatch.setattr(second_launch.subprocess, "Popen", lambda *a, **k: pytest.fail("no dialog expected"))
    assert second_launch.tell_person("Port taken.") == "terminal"
    assert "seqdesk: Port taken." in capsys.readouterr().err


async def test_an_app_started_in_the_background_stays_for_a_door_that_came_while_it_looked():
    """The app looks whether anything runs there (an await); a door whose first request arrives then
    (its pid noted) keeps it: it is not closed under that door's next request."""
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait(30)
    doors = {gone.pid}
    looked: list[bool] = []
    closed: list[bool] = []

    async def busy() -> bool:
        doors.add(os.getpid())  # `seqdesk show` read the endpoint: its first request names it
        looked.append(True)
        return False

    asked = iter([False, False])  # whether a person joined: not at the first turn's two looks; then yes (ends it)
    await close_when_unneeded(lambda: set(doors), busy, lambda: next(asked, True), lambda: closed.append(True),
                              every=0.01)
    assert looked and closed == []


async def test_an_ending_app_tells_each_api_request_so_and_holds_none_of_them():
    """Once an app started in the background has decided to end, `/api/health` answers 503 (a door
    then waits it out), and no request reaches the routes of an app whose server is stopping."""
    from gui.api import ReadyGate

    reached: list[str] = []

    async def routes(scope, receive, send) -> None:
        reached.append(scope["path"])
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    async def wait_open(timeout: float = 30.0) -> None:
        return None

    ctx = SimpleNamespace(ending=False, clients=set(), wait_open=wait_open)
    gate = ReadyGate(routes, ctx=ctx)

    async def status(path: str) -> int:
        sent: list[dict] = []

        async def receive() -> dict:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: dict) -> None:
            sent.append(message)

        await gate({"type": "http", "path": path, "method": "GET", "headers": []}, receive, send)
        return int(sent[0]["status"])

    assert await status("/api/health") == 200
    ctx.ending = True
    assert await status("/api/health") == 503
    assert await status("/api/runs") == 503
    assert reached == ["/api/health"]


async def test_an_app_that_decides_to_end_removes_its_endpoint_before_its_server_stops(tmp_path):
    """A door that comes from then on finds no app, and starts the next one at once: it comes up while
    this one lets go of the folder (it waits for it), rather than after."""
    from gui.background_app import until_unneeded

    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    program = int(gone.stdout)  # the program it was started for, gone already

    async def wait_open(timeout: float = 30.0) -> None:
        raise RuntimeError("not opened here")  # nobody to tell it serves

    endpoint = write_endpoint(tmp_path, "http://127.0.0.1:9", token_required=False, background=True)
    ctx = SimpleNamespace(ending=False, clients=set(), wait_open=wait_open, endpoint=endpoint,
                          slot=SimpleNamespace(engine=None))
    seen: list[tuple[bool, bool]] = []
    watch = until_unneeded(ctx, program, "127.0.0.1", 9, lambda: seen.append((ctx.ending, endpoint.exists())))
    await watch(lambda: False)
    assert seen == [(True, False)]
