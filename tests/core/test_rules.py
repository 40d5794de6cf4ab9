"""Approval scopes: each rule allows exactly what it says, a prefix never covers a compound command,
a wider answer covers the requests already waiting, and every auto-approval names its rule."""

from __future__ import annotations

import asyncio

import pytest
from support.builders import group, seq, tools
from support.waiting import within

from gui.core.asks import InteractionValidationError
from gui.core.asks.interactions import ShellApprovalRequest, ToolSource
from gui.core.asks.rules import (
    ApprovalRule,
    RuleError,
    command_starts_with,
    made_for_earlier_version,
    rule_for,
    rule_text_words,
)
from gui.core.door.engine import Engine
from gui.core.events import InteractionCreated
from gui.core.tools.registry import Registry
from gui.memory import MemoryStores
from gui.runtime import compose_engine
from gui.tools import builtin_tools

T = 5.0


def shell(command: str, run: str = "r1", sequence: str = "s", tool: str = "cmd_run", step: str | None = "f1",
          identity: str | None = "id1") -> ShellApprovalRequest:
    return ShellApprovalRequest(interaction_id=f"i-{command}", turn_id=run, created_at=0, title="Run", command=command,
                                cwd="/", reason="r", operation="exec", sequence_name=sequence, group_name="g",
                                step_fingerprint=step, sequence_identity=identity,
                                source=ToolSource(tool_call_id="c", tool_name=tool))


@pytest.mark.parametrize("command", ["git status; rm -rf x", "git status && rm -rf x", "git status | sh",
                                     "git status > out", "git status $(rm -rf x)", "git status `rm x`",
                                     "git status\nrm -rf x", "git statusx", "git", "rm -rf x", "git log"])
def test_a_prefix_rule_never_covers_a_compound_or_another_command(command):
    rule = ApprovalRule(rule_id="p", tool="cmd_run", scope="prefix", prefix="git status")
    assert not rule.matches(shell(command))


@pytest.mark.parametrize("command", ["git status", "git status --short", "git  status  -s", "'git' status"])
def test_a_prefix_rule_covers_the_commands_that_start_with_its_words(command):
    assert command_starts_with(command, "git status")
    assert ApprovalRule(rule_id="p", tool="cmd_run", scope="prefix", prefix="git status").matches(shell(command))


def test_run_and_sequence_rules_cover_only_their_step_in_their_run_and_their_sequence():
    run = ApprovalRule(rule_id="a", tool="cmd_run", scope="run", run_id="r1", step_fingerprint="f1")
    assert run.matches(shell("ls")) and not run.matches(shell("ls", run="r2"))
    assert not run.matches(shell("ls", tool="file_write"))
    assert not run.matches(shell("ls", step="f2"))  # another step of the same run asks
    in_seq = ApprovalRule(rule_id="b", tool="cmd_run", scope="sequence", sequence="s", step_fingerprint="f1",
                          sequence_identity="id1")
    assert in_seq.matches(shell("ls", run="r9")) and not in_seq.matches(shell("ls", sequence="other"))
    assert not in_seq.matches(shell("ls", step="f2"))  # the step changed
    assert not in_seq.matches(shell("ls", identity="id2"))  # the same name, another sequence (made again)
    assert not in_seq.matches(shell("ls", identity=None))  # a file run of that name: no saved sequence


def test_run_and_sequence_rules_kept_by_an_earlier_seqdesk_cover_nothing_and_prefix_rules_still_work():
    """Stored before rules kept their step: they must not silently cover every step."""
    old_run = ApprovalRule(rule_id="a", tool="cmd_run", scope="run", run_id="r1")
    old_seq = ApprovalRule(rule_id="b", tool="cmd_run", scope="sequence", sequence="s")
    old_prefix = ApprovalRule(rule_id="c", tool="cmd_run", scope="prefix", prefix="git status")
    assert not old_run.matches(shell("ls")) and not old_seq.matches(shell("ls"))
    assert not old_seq.matches(shell("ls", step=None, identity=None))
    assert old_prefix.matches(shell("git status -s", step="any"))  # as its words said when it was made
    assert old_prefix.text == "commands that start with `git status`"
    assert old_seq.text == "cmd_run whenever the sequence 's' runs"  # its words, as they read when it was made
    assert made_for_earlier_version(old_seq, None)


