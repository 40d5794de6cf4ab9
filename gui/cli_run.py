"""`seqdesk run`, `seqdesk list` and the terminal side of requests for a person.

Progress goes to stderr so that `--json` output on stdout stays clean for scripts. Requests are
asked at the prompt one at a time; `--yes` approves every approval; with no terminal and no
`--yes`, approvals are denied and questions and forms cancelled, each with its reason stored.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from gui.core.errors import DslError
from gui.core.events import (
    Event,
    GroupSkipped,
    GroupStarted,
    InteractionCreated,
    ToolFinished,
    ToolRetrying,
    ToolWaiting,
)
from gui.core.interaction_service import InteractionError
from gui.core.interactions import (
    Answer,
    ApprovalResponse,
    ElicitationInteractionRequest,
    ElicitationInteractionResponse,
    InteractionRecord,
    QuestionRequest,
    QuestionResponse,
    ShellApprovalRequest,
    ToolApprovalRequest,
)
from gui.core.operations import OperationError, Operations
from gui.core.parser import NUMBER_HOOKS, load_json_text
from gui.core.run_args import RunArgsError

ICONS = {"succeeded": "✓", "failed": "✗", "skipped": "–", "degraded": "~", "cancelled": "■", "stopped": "■"}


def add_run_commands(sub: Any) -> None:
    run = sub.add_parser("run", help="run a sequence file or a saved sequence by name")
    run.add_argument("target", help="a sequence file (.json) or the name of a saved sequence")
    run.add_argument("--args", default="{}", help='the run\'s args as JSON, e.g. \'{"host": "node-a"}\'')
    run.add_argument("--yes", action="store_true", help="approve every approval without asking")
    run.add_argument("--json", action="store_true", help="print the final run record as JSON")
    run.set_defaults(func=cmd_run)
    lister = sub.add_parser("list", help="list saved sequences with their signatures")
    lister.add_argument("--json", action="store_true")
    lister.set_defaults(func=cmd_list)
    try:
        from gui.mcp.cli import add_mcp_command
    except ImportError:
        return
    add_mcp_command(sub)


def _err(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def cmd_list(args: argparse.Namespace) -> int:
    async def go() -> int:
        ops = await connect()
        try:
            items = await ops.list_sequences()
        finally:
            await ops.close()
        if args.json:
            print(json.dumps(items, ensure_ascii=False, indent=2))
            return 0
        if not items:
            print("no saved sequences")
        for item in items:
            sig = item["signature"]
            ins = ", ".join(f"{k}: {v}" for k, v in sig["inputs"].items()) or "no inputs"
            outs = ", ".join(f"{k}: {v}" for k, v in sig["outputs"].items()) or "no outputs"
            print(f"{item['name']}  ({ins}) -> ({outs})")
            if item["description"]:
                print(f"    {item['description']}")
        return 0

    return _run_async(go)


def _run_async(fn: Any) -> int:
    from gui.store_errors import friendly_store_error

    try:
        return int(asyncio.run(fn()))
    except OperationError as exc:
        _err(f"seqdesk: {exc}")
        return 2
    except Exception as exc:
        message = friendly_store_error(exc)
        if message is None:
            raise
        _err(f"seqdesk: {message}")
        return 2


def cmd_run(args: argparse.Namespace) -> int:
    try:
        run_args = json.loads(args.args, **NUMBER_HOOKS)
    except json.JSONDecodeError as exc:
        _err(f"seqdesk run: --args is not valid JSON: {exc.msg} (at character {exc.pos})")
        return 2
    except ValueError as exc:  # a number JSON cannot carry (NaN, 1e999)
        _err(f"seqdesk run: --args is not valid JSON: {exc}")
        return 2
    if not isinstance(run_args, dict):
        _err('seqdesk run: --args must be a JSON object, like \'{"host": "node-a"}\'')
        return 2
    return _run_async(lambda: _run(args, run_args))


def read_file(path: str) -> str:
    """A sequence file's text; OperationError saying why it cannot be read."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise OperationError(f"cannot read {path}: no such file") from None
    except IsADirectoryError:
        raise OperationError(f"cannot read {path}: it is a folder") from None
    except UnicodeDecodeError:
        raise OperationError(f"cannot read {path}: it is not UTF-8 text") from None
    except OSError as exc:
        raise OperationError(f"cannot read {path}: {exc.strerror or exc}") from None


