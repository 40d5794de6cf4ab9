"""`seqdesk ask` from a script, against the real app in a subprocess: the request waits in the app's inbox,
the test answers it there through the API as the person would, and the command's exit code and output say
what was answered. Then the coding agent's side: the Claude Code hook of examples/ run with a hook payload
on stdin, as Claude Code runs it."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from support.app import ROOT, RunningApp, clean_env, running_app
from support.waiting import wait_until, wait_until_sync

from gui.cli.ask import _Stop, _until_ended

HOOK = ROOT / "examples" / "claude_code_hook.sh"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    """The app on a data folder of this module's (its tests answer every request they make)."""
    folder = tmp_path_factory.mktemp("seqdesk-ask")
    with running_app(folder, folder / "data") as app:
        yield app


def ask(app: RunningApp, *args: str, **popen: Any) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "gui", "ask", *args], cwd=ROOT, env=clean_env(app.data_dir),
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            **popen)


def pending(app: RunningApp) -> dict[str, Any]:
    """The one request waiting in the app's inbox (waited for, as the person would see it appear)."""
    def found() -> dict[str, Any] | None:
        status, items = app.api("GET", "/api/interactions?status=pending")
        return items[0] if status == 200 and len(items) == 1 else None

    return wait_until_sync(found, "the request to wait in the app's inbox", timeout=60)


def answer(app: RunningApp, item: dict[str, Any], response: dict[str, Any]) -> None:
    status, body = app.api("POST", f"/api/interactions/{item['interaction_id']}/respond", response)
    assert status == 200, body


def ended(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=60)
    return proc.returncode, out, err


def test_an_approval_approved_in_the_app_exits_0(served):
    proc = ask(served, "--approve", "make deploy", "--from", "deploy-script", "--json")
    item = pending(served)
    assert item["request"]["command"] == "make deploy"
    assert item["request"]["source"] == {"type": "program", "asker": "deploy-script"}
    answer(served, item, {"kind": "approval", "decision": "approved"})
    code, out, _err = ended(proc)
    assert code == 0
    assert json.loads(out)["status"] == "approved"


def test_a_denial_exits_1_with_the_persons_note(served):
    proc = ask(served, "--approve", "rm -rf build")
    answer(served, pending(served), {"kind": "approval", "decision": "denied", "reason": "not now"})
    code, _out, err = ended(proc)
    assert code == 1
    assert "denied: not now" in err


def test_a_question_prints_the_chosen_answer(served):
    proc = ask(served, "--question", "Which branch?", "--choice", "main", "--choice", "dev")
    item = pending(served)
    assert [o["value"] for o in item["request"]["questions"][0]["options"]] == ["main", "dev"]
    answer(served, item, {"kind": "question", "answers": [{"question_id": "answer", "value": "dev"}]})
    code, out, _err = ended(proc)
    assert (code, out) == (0, "dev\n")


def test_nobody_answering_in_time_exits_2(served):
    code, out, _err = ended(ask(served, "--approve", "sleep 1", "--timeout", "0.5", "--json"))
    assert code == 2
    assert json.loads(out)["status"] == "expired"


def test_a_stopped_ask_withdraws_its_request_from_the_inbox(served):
    proc = ask(served, "--approve", "make release")
    item = pending(served)
    proc.send_signal(signal.SIGTERM)
    code, _out, _err = ended(proc)
    assert code == 2
    status, record = served.api("GET", f"/api/interactions/{item['interaction_id']}")
    assert (status, record["status"], record["result"]["cause"]) == (200, "cancelled", "agent_gave_up")


def test_without_an_app_on_the_folder_it_says_so_and_exits_3(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "gui", "ask", "--approve", "ls"], cwd=ROOT,
                          env=clean_env(tmp_path / "data"), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 3
    assert "SeqDesk is not open on the data folder" in proc.stderr


def test_what_cannot_be_asked_is_said_and_exits_3(served):
    code, _out, err = ended(ask(served, "--approve", "ls", "--title", "two\nlines"))
    assert code == 3
    assert "title: Value error, title must be one line" in err


# -- the coding agent's side: the Claude Code hook ----------------------------------------------

