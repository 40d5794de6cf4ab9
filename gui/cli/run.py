"""`seqdesk run`, `seqdesk show` and `seqdesk list`, through the one door (`gui.core.door.operations`).

Progress goes to stderr so that `--json` output on stdout stays clean for scripts; the requests
for a person are the prompter's (`gui.cli.prompter`).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from gui.cli.early_app import start_early
from gui.cli.sequence_file import carried, read_target
from gui.i18n import _

if TYPE_CHECKING:
    from pathlib import Path

    from gui.core.causes import EndCause
    from gui.core.door import Operations
    from gui.core.runs import RunRecord


def add_run_commands(sub: Any) -> None:
    run = sub.add_parser("run", help=_("run a sequence file or a saved sequence by name"))
    run.add_argument("target", nargs="?", help=_("a sequence file (.json) or the name of a saved sequence"))
    run.add_argument("--args", default=None, help=_("the run's args as JSON, e.g. '{example}'").format(
        example='{"host": "node-a"}'))
    run.add_argument("--resume", metavar="RUN_ID", default=None,
                     help=_("resume a failed, interrupted or stopped run: what succeeded is kept, the rest runs again"))
    run.add_argument("--yes", action="store_true", help=_("approve every approval without asking"))
    run.add_argument("--json", action="store_true", help=_("print the final run record as JSON"))
    run.add_argument("--connect", default=argparse.SUPPRESS, metavar="URL",
                     help=_("go to a team's SeqDesk server (seqdesk serve) at URL (or SEQDESK_CONNECT)"))
    run.set_defaults(func=cmd_run, start_early=start_early)
    show = sub.add_parser("show", help=_("show a run: its state, each group and tool, its outputs"))
    show.add_argument("run_id", help=_("the run's id, or its start as the app shows it (e.g. 0911dd99)"))
    show.add_argument("--json", action="store_true", help=_("print the run record as JSON"))
    show.set_defaults(func=cmd_show)
    lister = sub.add_parser("list", help=_("list saved sequences with their signatures"))
    lister.add_argument("--json", action="store_true")
    lister.set_defaults(func=cmd_list)


def _say_where(args: argparse.Namespace, ops: Operations) -> None:
    """Where the run happens, when not in this process: an app on the data folder, or a team's server."""
    if ops.inbox_url is None:
        return
    settings = getattr(args, "settings", None)
    if settings is not None and settings.connect is not None:
        _err(_("(the run happens on the team's SeqDesk server; its requests wait in the inbox at {url})").format(
            url=ops.inbox_url))
    else:
        _err(_("(the SeqDesk app is open on this data folder: the run happens there, at {url})").format(
            url=ops.inbox_url))