def _read_target(target: str) -> str | None:
    """The file's text when `target` names a file; None when it is a saved sequence's name."""
    if Path(target).suffix != ".json" and not Path(target).exists():
        return None
    return read_file(target)


async def connect() -> Operations:
    from gui.app import open_operations

    return await open_operations()


async def _run(args: argparse.Namespace, run_args: dict[str, Any]) -> int:
    text = _read_target(args.target)
    ops = await connect()
    try:
        record = await _run_with(ops, args, text, run_args)
    except RunArgsError as exc:
        _err(f"seqdesk run: {exc}")
        return 2
    except DslError as exc:
        for problem in exc.errors:
            _err(str(problem))
        _err(f"seqdesk run: {args.target} is not a valid sequence")
        return 2
    except LookupError:
        _err(f"seqdesk run: no file and no saved sequence named '{args.target}'")
        return 2
    finally:
        await ops.close()
    if args.json:
        print(json.dumps(record.to_summary_json(), ensure_ascii=False, indent=2, default=str))
    else:
        _err(f"run {record.run_id} {record.status}" + (f": {record.error}" if record.error else ""))
        if record.outputs:
            print(json.dumps(record.outputs, ensure_ascii=False, indent=2, default=str))
    return 0 if record.status == "succeeded" else 1


async def _run_with(ops: Operations, args: argparse.Namespace, text: str | None, run_args: dict[str, Any]) -> Any:
    """The run, to its end. Requests for a person are asked at this terminal, unless an open app
    holds the data folder: then they wait in its inbox (`--yes` still approves them from here)."""
    if ops.inbox_url is not None:
        _err(f"(the SeqDesk app is open on this data folder: the run happens there, at {ops.inbox_url})")
    prompter = TerminalPrompter(ops, yes=args.yes, interactive=sys.stdin.isatty() and ops.inbox_url is None)
    try:
        if text is None:
            return await ops.call(args.target, run_args, prompter.on_event)
        return await ops.call_document(load_json_text(text), run_args, prompter.on_event)
    finally:
        await prompter.close()


