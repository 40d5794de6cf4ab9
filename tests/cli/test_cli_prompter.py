"""The terminal side of requests for a person, in process: what happens at the end of input, and
where the prompts go (stderr: stdout carries `--json` for scripts)."""

from __future__ import annotations

import asyncio
import io
import json
import sys
from typing import ClassVar

import pytest
from pydantic import BaseModel

from gui.cli import prompter as prompter_module
from gui.cli.prompter import TerminalPrompter
from gui.core.asks.elicitation import InboxElicitationHandler
from gui.core.asks.interactions import ElicitationField, ElicitationRequest
from gui.core.door.engine import Engine
from gui.core.tools.registry import ModelTool, ToolContext
from gui.memory import MemoryStores
from gui.runtime import compose_engine
from gui.tools import default_registry

T = 5.0
CHOOSE = {"name": "choose", "groups": [{"name": "pick", "out": {"answers": "object"}, "tools": json.dumps(
    {"tool": "ask_user", "args": {"title": "Where?", "questions": [
        {"id": "env", "prompt": "Which environment", "type": "single_select",
         "options": [{"value": "dev", "label": "Development"}]}]}, "as": "answers"}) + " ;"}]}


@pytest.fixture
async def engine():
    eng = compose_engine(default_registry(), MemoryStores())
    yield eng
    await eng.close()


def prompter_on(engine: Engine, monkeypatch, typed: str) -> TerminalPrompter:
    monkeypatch.setattr("sys.stdin", io.StringIO(typed))
    prompter = TerminalPrompter(engine, yes=False, interactive=True)
    engine.bus.subscribe(prompter.on_event)
    return prompter


async def test_end_of_input_at_a_choice_cancels_the_question_instead_of_asking_forever(engine, monkeypatch):
    prompter = prompter_on(engine, monkeypatch, "")
    await engine.create(CHOOSE)
    record = await asyncio.wait_for(engine.run("choose", {}), T)
    await prompter.close()
    assert record.status == "failed"
    [question] = await engine.interaction_store.list()
    assert (question.status, question.result.reason) == ("cancelled", "no_one_to_ask")


async def test_a_forms_prompts_go_to_stderr_so_stdout_stays_clean_for_json(engine, monkeypatch, capsys):
    prompter = prompter_on(engine, monkeypatch, "7\n")
    handler = InboxElicitationHandler(engine.interactions)
    reply = await asyncio.wait_for(handler.handle_elicitation(ElicitationRequest(
        server_name="db", message="How many rows?", fields=[ElicitationField(name="rows", type="number")])), T)
    await prompter.close()
    assert reply.values == {"rows": 7}
    out, err = capsys.readouterr()
    assert out == ""
    assert "How many rows?" in err and "rows (number)" in err


class NoArgs(BaseModel):
    pass


class FinishesDuringThePrompt(ModelTool):
    """Runs beside the question and ends only once the prompt is open: its progress line must wait."""

    name = "during_prompt"
    description = "ends while the person is being asked"
    Args: ClassVar = NoArgs

    def __init__(self) -> None:
        self.go = asyncio.Event()

    async def call(self, args: dict, ctx: ToolContext) -> str:
        await self.go.wait()
        return "done"


def scripted_input(monkeypatch, answers: list[str], on_prompt) -> None:
    """The terminal, typed by the test: each prompt calls `on_prompt`, then gets the next answer."""
    def read(prompt: str) -> str:
        print(prompt, end="", file=sys.stderr, flush=True)
        on_prompt()
        return answers.pop(0)
    monkeypatch.setattr(prompter_module, "_read_line", read)  # the module object: no import by name


