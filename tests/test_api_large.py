"""Large sequences over the HTTP API: over the limits a sentence naming the limit (413 for the bytes of
a body, 422 for too many groups or tools), and under them no answer holds up the others."""

from __future__ import annotations

import json

import pytest
from support.loop_watch import LoopWatch

from gui.api.body import MAX_BODY_BYTES
from gui.core.sequences.limits import MAX_GROUPS
from gui.core.sequences.model import Group, Sequence, ToolCall

HOLD = 0.100  # the most the loop may work on one request before it answers anything else
TOOL = json.dumps({"tool": "echo", "args": {"value": "$args.host"}, "as": "r"}) + " ;"


def many(groups: int, name: str = "big") -> dict:
    return {"name": name, "description": "", "groups": [
        {"name": f"{name}-{g}", "in": {"host": "string"}, "out": {"r": "string"}, "tools": TOOL}
        for g in range(groups)]}


def stored_before_the_limits(groups: int) -> Sequence:
    """A sequence of `groups` groups as an older SeqDesk, with no limits, could have saved it."""
    call = ToolCall(tool="echo", args={"value": "$args.host"}, as_="r")
    return Sequence(name="older", groups=tuple(Group(name=f"older-{g}", in_={"host": "string"}, out={"r": "string"},
                                                     when='$args.host != ""', tools=(call,)) for g in range(groups)))


@pytest.mark.parametrize("method, path, wrap", [
    ("POST", "/api/sequences", lambda doc: doc),
    ("PUT", "/api/sequences/big", lambda doc: doc),
    ("POST", "/api/runs", lambda doc: {"document": doc, "args": {"host": "h"}}),
])
async def test_a_sequence_of_too_many_groups_is_422_with_a_sentence_naming_the_limit(client, method, path, wrap):
    await client.post("/api/sequences", json=many(3))
    answer = await client.request(method, path, json=wrap(many(MAX_GROUPS + 1)))
    assert answer.status_code == 422, answer.text
    body = answer.json()
    assert [p["code"] for p in body["errors"]] == ["too-many-groups"]
    assert f"the sequence has {MAX_GROUPS + 1} groups, more than the {MAX_GROUPS} one sequence may have" \
           in body["detail"]
    kept = (await client.get("/api/sequences/big")).json()["groups"]
    assert [g["name"] for g in kept] == ["big-0", "big-1", "big-2"]  # nothing was replaced


async def test_a_body_over_the_byte_limit_is_413_naming_the_limit(client):
    doc = {**many(1), "description": "x" * MAX_BODY_BYTES}
    answer = await client.post("/api/sequences", json=doc)
    assert answer.status_code == 413
    assert answer.json()["detail"] == "the request body is larger than the limit of 2 MB (2097152 bytes)"


async def test_checking_a_sequence_over_the_limit_says_so_as_a_problem(client):
    answer = await client.post("/api/check", json={"document": many(MAX_GROUPS + 1)})
    assert answer.status_code == 200
    assert [p["code"] for p in answer.json()["errors"]] == ["too-many-groups"]


async def test_saving_and_reading_back_a_sequence_at_the_limit_never_holds_up_other_requests(client):
    async with LoopWatch() as watch:
        saved = await client.post("/api/sequences", json=many(MAX_GROUPS))
        replaced = await client.put("/api/sequences/big", json=many(MAX_GROUPS))
        read = await client.get("/api/sequences/big")
        started = await client.post("/api/runs", json={"sequence": "big", "args": {"host": "h"}})
    assert [saved.status_code, replaced.status_code, read.status_code, started.status_code] == [201, 200, 200, 202]
    assert len(read.json()["groups"]) == MAX_GROUPS
    assert watch.longest < HOLD, f"the loop worked {watch.longest * 1000:.0f} ms without answering anything else"


async def test_a_sequence_saved_before_the_limits_is_read_back_without_holding_up_other_requests(client, engine):
    await engine.sequences.save(stored_before_the_limits(10_000))
    async with LoopWatch() as watch:
        read = await client.get("/api/sequences/older")
        text = await client.get("/api/sequences/older", params={"format": "text"})
        listed = await client.get("/api/sequences")
    assert read.status_code == 200 and len(read.json()["groups"]) == 10_000
    assert text.status_code == 200 and json.loads(text.text)["groups"] == read.json()["groups"]
    assert [s["name"] for s in listed.json()] == ["older"]
    assert watch.longest < HOLD, f"the loop worked {watch.longest * 1000:.0f} ms without answering anything else"


async def test_a_sequence_saved_before_the_limits_is_kept_but_not_run_until_split(client, engine):
    await engine.sequences.save(stored_before_the_limits(MAX_GROUPS + 1))
    call = {"tool": "seq_call", "args": {"name": "older", "args": {"host": "h"}}, "as": "r"}
    await engine.create({"name": "caller", "groups": [
        {"name": "caller-0", "out": {"r": "object"}, "tools": json.dumps(call) + " ;"}]})
    started = await client.post("/api/runs", json={"sequence": "older", "args": {"host": "h"}})
    assert started.status_code == 422
    assert f"the sequence has {MAX_GROUPS + 1} groups, more than the {MAX_GROUPS}" in started.json()["detail"]
    called = await engine.run("caller")  # through seq_call, the calling tool fails with the same sentence
    assert called.status == "failed"
    assert f"the sequence has {MAX_GROUPS + 1} groups" in (called.groups[0].tools[0].error or "")
    assert (await client.get("/api/sequences/older")).status_code == 200  # kept, and read back
    assert (await client.delete("/api/sequences/older")).status_code == 204
    assert await engine.list_runs() == [called]
