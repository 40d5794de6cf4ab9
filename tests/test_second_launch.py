"""A second `seqdesk`, or one that cannot start: what the person is told, and where."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from gui import second_launch
from gui.second_launch import write_endpoint


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