class TerminalPrompter:
    """Shows progress and answers requests for a person at the terminal, one at a time."""

    def __init__(self, ops: Operations, *, yes: bool, interactive: bool) -> None:
        self.ops = ops
        self.in_app = ops.inbox_url is not None
        self.yes = yes
        self.interactive = interactive
        self._lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[None]] = set()

    def on_event(self, event: Event) -> None:
        if self.in_app and isinstance(event, ToolWaiting):
            _err(f"  ⏸ {event.tool_name} is waiting for you in the app's inbox")
        else:
            self.show(event)
        if isinstance(event, InteractionCreated) and (not self.in_app or self.yes):
            record = InteractionRecord.model_validate(event.record)
            if record.status == "pending":
                task = asyncio.get_running_loop().create_task(self._answer(record))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)

    @staticmethod
    def show(event: Event) -> None:
        if isinstance(event, GroupStarted):
            _err(f"▶ {event.group_name}")
        elif isinstance(event, GroupSkipped):
            _err(f"– {event.group_name} skipped: {event.reason}")
        elif isinstance(event, ToolFinished):
            icon = ICONS.get(event.status, "?")
            extra = f": {event.error}" if event.error not in (None, event.status) else ""
            _err(f"  {icon} {event.tool_name} {event.status}{extra}")
        elif isinstance(event, ToolRetrying):
            _err(f"  ↻ {event.tool_name} attempt {event.attempt} of {event.of}: {event.error}")

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()

    async def _answer(self, record: InteractionRecord) -> None:
        async with self._lock:
            request = record.request
            iid = request.interaction_id
            try:
                if isinstance(request, ShellApprovalRequest | ToolApprovalRequest):
                    await self._approval(iid, request)
                elif self.in_app:
                    return  # a question or a form: answered in the app's inbox
                elif not self.interactive:
                    await self.ops.cancel_interaction(iid, "no_one_to_ask")
                    _err(f"  ✗ no terminal to ask '{_title(request)}': cancelled")
                elif isinstance(request, QuestionRequest):
                    await self._question(iid, request)
                elif isinstance(request, ElicitationInteractionRequest):
                    await self._elicitation(iid, request)
            except EOFError:  # the person closed the input (Ctrl-D): nobody is left to ask
                _err(f"  ✗ no more input to answer '{_title(request)}': cancelled")
                await self.ops.cancel_interaction(iid, "no_one_to_ask")
            except (InteractionError, OperationError) as exc:  # answered elsewhere meanwhile (the app's inbox)
                _err(f"  (request {iid}: {exc})")

    async def _approval(self, iid: str, request: ShellApprovalRequest | ToolApprovalRequest) -> None:
        what = request.command if isinstance(request, ShellApprovalRequest) else json.dumps(
            request.validated_input, ensure_ascii=False)
        if self.yes:
            _err(f"  ✓ approved (--yes): {what}")
            await self.ops.respond(iid, ApprovalResponse(decision="approved"))
            return
        if not self.interactive:
            _err(f"  ✗ denied (no terminal to ask, and no --yes): {what}")
            await self.ops.respond(iid, ApprovalResponse(
                decision="denied", reason="no one could be asked (no terminal, and --yes was not given)"))
            return
        where = f" in {request.cwd}" if isinstance(request, ShellApprovalRequest) else ""
        answer = await _ask(f"  ? Allow {request.source.tool_name if request.source.type == 'tool' else 'step'}"
                            f"{where}: {what}  [y]es / [n]o: ")
        if answer.strip().lower() in ("y", "yes"):
            await self.ops.respond(iid, ApprovalResponse(decision="approved"))
        else:
            try:
                reason = (await _ask("    reason (optional): ")).strip() or None
            except EOFError:  # the answer was no all the same
                reason = None
            await self.ops.respond(iid, ApprovalResponse(decision="denied", reason=reason))

    async def _question(self, iid: str, request: QuestionRequest) -> None:
        _err(f"  ? {request.title}")
        answers = []
        for q in request.questions:
            options = q.options or []
            for n, option in enumerate(options, 1):
                _err(f"      {n}. {option.label}" + (f" — {option.description}" if option.description else ""))
            while True:
                raw = (await _ask(f"    {q.prompt}: ")).strip()
                if q.response_type == "text":
                    answers.append(Answer(question_id=q.question_id, value=raw))
                    break
                picks = [p.strip() for p in raw.split(",") if p.strip()]
                try:
                    values = [options[int(p) - 1].value for p in picks]
                except (ValueError, IndexError):
                    _err("    answer with the option numbers, e.g. 1 or 1,3")
                    continue
                if q.response_type == "single_select" and len(values) != 1:
                    _err("    choose exactly one option")
                    continue
                answers.append(Answer(question_id=q.question_id,
                                      value=values[0] if q.response_type == "single_select" else values))
                break
        await self.ops.respond(iid, QuestionResponse(answers=answers))

    async def _elicitation(self, iid: str, request: ElicitationInteractionRequest) -> None:
        from gui.core.elicitation import ElicitationRequest, TerminalElicitationHandler

        handler = TerminalElicitationHandler(input_fn=_read_line, output=_err)
        reply = await handler.handle_elicitation(ElicitationRequest(
            server_name=request.server_name, message=request.message, fields=request.fields, url=request.url))
        await self.ops.respond(iid, ElicitationInteractionResponse(
            action=reply.action, values=dict(reply.values)))


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
