"""`seqdesk ask`: any script asks the person through SeqDesk's inbox and waits for the answer.

`--approve "COMMAND"` asks an approval, `--question "TEXT" [--choice C ...]` a question; the request
goes to the app that serves the data folder (`gui.core.door.asks`), where the person answers it on
the computer or a paired phone. Exit codes are the answer, for scripts and coding agents' hooks:
0 approved (or answered), 1 denied (or declined), 2 expired or cancelled (nobody answered in time,
the app closed, or this command was stopped), 3 it could not ask (no app, refused, bad input).
A question's answer is printed on stdout (one choice a line); `--json` prints the whole state.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
from typing import Any

from gui.i18n import _

EXIT_CODES = {"approved": 0, "answered": 0, "denied": 1, "declined": 1, "expired": 2, "cancelled": 2}
CANNOT_ASK = 3
DEFAULT_TIMEOUT = 600.0


def add_ask_command(sub: Any) -> None:
    ask = sub.add_parser(
        "ask", help=_("ask the person in SeqDesk's inbox and wait for the answer"),
        description=_("Ask the person through SeqDesk (its inbox, on the computer or a paired phone) and wait. "
                      "Exit code: 0 approved or answered, 1 denied or declined, 2 expired or cancelled, "
                      "3 could not ask."))
    what = ask.add_mutually_exclusive_group(required=True)
    what.add_argument("--approve", metavar="COMMAND", help=_("ask to approve this command (or text, with --text)"))
    what.add_argument("--question", metavar="TEXT", help=_("ask this question"))
    ask.add_argument("--title", default="", help=_("a short title for the inbox"))
    ask.add_argument("--text", default=None, help=_("words shown with an approval (what it is for)"))
    ask.add_argument("--choice", action="append", default=[], metavar="CHOICE",
                     help=_("a choice for the question (repeat it for more)"))
    ask.add_argument("--multiple", action="store_true", help=_("the question's answer may be several choices"))
    ask.add_argument("--cwd", default=None, help=_("the folder the command will run in, shown with it"))
    ask.add_argument("--from", dest="asker", default="", metavar="NAME",
                     help=_("the name of the program that asks (shown as its claim, e.g. claude-code)"))
    ask.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                     help=_("how long the person has to answer (default {seconds:g} s)").format(
                         seconds=DEFAULT_TIMEOUT))
    ask.add_argument("--json", action="store_true", help=_("print the answer as JSON"))
    ask.add_argument("--connect", default=argparse.SUPPRESS, metavar="URL",
                     help=_("go to a team's SeqDesk server (seqdesk serve) at URL (or SEQDESK_CONNECT)"))
    ask.set_defaults(func=cmd_ask)


def _err(text: str) -> None:
    print(f"seqdesk ask: {text}", file=sys.stderr, flush=True)


def body_of(args: argparse.Namespace) -> dict[str, Any]:
    """What `POST /api/asks` is sent for these arguments."""
    body: dict[str, Any] = {"title": args.title, "asker": args.asker, "timeout": args.timeout}
    if args.question is not None:
        body |= {"kind": "question", "text": args.question, "choices": args.choice, "multiple": args.multiple}
    else:
        body |= {"kind": "approval", "command": args.approve or None, "text": args.text, "cwd": args.cwd}
    return body


def cmd_ask(args: argparse.Namespace) -> int:
    import asyncio

    from pydantic import ValidationError

    from gui.core.door import ProgramAsk
    from gui.core.errors import SeqDeskError

    try:
        ask = ProgramAsk.model_validate(body_of(args))
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'request'}: {e['msg']}" for e in exc.errors())
        _err(problems)
        return CANNOT_ASK
    try:
        return asyncio.run(_ask(args, ask))
    except SeqDeskError as exc:
        _err(str(exc))
        return CANNOT_ASK
    except (KeyboardInterrupt, asyncio.CancelledError):  # withdrawn before it ended
        return EXIT_CODES["cancelled"]


async def _ask(args: argparse.Namespace, ask: Any) -> int:
    from gui.doors import app_door

    ops = await app_door(args.settings)
    stop = _Stop()  # before the request is posted: a SIGTERM while it is posted withdraws it once it is
    try:
        state = await ops.ask(ask)
        if not state.ended and not stop.wanted:
            print(_("Waiting for the answer in SeqDesk: {url}").format(url=f"{ops.inbox_url}/{state.ask_id}"),
                  file=sys.stderr, flush=True)
        state = await _until_ended(ops, state, stop)
    finally:
        stop.remove()
        await ops.close()
    if args.json:
        print(json.dumps(state.model_dump(mode="json"), ensure_ascii=False))
    elif isinstance(state.answer, list):
        print("\n".join(state.answer))
    elif state.answer is not None:
        print(state.answer)
    if not args.json and state.status in ("denied", "cancelled") and state.reason:
        _err(f"{state.status}: {state.reason}")
    return EXIT_CODES[state.status]


class _Stop:
    """SIGTERM (a hook's time limit) from the moment the command asks: while the request is being posted
    it is only noted (the request's id is not known yet), and the wait that follows withdraws the request
    at once; while the command waits, the wait is cancelled. Without it, a SIGTERM between the post and
    the wait ended the process and left the request in the inbox with nobody waiting for it."""

    def __init__(self) -> None:
        import asyncio

        self.wanted = False
        self.waiting: Any = None  # the task to cancel, once the command waits
        self._loop = asyncio.get_running_loop()
        self._installed = False
        if hasattr(signal, "SIGTERM"):
            try:
                self._loop.add_signal_handler(signal.SIGTERM, self._term)
                self._installed = True
            except (NotImplementedError, RuntimeError):  # not on this platform's loop
                pass

    def _term(self) -> None:
        self.wanted = True
        if self.waiting is not None:
            self.waiting.cancel()

    def remove(self) -> None:
        if self._installed:
            self._loop.remove_signal_handler(signal.SIGTERM)


async def _until_ended(ops: Any, state: Any, stop: _Stop) -> Any:
    """Wait (a minute at a time) for the end; stopped meanwhile (Ctrl+C, SIGTERM from a hook's time
    limit, also while the request was being posted), the request is withdrawn first, so it does not stay
    in the inbox with nobody waiting."""
    import asyncio

    from gui.core.door import ASK_WAIT

    stop.waiting = asyncio.current_task()
    try:
        if stop.wanted:
            raise asyncio.CancelledError
        while not state.ended:
            state = await ops.ask_state(state.ask_id, ASK_WAIT)
    except asyncio.CancelledError:
        await asyncio.shield(ops.withdraw_ask(state.ask_id))
        raise
    return state
