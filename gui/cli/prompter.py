"""The terminal side of requests for a person: approvals, questions and forms asked at the prompt.

Requests are asked one at a time, and while a prompt is open the run's progress lines wait (they
are printed once it is answered), so parallel output never lands inside `[y]es / [n]o`. A question
may be optional (Enter skips it), and `/decline` answers none of them. `--yes` approves every
approval; with no terminal and no `--yes`, approvals are denied and questions and forms cancelled,
each with its reason stored. When an open app holds the data folder, requests wait in its inbox
instead (only `--yes` answers from here).
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from gui.cli.form_prompt import TerminalElicitationHandler
from gui.core.asks import (
    AlreadyApproved,
    Answer,
    Answerer,
    ApprovalResponse,
    ElicitationRequest,
    InteractionRecord,
    InteractionResponse,
    QuestionRequest,
    QuestionResponse,
    ShellApprovalRequest,
    ToolApprovalRequest,
)
from gui.core.door import Operations
from gui.core.errors import Refused, SeqDeskError
from gui.core.events import (
    Event,
    GroupFinished,
    GroupSkipped,
    GroupStarted,
    InteractionCreated,
    ToolFinished,
    ToolRetrying,
    ToolWaiting,
)
from gui.i18n import _

DECLINE = "/decline"
ICONS = {"succeeded": "✓", "failed": "✗", "skipped": "–", "degraded": "~", "cancelled": "■", "stopped": "■"}


def _err(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


class TerminalPrompter:
    """Shows progress and answers requests for a person at the terminal, one at a time."""

    def __init__(self, ops: Operations, *, yes: bool, interactive: bool) -> None:
        self.ops = ops
        self.in_app = ops.inbox_url is not None
        self.yes = yes
        self.interactive = interactive
        self._lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[None]] = set()
        self.prompting = False  # a prompt is open: progress lines wait, so they never land inside it
        self.held: list[str] = []

    def say(self, line: str) -> None:
        """A progress line: printed now, or after the open prompt is answered."""
        if self.prompting:
            self.held.append(line)
        else:
            _err(line)

    def _resume(self) -> None:
        self.prompting = False
        held, self.held = self.held, []
        for line in held:
            _err(line)

    def on_event(self, event: Event) -> None:
        if self.in_app and isinstance(event, ToolWaiting):
            self.say("  ⏸ " + _("{tool} is waiting for you in the app's inbox").format(tool=event.tool_name))
        else:
            line = progress_line(event)
            if line is not None:
                self.say(line)
        if isinstance(event, InteractionCreated) and (not self.in_app or self.yes):
            record = InteractionRecord.model_validate(event.record)
            if record.status == "pending":
                task = asyncio.get_running_loop().create_task(self._answer(record))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()

    async def _answer(self, record: InteractionRecord) -> None:
        async with self._lock:
            request = record.request
            iid = request.interaction_id
            self.prompting = self.interactive and not self.yes
            try:
                if isinstance(request, ShellApprovalRequest | ToolApprovalRequest):
                    await self._approval(iid, request)
                elif self.in_app:
                    return  # a question or a form: answered in the app's inbox
                elif not self.interactive:
                    await self.ops.cancel_interaction(iid, "no_one_to_ask")
                    _err("  ✗ " + _("no terminal to ask '{title}': cancelled").format(title=_title(request)))
                elif isinstance(request, QuestionRequest):
                    await self._question(iid, request)
                elif isinstance(request, ElicitationRequest):
                    await self._elicitation(iid, request)
            except EOFError:  # the person closed the input (Ctrl-D): nobody is left to ask
                _err("  ✗ " + _("no more input to answer '{title}': cancelled").format(title=_title(request)))
                await self.ops.cancel_interaction(iid, "no_one_to_ask")
            except SeqDeskError as exc:  # answered elsewhere meanwhile (the app's inbox)
                _err("  (" + _("request {id}: {problem}").format(id=iid, problem=exc) + ")")
            finally:
                self._resume()

    async def _approval(self, iid: str, request: ShellApprovalRequest | ToolApprovalRequest) -> None:
        what = request.command if isinstance(request, ShellApprovalRequest) else json.dumps(
            request.validated_input, ensure_ascii=False)
        for name, program in (request.run_as_code if isinstance(request, ShellApprovalRequest) else {}).items():
            _err("  ! " + (_("the input {name} will be run as a command (by {program})") if program else
                           _("the input {name} will be run as a command")).format(name=name, program=program))
        if self.yes:
            if await self._respond(iid, ApprovalResponse(decision="approved")):
                _err("  ✓ " + _("approved (--yes): {what}").format(what=what))
            return
        if not self.interactive:
            _err("  ✗ " + _("denied (no terminal to ask, and no --yes): {what}").format(what=what))
            await self._respond(iid, ApprovalResponse(
                decision="denied", reason="no one could be asked (no terminal, and --yes was not given)"))
            return
        where = _(" in {folder}").format(folder=request.cwd) if isinstance(request, ShellApprovalRequest) else ""
        who = request.source.tool_name if request.source.type == "tool" else _("step")
        answer = await _ask("  ? " + _("Allow {who}{where}: {what}").format(who=who, where=where, what=what)
                            + "  [y]es / [n]o: ")
        if answer.strip().lower() in ("y", "yes"):
            await self._respond(iid, ApprovalResponse(decision="approved"))
        else:
            try:
                reason = (await _ask("    reason (optional): ")).strip() or None
            except EOFError:  # the answer was no all the same
                reason = None
            await self._respond(iid, ApprovalResponse(decision="denied", reason=reason))

    async def _respond(self, iid: str, response: InteractionResponse) -> bool:
        """Answer from here (recorded as answered from the CLI); False, said on stderr, when this person
        may not give it (a team's step its starter may not approve, one that names other approvers):
        the request then waits in the inbox for someone who may."""
        try:
            await self.ops.respond(iid, response, Answerer(via="cli"))
        except (Refused, AlreadyApproved) as exc:
            _err("  ✗ " + _("not answered from here: {why}. It waits in the inbox for someone who may answer "
                             "it.").format(why=str(exc).rstrip(".")))
            return False
        return True

    async def _question(self, iid: str, request: QuestionRequest) -> None:
        _err(f"  ? {request.title}   " + _("(type {decline} at any question to answer none of them)").format(
            decline=DECLINE))
        answers = []
        for q in request.questions:
            options = q.options or []
            for n, option in enumerate(options, 1):
                _err(f"      {n}. {option.label}" + (f" — {option.description}" if option.description else ""))
            optional = "" if q.required else _(" (optional: press Enter to skip)")
            while True:
                raw = (await _ask(f"    {q.prompt}{optional}: ")).strip()
                if raw == DECLINE:
                    await self._respond(iid, QuestionResponse(decision="declined"))
                    _err("  ✗ " + _("declined: the step is told you chose not to answer"))
                    return
                if not raw and not q.required:
                    break
                if q.response_type == "text":
                    answers.append(Answer(question_id=q.question_id, value=raw))
                    break
                picks = [p.strip() for p in raw.split(",") if p.strip()]
                try:
                    values = [options[int(p) - 1].value for p in picks]
                except (ValueError, IndexError):
                    _err("    " + _("answer with the option numbers, e.g. 1 or 1,3"))
                    continue
                if q.response_type == "single_select" and len(values) != 1:
                    _err("    " + _("choose exactly one option"))
                    continue
                answers.append(Answer(question_id=q.question_id,
                                      value=values[0] if q.response_type == "single_select" else values))
                break
        await self._respond(iid, QuestionResponse(answers=answers))

    async def _elicitation(self, iid: str, request: ElicitationRequest) -> None:
        handler = TerminalElicitationHandler(input_fn=_read_line, output=_err)
        await self._respond(iid, await handler.handle_elicitation(request))


def ended_words(status: str, said: str, *, timed_out: bool = False) -> str:
    """A group's or a tool's status and why, after its name: "failed: exit code 2"; one its group's
    time limit ended: "timed out after 1s", "timed out: the group's time limit (1s) ran out"."""
    if status == "failed" and timed_out:
        if said.startswith("timed out"):  # the group's own reason says it: never "timed out: timed out"
            return said
        return _("timed out") + (f": {said}" if said else "")
    return status + (f": {said}" if said else "")


def progress_line(event: Event) -> str | None:
    """The line a run's event prints at the terminal (None: it prints nothing)."""
    if isinstance(event, GroupStarted):
        return f"▶ {event.group_name}"
    if isinstance(event, GroupSkipped):
        return "– " + _("{group} skipped: {reason}").format(group=event.group_name, reason=event.reason)
    if isinstance(event, GroupFinished) and event.timed_out and event.status == "failed":
        # its tools' own lines came before the limit was known (a cut tool says "cancelled"): the group says it
        return f"{ICONS['failed']} {event.group_name} " + ended_words(event.status, event.reason or "", timed_out=True)
    if isinstance(event, ToolFinished):
        icon = ICONS.get(event.status, "?")
        extra = f": {event.error}" if event.error not in (None, event.status) else ""
        if event.status == "failed" and event.timed_out:  # its group's time limit: said so, as the run page does
            return f"  {icon} {event.tool_name} " + _("timed out") + extra
        return f"  {icon} {event.tool_name} {event.status}{extra}"
    if isinstance(event, ToolRetrying):
        return "  ↻ " + _("{tool} attempt {n} of {of}: {error}").format(tool=event.tool_name, n=event.attempt,
                                                                         of=event.of, error=event.error)
    return None


def _title(request: Any) -> str:
    return str(getattr(request, "title", None) or getattr(request, "server_name", None) or request.kind)


def _read_line(prompt: str) -> str:
    """One line typed at the terminal, the prompt on stderr; EOFError at the end of input."""
    print(prompt, end="", file=sys.stderr, flush=True)
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line.rstrip("\n")


async def _ask(prompt: str) -> str:
    return await asyncio.to_thread(_read_line, prompt)