def test_a_prefix_rule_covers_its_words_in_its_step_wherever_that_step_runs():
    rule = ApprovalRule(rule_id="p", tool="cmd_run", scope="prefix", prefix="git status", step_fingerprint="f1",
                        group="g")
    assert rule.matches(shell("git status -s", step="f1"))
    assert rule.matches(shell("git status -s", sequence="other", step="f1", identity="id9"))  # the same step
    assert not rule.matches(shell("git status -s", step="f9"))  # another step (or this one changed) asks
    assert not rule.matches(shell("git push", step="f1"))  # and in its step, its words decide
    assert rule.text == "commands that start with `git status`, in one step (group 'g')"


def test_a_rule_records_the_step_and_the_sequence_it_was_made_from():
    request = shell("ls", step="f7", identity="id7")
    in_seq = rule_for("sequence", request, prefix=None, now_ms=5)
    assert (in_seq.step_fingerprint, in_seq.sequence_identity, in_seq.sequence, in_seq.group) == ("f7", "id7", "s", "g")
    assert in_seq.text == "cmd_run in one step of the sequence 's' (group 'g'), as it was when you allowed it"
    run = rule_for("run", request, prefix=None, now_ms=5)
    assert (run.step_fingerprint, run.run_id, run.sequence_identity) == ("f7", "r1", None)
    assert run.text == "cmd_run in one step (group 'g'), for the rest of run r1"
    assert rule_for("prefix", request, prefix="ls", now_ms=5).step_fingerprint == "f7"
    assert rule_for("tool", request, prefix=None, now_ms=5).step_fingerprint is None


@pytest.mark.parametrize("text", [
    "cmd_run in one step of the sequence 's' (group 'g'), as it was when you allowed it",
    "cmd_run in one step (group 'g x'), for the rest of run r1",
    "cmd_run whenever the sequence 'old one' runs", "cmd_run for the rest of run r0",
    "commands that start with `git status`", "commands that start with `git status`, in one step (group 'g')",
    "every cmd_run request, in every sequence"])
def test_a_rule_kept_in_a_record_is_read_back_new_words_and_earlier_ones(text):
    assert rule_text_words(text, lambda t: "<" + t + ">").startswith("<")
    assert rule_text_words(text) == text


@pytest.mark.parametrize(("scope", "prefix", "request_", "says"), [
    ("prefix", "git status", shell("git status", tool="file_write"), "is for cmd_run"),
    ("prefix", "git log", shell("git status"), "does not start with"),
    ("prefix", "git status; rm", shell("git status; rm"), "shell operator"),
    ("prefix", "", shell("git status"), "needs the words"),
    ("run", "git", shell("git status"), "goes only with the scope prefix"),
    ("sequence", None, shell("ls", sequence=""), "no saved sequence"),
    ("sequence", None, shell("ls", identity=None), "no saved sequence"),
    ("sequence", None, shell("ls", step=None), "does not say which step"),
    ("run", None, shell("ls", step=None), "does not say which step"),
])
def test_a_rule_that_does_not_fit_its_request_is_refused_saying_why(scope, prefix, request_, says):
    with pytest.raises(RuleError, match=says):
        rule_for(scope, request_, prefix=prefix, now_ms=0)


def engine_with_two_commands() -> tuple[Engine, dict]:
    engine = compose_engine(Registry(builtin_tools()), MemoryStores())
    calls = tools({"tool": "cmd_run", "args": {"command": "echo one"}},
                  {"tool": "cmd_run", "args": {"command": "echo two"}})
    return engine, seq(group("g", tools=calls))


async def asked(engine: Engine, count: int) -> list[str]:
    queue: asyncio.Queue[str] = asyncio.Queue()
    engine.subscribe(lambda e: queue.put_nowait(e.interaction_id)
                     if isinstance(e, InteractionCreated) and e.record.get("status") == "pending" else None)
    return [await within(queue.get(), "a pending request") for _ in range(count)]


