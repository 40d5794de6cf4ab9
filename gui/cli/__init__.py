"""The `seqdesk` command: the app by default, plus check, help, run, list, tools and mcp for terminals.

Exit codes are part of the interface for scripts: `check` 0 valid / 1 invalid / 2 unreadable;
`run` 0 succeeded / 1 any other end / 2 invalid sequence or args.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence as Seq

from gui.cli.places import place, problem_line
from gui.core.door import tool_catalog
from gui.core.sequences import check_text, help_text, scan
from gui.i18n import _, ngettext


def cmd_check(args: argparse.Namespace) -> int:
    from gui.cli.run import read_file
    from gui.core.errors import SeqDeskError

    try:
        text = read_file(args.file)
    except SeqDeskError as exc:
        print(f"seqdesk check: {exc}", file=sys.stderr)
        return 2
    from gui.tools import default_registry

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
    print(help_text(_))
    return 0


def _language(argv: Seq[str] | None) -> str | int | None:
    """The language asked for with `--lang` (before anything is parsed, so the help speaks it too),
    else `SEQDESK_LANG`; 2 after a clear error for a `--lang` SeqDesk does not speak. A bad
    SEQDESK_LANG is said once on stderr and English is used, as the app does."""
    import os

    from gui import i18n

    words = list(sys.argv[1:] if argv is None else argv)
    given: str | None = None
    for index, word in enumerate(words):
        if word == "--":
            break
        if word == "--lang" and index + 1 < len(words):
            given = words[index + 1]
        elif word.startswith("--lang="):
            given = word.split("=", 1)[1]
    if given is not None:
        try:
            return i18n.normalize(given)
        except i18n.UnknownLanguage as exc:
            print(f"seqdesk: --lang: {exc}", file=sys.stderr)
            return 2
    env = (os.environ.get("SEQDESK_LANG") or "").strip()
    if not env:
        return None
    try:
        return i18n.normalize(env)
    except i18n.UnknownLanguage as exc:
        print(f"seqdesk: SEQDESK_LANG: {exc}; English is used", file=sys.stderr)
        return None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="seqdesk", description=_("Build tool sequences, run them, and answer their requests for a human."))
    parser.add_argument("--browser", action="store_true", help=_("only serve the app; open it in your browser"))
    parser.add_argument("--host", default=None, help=_("address to bind (default 127.0.0.1; others need --token)"))
    parser.add_argument("--port", type=int, default=None, help=_("port to serve on (default: a free one)"))
    parser.add_argument("--token", default=None, help=_("access token (or SEQDESK_TOKEN), required off localhost"))
    parser.add_argument("--data", default=None,
                        help=_("data folder (default: SEQDESK_DATA or your user data folder)"))
    parser.add_argument("--executor", default=None,
                        help=_("where runs run: in-process (default) or temporal://host:port/namespace "
                               "(or SEQDESK_EXECUTOR)"))
    parser.add_argument("--lang", default=None,
                        help=_("language of the screens and messages: en or zh-CN (or SEQDESK_LANG)"))
    sub = parser.add_subparsers(dest="command")

    check = sub.add_parser("check", help=_("check a sequence file and list its problems"))
    check.add_argument("file")
    check.add_argument("--json", action="store_true", help=_("print the result as JSON"))
    check.set_defaults(func=cmd_check)

    helper = sub.add_parser("help", help=_("print the sequence format, with a copyable example"))
    helper.set_defaults(func=cmd_help)

    from gui.cli.run import add_run_commands

    add_run_commands(sub)
    from gui.cli.tools import add_tools_command

    add_tools_command(sub)
    return parser


def main(argv: Seq[str] | None = None) -> int:
    # Text that no encoding can write (a lone surrogate from a tool's JSON) is printed as `\udc80`,
    # which inside a JSON string is the very same text: output for scripts stays valid JSON.
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is not None:
        reconfigure(errors="backslashreplace")
    from gui import i18n

    lang = _language(argv)
    if isinstance(lang, int):
        return lang
    i18n.set_defaults(started=lang)  # before the parser: its help is in that language too
    from gui.cli.argwords import install

    install()  # argparse's own words ("usage:", "error: …") in that language as well
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.executor:  # read where the engine is composed (`gui.runtime.chosen_executor`)
        os.environ["SEQDESK_EXECUTOR"] = args.executor
    from gui.settings import load_settings

    args.settings = load_settings(data=args.data, token=args.token, lang=lang)  # read once; never written back
    func = getattr(args, "func", None)
    if func is None:
        from gui.app import start_app

        return start_app(args, args.settings)
    try:
        return int(func(args))
    except KeyboardInterrupt:
        print(_("interrupted"), file=sys.stderr)
        return 130
