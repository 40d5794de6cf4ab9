"""Steps on hosts: a step that says `"on": "node-a"` runs on the worker of that name (`seqdesk
worker`), is approved in the app's inbox with the host on its card, keeps the host in its record,
and a rule made for it on one host never covers another. The hosts list says who is up."""

from __future__ import annotations

import uuid
from pathlib import Path

from support.builders import group, seq, tools
from support.hosts import hosts_up, workers
from support.temporal import TemporalServer
from support.waiting import wait_until

from gui.core.asks import ApprovalResponse
from gui.core.door.engine import Engine
from gui.core.sequences import CatalogView, check_document, to_document
from gui.memory import MemoryAuditLog, MemoryStores
from gui.runtime import compose_engine
from gui.tools import default_registry

T = 60.0  # another process takes the step: a loaded machine is slow


def _engine(server: TemporalServer) -> Engine:
    return compose_engine(default_registry(), MemoryStores(), audit=MemoryAuditLog(),
                          executor=f"{server.url}?queue=hosts-{uuid.uuid4().hex[:8]}")


def test_a_step_names_a_host_the_team_knows_else_a_located_error() -> None:
    doc = seq(group("g", tools=tools({"tool": "cmd_run", "args": {"command": "hostname"}, "on": "node-b"},
                                     {"tool": "seq_call", "args": {"name": "x"}, "on": "node-a"},
                                     {"tool": "echo", "args": {"value": 1}, "on": "no such"})))
    result = check_document(doc, CatalogView(host_names=frozenset({"node-a"}),
                                             runs_on_hosts=lambda tool: tool != "seq_call"))
    found = {(p.loc, p.code) for p in result.errors}
    tloc = ("groups", 0, "tools")
    assert found == {((*tloc, 0, "on"), "unknown-host"), ((*tloc, 1, "on"), "not-on-hosts"),
                     ((*tloc, 2, "on"), "bad-host")}
    unknown = next(p for p in result.errors if p.code == "unknown-host")
    assert "no host named 'node-b' is known: the hosts are node-a" in unknown.message
    ok = check_document(seq(group("g", tools=tools({"tool": "echo", "args": {"value": 1}, "on": "node-a"}))),
                        CatalogView(host_names=frozenset({"node-a"})))
    assert ok.ok and ok.sequence is not None and ok.sequence.groups[0].tools[0].on == "node-a"
    assert '"on":"node-a"' in to_document(ok.sequence)["groups"][0]["tools"]


async def test_in_process_there_are_no_hosts_and_saving_says_so() -> None:
    engine = compose_engine(default_registry(), MemoryStores())
    result = await engine.check(seq(group("g", tools=tools({"tool": "echo", "args": {"value": 1},
                                                             "on": "node-a"}))))
    [error] = result.errors
    assert error.code == "unknown-host" and error.loc == ("groups", 0, "tools", 0, "on")
    assert await engine.hosts() == []


async def test_a_step_runs_on_its_host_approved_here_and_a_rule_stays_on_its_host(
        temporal_server: TemporalServer, tmp_path: Path) -> None:
    engine = _engine(temporal_server)
    try:
        with workers(temporal_server, ["node-t", "node-u"], tmp_path):
            await hosts_up(engine, ["node-t", "node-u"], T)
            await engine.create(seq(group("g", **{"in": {"where": "string"}}, out={"id": "string"}, tools=tools(
                {"tool": "cmd_run", "args": {"command": "printenv SEQDESK_STEP_ID"}, "on": "node-t", "as": "id"}))))
            # The same step on another host is another step: the validator knows both hosts.
            await engine.create({"name": "u", "description": "", "groups": [{
                "name": "h", "in": {"where": "string"}, "out": {},
                "tools": '{"tool":"cmd_run","args":{"command":"printenv SEQDESK_STEP_ID"},"on":"node-u"} ;'}]})
            run = await engine.start("s", {"where": "x"})
            [pending] = await wait_until(engine.interactions.pending, "the step's approval", timeout=T)
            assert pending.request.host == "node-t" and pending.request.command == "printenv SEQDESK_STEP_ID"
            assert pending.request.cwd == ""  # the host's folder, not this app's
            await engine.interactions.respond(pending.interaction_id,
                                              ApprovalResponse(decision="approved", scope="prefix", prefix="printenv"))
            record = await engine.runner.wait(run.run_id, T)
            assert record.status == "succeeded", record
            assert record.outputs["id"] == record.groups[0].tools[0].tool_call_id  # SEQDESK_STEP_ID there too
            assert record.groups[0].tools[0].host == "node-t"
            entries, _ = await engine.decisions()
            [decided] = [e for e in entries if e.interaction_id == pending.interaction_id]
            assert "on the host node-t" in decided.shown  # the record of decisions names the host
            [rule] = [r for r in engine.modes.rules() if r.scope == "prefix"]
            assert rule.host == "node-t" and "on the host node-t" in rule.text
            # Again on node-t: the rule covers it. On node-u: asked, the rule does not cover it.
            again = await engine.runner.wait((await engine.start("s", {"where": "y"})).run_id, T)
            assert again.status == "succeeded"
            other = await engine.start("u", {"where": "z"})
            [asked] = await wait_until(engine.interactions.pending, "node-u's step asked", timeout=T)
            assert asked.request.host == "node-u"
            await engine.interactions.respond(asked.interaction_id, ApprovalResponse(decision="approved"))
            assert (await engine.runner.wait(other.run_id, T)).status == "succeeded"
    finally:
        await engine.close()