async def test_allowing_for_the_run_allows_the_same_step_already_waiting_and_names_the_rule_but_not_another():
    engine = compose_engine(Registry(builtin_tools()), MemoryStores())
    await engine.create(seq(group("g", tools=tools({"tool": "cmd_run", "args": {"command": "echo one"}},
                                                   {"tool": "cmd_run", "args": {"command": "echo one"}},
                                                   {"tool": "cmd_run", "args": {"command": "echo two"}}))))
    waiting = asyncio.create_task(asked(engine, 3))
    run = await engine.start("s", {})
    ids = await waiting
    by_command = {}
    for iid in ids:
        by_command.setdefault((await engine.get_interaction(iid)).request.command, []).append(iid)
    first, same = by_command["echo one"]
    [other] = by_command["echo two"]
    await engine.respond(first, {"kind": "approval", "decision": "approved", "scope": "run"})
    sibling = await engine.get_interaction(same)
    assert sibling.status == "resolved" and sibling.auto  # the same step, already waiting
    assert (await engine.get_interaction(other)).status == "pending"  # another step: the person did not see it
    [rule] = await engine.approval_rules()
    assert rule.scope == "run" and rule.run_id == run.run_id and sibling.rule_id == rule.rule_id
    assert sibling.rule_text == f"cmd_run in one step (group 'g'), for the rest of run {run.run_id}"
    await engine.respond(other, {"kind": "approval", "decision": "approved"})
    assert (await engine.runner.wait(run.run_id, T)).status == "succeeded"
    waiting = asyncio.create_task(asked(engine, 1))  # (listening before it starts, as for the first run)
    again = await engine.start("s", {})  # another run: the run rule does not cover it
    assert len(await within(waiting, "the other run's request")) == 1
    await engine.stop(again.run_id)


async def test_a_prefix_answer_allows_later_matching_commands_and_revoking_it_asks_again():
    engine = compose_engine(Registry(builtin_tools()), MemoryStores())
    await engine.create(seq(group("g", tools=tools({"tool": "cmd_run", "args": {"command": "echo hi there"}}))))
    waiting = asyncio.create_task(asked(engine, 1))
    run = await engine.start("s", {})
    [iid] = await waiting
    await engine.respond(iid, {"kind": "approval", "decision": "approved", "scope": "prefix", "prefix": "echo hi"})
    await engine.runner.wait(run.run_id, T)
    [rule] = await engine.approval_rules()
    later = await engine.runner.wait((await engine.start("s", {})).run_id, T)
    assert later.status == "succeeded"  # allowed by the rule, nobody asked
    [auto] = (await engine.interaction_page(run_id=later.run_id)).items
    assert auto.auto and auto.rule_id == rule.rule_id and auto.rule_text == (
        "commands that start with `echo hi`, in one step (group 'g')")
    await engine.revoke_approval_rule(rule.rule_id)
    assert await engine.approval_rules() == []
    with pytest.raises(LookupError):
        await engine.revoke_approval_rule(rule.rule_id)


@pytest.mark.parametrize(("answer", "says"), [
    ({"scope": "prefix"}, "needs the words"),
    ({"scope": "once", "prefix": "echo"}, "goes only with the scope prefix"),
    ({"scope": "run", "decision": "denied"}, "goes only with an approval"),
])
async def test_an_answer_with_a_scope_that_does_not_fit_is_refused_and_stays_pending(answer, says):
    engine, doc = engine_with_two_commands()
    await engine.create(doc)
    waiting = asyncio.create_task(asked(engine, 2))
    run = await engine.start("s", {})
    first, _ = await waiting
    with pytest.raises(InteractionValidationError, match=says):
        await engine.respond(first, {"kind": "approval", "decision": "approved", **answer})
    assert (await engine.get_interaction(first)).status == "pending" and await engine.approval_rules() == []
    await engine.stop(run.run_id)


@pytest.mark.parametrize("scope", ["run", "sequence", "prefix"])
def test_a_step_whose_input_runs_as_code_is_covered_by_no_step_rule_and_none_is_made_from_it(scope):
    plain = shell("sh -c ls")
    as_code = plain.model_copy(update={"run_as_code": {"x": "sh -c"}})
    rule = ApprovalRule(rule_id="a", tool="cmd_run", scope=scope, run_id="r1", sequence="s", sequence_identity="id1",
                        prefix="sh -c" if scope == "prefix" else None, step_fingerprint="f1", group="g")
    assert rule.matches(plain)
    assert not rule.matches(as_code)  # the person saw one value's code, not the next one's
    with pytest.raises(RuleError, match="will be run as a command"):
        rule_for(scope, as_code, prefix="sh -c" if scope == "prefix" else None, now_ms=0)
    assert ApprovalRule(rule_id="t", tool="cmd_run", scope="tool").matches(as_code)  # "whatever it runs"
