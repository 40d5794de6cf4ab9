"""Resuming over the HTTP API and through `RemoteEngine`: 202 with the new attempt, 404, 409 with a reason."""

from __future__ import annotations

import json

import pytest

from gui.core.door.engine import Engine
from gui.core.runs.resume import ResumeRefused
from gui.tools.echo import Echo


class LateEcho(Echo):
    name = "late.echo"  # a tool server's tool that was not there for the first attempt


def doc(second_value: int = 2) -> dict:
    def one(value: int, slot: str, tool: str = "echo") -> str:
        return json.dumps({"tool": tool, "args": {"value": value}, "as": slot}) + " ;"

    return {"name": "two-step", "groups": [
        {"name": "first", "out": {"a": "number"}, "tools": one(1, "a")},
        {"name": "second", "in": {"a": "number"}, "out": {"b": "number"}, "tools": one(second_value, "b", "late.echo")},
    ]}


async def failed_run(engine: Engine) -> str:
    await engine.create(doc())
    record = await engine.call("two-step")
    assert record.status == "failed" and "late.echo" in (record.error or "")
    engine.registry.add(LateEcho())
    return record.run_id


async def test_resuming_a_failed_run_is_202_with_the_new_attempt_that_keeps_the_first_group(client, engine):
    run_id = await failed_run(engine)
    answer = await client.post(f"/api/runs/{run_id}/resume")
    assert answer.status_code == 202, answer.text
    body = answer.json()
    assert body["resumed_from"] == run_id and body["attempt"] == 2
    record = await engine.runner.wait(body["run_id"], timeout=5)
    assert record.status == "succeeded" and record.outputs == {"a": 1, "b": 2}
    shown = (await client.get(f"/api/runs/{body['run_id']}")).json()
    assert shown["resumed_from"] == run_id and [g["reused_from"] for g in shown["groups"]] == [run_id, None]
    assert (await client.get(f"/api/runs/{run_id}")).json()["resumed_by"] == body["run_id"]


async def test_an_unknown_run_is_404_and_a_succeeded_or_resumed_one_409_with_a_sentence(client, engine):
    unknown = (await client.post("/api/runs/nope/resume")).json()
    assert unknown == {"detail": "there is no run nope", "code": "no-such-name"}
    run_id = await failed_run(engine)
    new = (await client.post(f"/api/runs/{run_id}/resume")).json()["run_id"]
    await engine.runner.wait(new, timeout=5)
    again = await client.post(f"/api/runs/{run_id}/resume")
    assert again.status_code == 409 and f"resumed already, as run {new}" in again.json()["detail"]
    done = await client.post(f"/api/runs/{new}/resume")
    assert done.status_code == 409 and "succeeded: there is nothing to resume" in done.json()["detail"]


async def test_a_changed_group_that_had_succeeded_is_409_naming_it(client, engine):
    run_id = await failed_run(engine)
    changed = doc()
    changed["groups"][0]["tools"] = json.dumps({"tool": "echo", "args": {"value": 5}, "as": "a"}) + " ;"
    await engine.create(changed)
    answer = await client.post(f"/api/runs/{run_id}/resume")
    assert answer.status_code == 409
    assert answer.json()["detail"].startswith(f"the group 'first' (group 1) changed since run {run_id}")


async def test_a_running_run_is_409(client, engine):
    await engine.create({"name": "nap", "groups": [
        {"name": "nap-g", "tools": json.dumps({"tool": "sleep", "args": {"seconds": 30}}) + " ;"}]})
    record = await engine.start("nap")
    answer = await client.post(f"/api/runs/{record.run_id}/resume")
    assert answer.status_code == 409 and "still running" in answer.json()["detail"]
    await engine.stop(record.run_id)


async def test_the_remote_door_resumes_to_the_end_and_refuses_with_the_apps_sentence(remote, engine):
    run_id = await failed_run(engine)
    seen: list[str] = []
    record = await remote.call_resume(run_id, lambda e: seen.append(e.type))
    assert record.status == "succeeded" and record.resumed_from == run_id and "run.finished" in seen
    with pytest.raises(ResumeRefused, match="resumed already"):
        await remote.resume(run_id)
    with pytest.raises(LookupError, match="there is no run nope"):
        await remote.resume("nope")
