"""The sequence format at the terminal: `seqdesk help` prints it, `seqdesk check FILE` holds a file to it.

Exit codes are part of the interface for scripts: `check` 0 valid / 1 invalid / 2 unreadable.
Neither command opens the data folder, and each imports what it needs only when it runs.
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
    from gui.cli.places import place, problem_line
    from gui.cli.run import read_file
    from gui.core.door import tool_catalog
    from gui.core.errors import SeqDeskError
    from gui.core.sequences import check_text, scan
    from gui.tools import default_registry

    try:
        text = read_file(args.file)
    except SeqDeskError as exc:
        print(f"seqdesk check: {exc}", file=sys.stderr)
        return 2
    result = check_text(text, tool_catalog(default_registry()))
    spans = scan(text)
    if args.json:
        body = result.to_json()
        for key, problems in (("errors", result.errors), ("warnings", result.warnings)):
            for item, problem in zip(body[key], problems, strict=True):
                item["line"], item["column"] = place(text, problem, spans)
        print(json.dumps(body, ensure_ascii=False, indent=2))
        return 0 if result.ok else 1
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


def cmd_help(args: argparse.Namespace) -> int:
    from gui.core.sequences import help_text

    print(help_text(_))
    return 0
