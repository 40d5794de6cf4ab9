"""Inputs in shell text at save and when a step runs: refused where they could become code (located,
in plain words), warned of where a program runs them as code, and the approval says so."""

from __future__ import annotations

import asyncio
import json

import pytest
from support.builders import group, seq, tools
from support.waiting import within

from gui.core.asks.interactions import ApprovalResponse, ShellApprovalRequest
from gui.core.events import InteractionCreated
from gui.core.sequences.substitution import ShellPlaceError, substitute
from gui.core.sequences.textpos import locate
from gui.core.sequences.validator import check_document, parse_sequence
from gui.core.tools import tool_catalog
from gui.core.tools.registry import Registry
from gui.memory import MemoryStores
from gui.runtime import compose_engine
from gui.tools import builtin_tools, default_registry

T = 5.0


def command_doc(command: str, x_type: str = "string") -> dict:
    call = {"tool": "cmd_run", "args": {"command": command}, "as": "said"}
    return seq(group("g", **{"in": {"x": x_type}}, out={"said": "string"}, tools=tools(call)))


def check(command: str, x_type: str = "string"):
    return check_document(command_doc(command, x_type), tool_catalog(default_registry()))


def test_an_input_inside_single_quotes_is_refused_at_save_pointing_at_it_with_what_to_write():
    result = check("echo 'hello $args.x'")
    [problem] = result.errors
    assert problem.code == "input-in-shell-code"
    assert problem.loc == ("groups", 0, "tools", 0, "args", "command")
    assert problem.offset == len("echo 'hello ")
    assert problem.message.startswith("remove the quotes around $args.x: SeqDesk quotes inputs for you")
    text = json.dumps(command_doc("echo 'hello $args.x'"), indent=2)
    start, end = locate(text, problem)
    assert text[start:end] == "$args.x"


@pytest.mark.parametrize(("command", "words"), [
    ("echo `echo $args.x`", "write $(…) instead of `…`"),
    ('echo "${HOME:-$args.x}"', "use it outside the ${…}"),
    ("echo $(( $args.x + 1 ))", "make it a number input"),
    ("(( $args.x > 1 )) && echo big", "is inside arithmetic"),
    ("a[$args.x]=1", "an index a[…]"),
    ("cat <<EOF\n$args.x\nEOF", "pass it another way"),
    ("echo \\$args.x", "remove the \\ before $args.x"),
    ("echo ok # $args.x", "take it out of the comment"),
    ("echo $'$args.x'", "remove the $'…' around $args.x"),
])
def test_every_place_where_a_value_could_become_code_is_refused_with_its_own_words(command, words):
    [problem] = check(command).errors
    assert problem.code == "input-in-shell-code" and words in problem.message


def test_quoted_and_unquoted_inputs_save_without_a_word():
    result = check('printf "%s: %s\\n" "$args.x" $args.x && echo "$(printf %s "$args.x")"')
    assert result.ok and result.warnings == []


def test_a_number_input_may_go_where_the_shell_reads_it_again():
    assert check("echo $(( $args.x + 1 )) '$args.x'", x_type="number").ok
    assert not check("echo $(( $args.x + 1 ))", x_type="string").ok


def test_an_input_a_program_runs_as_code_saves_with_a_warning_that_names_the_program():
    result = check('bash -c "$args.x"')
    assert result.ok
    [warning] = result.warnings
    assert warning.code == "input-runs-as-command" and warning.offset == len('bash -c "')
    assert warning.message.startswith("$args.x will be run as a command by bash -c")
    [whole] = check("$args.x").warnings
    assert whole.code == "input-runs-as-command" and whole.message.startswith("the whole command is $args.x")


def test_a_tool_whose_arguments_are_not_shell_text_is_not_read_as_shell():
    call = {"tool": "echo", "args": {"value": "it's '$args.x'"}, "as": "said"}
    doc = seq(group("g", **{"in": {"x": "string"}}, out={"said": "string"}, tools=tools(call)))
    assert check_document(doc, tool_catalog(default_registry())).ok


def test_a_refused_place_is_refused_again_when_the_step_runs_never_run():
    with pytest.raises(ShellPlaceError) as caught:
        substitute({"command": "echo '$args.x'"}, {"x": "'; touch P; '"}, shell={"command"})
    assert caught.value.path == ("command",) and caught.value.offset == len("echo '")
    assert str(caught.value).startswith("args.command: remove the quotes around $args.x")
    assert substitute({"command": "echo $(( $args.n ))"}, {"n": 41}, shell={"command"}) == {"command": "echo $(( 41 ))"}
    with pytest.raises(ShellPlaceError):
        substitute({"command": "echo $(( $args.n ))"}, {"n": "41"}, shell={"command"})


def test_a_value_with_a_nul_character_is_refused_with_a_sentence_not_a_crash():
    with pytest.raises(ShellPlaceError, match="NUL"):
        substitute({"command": "echo $args.x"}, {"x": "a\0b"}, shell={"command"})


def test_inside_double_quotes_a_plain_value_goes_in_as_it_is_and_any_other_as_a_quoted_piece():
    out = substitute({"command": 'echo "<$args.x> <$args.y>"'}, {"x": 'a"$(b)`c', "y": "it's 中文"},
                     shell={"command"})
    assert out == {"command": 'echo "<"\'a"$(b)`c\'"> <it\'s 中文>"'}


async def test_a_stored_sequence_with_an_input_in_quotes_fails_at_run_time_with_the_reason(tmp_path):
    engine = compose_engine(Registry(builtin_tools()), MemoryStores())
    await engine.modes.set("cmd_run", "always-allow")
    doc = command_doc(f"cd {tmp_path} && echo '$args.x'")
    record = await within(engine.runner.run(parse_sequence(doc), {"x": "'; touch P; '"}), "the run's end")
    assert record.status == "failed"
    [tool] = [t for g in record.groups for t in g.tools]
    assert "remove the quotes around $args.x" in (tool.error or "")
    assert list(tmp_path.iterdir()) == []


async def test_the_approval_names_each_input_that_will_be_run_as_a_command():
    engine = compose_engine(Registry(builtin_tools()), MemoryStores())
    asked: asyncio.Queue[InteractionCreated] = asyncio.Queue()
    engine.subscribe(lambda e: asked.put_nowait(e) if isinstance(e, InteractionCreated) else None)
    call = {"tool": "cmd_run", "args": {"command": 'echo $args.y; sh -c "$args.x"'}, "as": "said"}
    await engine.create(seq(group("g", **{"in": {"x": "string", "y": "string"}}, out={"said": "string"},
                                  tools=tools(call))))
    run = await engine.start("s", {"x": "echo from x", "y": "plain"})
    created = await within(asked.get(), "the approval request")
    request = (await engine.get_interaction(created.interaction_id)).request
    assert isinstance(request, ShellApprovalRequest)
    assert request.run_as_code == {"x": "sh -c"}
    assert request.bound_inputs == {"y": "plain", "x": "echo from x"}
    await engine.respond(created.interaction_id, ApprovalResponse(decision="denied"))
    await engine.runner.wait(run.run_id, T)
