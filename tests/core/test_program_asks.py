"""A program asking the person through the door (`gui.core.door.asks`): its approval or question waits in
the inbox like a tool's, its answer comes back, its rules cover only the same program asking the same
again, and what it may send (and how often) is bounded."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from gui.core.asks import InteractionValidationError, ProgramSource
from gui.core.door import ASK_WAIT, AskState, ProgramAsk, TooManyAsks
from gui.core.door.asks import MAX_COMMAND, MAX_PER_MINUTE, MAX_WAITING, ProgramAsks
from gui.core.errors import NotFound


def approval(command: str = "git push", asker: str = "claude-code", **more) -> ProgramAsk:
    return ProgramAsk(kind="approval", title="Push the branch", command=command, asker=asker, **more)


async def answered(engine, state: AskState, response: dict) -> AskState:
    await engine.respond(state.ask_id, response)
    return await engine.ask_state(state.ask_id, ASK_WAIT)


async def test_an_approval_waits_in_the_inbox_as_a_programs_and_comes_back_approved(engine):
    state = await engine.ask(approval(cwd="/repo", text="pushes main to origin"))
    assert state.status == "pending" and state.kind == "approval"
    [record] = await engine.pending()
    request = record.request
    assert request.source == ProgramSource(asker="claude-code")
    assert (request.command, request.description, request.cwd, request.turn_id) == (
        "git push", "pushes main to origin", "/repo", "")
    done = await answered(engine, state, {"kind": "approval", "decision": "approved"})
    assert (done.status, done.auto) == ("approved", False)


async def test_a_denial_comes_back_with_the_persons_note(engine):
    state = await engine.ask(approval())
    done = await answered(engine, state, {"kind": "approval", "decision": "denied", "reason": "not on Friday"})
    assert (done.status, done.reason) == ("denied", "not on Friday")


async def test_a_question_with_choices_comes_back_with_the_choice(engine):
    state = await engine.ask(ProgramAsk(kind="question", text="Which branch?", choices=["main", "dev"]))
    answer = {"kind": "question", "answers": [{"question_id": "answer", "value": "dev"}]}
    done = await answered(engine, state, answer)
    assert (done.status, done.answer) == ("answered", "dev")


async def test_a_question_of_several_choices_and_a_declined_one(engine):
    several = await engine.ask(ProgramAsk(kind="question", text="Which checks?", choices=["lint", "tests"],
                                          multiple=True))
    answer = {"kind": "question", "answers": [{"question_id": "answer", "value": ["lint", "tests"]}]}
    assert (await answered(engine, several, answer)).answer == ["lint", "tests"]
    free = await engine.ask(ProgramAsk(kind="question", text="Why?"))
    declined = await answered(engine, free, {"kind": "question", "decision": "declined"})
    assert (declined.status, declined.answer) == ("declined", None)


async def test_nobody_answering_in_time_expires_it(engine):
    state = await engine.ask(approval(timeout=0.05))
    done = await engine.ask_state(state.ask_id, ASK_WAIT)
    assert done.status == "expired"


async def test_waiting_less_than_the_answer_takes_leaves_it_waiting(engine):
    state = await engine.ask(approval())
    assert (await engine.ask_state(state.ask_id, 0.01)).status == "pending"
    assert [r.interaction_id for r in await engine.pending()] == [state.ask_id]


async def test_a_program_that_stops_waiting_withdraws_its_request(engine):
    state = await engine.ask(approval())
    done = await engine.withdraw_ask(state.ask_id)
    assert (done.status, done.reason) == ("cancelled", "the agent stopped waiting")
    assert await engine.pending() == []


async def test_closing_the_app_cancels_what_programs_wait_for(engine):
    state = await engine.ask(approval())
    await engine.close()
    assert (await engine.ask_state(state.ask_id)).status == "cancelled"


async def test_only_a_programs_requests_are_reached_by_their_id(engine):
    with pytest.raises(NotFound):
        await engine.ask_state("nope")


async def test_the_persons_rule_covers_the_same_program_asking_the_same_command_only(engine):
    first = await engine.ask(approval())
    await answered(engine, first, {"kind": "approval", "decision": "approved", "scope": "program"})
    again = await engine.ask(approval())
    assert (again.status, again.auto) == ("approved", True)
    assert again.rule == "`git push` whenever the program that calls itself 'claude-code' asks it"
    assert (await engine.ask(approval(command="git push --force"))).status == "pending"
    assert (await engine.ask(approval(asker="other"))).status == "pending"
    [rule] = await engine.approval_rules()
    assert (rule.scope, rule.asker, rule.command) == ("program", "claude-code", "git push")
    await engine.revoke_approval_rule(rule.rule_id)
    assert (await engine.ask(approval())).status == "pending"


async def test_a_program_rule_approves_the_same_request_already_waiting(engine):
    first, second = await engine.ask(approval()), await engine.ask(approval())
    await answered(engine, first, {"kind": "approval", "decision": "approved", "scope": "program"})
    done = await engine.ask_state(second.ask_id, ASK_WAIT)
    assert (done.status, done.auto) == ("approved", True)


@pytest.mark.parametrize("scope", ["tool", "run", "sequence"])
async def test_no_wider_scope_can_be_given_to_a_program(engine, scope):
    state = await engine.ask(approval())
    with pytest.raises(InteractionValidationError, match="a program's request is allowed once"):
        await engine.respond(state.ask_id, {"kind": "approval", "decision": "approved", "scope": scope})
    with pytest.raises(InteractionValidationError):
        await engine.respond(state.ask_id, {"kind": "approval", "decision": "approved", "always_allow": True})
    assert (await engine.ask_state(state.ask_id)).status == "pending"


async def test_a_tool_always_allowed_never_lets_a_program_in(engine):
    await engine.modes.set("cmd_run", "always-allow")
    await engine.modes.set("", "always-allow")
    assert (await engine.ask(approval(command="rm -rf /"))).status == "pending"


async def test_too_many_waiting_requests_are_refused_until_some_are_answered(engine):
    states = [await engine.ask(approval(command=f"step {i}")) for i in range(MAX_WAITING)]
    with pytest.raises(TooManyAsks, match="already waiting"):
        await engine.ask(approval())
    await engine.withdraw_ask(states[0].ask_id)
    await engine.ask_state(states[0].ask_id, ASK_WAIT)
    assert (await engine.ask(approval())).status == "pending"


async def test_too_many_within_a_minute_are_refused(engine):
    now = [1000.0]
    asks = ProgramAsks(engine.interactions, clock=lambda: now[0])
    for i in range(MAX_PER_MINUTE):
        state = await asks.ask(approval(command=f"step {i}"))
        await asks.withdraw(state.ask_id)
    with pytest.raises(TooManyAsks, match="within a minute"):
        await asks.ask(approval())
    now[0] += 61
    assert (await asks.ask(approval())).status == "pending"


@pytest.mark.parametrize(("given", "says"), [
    ({"kind": "approval"}, "needs the command"),
    ({"kind": "approval", "command": "ls", "choices": ["a"]}, "takes no choices"),
    ({"kind": "question"}, "needs its text"),
    ({"kind": "question", "text": "?", "command": "ls"}, "takes no command"),
    ({"kind": "question", "text": "?", "multiple": True}, "multiple goes with choices"),
    ({"kind": "approval", "command": "ls", "title": "two\nlines"}, "title must be one line"),
    ({"kind": "approval", "command": "ls\u202e -la"}, r"U\+202E"),
    ({"kind": "approval", "command": "ls\x1b[2J"}, r"U\+001B"),
    ({"kind": "approval", "command": "x" * (MAX_COMMAND + 1)}, "at most 8000 characters"),
    ({"kind": "approval", "command": "ls", "asker": "<b>claude</b>"}, "asker is a name"),
    ({"kind": "approval", "command": "ls", "timeout": 10**6}, "less than or equal to 86400"),
    ({"kind": "question", "text": "?", "choices": ["a", "a"]}, "two choices are the same"),
    ({"kind": "approval", "command": "ls", "always": True}, "Extra inputs"),
    ({"kind": "approval", "command": 3}, "command"),
])
def test_what_cannot_be_shown_as_it_is_is_refused_naming_its_field(given, says):
    with pytest.raises(ValidationError, match=says):
        ProgramAsk.model_validate(given)
