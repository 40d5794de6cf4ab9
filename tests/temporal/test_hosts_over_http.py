"""The hosts over HTTP (`GET /api/hosts`, `RemoteEngine.hosts`) and in `seqdesk check`: a file's
`"on"` names are checked against the hosts the team knows, asked of the app serving the data folder
or of the executor's service, and when no one can say, the command says so instead of skipping."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from support.app import running_app
from support.cli import seqdesk
from support.hosts import Worker
from support.streaming import StreamingTransport
from support.temporal import StepKeys, TemporalServer
from support.waiting import wait_until

from gui.api import register_api
from gui.api.request_gate import Served
from gui.context import EngineSlot
from gui.remote import RemoteEngine

T = 60.0


def _file(folder: Path, host: str) -> Path:
    path = folder / f"on-{host}.json"
    path.write_text(json.dumps({"name": "s", "description": "", "groups": [{"name": "g", "tools": json.dumps(
        {"tool": "cmd_run", "args": {"command": "hostname"}, "on": host}) + " ;"}]}))
    return path


@pytest.fixture
def nowhere(monkeypatch: pytest.MonkeyPatch) -> None:
    """No team server, no executor: the command's own environment says nothing of hosts."""
    for name in ("SEQDESK_EXECUTOR", "SEQDESK_CONNECT", "SEQDESK_STORE"):
        monkeypatch.delenv(name, raising=False)


def test_check_says_plainly_when_it_cannot_check_host_names(tmp_path: Path, data: Path, nowhere: None) -> None:
    done = seqdesk("check", str(_file(tmp_path, "node-a")), data=data)
    assert done.returncode == 0, done.stderr  # the rest of the file is valid
    assert "host names not checked: no team server is given (--connect), no SeqDesk app serves the data " \
           "folder, and no executor is given (--executor temporal://…)" in done.stderr
    as_json = seqdesk("check", "--json", str(_file(tmp_path, "node-a")), data=data)
    assert json.loads(as_json.stdout)["hosts"]["checked"] is False
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps({"name": "s", "description": "", "groups": [{"name": "g", "tools": json.dumps(
        {"tool": "echo", "args": {"value": 1}}) + " ;"}]}))
    quiet = seqdesk("check", str(plain), data=data)
    assert quiet.returncode == 0 and "host names" not in quiet.stderr  # no host named: nothing to say


def test_check_says_when_the_executor_does_not_answer(tmp_path: Path, data: Path, nowhere: None) -> None:
    done = seqdesk("--executor", "temporal://127.0.0.1:1/default", "check", str(_file(tmp_path, "node-a")),
                   data=data)
    assert done.returncode == 0 and "host names not checked: the Temporal service at temporal://127.0.0.1:1" \
        "/default did not answer" in done.stderr, done.stderr


@pytest.fixture
async def in_process(current_engine: object, engine_slot: EngineSlot) -> AsyncIterator[RemoteEngine]:
    app = FastAPI()
    register_api(app, engine=engine_slot.for_api, token=None, served=Served.in_process())
    ops = RemoteEngine("http://test",
                       client=httpx.AsyncClient(transport=StreamingTransport(app), base_url="http://test"))
    yield ops
    await ops.close()


async def test_an_app_that_runs_sequences_in_its_process_lists_no_host(in_process: RemoteEngine) -> None:
    response = await in_process._client.get("/api/hosts")
    assert response.status_code == 200 and response.json() == {"hosts": [], "steps_on_hosts": False}
    assert await in_process.hosts() == [] and await in_process.host_names() is None


async def test_the_hosts_over_http_and_in_check_from_the_folders_app_or_the_executor(
        temporal_server: TemporalServer, step_keys: StepKeys, tmp_path: Path, data: Path, nowhere: None,
        monkeypatch: pytest.MonkeyPatch) -> None:
    host = f"http-{uuid.uuid4().hex[:6]}"
    worker = Worker(host, temporal_server.url, tmp_path / "worker.log")
    monkeypatch.setenv("SEQDESK_EXECUTOR", f"{temporal_server.url}?queue=http-{uuid.uuid4().hex[:8]}")
    try:
        worker.run(T)
        with running_app(tmp_path, data) as app:
            monkeypatch.delenv("SEQDESK_EXECUTOR")  # from here on, only the app knows the executor
            remote = RemoteEngine(app.base_url)
            try:
                async def up() -> bool:
                    return any(h.name == host and h.state == "up" for h in await remote.hosts())

                await wait_until(up, f"{host} listed up by the app", timeout=T)
                status, body = app.api("GET", "/api/hosts")
                assert status == 200 and body["steps_on_hosts"] is True
                [listed] = [h for h in body["hosts"] if h["name"] == host]
                assert listed["state"] == "up" and host in (listed["worker"] or "")
                assert host in (await remote.host_names() or ())
            finally:
                await remote.close()
            known = seqdesk("check", str(_file(tmp_path, host)), data=data)
            assert known.returncode == 0, known.stdout + known.stderr
            assert f"host names checked with the SeqDesk app serving {data}" in known.stderr
            unknown = seqdesk("check", str(_file(tmp_path, "no-such-host")), data=data)
            assert unknown.returncode == 1 and "no host named 'no-such-host' is known" in unknown.stdout
        # No app now: the executor's service says which hosts there are.
        empty = tmp_path / "empty"
        empty.mkdir()
        direct = seqdesk("--executor", temporal_server.url, "check", str(_file(tmp_path, "no-such-host")),
                         data=empty)
        assert direct.returncode == 1 and "no host named 'no-such-host' is known" in direct.stdout
        assert f"host names checked with the Temporal service at {temporal_server.address}" in direct.stderr
    finally:
        worker.stop()