def _alive(marker: str) -> bool:
    """Whether a process whose command line holds `marker` is running on this machine."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker in (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace"):
                    return True
            except OSError:
                continue
    return False


async def test_a_step_cut_by_its_time_limit_or_a_stop_is_ended_on_its_host(
        temporal_server: TemporalServer, tmp_path: Path) -> None:
    engine = _engine(temporal_server)
    engine.modes.set("cmd_run", "always-allow")
    seconds = [f"{600 + n}.{uuid.uuid4().int % 1000}" for n in range(2)]  # two commands no one else runs
    try:
        with workers(temporal_server, ["node-c"], tmp_path):
            await hosts_up(engine, ["node-c"], T)
            await engine.create(seq(group("timed", timeout="2s", tools=tools(
                {"tool": "cmd_run", "args": {"command": f"sleep {seconds[0]} ; echo late"}, "on": "node-c"}))))
            run = await engine.start("s", {})
            await wait_until(lambda: _alive(f"sleep {seconds[0]}"), "the command running on node-c", timeout=T)
            record = await engine.runner.wait(run.run_id, T)
            assert record.status == "failed" and record.groups[0].timed_out
            assert not _alive(f"sleep {seconds[0]}")  # ended there (its process group) before the run ended

            await engine.create(seq(group("stopped", tools=tools(
                {"tool": "cmd_run", "args": {"command": f"sleep {seconds[1]} ; echo late"}, "on": "node-c"})),
                name="t"))
            run = await engine.start("t", {})
            await wait_until(lambda: _alive(f"sleep {seconds[1]}"), "the second command running", timeout=T)
            assert await engine.runner.stop(run.run_id)
            record = await engine.runner.wait(run.run_id, T)
            assert record.status == "stopped" and record.groups[0].tools[0].status == "cancelled"
            assert not _alive(f"sleep {seconds[1]}")
    finally:
        await engine.close()


async def test_a_step_whose_worker_died_may_have_run_and_is_called_again_only_on_retry(
        temporal_server: TemporalServer, tmp_path: Path) -> None:
    engine = _engine(temporal_server)
    engine.modes.set("cmd_run", "always-allow")
    flag = tmp_path / "began"
    command = f"if [ -e {flag} ]; then echo again; else touch {flag}; sleep 300; fi"
    try:
        with workers(temporal_server, ["node-k"], tmp_path) as made:
            await hosts_up(engine, ["node-k"], T)
            for on_error in ("abort", "retry"):
                flag.unlink(missing_ok=True)
                name = f"s-{on_error}"
                await engine.create(seq(group(f"g-{on_error}", on_error=on_error, out={"said": "string"},
                                              tools=tools({"tool": "cmd_run", "args": {"command": command},
                                                           "on": "node-k", "as": "said"})), name=name))
                run = await engine.start(name, {})
                await wait_until(flag.exists, "the command began on node-k", timeout=T)
                made["node-k"].kill()
                made["node-k"].run()  # back at once: only a retry may call the step again
                record = await engine.runner.wait(run.run_id, T)
                trec = record.groups[0].tools[0]
                if on_error == "abort":
                    assert record.status == "failed"
                    assert trec.error == "it may have run on node-k before its worker stopped"
                else:
                    assert record.status == "succeeded" and record.outputs == {"said": "again"}
                    assert "called again on node-k: it may have run there before its worker stopped" in [
                        line.text for line in trec.log]
            hosts = {h.name: h for h in await engine.hosts()}
            assert hosts["node-k"].state == "up"
    finally:
        await engine.close()


async def test_a_failed_step_of_a_fan_out_ends_its_siblings_on_their_hosts(
        temporal_server: TemporalServer, tmp_path: Path) -> None:
    engine = _engine(temporal_server)
    engine.modes.set("cmd_run", "always-allow")
    seconds = f"700.{uuid.uuid4().int % 1000}"  # a command no one else runs
    began = tmp_path / "began"
    try:
        with workers(temporal_server, ["node-f", "node-g"], tmp_path):
            await hosts_up(engine, ["node-f", "node-g"], T)
            await engine.create(seq(group("fan", tools=tools(
                {"tool": "cmd_run", "args": {"command": f"touch {began}; sleep {seconds}"}, "on": "node-f"},
                {"tool": "cmd_run", "args": {"command": f"while [ ! -e {began} ]; do sleep 0.05; done; exit 3"},
                 "on": "node-g"}))))
            record = await engine.runner.wait((await engine.start("s", {})).run_id, T)
            assert record.status == "failed"
            long, failed = record.groups[0].tools
            assert failed.status == "failed"
            assert long.status == "cancelled" and long.cause == "sibling_failed"
            assert long.error == "cancelled: another tool of the group failed"
            assert not _alive(f"sleep {seconds}")  # ended on node-f before the run ended
    finally:
        await engine.close()
