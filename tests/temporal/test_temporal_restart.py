"""On Temporal a run outlives the app: closed while its step waits for a person, the app comes back on
the same data folder, recovery leaves the run and its request be (the workflow, not a worker, waits
for the answer: nothing is asked again) and, once approved, the run finishes by itself, with no Resume."""

from __future__ import annotations

import uuid
from pathlib import Path

from support.builders import group, seq, tools
from support.hosts import hosts_up, workers
from support.temporal import TemporalServer
from support.waiting import wait_until
from temporalio.client import Client

from gui.core.asks import ApprovalResponse
from gui.runtime import open_runtime
from gui.temporal.plans import workflow_id
from gui.temporal.steps import MAY_HAVE_ACTED, MAY_HAVE_RUN

T = 30.0  # the retried step waits for the new worker's poll


async def test_a_run_survives_the_apps_restart_and_goes_on_by_itself(temporal_server: TemporalServer,
                                                                     tmp_path: Path) -> None:
    url = f"{temporal_server.url}?queue=restart-{uuid.uuid4().hex[:8]}"
    first = await open_runtime(tmp_path, executor=url)
    await first.engine.create(seq(
        group("a", out={"x": "string"}, tools=tools({"tool": "echo", "args": {"value": "one"}, "as": "x"})),
        group("b", **{"in": {"x": "string"}}, out={"out": "string"},
              tools=tools({"tool": "cmd_run", "args": {"command": "echo $args.x two"}, "as": "out"}))))
    run = await first.engine.start("s", {})
    [asked] = await wait_until(first.engine.interactions.pending, "the step's approval", timeout=T)
    await first.close()  # the app closes: its worker stops, the run does not, nor its request

    second = await open_runtime(tmp_path, executor=url)
    try:
        assert run.run_id not in second.recovered_runs
        assert run.run_id in second.engine.runner.active_ids()
        [pending] = await wait_until(second.engine.interactions.pending, "the step's request", timeout=T)
        assert pending.interaction_id == asked.interaction_id  # the same request: its workflow waits for it
        assert pending.request.command == "echo one two"
        await second.engine.interactions.respond(pending.interaction_id, ApprovalResponse(decision="approved"))
        record = await second.engine.runner.wait(run.run_id, T)
        assert record.status == "succeeded" and record.outputs == {"x": "one", "out": "one two"}
        assert record.attempt == 1 and record.resumed_from is None  # no Resume: the same run went on
        assert record.groups[1].tools[0].log == []  # not called again: it waited for its answer
        saved = await second.engine.get_run(run.run_id)
        assert saved is not None and saved.status == "succeeded"
    finally:
        await second.close()


async def test_a_command_cut_by_the_apps_end_is_called_again_only_when_its_group_says_retry(
        temporal_server: TemporalServer, tmp_path: Path) -> None:
    url = f"{temporal_server.url}?queue=restart-{uuid.uuid4().hex[:8]}"
    flag = tmp_path / "began"
    command = f"if [ -e {flag} ]; then echo again; else touch {flag}; sleep 300; fi"
    for on_error in ("abort", "retry"):
        flag.unlink(missing_ok=True)
        first = await open_runtime(tmp_path / on_error, executor=url)
        first.engine.modes.set("cmd_run", "always-allow")
        await first.engine.create(seq(group("g", on_error=on_error, out={"said": "string"}, tools=tools(
            {"tool": "cmd_run", "args": {"command": command}, "as": "said"}))))
        run = await first.engine.start("s", {})
        await wait_until(flag.exists, "the command began", timeout=T)
        await first.close()  # the app closes during the command: it ends with the app, having begun

        second = await open_runtime(tmp_path / on_error, executor=url)
        try:
            record = await second.engine.runner.wait(run.run_id, T)
            trec = record.groups[0].tools[0]
            if on_error == "abort":
                assert record.status == "failed" and trec.error == MAY_HAVE_ACTED
            else:
                assert record.status == "succeeded" and record.outputs == {"said": "again"}
                assert MAY_HAVE_RUN in [line.text for line in trec.log]
        finally:
            await second.close()


async def test_a_step_on_a_host_goes_on_there_while_the_app_restarts_and_is_sent_once(
        temporal_server: TemporalServer, tmp_path: Path) -> None:
    url = f"{temporal_server.url}?queue=restart-{uuid.uuid4().hex[:8]}"
    sent, release = tmp_path / "sent", tmp_path / "release"
    command = f"echo sent >> {sent}; while [ ! -e {release} ]; do sleep 0.05; done; echo done"
    with workers(temporal_server, ["node-r"], tmp_path):
        first = await open_runtime(tmp_path / "data", executor=url)
        try:
            first.engine.modes.set("cmd_run", "always-allow")
            await hosts_up(first.engine, ["node-r"], T)
            await first.engine.create(seq(group("g", out={"said": "string"}, tools=tools(
                {"tool": "cmd_run", "args": {"command": command}, "on": "node-r", "as": "said"}))))
            run = await first.engine.start("s", {})
            await wait_until(sent.exists, "the command began on node-r", timeout=T)
        finally:
            await first.close()  # the app closes while its step runs on the host: the call goes on there
        release.touch()  # and ends while no app is there

        second = await open_runtime(tmp_path / "data", executor=url)
        try:
            record = await second.engine.runner.wait(run.run_id, T)
            assert record.status == "succeeded" and record.outputs == {"said": "done"}
            assert record.attempt == 1 and record.resumed_from is None  # no Resume: the same run went on
            assert sent.read_text().splitlines() == ["sent"]  # sent to its host once, never again
            assert record.groups[0].tools[0].log == []  # nothing says it may have run twice
        finally:
            await second.close()


async def test_while_a_person_thinks_no_activity_runs_the_workflow_waits_for_the_answer(
        temporal_server: TemporalServer, tmp_path: Path) -> None:
    url = f"{temporal_server.url}?queue=asks-{uuid.uuid4().hex[:8]}"
    runtime = await open_runtime(tmp_path, executor=url)
    try:
        await runtime.engine.create(seq(group("g", out={"out": "string"}, tools=tools(
            {"tool": "cmd_run", "args": {"command": "echo yes"}, "as": "out"}))))
        run = await runtime.engine.start("s", {})
        [pending] = await wait_until(runtime.engine.interactions.pending, "the step's approval", timeout=T)
        client = await Client.connect(temporal_server.address)
        handle = client.get_workflow_handle(workflow_id(run.run_id))

        async def no_activity() -> bool:
            described = await handle.describe()
            return not described.raw_description.pending_activities

        await wait_until(no_activity, "the call paused, its activity ended", timeout=T)
        await runtime.engine.interactions.respond(pending.interaction_id, ApprovalResponse(decision="approved"))
        record = await runtime.engine.runner.wait(run.run_id, T)
        assert record.status == "succeeded" and record.outputs == {"out": "yes"}
        [tool] = record.groups[0].tools
        assert len(tool.waits) == 1 and tool.waits[0][1] is not None and tool.interaction_id == pending.interaction_id
    finally:
        await runtime.close()
