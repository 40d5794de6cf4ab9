"""A worker does not trust its queue: it runs a step only when the team's app signed it for this host
and this call (`gui.temporal.signing`). Whoever else writes to the Temporal namespace (here a test
acting as an attacker, with the Temporal client and without the key) gets the step refused, with a
sentence naming the host and why, and nothing of it runs."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import uuid
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest
from support.builders import group, seq, tools
from support.hosts import Worker, hosts_up
from support.temporal import StepKeys, TemporalServer, make_step_keys
from support.waiting import wait_until
from temporalio import workflow
from temporalio.client import Client
from temporalio.worker import UnsandboxedWorkflowRunner
from temporalio.worker import Worker as TemporalWorker

from gui.core.asks import ApprovalResponse
from gui.memory import MemoryAuditLog, MemoryStores
from gui.runtime import compose_engine
from gui.temporal import StepKeyError
from gui.temporal.hosts import FOREVER, host_queue
from gui.temporal.plans import HostResult, HostStep, call_of, workflow_id
from gui.temporal.signing import STEP_KEY_ENV, TRUST_ENV, StepSigner, StepTrust, TakenSteps, trust_from
from gui.tools import default_registry

T = 60.0  # another process takes the step: a loaded machine is slow
ROOT = Path(__file__).resolve().parents[2]


# -- the signature on its own ------------------------------------------------------------------------
def _step(**kw: object) -> HostStep:
    fields: dict[str, object] = {"host": "node-a", "tool": "cmd_run", "args": {"command": "echo hi"},
                                 "step_id": "t1", "run_id": "r1", "call_id": "seqdesk-step-t1-1",
                                 "approval": "i1"} | kw
    return HostStep(**fields)  # type: ignore[arg-type]


def test_a_signed_step_is_trusted_once_and_every_change_is_refused(tmp_path: Path) -> None:
    keys, other = make_step_keys(tmp_path, "a"), make_step_keys(tmp_path, "b")
    now = [1_000_000.0]
    signer = StepSigner.load(keys.private)
    signer._clock = lambda: now[0]
    trust = StepTrust.load(keys.public)
    trust._clock = lambda: now[0]
    signed = signer.sign(_step())
    assert signed.signature and signed.key_id == trust.key_ids[0] and signed.expires == now[0] + 15 * 60

    def why(step: HostStep, host: str = "node-a", call: str = "seqdesk-step-t1-1", run: str = "w1") -> str:
        return trust.refusal(step, host, call, run) or ""

    assert why(signed) == ""
    assert why(signed) == ""  # its own retries (the same run of the workflow) are the same call
    assert "not signed" in why(_step())
    assert "a key this host does not trust" in why(StepSigner.load(other.private).sign(_step()))
    for altered in (replace(signed, args={"command": "rm -rf ~"}), replace(signed, tool="file_read"),
                    replace(signed, approval="i2"), replace(signed, expires=signed.expires + 3600),
                    replace(signed, run_id="r2"), replace(signed, step_id="t2")):
        assert "altered after it was signed" in why(altered), altered
    assert why(signed, host="node-b") == "it was signed for the host node-a"
    assert "signed for the call seqdesk-step-t1-1, not seqdesk-step-t9-1" in why(signed, call="seqdesk-step-t9-1")
    assert "already taken by another run of its call" in why(signed, run="w2")  # the same id, started again
    now[0] += 15 * 60 + 1
    assert why(signer.sign(_step(call_id="seqdesk-step-t1-2")), call="seqdesk-step-t1-2") == ""
    assert "its signature expired at" in why(signed)


def test_a_worker_is_given_a_public_key_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    keys = make_step_keys(tmp_path)
    monkeypatch.delenv(TRUST_ENV, raising=False)
    with pytest.raises(StepKeyError, match="a worker runs only steps signed by the team's app"):
        trust_from(None)
    with pytest.raises(StepKeyError, match="holds a private key: give a worker the public key only"):
        trust_from(str(keys.private))
    (tmp_path / "empty.pub").write_text("")
    with pytest.raises(StepKeyError, match="holds no PEM public key"):
        trust_from(str(tmp_path / "empty.pub"))
    both = tmp_path / "both.pub"
    both.write_bytes(keys.public.read_bytes() + make_step_keys(tmp_path, "c").public.read_bytes())
    assert len(trust_from(str(both)).key_ids) == 2  # one per app of the team
    monkeypatch.setenv(TRUST_ENV, str(keys.public))
    assert len(trust_from(None).key_ids) == 1


def test_a_worker_without_a_key_does_not_start() -> None:
    env = {k: v for k, v in os.environ.items() if k not in (TRUST_ENV, STEP_KEY_ENV) and not k.startswith("PYTEST_")}
    done = subprocess.run([sys.executable, "-m", "gui", "worker", "--name", "node-a", "--executor",
                           "temporal://127.0.0.1:1/default"], capture_output=True, text=True, env=env, timeout=60,
                          cwd=ROOT)
    assert done.returncode == 2
    assert "seqdesk worker: a worker runs only steps signed by the team's app: give it the app's public step " \
           "key (--trust steps.pub" in done.stderr
    assert "Traceback" not in done.stderr


async def test_an_app_without_a_step_key_sends_no_step_and_says_why(
        temporal_server: TemporalServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(STEP_KEY_ENV)
    engine = compose_engine(default_registry(), MemoryStores(), executor=f"{temporal_server.url}?queue=nokey")

    async def known() -> frozenset[str]:  # the host's name is not what this test is about
        return frozenset({"node-a"})

    engine.catalog.hosts = known
    engine.modes.set("echo", "always-allow")
    try:
        await engine.create(seq(group("g", tools=tools({"tool": "echo", "args": {"value": 1}, "on": "node-a"}))))
        record = await engine.runner.wait((await engine.start("s", {})).run_id, T)
        assert record.status == "failed"
        assert "this app signs no steps, so the host node-a would refuse this one" in \
            (record.groups[0].tools[0].error or "")
    finally:
        await engine.close()


# -- on a real Temporal service, with a real worker ------------------------------------------------------
async def test_a_signed_step_runs_and_carries_its_approval(
        temporal_server: TemporalServer, step_keys: StepKeys, tmp_path: Path) -> None:
    host = f"trust-{uuid.uuid4().hex[:6]}"
    made = tmp_path / "made-by-the-app"
    engine = compose_engine(default_registry(), MemoryStores(), audit=MemoryAuditLog(),
                            executor=f"{temporal_server.url}?queue=trust-{uuid.uuid4().hex[:8]}")
    worker = Worker(host, temporal_server.url, tmp_path / "worker.log")
    try:
        worker.run(T)
        await hosts_up(engine, [host], T)
        await engine.create(seq(group("g", tools=tools(
            {"tool": "cmd_run", "args": {"command": f"touch {made}"}, "on": host}))))
        run = await engine.start("s", {})
        [pending] = await wait_until(engine.interactions.pending, "the step's approval", timeout=T)
        await engine.interactions.respond(pending.interaction_id, ApprovalResponse(decision="approved"))
        record = await engine.runner.wait(run.run_id, T)
        assert record.status == "succeeded", record
        assert made.exists()
        step_id = record.groups[0].tools[0].tool_call_id
        client = await Client.connect(temporal_server.address)
        # sent by the run's own workflow, as the activity of this step's first attempt
        history = await client.get_workflow_handle(workflow_id(record.run_id)).fetch_history()
        [scheduled] = [e.activity_task_scheduled_event_attributes for e in history.events
                       if e.HasField("activity_task_scheduled_event_attributes")
                       and e.activity_task_scheduled_event_attributes.activity_type.name == "host_call"]
        assert scheduled.activity_id == f"seqdesk-step-{step_id}-1"
        [sent] = scheduled.input.payloads
        step = json.loads(sent.data)
        assert step["approval"] == pending.interaction_id and step["host"] == host
        assert step["args"]["command"] == f"touch {made}" and step["call_id"] == call_of(
            workflow_id(record.run_id), f"seqdesk-step-{step_id}-1")
        assert len(base64.b64decode(step["signature"])) == 64  # an Ed25519 signature
    finally:
        worker.stop()
        await engine.close()


@workflow.defn(name="attacker-step")
class AttackerStep:
    """What anyone who can write to the namespace can run: a workflow that puts a step on a host's queue."""

    @workflow.run
    async def run(self, step: HostStep, queue: str) -> HostResult:
        result = await workflow.execute_activity(
            "host_call", step, task_queue=queue, result_type=HostResult, activity_id="1",
            start_to_close_timeout=FOREVER, heartbeat_timeout=timedelta(seconds=10))
        assert isinstance(result, HostResult)
        return result


