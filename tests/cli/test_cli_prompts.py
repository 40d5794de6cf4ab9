"""`seqdesk run` at a terminal: approvals and questions are asked at the prompt and answered there."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

DOC = {"name": "ask-me", "groups": [
    {"name": "ask", "out": {"answers": "object"},
     "tools": json.dumps({"tool": "ask_user", "args": {"title": "Deploy?", "questions": [
         {"id": "env", "prompt": "Which environment", "type": "single_select",
          "options": [{"value": "dev", "label": "Development"}, {"value": "prod", "label": "Production"}]},
         {"id": "note", "prompt": "A note", "type": "text"}]}, "as": "answers"}) + " ;"},
    {"name": "act", "out": {"said": "string"},
     "tools": json.dumps({"tool": "cmd_run", "args": {"command": "echo done"}, "as": "said"}) + " ;"},
]}


class Terminal:
    """A child process whose stdin is a pseudo-terminal; stderr (the prompts) read with a deadline."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen(args, stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        os.close(slave)
        self.seen = b""

    def expect(self, text: str, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        assert self.proc.stderr is not None
        while text.encode() not in self.seen:
            left = deadline - time.monotonic()
            assert left > 0, f"never saw {text!r}; saw:\n{self.seen.decode(errors='replace')}"
            ready, _, _ = select.select([self.proc.stderr], [], [], left)
            if ready:
                chunk = os.read(self.proc.stderr.fileno(), 4096)
                assert chunk, f"the process ended before {text!r}:\n{self.seen.decode(errors='replace')}"
                self.seen += chunk

    def type(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())


def test_questions_and_approvals_are_answered_at_the_prompt(tmp_path: Path):
    path = tmp_path / "ask.json"
    path.write_text(json.dumps(DOC), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "NICEGUI_"))}
    env["SEQDESK_DATA"] = str(tmp_path / "data")
    env.pop("SEQDESK_MEMORY", None)
    term = Terminal([sys.executable, "-m", "gui", "run", str(path), "--json"], env)
    try:
        term.expect("Which environment")
        term.type("2")
        term.expect("A note")
        term.type("ship it")
        term.expect("[y]es / [n]o")
        term.type("y")
        out, _ = term.proc.communicate(timeout=60)
    finally:
        term.proc.kill()
        os.close(term.master)
    record = json.loads(out)
    assert record["status"] == "succeeded"
    assert record["outputs"] == {"answers": {"env": "prod", "note": "ship it"}, "said": "done"}