async def test_progress_lines_wait_while_a_prompt_is_open_then_follow_it(engine, monkeypatch, capsys):
    tool = FinishesDuringThePrompt()
    engine.registry.add(tool)
    loop = asyncio.get_running_loop()
    seen_while_open: list[str] = []

    def on_prompt() -> None:
        loop.call_soon_threadsafe(tool.go.set)  # the other tool ends now, while the prompt is open
        finished = asyncio.run_coroutine_threadsafe(wait_finished(), loop)
        finished.result(T)
        seen_while_open.append(capsys.readouterr().err)

    finished_event = asyncio.Event()
    engine.bus.subscribe(lambda e: finished_event.set() if e.type == "tool.finished" else None)

    async def wait_finished() -> None:
        await asyncio.wait_for(finished_event.wait(), T)

    scripted_input(monkeypatch, ["1"], on_prompt)
    prompter = TerminalPrompter(engine, yes=False, interactive=True)
    engine.bus.subscribe(prompter.on_event)
    doc = json.loads(json.dumps(CHOOSE))
    doc["groups"][0]["tools"] += ' {"tool": "during_prompt"} ;'
    await engine.create(doc)
    record = await asyncio.wait_for(engine.run("choose", {}), T)
    await prompter.close()
    assert record.status == "succeeded"
    (while_open,) = seen_while_open
    assert "Which environment" in while_open and "during_prompt" not in while_open
    after = capsys.readouterr().err
    assert "✓ during_prompt succeeded" in after


async def test_an_optional_question_is_skipped_with_enter_and_decline_answers_none(engine, monkeypatch):
    doc = {"name": "opt", "groups": [{"name": "opt-g", "out": {"answers": "object"}, "tools": json.dumps(
        {"tool": "ask_user", "as": "answers", "args": {"title": "T", "questions": [
            {"id": "a", "prompt": "Pick", "type": "single_select", "options": ["alpha", "beta"]},
            {"id": "b", "prompt": "More", "required": False}]}}) + " ;"}]}
    await engine.create(doc)
    scripted_input(monkeypatch, ["2", ""], lambda: None)
    prompter = TerminalPrompter(engine, yes=False, interactive=True)
    unsubscribe = engine.bus.subscribe(prompter.on_event)
    record = await asyncio.wait_for(engine.run("opt", {}), T)
    assert record.outputs["answers"] == {"a": "beta", "b": None}
    unsubscribe()
    scripted_input(monkeypatch, ["/decline"], lambda: None)
    engine.bus.subscribe(prompter.on_event)
    record = await asyncio.wait_for(engine.run("opt", {}), T)
    await prompter.close()
    tool = record.groups[0].tools[0]
    assert tool.status == "failed" and tool.denied and tool.error.startswith("declined by the user")


async def test_the_terminal_says_which_input_will_be_run_as_a_command_before_asking(engine, monkeypatch, capsys):
    prompter = prompter_on(engine, monkeypatch, "n\n\n")
    doc = {"name": "code", "groups": [{"name": "code-g", "in": {"code": "string", "host": "string"}, "out": {},
                                       "tools": json.dumps({"tool": "cmd_run", "args": {
                                           "command": 'echo $args.host; sh -c "$args.code"'}}) + " ;"}]}
    await engine.create(doc)
    record = await asyncio.wait_for(engine.run("code", {"code": "id", "host": "h"}), T)
    await prompter.close()
    assert record.status == "failed"
    _, err = capsys.readouterr()
    assert "! the input code will be run as a command (by sh -c)" in err
    assert "the input host" not in err


async def test_yes_that_may_not_approve_says_so_and_leaves_the_request_waiting(monkeypatch, capsys):
    """On a team, `--yes` approves only what this person may: a step that names other approvers is
    refused with a sentence, no "approved" line is printed, and the request waits for someone who may."""
    from support.team_directory import TEAM, Team
    from support.waiting import wait_until

    team_engine = compose_engine(default_registry(), MemoryStores(), directory=Team(TEAM))
    try:
        prompter = TerminalPrompter(team_engine, yes=True, interactive=False)
        team_engine.bus.subscribe(prompter.on_event)
        step = {"tool": "cmd_run", "args": {"command": "echo hi"}, "as": "said", "approvers": ["role:oncall"]}
        await team_engine.create({"name": "gated", "groups": [{"name": "g", "out": {"said": "string"},
                                                               "tools": json.dumps(step) + " ;"}]})
        await team_engine.start("gated", {})
        said: list[str] = []

        def refused() -> bool:
            said.append(capsys.readouterr().err)
            return "not answered from here" in "".join(said)

        await wait_until(refused, "the refusal on stderr", timeout=T)
        await prompter.close()
        err = "".join(said)
        assert "is not among the approvers" in err and "waits in the inbox" in err, err
        assert "approved (--yes)" not in err
        [waiting] = await team_engine.interaction_store.list()
        assert waiting.status == "pending"
    finally:
        await team_engine.close()