async def test_a_step_put_on_the_queue_without_the_key_is_refused_and_nothing_runs(
        temporal_server: TemporalServer, step_keys: StepKeys, tmp_path: Path) -> None:
    host = f"trust-{uuid.uuid4().hex[:6]}"
    queue = f"attacker-{uuid.uuid4().hex[:8]}"
    client = await Client.connect(temporal_server.address)
    log = tmp_path / "worker.log"
    worker = Worker(host, temporal_server.url, log)
    mine = make_step_keys(tmp_path, "attacker")  # a key of the attacker's own, which the host does not trust
    team = StepSigner.load(step_keys.private)  # the team's, for the altered and replayed steps

    async def send(step: HostStep, workflow_id: str) -> HostResult:
        result: HostResult = await client.execute_workflow(
            "attacker-step", args=[step, host_queue(host)], id=workflow_id, task_queue=queue, result_type=HostResult,
            execution_timeout=timedelta(seconds=T))
        return result

    def command(side: Path) -> HostStep:
        return HostStep(host=host, tool="cmd_run", args={"command": f"touch {side}"}, step_id="s1", run_id="r1")

    try:
        worker.run(T)
        async with TemporalWorker(client, task_queue=queue, workflows=[AttackerStep],
                                  workflow_runner=UnsandboxedWorkflowRunner()):
            cases: list[tuple[str, HostStep, str]] = []
            wid = f"attack-{uuid.uuid4().hex[:8]}"
            cases.append(("unsigned", command(tmp_path / "unsigned"), "it is not signed"))
            cases.append(("other key", StepSigner.load(mine.private).sign(
                replace(command(tmp_path / "other-key"), call_id=wid + "-other key")),
                "it is signed with a key this host does not trust"))
            harmless = team.sign(replace(command(tmp_path / "harmless"), args={"command": "true"},
                                         call_id=wid + "-altered"))
            cases.append(("altered", replace(harmless, args={"command": f"touch {tmp_path / 'altered'}"}),
                          "it was altered after it was signed"))
            cases.append(("another host", team.sign(replace(command(tmp_path / "another-host"), host="node-zz",
                                                            call_id=wid + "-another host")),
                          "it was signed for the host node-zz"))
            cases.append(("another call", team.sign(replace(command(tmp_path / "another-call"),
                                                            call_id="seqdesk-step-s0-1")),
                          "it was signed for the call seqdesk-step-s0-1"))
            for name, step, words in cases:
                result = await send(step, f"{wid}-{name}")
                assert not result.ok, name
                assert result.error is not None and result.error.startswith(
                    f"the host {host} refused the step s1 of run r1: {words}"), (name, result.error)
            for side in ("unsigned", "other-key", "altered", "another-host", "another-call", "harmless"):
                assert not (tmp_path / side).exists(), side  # nothing of them ran
            said = log.read_text(errors="replace")
            assert said.count(f"seqdesk worker: the host {host} refused the step s1") == len(cases), said
            assert "Traceback" not in said
            # The control: the same path, signed by the team's key for this host and call, runs.
            good = team.sign(replace(command(tmp_path / "signed"), call_id=call_of(f"{wid}-signed", "1")))
            assert (await send(good, f"{wid}-signed")).ok
            assert (tmp_path / "signed").exists()
    finally:
        worker.stop()


