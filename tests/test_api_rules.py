"""A "this sequence" rule over the HTTP API covers the step the person saw, not a name: after
`PUT /api/sequences/{name}` with another command, or a delete and a create under the same name, the
step asks again (its request waits, its command does not run); an unchanged sequence still runs
under the rule; the rules list says which rule is for an earlier version."""

from __future__ import annotations

from pathlib import Path

import httpx
from support.builders import tools
from support.engine import Events

from gui.core.door.engine import Engine

T = 5.0


def benign(command: str = "true") -> dict:
    return {"name": "benign", "description": "", "groups": [
        {"name": "benign-g", "in": {}, "out": {}, "tools": tools({"tool": "cmd_run", "args": {"command": command}})}]}


async def start(client: httpx.AsyncClient) -> str:
    started = await client.post("/api/runs", json={"sequence": "benign", "args": {}})
    assert started.status_code == 202
    return started.json()["run_id"]


async def allow_for_the_sequence(client: httpx.AsyncClient, engine: Engine) -> dict:
    events = Events(engine)
    assert (await client.post("/api/sequences", json=benign())).status_code == 201
    run_id = await start(client)
    iid = (await events.next("interaction.created")).data["interaction_id"]
    answer = await client.post(f"/api/interactions/{iid}/respond",
                               json={"kind": "approval", "decision": "approved", "scope": "sequence"})
    assert answer.status_code == 200
    assert (await engine.runner.wait(run_id, T)).status == "succeeded"
    [rule] = (await client.get("/api/approval-rules")).json()
    assert rule["scope"] == "sequence" and rule["earlier_version"] is False and rule["step_fingerprint"]
    return rule


async def asks_and_does_not_run(client: httpx.AsyncClient, engine: Engine, marker: Path) -> None:
    events = Events(engine)
    run_id = await start(client)
    created = await events.next("interaction.created")
    assert created.data["record"]["status"] == "pending"
    pending = (await client.get("/api/interactions", params={"status": "pending", "run_id": run_id})).json()
    assert [p["request"]["command"] for p in pending] == [f"touch {marker}"]
    assert not marker.exists()  # nobody said yes to this command: it did not run
    assert (await client.post(f"/api/runs/{run_id}/stop")).status_code == 200
    assert not marker.exists()
    [record] = (await client.get("/api/interactions", params={"run_id": run_id})).json()
    assert record["auto"] is False and record["status"] == "cancelled"


async def test_a_put_with_another_command_asks_again_and_the_rule_is_for_an_earlier_version(client, engine, tmp_path):
    rule = await allow_for_the_sequence(client, engine)
    marker = tmp_path / "owned"
    assert (await client.put("/api/sequences/benign", json=benign(f"touch {marker}"))).status_code == 200
    await asks_and_does_not_run(client, engine, marker)
    [listed] = (await client.get("/api/approval-rules")).json()
    assert listed["rule_id"] == rule["rule_id"] and listed["earlier_version"] is True


async def test_a_delete_and_a_create_under_the_same_name_asks_again(client, engine, tmp_path):
    await allow_for_the_sequence(client, engine)
    assert (await client.delete("/api/sequences/benign")).status_code == 204
    assert (await client.get("/api/approval-rules")).json() == []  # the deleted sequence's rule went with it
    marker = tmp_path / "owned"
    assert (await client.post("/api/sequences", json=benign(f"touch {marker}"))).status_code == 201
    await asks_and_does_not_run(client, engine, marker)


async def test_a_delete_and_a_create_of_the_very_same_steps_asks_again(client, engine):
    await allow_for_the_sequence(client, engine)
    assert (await client.delete("/api/sequences/benign")).status_code == 204
    assert (await client.post("/api/sequences", json=benign())).status_code == 201
    events = Events(engine)
    run_id = await start(client)
    assert (await events.next("interaction.created")).data["record"]["status"] == "pending"
    assert (await client.post(f"/api/runs/{run_id}/stop")).status_code == 200


async def test_an_unchanged_sequence_still_runs_under_the_rule_after_a_put(client, engine):
    rule = await allow_for_the_sequence(client, engine)
    assert (await client.put("/api/sequences/benign", json={**benign(), "description": "same step"})).status_code == 200
    run_id = await start(client)
    assert (await engine.runner.wait(run_id, T)).status == "succeeded"
    [record] = (await client.get("/api/interactions", params={"run_id": run_id})).json()
    assert record["auto"] is True and record["rule_id"] == rule["rule_id"]
    assert (await client.get("/api/approval-rules")).json()[0]["earlier_version"] is False


async def test_the_remote_door_reads_rules_and_which_are_for_an_earlier_version(client, engine, remote):
    rule = await allow_for_the_sequence(client, engine)
    assert [r.rule_id for r in await remote.approval_rules()] == [rule["rule_id"]]
    assert await remote.earlier_version_rules() == set()
    assert (await client.put("/api/sequences/benign", json=benign("echo other"))).status_code == 200
    assert await remote.earlier_version_rules() == {rule["rule_id"]}


async def test_an_unsaved_document_named_like_the_sequence_is_not_covered_by_its_rule(client, engine, tmp_path):
    await allow_for_the_sequence(client, engine)
    marker = tmp_path / "owned"
    events = Events(engine)
    started = await client.post("/api/runs", json={"document": benign(f"touch {marker}"), "args": {}})
    assert started.status_code == 202
    assert (await events.next("interaction.created")).data["record"]["status"] == "pending"
    assert not marker.exists()
    assert (await client.post(f"/api/runs/{started.json()['run_id']}/stop")).status_code == 200


async def test_a_document_cannot_choose_the_identity_of_a_sequence(client):
    answer = await client.post("/api/sequences", json={**benign(), "identity": "legacy-0123456789abcdef"})
    assert answer.status_code == 422 and "unknown field 'identity'" in answer.text
