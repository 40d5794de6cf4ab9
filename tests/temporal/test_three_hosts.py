"""Three hosts: three network namespaces made by the test (each its own host name), one `seqdesk
worker` in each, dialling the dev server through a relay on its loopback. One sequence runs
`hostname` on the three side by side, then a follow-up on one; every step is approved from the one
inbox of the app. node-c's worker is killed while its step runs and started again: the step, whose
group says `on_error: retry`, is called again there and the run finishes without anyone pressing
Resume. (As root only; it skips elsewhere, and fails under CI=true where it cannot make them.)"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.builders import group, seq, tools
from support.hosts import Namespaces, Worker, hosts_up
from support.temporal import TemporalServer
from support.waiting import wait_until

from gui.core.asks import ApprovalResponse
from gui.memory import MemoryStores
from gui.runtime import compose_engine
from gui.tools import default_registry

T = 90.0  # three workers start on two shared cores
HOSTS = ["node-a", "node-b", "node-c"]


@pytest.fixture
def namespaces(temporal_server: TemporalServer, tmp_path: Path) -> Iterator[Namespaces]:
    Namespaces.check()
    made = Namespaces(temporal_server, tmp_path)
    try:
        yield made
    finally:
        made.close()


async def test_hostname_on_three_hosts_side_by_side_one_worker_killed_and_back(
        temporal_server: TemporalServer, namespaces: Namespaces, tmp_path: Path) -> None:
    flag = tmp_path / "node-c-began"
    hosts = {name: Worker(name, namespaces.url, tmp_path / f"worker-{name}.log", prefix=namespaces.make(name))
             for name in HOSTS}
    engine = compose_engine(default_registry(), MemoryStores(),
                            executor=f"{temporal_server.url}?queue=three-{uuid.uuid4().hex[:8]}")
    try:
        for worker in hosts.values():
            worker.start()
        for worker in hosts.values():
            worker.wait_serving(T)
        await hosts_up(engine, HOSTS, T)
        slow_on_c = f"hostname; if [ ! -e {flag} ]; then touch {flag}; sleep 300; fi"
        await engine.create(seq(
            group("fan", out={"names": "array"}, on_error="retry", tools=tools(
                {"tool": "cmd_run", "args": {"command": "hostname"}, "on": "node-a", "as": "names"},
                {"tool": "cmd_run", "args": {"command": "hostname"}, "on": "node-b", "as": "names"},
                {"tool": "cmd_run", "args": {"command": slow_on_c}, "on": "node-c", "as": "names"})),
            group("follow", **{"in": {"names": "array"}}, out={"last": "string"}, tools=tools(
                {"tool": "cmd_run", "args": {"command": "hostname"}, "on": "node-b", "as": "last"}))))
        run = await engine.start("s", {})
        asked: list[str | None] = []
        killed = False

        async def answer_and_kill() -> bool:
            """One look: approve what asks (one inbox, whichever host), kill node-c's worker once its step
            runs (and start it again); whether the run has ended."""
            nonlocal killed
            for pending in await engine.interactions.pending():
                asked.append(pending.request.host)
                await engine.interactions.respond(pending.interaction_id, ApprovalResponse(decision="approved"))
            if not killed and flag.exists():
                hosts["node-c"].kill()  # during its step: its command dies with it
                killed = True
                await asyncio.to_thread(hosts["node-c"].run, T)
            return engine.runner.snapshot(run.run_id) is None

        await wait_until(answer_and_kill, "the run's end", timeout=3 * T, every=0.02)
        record = await engine.runner.wait(run.run_id, T)
        assert killed
        assert record.status == "succeeded", record
        assert sorted(record.outputs["names"]) == HOSTS  # each ran where it said
        assert record.outputs["last"] == "node-b"
        assert sorted(h or "" for h in asked) == ["node-a", "node-b", "node-b", "node-c"]
        assert record.attempt == 1 and record.resumed_from is None  # no Resume
        node_c = record.groups[0].tools[2]
        assert node_c.host == "node-c"
        assert "called again on node-c: it may have run there before its worker stopped" in [
            line.text for line in node_c.log]
    finally:
        await engine.close()
        for worker in hosts.values():
            worker.stop()