def _err(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def cmd_list(args: argparse.Namespace) -> int:
    async def go() -> int:
        ops = await connect(args)
        try:
            items = await ops.list_sequences()
        finally:
            await ops.close()
        if args.json:
            print(json.dumps(items, ensure_ascii=False, indent=2))
            return 0
        if not items:
            print(_("no saved sequences"))
        for item in items:
            sig = item["signature"]
            ins = ", ".join(f"{k}: {v}" for k, v in sig["inputs"].items()) or _("no inputs")
            outs = ", ".join(f"{k}: {v}" for k, v in sig["outputs"].items()) or _("no outputs")
            print(f"{item['name']}  ({ins}) -> ({outs})")
            if item["description"]:
                print(f"    {item['description']}")
        return 0

    return _run_async(go)


def cmd_show(args: argparse.Namespace) -> int:
    from gui.core.runs import AmbiguousRunIdError

    async def go() -> int:
        ops = await connect(args)
        try:
            record = await ops.find_run(args.run_id)
        except AmbiguousRunIdError as exc:
            _err(f"seqdesk show: {exc.message}")
            return 2
        finally:
            await ops.close()
        if record is None:
            _err("seqdesk show: " + _("there is no run {id}").format(id=args.run_id))
            return 2
        if args.json:
            print(json.dumps(record.to_summary_json(), ensure_ascii=False, indent=2, default=str))
            return 0
        for line in run_lines(record):
            print(line)
        return 0

    return _run_async(go)


def why_ended(text: str | None, cause: EndCause | None, *, started: bool = True) -> str:
    """What the terminal says after a status: what ended it (its cause, in the person's language:
    "the app was closed", "not run: you stopped the run"), else the record's own text."""
    from gui.core.causes import CAUSES

    if cause is None:
        return text or ""
    why = _(CAUSES[cause].why)
    return why if started else _("not run: {why}").format(why=why)


def run_end_words(record: RunRecord) -> str:
    """A run's end after its id: "failed: group 'x' failed: exit code 2"; a run its group's time limit
    ended is said so, in the runs list's words: "timed out: sleep ran out of time in slow-step"."""
    group = next((g for g in record.groups if g.status == "failed"), None)
    if record.status == "failed" and group is not None and group.timed_out:
        tool = next((t for t in group.tools if t.timed_out and t.status == "failed"), None)
        return (_("timed out: {tool} ran out of time in {group}").format(tool=tool.tool, group=group.name)
                if tool is not None else _("timed out: {group} ran out of time").format(group=group.name))
    said = why_ended(record.error, record.cause)
    return record.status + (f": {said}" if said else "")


def run_lines(record: RunRecord) -> list[str]:
    """A run for the terminal: a headline, then each group and its tools with an icon each."""
    from gui.cli.prompter import ICONS, ended_words
    from gui.core.runs import short_id

    title = record.sequence + (f" › {record.target}" if record.target else "")
    lines = [f"run {record.run_id} · {title} · {run_end_words(record)}"]
    for group in record.groups:
        said = why_ended(group.reason, group.cause, started=group.started_at is not None)
        if group.reused_from is not None and group.status == "succeeded":  # text: the run's short id
            said = _("kept from run {id}, where it had succeeded").format(id=short_id(group.reused_from))
        lines.append(f"{ICONS.get(group.status, '·')} {group.name} "
                     + ended_words(group.status, said, timed_out=group.timed_out))
        for tool in group.tools:
            said = why_ended(tool.error or tool.reason, tool.cause if tool.status != "succeeded" else None,
                             started=tool.started_at is not None)
            lines.append(f"  {ICONS.get(tool.status, '·')} {tool.tool} "
                         + ended_words(tool.status, said, timed_out=tool.timed_out))
    if record.outputs:
        lines.append(json.dumps(record.outputs, ensure_ascii=False, indent=2, default=str))
    return lines


def _run_async(fn: Any) -> int:
    """Run `fn`; a failure SeqDesk explains (the store's among them: a data folder in use, moved away,
    damaged) is one line and exit code 2, never a traceback; anything else is a bug and surfaces."""
    import asyncio

    from gui.core.errors import SeqDeskError

    try:
        return int(asyncio.run(fn()))
    except SeqDeskError as exc:
        _err(f"seqdesk: {exc}")
        return 2


def cmd_run(args: argparse.Namespace) -> int:
    if args.resume is not None:
        if args.target is not None or args.args is not None:
            _err("seqdesk run: " + _("--resume takes only the run's id: it runs again with the inputs it had"))
            return 2
        if not args.resume.strip():
            _err("seqdesk run: " + _("--resume needs the id of a run: the Runs page of SeqDesk shows each run's id"))
            return 2
        return _run_async(lambda: _resume(args))
    if args.target is None:
        _err("seqdesk run: " + _("name a sequence file or a saved sequence (or --resume RUN_ID)"))
        return 2
    try:
        run_args = _args_of(args.args)
    except json.JSONDecodeError as exc:
        _err("seqdesk run: " + _("--args is not valid JSON: {problem} (at character {at})").format(
            problem=exc.msg, at=exc.pos))
        return 2
    except ValueError as exc:  # a number JSON cannot carry (NaN, 1e999)
        _err("seqdesk run: " + _("--args is not valid JSON: {problem}").format(problem=exc))
        return 2
    if not isinstance(run_args, dict):
        _err('seqdesk run: --args must be a JSON object, like \'{"host": "node-a"}\'')
        return 2
    return _run_async(lambda: _run(args, run_args))


def _args_of(given: str | None) -> Any:
    """The run's args as `--args` gives them (JSON; {} without), read as the format reads numbers.
    Without any, the sequence format is not loaded yet: the app the run goes through starts sooner."""
    if not given:
        return {}
    from gui.core.sequences import NUMBER_HOOKS

    return json.loads(given, **NUMBER_HOOKS)


async def connect(args: argparse.Namespace, *, app: bool = False) -> Operations:
    from gui.doors import open_operations

    return await open_operations(getattr(args, "settings", None), app=app, starting=getattr(args, "starting", None))


async def _run(args: argparse.Namespace, run_args: dict[str, Any]) -> int:
    text = read_target(args.target)
    if getattr(args, "starting", None) is not None:  # the app comes up meanwhile: what follows its start, now
        import gui.cli.places  # noqa: F401
        import gui.cli.prompter  # noqa: F401
    ops = await connect(args, app=carried(run_args, text))  # first: the app it starts comes up meanwhile
    from gui.cli.places import problem_line, problem_words
    from gui.core.sequences import DslError, RunArgsError

    try:
        record = await _run_with(ops, args, text, run_args)
    except RunArgsError as exc:
        _err(f"seqdesk run: {exc}")
        return 2
    except DslError as exc:
        for problem in exc.errors:
            _err(problem_line(text, problem) if text is not None else problem_words(problem))
        _err("seqdesk run: " + _("{target} is not a valid sequence").format(target=args.target))
        return 2
    except LookupError:
        _err("seqdesk run: " + _("no file and no saved sequence named '{target}'").format(target=args.target))
        return 2
    finally:
        await ops.close()
    return _report(args, record)


async def _resume(args: argparse.Namespace) -> int:
    from gui.cli.prompter import TerminalPrompter
    from gui.core.runs import ResumeRefused
    from gui.doors import local_folder, unknown_run_folder

    settings = getattr(args, "settings", None)
    if unknown_run_folder(settings, args.resume) is not None:  # said without starting an app to hear it
        _err("seqdesk run: " + _no_run(args.resume, local_folder(settings) if settings is not None else None))
        return 2
    ops = await connect(args, app=True)
    try:
        _say_where(args, ops)
        prompter = TerminalPrompter(ops, yes=args.yes, interactive=sys.stdin.isatty() and ops.inbox_url is None)
        try:
            record = await ops.call_resume(args.resume, prompter.on_event)
        finally:
            await prompter.close()
    except LookupError:
        _err("seqdesk run: " + _no_run(args.resume, local_folder(settings) if settings is not None else None))
        return 2
    except ResumeRefused as exc:
        _err(f"seqdesk run: {exc}")
        return 2
    finally:
        await ops.close()
    from gui.ui.components.run.kept import kept_words

    _err(_("resumed run {old} as run {new} (attempt {attempt}); {kept}").format(
        old=args.resume, new=record.run_id, attempt=record.attempt, kept=kept_words(record)))
    return _report(args, record)


def _no_run(run_id: str, folder: Path | None) -> str:
    """There is no run `run_id` (in the data folder `folder`, when the settings lead to one), and where
    the runs there are listed."""
    if folder is None:
        return _("there is no run {id}: the Runs page of SeqDesk lists the runs").format(id=run_id)
    return _("there is no run {id} in the data folder {folder}: the Runs page of SeqDesk lists the runs "
             "there").format(id=run_id, folder=folder)


def _report(args: argparse.Namespace, record: Any) -> int:
    if args.json:
        print(json.dumps(record.to_summary_json(), ensure_ascii=False, indent=2, default=str))
    else:
        _err(f"run {record.run_id} {run_end_words(record)}")
        if record.outputs:
            print(json.dumps(record.outputs, ensure_ascii=False, indent=2, default=str))
    return 0 if record.status == "succeeded" else 1


async def _run_with(ops: Operations, args: argparse.Namespace, text: str | None, run_args: dict[str, Any]) -> Any:
    """The run, to its end. Requests for a person are asked at this terminal, unless an open app
    holds the data folder: then they wait in its inbox (`--yes` still approves them from here)."""
    from gui.cli.prompter import TerminalPrompter
    from gui.core.sequences import DslError, load_json_text, text_problem

    _say_where(args, ops)
    prompter = TerminalPrompter(ops, yes=args.yes, interactive=sys.stdin.isatty() and ops.inbox_url is None)
    try:
        if text is None:
            return await ops.call(args.target, run_args, prompter.on_event)
        too_large = text_problem(text)  # the app would refuse it too: say so before reading it
        if too_large is not None:
            raise DslError([too_large])
        return await ops.call_document(load_json_text(text), run_args, prompter.on_event)
    finally:
        await prompter.close()


