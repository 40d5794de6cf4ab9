"""The terminal side of requests for a person, in process: what happens at the end of input, and
where the prompts go (stderr: stdout carries `--json` for scripts)."""

from __future__ import annotations

import asyncio
import io
import json

import pytest

from gui.cli.prompter import TerminalPrompter
from gui.core.elicitation import ElicitationRequest, InboxElicitationHandler
from gui.core.engine import Engine
from gui.core.interactions import ElicitationFieldSpec
from gui.tools import default_registry

T = 5.0
CHOOSE = {"name": "choose", "groups": [{"name": "pick", "out": {"answers": "object"}, "tools": json.dumps(
    {"tool": "ask_user", "args": {"title": "Where?", "questions": [
        {"id": "env", "prompt": "Which environment", "type": "single_select",
         "options": [{"value": "dev", "label": "Development"}]}]}, "as": "answers"}) + " ;"}]}


@pytest.fixture
async def engine():
    eng = Engine(registry=default_registry())
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
        server_name="db", message="How many rows?", fields=[ElicitationFieldSpec(name="rows", type="number")])), T)
    await prompter.close()
    assert reply.values == {"rows": 7}
    out, err = capsys.readouterr()
    assert out == ""
    assert "How many rows?" in err and "rows (number)" in err