@pytest.fixture
def hook_env(served, tmp_path: Path) -> dict[str, str]:
    """The hook's environment: `seqdesk` on the PATH runs this checkout, on the app's data folder."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "seqdesk"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m gui "$@"\n')
    shim.chmod(0o755)
    env = clean_env(served.data_dir)
    env["PATH"] = f"{bin_dir}:{env.get('PATH', '')}"
    return env


def run_hook(env: dict[str, str], payload: dict[str, Any]) -> subprocess.Popen[str]:
    """The hook as Claude Code runs it: the payload on stdin (then closed), its answer on stdout."""
    with tempfile.TemporaryFile("w+") as stdin:
        stdin.write(json.dumps(payload))
        stdin.seek(0)
        return subprocess.Popen(["bash", str(HOOK)], cwd=ROOT, env=env, stdin=stdin, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)


def payload(command: str, tool: str = "Bash") -> dict[str, Any]:
    return {"session_id": "s1", "transcript_path": "/tmp/t.jsonl", "cwd": "/work/project",
            "hook_event_name": "PreToolUse", "tool_name": tool,
            "tool_input": {"command": command, "description": "List the files"}}


def decision(out: str) -> tuple[str, str]:
    said = json.loads(out)["hookSpecificOutput"]
    assert said["hookEventName"] == "PreToolUse"
    return said["permissionDecision"], said["permissionDecisionReason"]


def test_the_hook_allows_what_the_person_approved_in_the_app(served, hook_env):
    proc = run_hook(hook_env, payload("ls -la"))
    item = pending(served)
    request = item["request"]
    assert (request["command"], request["cwd"], request["description"]) == ("ls -la", "/work/project",
                                                                            "List the files")
    assert request["source"] == {"type": "program", "asker": "claude-code"}
    answer(served, item, {"kind": "approval", "decision": "approved"})
    code, out, _err = ended(proc)
    assert code == 0
    assert decision(out) == ("allow", "approved in SeqDesk")


def test_the_hook_denies_with_the_persons_note_for_the_agent(served, hook_env):
    proc = run_hook(hook_env, payload("git push --force"))
    answer(served, pending(served), {"kind": "approval", "decision": "denied",
                                               "reason": "push to a branch instead"})
    code, out, _err = ended(proc)
    assert code == 0
    assert decision(out) == ("deny", "denied in SeqDesk: push to a branch instead")


def test_the_hook_falls_back_to_the_agents_own_prompt_when_nobody_answers(served, hook_env):
    code, out, _err = ended(run_hook({**hook_env, "SEQDESK_ASK_TIMEOUT": "0.5"}, payload("make")))
    assert code == 0
    assert decision(out) == ("ask", "nobody answered in SeqDesk in time")


def test_the_hook_falls_back_when_seqdesk_cannot_be_asked(hook_env, tmp_path):
    code, out, _err = ended(run_hook({**hook_env, "SEQDESK_DATA": str(tmp_path / "none")}, payload("make")))
    assert code == 0
    assert decision(out) == ("ask", "SeqDesk could not be asked")


def test_the_hook_leaves_other_tools_to_the_agent(hook_env):
    code, out, _err = ended(run_hook(hook_env, {**payload(""), "tool_name": "Read", "tool_input": {"path": "x"}}))
    assert (code, out) == (0, "")


async def test_a_sigterm_while_the_request_is_posted_withdraws_it_once_it_is():
    """In process: the signal's window between posting the request and waiting on it (a hook's time limit
    falling there ended the process, and the request stayed in the inbox with nobody waiting)."""
    withdrawn: list[str] = []

    class Door:  # what `_until_ended` asks of the door; the request was posted as `ask-1`
        async def ask_state(self, ask_id: str, wait: float) -> Any:
            raise AssertionError("waited on a request that a SIGTERM had already withdrawn")

        async def withdraw_ask(self, ask_id: str) -> None:
            withdrawn.append(ask_id)

    stop = _Stop()  # as the command does before it posts
    try:
        os.kill(os.getpid(), signal.SIGTERM)  # while the request is being posted
        await wait_until(lambda: stop.wanted, "the SIGTERM noted")
        with pytest.raises(asyncio.CancelledError):
            await _until_ended(Door(), SimpleNamespace(ended=False, ask_id="ask-1"), stop)
    finally:
        stop.remove()
    assert withdrawn == ["ask-1"]
