"""Inputs inserted into shell text are one quoted word: no metacharacter an input holds can run."""

from __future__ import annotations

import asyncio
import json
import shlex
import subprocess

import pytest
from support.builders import group, seq, tools
from support.waiting import within

from gui.core.asks.interactions import ApprovalResponse, ShellApprovalRequest
from gui.core.events import InteractionCreated
from gui.core.sequences.substitution import bound_inputs, substitute
from gui.core.tools.registry import Registry
from gui.memory import MemoryStores
from gui.runtime import compose_engine
from gui.tools import builtin_tools

T = 5.0
NASTY = ["x; touch INJECTED", "$(touch INJECTED)", "`touch INJECTED`", "a && touch INJECTED", "a | tee INJECTED",
         "a > INJECTED", "a\ntouch INJECTED", "it's", '"quoted"', "*", "~", "a\\b", "$HOME", "--flag", " spaced  out ",
         "", "ünïcode ✓", "#comment", "!!", "{a,b}", "a&", "(sub)"]


@pytest.mark.parametrize("value", NASTY)
def test_an_input_inside_a_command_is_one_word_whatever_it_holds(value):
    command = substitute({"command": "printf %s $args.v"}, {"v": value}, shell={"command"})["command"]
    assert shlex.split(command) == ["printf", "%s", value]
    printed = subprocess.run(["sh", "-c", command], capture_output=True, text=True, timeout=T)
    assert printed.stdout == value


def test_outside_shell_text_and_for_a_whole_value_nothing_is_quoted():
    args = {"command": "$args.cmd", "label": "see $args.v", "nested": ["$args.v"]}
    out = substitute(args, {"cmd": "ls -l", "v": "a b"}, shell={"command"})
    assert out == {"command": "ls -l", "label": "see a b", "nested": ["a b"]}


def test_the_inputs_a_call_uses_are_named_with_their_values():
    args = {"command": "echo $args.host $args.n", "other": "$args.host"}
    assert bound_inputs(args, {"host": "h", "n": 3, "unused": 1}) == {"host": "h", "n": 3}


async def test_an_injected_input_runs_as_text_and_the_approval_names_it(tmp_path):
    engine = compose_engine(Registry(builtin_tools()), MemoryStores())
    asked: asyncio.Queue[InteractionCreated] = asyncio.Queue()
    engine.subscribe(lambda e: asked.put_nowait(e) if isinstance(e, InteractionCreated) else None)
    marker = tmp_path / "INJECTED"
    call = {"tool": "cmd_run", "args": {"command": "echo detail for $args.host", "cwd": str(tmp_path)}, "as": "said"}
    await engine.create(seq(group("g", **{"in": {"host": "string"}}, out={"said": "string"}, tools=tools(call))))
    run = await engine.start("s", {"host": f"x; touch {marker}"})
    created = await within(asked.get(), "the approval request")
    request = (await engine.get_interaction(created.interaction_id)).request
    assert isinstance(request, ShellApprovalRequest)
    assert request.command == f"echo detail for {shlex.quote(f'x; touch {marker}')}"
    assert request.bound_inputs == {"host": f"x; touch {marker}"}
    await engine.respond(created.interaction_id, ApprovalResponse(decision="approved"))
    record = await engine.runner.wait(run.run_id, T)
    assert record.status == "succeeded", json.dumps(record.to_summary_json())
    assert not marker.exists()
    assert record.outputs["said"].strip() == f"detail for x; touch {marker}"