async def test_a_step_a_host_refuses_fails_in_the_runs_record_with_the_hosts_sentence(
        temporal_server: TemporalServer, step_keys: StepKeys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    host = f"trust-{uuid.uuid4().hex[:6]}"
    made = tmp_path / "made"
    monkeypatch.setenv(TRUST_ENV, str(make_step_keys(tmp_path, "another-app").public))  # not this app's key
    worker = Worker(host, temporal_server.url, tmp_path / "worker.log")
    engine = compose_engine(default_registry(), MemoryStores(),
                            executor=f"{temporal_server.url}?queue=trust-{uuid.uuid4().hex[:8]}")
    engine.modes.set("cmd_run", "always-allow")
    try:
        worker.run(T)
        await hosts_up(engine, [host], T)
        await engine.create(seq(group("g", tools=tools(
            {"tool": "cmd_run", "args": {"command": f"touch {made}"}, "on": host}))))
        record = await engine.runner.wait((await engine.start("s", {})).run_id, T)
        step = record.groups[0].tools[0]
        assert record.status == "failed" and step.status == "failed"
        assert (step.error or "").startswith(f"the host {host} refused the step {step.tool_call_id} of run "
                                             f"{record.run_id}: it is signed with a key this host does not trust")
        assert not made.exists()
    finally:
        worker.stop()
        await engine.close()


def test_a_worker_started_again_remembers_the_steps_it_took(tmp_path: Path) -> None:
    keys = make_step_keys(tmp_path)
    now = [1_000_000.0]
    signer = StepSigner.load(keys.private)
    signer._clock = lambda: now[0]
    memory = tmp_path / "state" / "taken-steps.json"
    memory.parent.mkdir()

    def started() -> StepTrust:  # the worker, started (again) on its state folder
        trust = StepTrust.load(keys.public, TakenSteps(memory))
        trust._clock = lambda: now[0]
        return trust

    signed = signer.sign(_step())
    first = started()
    assert first.refusal(signed, "node-a", "seqdesk-step-t1-1", "w1") is None
    assert memory.exists()  # noted before the step runs
    again = started()
    assert "already taken by another run of its call" in (again.refusal(signed, "node-a", "seqdesk-step-t1-1", "w2")
                                                          or "")
    assert again.refusal(signed, "node-a", "seqdesk-step-t1-1", "w1") is None  # its own retries still run
    now[0] += 15 * 60 + 1  # expired steps are dropped from the file as new ones are noted
    later = signer.sign(_step(call_id="seqdesk-step-t1-2"))
    assert started().refusal(later, "node-a", "seqdesk-step-t1-2", "w3") is None
    assert list(json.loads(memory.read_text())) == [later.signature]
    memory.write_text("{not json")
    with pytest.raises(StepKeyError, match=f"the worker's memory of the steps it took, {memory}, cannot be read"):
        started()


async def test_a_closed_workflows_step_sent_again_after_the_worker_restarted_is_refused(
        temporal_server: TemporalServer, step_keys: StepKeys, tmp_path: Path) -> None:
    host = f"trust-{uuid.uuid4().hex[:6]}"
    queue = f"again-{uuid.uuid4().hex[:8]}"
    client = await Client.connect(temporal_server.address)
    worker = Worker(host, temporal_server.url, tmp_path / "worker.log")
    ran = tmp_path / "ran"
    wid = f"again-{uuid.uuid4().hex[:8]}"  # its first run takes the step; a new run of the same id sends it again
    step = StepSigner.load(step_keys.private).sign(HostStep(
        host=host, tool="cmd_run", args={"command": f"echo ran >> {ran}"}, step_id="s1", run_id="r1",
        call_id=call_of(wid, "1")))

    async def send() -> HostResult:
        result: HostResult = await client.execute_workflow(
            "attacker-step", args=[step, host_queue(host)], id=wid, task_queue=queue, result_type=HostResult,
            execution_timeout=timedelta(seconds=T))
        return result

    try:
        worker.run(T)
        async with TemporalWorker(client, task_queue=queue, workflows=[AttackerStep],
                                  workflow_runner=UnsandboxedWorkflowRunner()):
            assert (await send()).ok
            worker.stop()
            worker.run(T)  # started again, well within the step's expiry
            again = await send()
        assert not again.ok and again.error is not None
        assert again.error.startswith(f"the host {host} refused the step s1 of run r1: it was already taken by "
                                      "another run of its call")
        assert ran.read_text().splitlines() == ["ran"]  # it ran once
    finally:
        worker.stop()
