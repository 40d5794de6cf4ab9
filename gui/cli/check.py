"""The sequence format at the terminal: `seqdesk help` prints it, `seqdesk check FILE` holds a file to it.

Exit codes are part of the interface for scripts: `check` 0 valid / 1 invalid / 2 unreadable.
Neither command opens the data folder, and each imports what it needs only when it runs. A file whose
steps name hosts (`"on": "node-a"`) has the names checked against the hosts the team knows, asked of
the team server (`--connect`), the app serving the data folder, or the executor's service
(`--executor`), in that order (`gui.doors.known_host_names`); when none can say, it says so on a line
of its own ("host names not checked: …"), and the JSON says so in `hosts`.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from gui.i18n import _, ngettext


def add_format_commands(sub: Any) -> None:
    check = sub.add_parser("check", help=_("check a sequence file and list its problems"))
    check.add_argument("file")
    check.add_argument("--json", action="store_true", help=_("print the result as JSON"))
    check.set_defaults(func=cmd_check, reads_settings=False)
    helper = sub.add_parser("help", help=_("print the sequence format, with a copyable example"))
    helper.set_defaults(func=cmd_help, reads_settings=False)


def cmd_check(args: argparse.Namespace) -> int:
    import asyncio

    from gui.cli.places import place, problem_line
    from gui.cli.sequence_file import read_file
    from gui.core.errors import SeqDeskError
    from gui.core.sequences import check_text, scan
    from gui.core.tools import tool_catalog
    from gui.tools import default_registry

    try:
        text = read_file(args.file)
    except SeqDeskError as exc:
        print(f"seqdesk check: {exc}", file=sys.stderr)
        return 2
    names_hosts = '"on"' in text.replace('\\"', '"')  # a step's `on`, also inside a group's JSON text
    hosts, where = asyncio.run(_host_names(args)) if names_hosts else (None, "")
    result = check_text(text, tool_catalog(default_registry(), hosts))
    spans = scan(text)
    if args.json:
        body = result.to_json()
        if where:
            body["hosts"] = {"checked": hosts is not None, ("by" if hosts is not None else "why"): where}
        for key, problems in (("errors", result.errors), ("warnings", result.warnings)):
            for item, problem in zip(body[key], problems, strict=True):
                item["line"], item["column"] = place(text, problem, spans)
        print(json.dumps(body, ensure_ascii=False, indent=2))
        return 0 if result.ok else 1
    if where and hosts is None:
        print(_("host names not checked: {why}").format(why=where), file=sys.stderr)
    elif where:
        print(_("host names checked with {where}").format(where=where), file=sys.stderr)
    for problem in result.errors:
        print(problem_line(text, problem, spans))
    for problem in result.warnings:
        print(f"warning: {problem_line(text, problem, spans)}")
    if result.ok:
        sig = result.signature
        inputs = ", ".join(f"{k}: {v.value}" for k, v in (sig.inputs.items() if sig else []))
        outputs = ", ".join(f"{k}: {v.value}" for k, v in (sig.outputs.items() if sig else []))
        print(_("ok: {file} is a valid sequence (inputs: {inputs}; outputs: {outputs})").format(
            file=args.file, inputs=inputs or _("none"), outputs=outputs or _("none")))
        return 0
    count = len(result.errors)
    print(ngettext("{count} problem in {file}", "{count} problems in {file}", count).format(
        count=count, file=args.file),
          file=sys.stderr)
    return 1


async def _host_names(args: argparse.Namespace) -> tuple[frozenset[str] | None, str]:
    """The hosts a step may name and who said so; (None, why) when no one can say."""
    from gui.doors import known_host_names
    from gui.settings import SettingsError, load_settings

    try:
        settings = load_settings(data=args.data, store=args.store, connect=args.connect, token=args.token)
    except SettingsError as exc:
        return None, str(exc)
    return await known_host_names(settings)


def cmd_help(args: argparse.Namespace) -> int:
    from gui.core.sequences import help_text

    print(help_text(_))
    return 0
