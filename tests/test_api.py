"""The HTTP API's routes, each for success and failure, with an in-memory engine in place.

Waits are on bus events or the runner, bounded by `T`. The event stream has its own file
(`test_api_events.py`), bad bodies and fuzzing theirs (`test_api_fuzz.py`).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from support.engine import Events

from gui.core.door.engine import Engine
from gui.core.sequences.export import to_document

T = 5.0


def tools(*objs: dict[str, Any]) -> str:
    return " ".join(json.dumps(o) + " ;" for o in objs)


def doc(name: str = "greet", group: str = "say", tool: dict[str, Any] | None = None, **fields: Any) -> dict:
    call = tool or {"tool": "echo", "args": {"value": "hi $args.who"}, "as": "text"}
    g = {"name": group, "in": {"who": "string"}, "out": {"text": "string"}, "tools": tools(call), **fields}
    return {"name": name, "description": "says hi", "groups": [g]}


SHELL = doc("shell", "shell_say", {"tool": "cmd_run", "args": {"command": "echo hello $args.who"}, "as": "text"})


async def save(client: httpx.AsyncClient, body: dict) -> None:
    assert (await client.post("/api/sequences", json=body)).status_code == 201


async def pending_approval(client: httpx.AsyncClient, engine: Engine) -> tuple[str, str]:
    """Start the shell sequence; returns (run_id, interaction_id) once it waits for a person."""
    events = Events(engine)
    await save(client, SHELL)
    started = await client.post("/api/runs", json={"sequence": "shell", "args": {"who": "Ada"}})
    assert started.status_code == 202
    created = await events.next("interaction.created")
    return started.json()["run_id"], created.data["interaction_id"]


# -- health and sequences ---------------------------------------------------------------------------

async def test_health_says_ok_and_the_version(client):
    assert (await client.get("/api/health")).json() == {"ok": True, "version": "0.1.0"}


async def test_a_saved_sequence_is_listed_with_its_signature(client):
    assert (await client.get("/api/sequences")).json() == []
    created = await client.post("/api/sequences", json=doc())
    assert created.status_code == 201
    assert created.headers["location"] == "/api/sequences/greet"
    assert created.json()["sequence"]["signature"] == {"inputs": {"who": "string"}, "outputs": {"text": "string"}}
    assert [s["name"] for s in (await client.get("/api/sequences")).json()] == ["greet"]


async def test_saving_a_sequence_again_replaces_it_with_200(client):
    await save(client, doc())
    again = await client.post("/api/sequences", json={**doc(), "description": "new words"})
    assert again.status_code == 200
    assert (await client.get("/api/sequences/greet")).json()["description"] == "new words"


async def test_warnings_come_back_with_a_saved_sequence(client):
    created = await client.post("/api/sequences", json=doc(tool={"tool": "no_such_tool", "args": {}, "as": "text"}))
    assert created.status_code == 201
    assert [w["code"] for w in created.json()["warnings"]] == ["unknown-tool"]


async def test_an_invalid_sequence_is_422_with_the_validators_result(client, engine):
    bad = doc(tool={"tool": "echo", "args": {"value": 1}, "as": "nowhere"})
    answer = await client.post("/api/sequences", json=bad)
    assert answer.status_code == 422
    body = answer.json()
    assert body.pop("detail").startswith("the sequence is not valid: groups[0].tools")
    assert body.pop("code") == "invalid-sequence"
    assert body == (await engine.check(bad)).to_json()
    assert (await client.get("/api/sequences")).json() == []


async def test_a_sequence_is_given_back_as_the_seed_document_or_text(client, engine):
    await save(client, doc())
    document = (await client.get("/api/sequences/greet")).json()
    assert document == to_document(await engine.get("greet"))
    assert document["groups"][0]["tools"] == '{"tool":"echo","args":{"value":"hi $args.who"},"as":"text"} ;'
    text = await client.get("/api/sequences/greet", params={"format": "text"})
    assert text.headers["content-type"].startswith("text/plain")
    assert json.loads(text.text) == document


async def test_unknown_sequence_and_unknown_format_are_refused(client):
    missing = await client.get("/api/sequences/nope")
    assert missing.status_code == 404
    assert missing.json() == {"detail": "there is no saved sequence named 'nope'", "code": "not-found"}
    await save(client, doc())
    bad_format = await client.get("/api/sequences/greet", params={"format": "yaml"})
    assert bad_format.status_code == 422
    assert bad_format.json()["detail"].startswith("query.format: Input should be 'json' or 'text'")


async def test_deleting_a_sequence_is_204_then_404(client):
    await save(client, doc())
    assert (await client.delete("/api/sequences/greet")).status_code == 204
    again = await client.delete("/api/sequences/greet")
    assert again.status_code == 404 and "greet" in again.json()["detail"]


async def test_a_sequence_whose_name_holds_a_slash_is_read_and_deleted_by_its_quoted_name(client):
    await save(client, doc("ops/nightly", "nightly_say"))
    quoted = quote("ops/nightly", safe="")
    assert (await client.get(f"/api/sequences/{quoted}")).json()["name"] == "ops/nightly"
    assert (await client.delete(f"/api/sequences/{quoted}")).status_code == 204


# -- runs ------------------------------------------------------------------------------------------

async def test_a_started_run_is_202_and_its_record_shows_the_outputs(client, engine):
    await save(client, doc())
    started = await client.post("/api/runs", json={"sequence": "greet", "args": {"who": "Ada"}})
    assert started.status_code == 202
    run_id = started.json()["run_id"]
    assert started.headers["location"] == f"/api/runs/{run_id}"
    await engine.runner.wait(run_id, T)
    record = (await client.get(f"/api/runs/{run_id}")).json()
    assert record["status"] == "succeeded" and record["outputs"] == {"text": "hi Ada"}
    assert record["groups"][0]["tools"][0]["as"] == "text"
    assert [r["run_id"] for r in (await client.get("/api/runs")).json()] == [run_id]


async def test_a_group_can_be_started_by_its_name(client, engine):
    await save(client, doc())
    started = await client.post("/api/runs", json={"sequence": "say", "args": {"who": "Bo"}})
    assert (await engine.runner.wait(started.json()["run_id"], T)).outputs == {"text": "hi Bo"}


async def test_starting_an_unknown_sequence_is_404(client):
    answer = await client.post("/api/runs", json={"sequence": "ghost"})
    assert answer.status_code == 404
    assert answer.json()["detail"] == "no saved sequence or group is named 'ghost'"


async def test_args_that_do_not_fit_are_422_with_every_problem_and_nothing_runs(client):
    await save(client, doc())
    answer = await client.post("/api/runs", json={"sequence": "greet", "args": {"who": 3, "extra": 1}})
    assert answer.status_code == 422
    assert answer.json()["problems"] == [
        "'who' must be a string, not number",
        "'extra' is not an input of this sequence (its inputs: who)",
    ]
    assert (await client.get("/api/runs")).json() == []


@pytest.mark.parametrize(("body", "says"), [
    ([], "the body must be a JSON object like"),
    ({"args": {}}, "give either sequence or document"),
    ({"sequence": 5}, "sequence: Input should be a valid string (got 5)"),
    ({"sequence": "greet", "args": [1]}, "args: Input should be a valid dictionary"),
    ({"sequence": "greet", "colour": "red"}, "colour: Extra inputs are not permitted"),
])
async def test_a_run_request_of_the_wrong_shape_is_422_saying_where(client, body, says):
    answer = await client.post("/api/runs", json=body)
    assert answer.status_code == 422
    assert says in answer.json()["detail"]


async def test_run_listing_pages_and_refuses_bad_numbers(client, engine):
    await save(client, doc())
    for who in ("a", "b", "c"):
        run_id = (await client.post("/api/runs", json={"sequence": "greet", "args": {"who": who}})).json()["run_id"]
        await engine.runner.wait(run_id, T)
    page = (await client.get("/api/runs", params={"limit": 2, "offset": 1})).json()
    assert [r["args"]["who"] for r in page] == ["b", "a"]
    bad = await client.get("/api/runs", params={"limit": "many"})
    assert bad.status_code == 422
    assert bad.json()["detail"].startswith("query.limit: Input should be a valid integer")
    assert (await client.get("/api/runs", params={"limit": 0})).status_code == 422


async def test_an_unknown_run_is_404_to_read_and_to_stop(client):
    assert (await client.get("/api/runs/nope")).json() == {"detail": "there is no run nope", "code": "not-found"}
    assert (await client.post("/api/runs/nope/stop")).status_code == 404


async def test_stopping_a_waiting_run_cancels_its_request_and_a_second_stop_says_false(client, engine):
    run_id, iid = await pending_approval(client, engine)
    stopped = await client.post(f"/api/runs/{run_id}/stop")
    assert stopped.status_code == 200 and stopped.json() == {"stopped": True}
    assert (await client.get(f"/api/runs/{run_id}")).json()["status"] == "stopped"
    interaction = (await client.get(f"/api/interactions/{iid}")).json()
    assert interaction["status"] == "cancelled" and interaction["result"]["reason"] == "turn_stopped"
    assert (await client.post(f"/api/runs/{run_id}/stop")).json() == {"stopped": False}
    late = await client.post(f"/api/interactions/{iid}/respond", json={"kind": "approval", "decision": "approved"})
    assert late.status_code == 409
    assert late.json()["detail"].startswith(f"interaction {iid} was cancelled (turn_stopped)")


async def test_a_stop_says_who_stopped_the_run_and_no_client_can_claim_the_apps_own_causes(client, engine):
    run_id, iid = await pending_approval(client, engine)
    for body, problem in (({"cause": "app_closed"}, 422), ({"cause": "person", "by": "x"}, 422), ("oops", 400)):
        sent = {"json": body} if not isinstance(body, str) else {
            "content": body, "headers": {"Content-Type": "application/json"}}
        refused = await client.post(f"/api/runs/{run_id}/stop", **sent)
        assert refused.status_code == problem, refused.text
        assert "agent_gave_up" in refused.json()["detail"]  # it says what may be sent
    assert (await client.get(f"/api/runs/{run_id}")).json()["status"] == "running"  # a refusal stops nothing
    stopped = await client.post(f"/api/runs/{run_id}/stop", json={"cause": "agent_gave_up"})
    assert stopped.json() == {"stopped": True}
    record = (await client.get(f"/api/runs/{run_id}")).json()
    assert (record["status"], record["cause"], record["error"]) == ("stopped", "agent_gave_up",
                                                                    "stopped: the agent stopped waiting")
    result = (await client.get(f"/api/interactions/{iid}")).json()["result"]
    assert (result["reason"], result["cause"]) == ("turn_stopped", "agent_gave_up")
    run_id = (await client.post("/api/runs", json={"sequence": "shell", "args": {"who": "Ada"}})).json()["run_id"]
    await client.post(f"/api/runs/{run_id}/stop")  # no body: the person, as before
    assert (await client.get(f"/api/runs/{run_id}")).json()["cause"] == "person"


# -- interactions ----------------------------------------------------------------------------------

async def test_approving_a_command_lets_the_run_succeed_with_its_output(client, engine):
    run_id, iid = await pending_approval(client, engine)
    pending = (await client.get("/api/interactions", params={"status": "pending"})).json()
    assert [(p["interaction_id"], p["request"]["command"]) for p in pending] == [(iid, "echo hello Ada")]
    answer = await client.post(f"/api/interactions/{iid}/respond", json={"kind": "approval", "decision": "approved"})
    assert answer.status_code == 200
    assert answer.json() == {"status": "resolved", "interaction_id": iid, "response": {
        "kind": "approval", "decision": "approved", "reason": None, "always_allow": False}}
    record = await engine.runner.wait(run_id, T)
    assert record.status == "succeeded" and record.outputs == {"text": "hello Ada"}
    assert (await client.get("/api/interactions", params={"status": "pending"})).json() == []
    assert [r["interaction_id"] for r in (await client.get("/api/interactions", params={"run_id": run_id})).json()] \
        == [iid]


async def test_a_second_answer_is_409_saying_it_was_already_answered(client, engine):
    _, iid = await pending_approval(client, engine)
    approve = {"kind": "approval", "decision": "denied", "reason": "not today"}
    assert (await client.post(f"/api/interactions/{iid}/respond", json=approve)).status_code == 200
    again = await client.post(f"/api/interactions/{iid}/respond", json=approve)
    assert again.status_code == 409
    assert again.json()["detail"].startswith(f"interaction {iid} was already answered")


async def test_of_two_answers_at_once_exactly_one_wins(client, engine):
    _, iid = await pending_approval(client, engine)
    url = f"/api/interactions/{iid}/respond"
    answers = await asyncio.gather(client.post(url, json={"kind": "approval", "decision": "approved"}),
                                   client.post(url, json={"kind": "approval", "decision": "denied"}))
    assert sorted(a.status_code for a in answers) == [200, 409]


async def test_the_seeds_wrapped_response_is_accepted(client, engine):
    run_id, iid = await pending_approval(client, engine)
    body = {"interaction_id": iid, "response": {"kind": "approval", "decision": "approved"}}
    assert (await client.post(f"/api/interactions/{iid}/respond", json=body)).status_code == 200
    assert (await engine.runner.wait(run_id, T)).status == "succeeded"


@pytest.mark.parametrize(("body", "says"), [
    ({"kind": "question", "answers": []}, "is an approval: a question response does not fit it"),
    ({"kind": "approval", "decision": "maybe"}, "decision: Input should be 'approved' or 'denied'"),
    ({"kind": "approval", "decision": "denied", "always_allow": True}, "'always allow' goes only with"),
    ({"response": {"kind": "approval", "decision": "approved"}, "interaction_id": "other"}, "does not match"),
    ({"response": "yes"}, "'response' must be a response like"),
    ([1, 2], "the body must be a response like"),
])
async def test_a_response_that_does_not_fit_is_422_and_it_stays_pending(client, engine, body, says):
    _, iid = await pending_approval(client, engine)
    answer = await client.post(f"/api/interactions/{iid}/respond", json=body)
    assert answer.status_code == 422
    assert says in answer.json()["detail"]
    assert (await client.get(f"/api/interactions/{iid}")).json()["status"] == "pending"


async def test_unknown_interactions_and_statuses_are_refused(client):
    assert (await client.get("/api/interactions/nope")).status_code == 404
    answer = await client.post("/api/interactions/nope/respond", json={"kind": "approval", "decision": "approved"})
    assert answer.status_code == 404
    assert answer.json() == {"detail": "there is no interaction nope", "code": "not-found"}
    bad = await client.get("/api/interactions", params={"status": "open"})
    assert bad.status_code == 422 and bad.json()["detail"].startswith("query.status: Input should be 'pending'")


async def test_a_missing_interaction_is_404_before_anything_is_said_about_the_body(client):
    for body in ({"kind": "approval"}, {"kind": "nonsense"}, [1]):
        answer = await client.post("/api/interactions/nope/respond", json=body)
        assert answer.status_code == 404 and answer.json()["detail"] == "there is no interaction nope"
    empty = await client.post("/api/interactions/nope/respond", content=b"",
                              headers={"Content-Type": "application/json"})
    assert empty.status_code == 404


async def test_a_scoped_approval_makes_a_rule_listed_and_removable_over_the_api(client, engine):
    run_id, iid = await pending_approval(client, engine)
    answer = await client.post(f"/api/interactions/{iid}/respond",
                               json={"kind": "approval", "decision": "approved", "scope": "sequence"})
    assert answer.status_code == 200
    [rule] = (await client.get("/api/approval-rules")).json()
    assert rule["scope"] == "sequence" and rule["tool"] == "cmd_run" and "in one step of the sequence" in rule["text"]
    assert (await client.delete(f"/api/approval-rules/{rule['rule_id']}")).status_code == 204
    assert (await client.get("/api/approval-rules")).json() == []
    missing = await client.delete(f"/api/approval-rules/{rule['rule_id']}")
    assert missing.status_code == 404 and "no approval rule" in missing.json()["detail"]


@pytest.mark.parametrize(("extra", "says"), [
    ({"scope": "forever"}, "scope"), ({"scope": "prefix", "prefix": ";"}, "operator"),
    ({"always_allow": True, "scope": "run"}, "always_allow is scope 'tool'")])
async def test_an_unknown_or_unfitting_scope_is_422_and_changes_nothing(client, engine, extra, says):
    run_id, iid = await pending_approval(client, engine)
    answer = await client.post(f"/api/interactions/{iid}/respond",
                               json={"kind": "approval", "decision": "approved", **extra})
    assert answer.status_code == 422 and says in answer.json()["detail"]
    assert (await client.get(f"/api/interactions/{iid}")).json()["status"] == "pending"
    assert (await client.get("/api/approval-rules")).json() == []


# -- an edit is the answer, and only edited_input carries one ----------------------------------------

@pytest.mark.parametrize("extra", [{"command": "echo owned"}, {"args": {"command": "echo owned"}},
                                   {"tool_input": {"command": "echo owned"}}, {"input": "echo owned"}])
async def test_a_command_anywhere_but_edited_input_is_422_and_nothing_runs(client, engine, extra):
    run_id, iid = await pending_approval(client, engine)
    for body in ({"kind": "approval", "decision": "approved", **extra},
                 {"response": {"kind": "approval", "decision": "approved", **extra}}):
        answer = await client.post(f"/api/interactions/{iid}/respond", json=body)
        assert answer.status_code == 422
        assert f"unexpected field(s) in an approval: {next(iter(extra))}" in answer.json()["detail"]
        assert "edited_input" in answer.json()["detail"]
    assert (await client.get(f"/api/interactions/{iid}")).json()["status"] == "pending"
    assert (await engine.get_run(run_id)).status == "running"


@pytest.mark.parametrize(("extra", "says"), [
    ({"scope": "run"}, "an edit is approved once: it cannot go with the scope 'run'"),
    ({"scope": "prefix", "prefix": "echo"}, "an edit is approved once"),
    ({"always_allow": True}, "an edit is approved once: it cannot go with the scope 'tool'"),
    ({"decision": "denied"}, "an edit goes only with an approval")])
async def test_an_edit_is_a_plain_approval_never_a_rule_or_a_denial(client, engine, extra, says):
    _, iid = await pending_approval(client, engine)
    body = {"kind": "approval", "decision": "approved", "edited_input": {"command": "echo changed"}, **extra}
    answer = await client.post(f"/api/interactions/{iid}/respond", json=body)
    assert answer.status_code == 422 and says in answer.json()["detail"]
    assert (await client.get(f"/api/interactions/{iid}")).json()["status"] == "pending"
    assert (await client.get("/api/approval-rules")).json() == []


async def test_an_edited_command_runs_and_the_interaction_and_the_run_keep_both_texts(client, engine):
    run_id, iid = await pending_approval(client, engine)
    asked = (await client.get(f"/api/interactions/{iid}")).json()["request"]["tool_input"]
    body = {"kind": "approval", "decision": "approved", "edited_input": {**asked, "command": "echo changed"}}
    assert (await client.post(f"/api/interactions/{iid}/respond", json=body)).status_code == 200
    record = await engine.runner.wait(run_id, T)
    assert record.status == "succeeded" and record.outputs == {"text": "changed"}
    interaction = (await client.get(f"/api/interactions/{iid}")).json()
    assert interaction["request"]["command"] == "echo hello Ada"
    assert interaction["result"]["response"]["edited_input"]["command"] == "echo changed"
    tool = (await client.get(f"/api/runs/{run_id}")).json()["groups"][0]["tools"][0]
    assert (tool["args"]["command"], tool["original_args"]["command"]) == ("echo changed", "echo hello Ada")
