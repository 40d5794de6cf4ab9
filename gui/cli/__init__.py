"""The `seqdesk` command: the app by default (a team server's with `--connect URL`), plus check, help, run,
list, tools, mcp, serve (a team's server) and people (its accounts) for terminals.

Exit codes are part of the interface for scripts: `check` 0 valid / 1 invalid / 2 unreadable;
`run` 0 succeeded / 1 any other end / 2 invalid sequence or args.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from collections.abc import Sequence as Seq
from typing import Any

from gui.cli.ask import add_ask_command
from gui.cli.audit import add_audit_command
from gui.cli.check import add_format_commands
from gui.cli.data import add_data_command
from gui.cli.mcp import add_mcp_command
from gui.cli.people import add_people_command
from gui.cli.run import add_run_commands
from gui.cli.serve import add_serve_command
from gui.cli.tools import add_tools_command
from gui.cli.worker import add_worker_command
from gui.i18n import _

# Every command, each adding its own parser to the subparsers (a new command is one more line). A
# command's module imports only what parsing needs; its function imports the rest when it runs, so
# `seqdesk help` loads neither the engine nor NiceGUI nor the MCP SDK.
COMMANDS: tuple[Callable[[Any], object], ...] = (add_format_commands, add_run_commands, add_mcp_command,
                                                 add_tools_command, add_data_command, add_ask_command,
                                                 add_audit_command, add_serve_command, add_people_command,
                                                 add_worker_command)


# Optional imports of libraries the commands use, made when the optional package is installed,
# for what no command does: httpx's own command line (`httpx._main`: click, rich, pygments) and
# httpcore's trio backend (`trio`: its client runs on asyncio here). Declined as if not installed, a
# tenth of a second of CPU at every command that speaks to the app (`seqdesk run`, `list`, `ask`).
UNUSED_OPTIONAL_IMPORTS = ("httpx._main", "trio")


def _decline_unused_imports() -> None:
    """`import httpx._main` and `import trio` fail in this process from now on, as when neither is
    installed, which httpx and httpcore handle (`except ImportError`); a module already loaded stays."""
    for name in UNUSED_OPTIONAL_IMPORTS:
        sys.modules.setdefault(name, None)  # type: ignore[arg-type]  # None: Python's "not importable"


def _language(argv: Seq[str] | None) -> str | int | None:
    """The language asked for with `--lang` (before anything is parsed, so the help speaks it too),
    else `SEQDESK_LANG`; 2 after a clear error for a `--lang` SeqDesk does not speak. A bad
    SEQDESK_LANG is said once on stderr and English is used, as the app does."""

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
    parser.add_argument("--store", default=None,
                        help=_("where to keep things: a postgresql:// database shared by a team, or a data folder "
                               "(or SEQDESK_STORE)"))
    parser.add_argument("--connect", default=None, metavar="URL",
                        help=_("open a team's SeqDesk server (seqdesk serve) instead of a data folder here "
                               "(or SEQDESK_CONNECT)"))
    parser.add_argument("--executor", default=None,
                        help=_("where runs run: in-process (default) or temporal://host:port/namespace "
                               "(or SEQDESK_EXECUTOR)"))
    parser.add_argument("--lang", default=None,
                        help=_("language of the screens and messages: en or zh-CN (or SEQDESK_LANG)"))
    sub = parser.add_subparsers(dest="command")
    for add_command in COMMANDS:
        add_command(sub)
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
    start_early = getattr(args, "start_early", None)  # `seqdesk run`: its app, before the settings' checks load
    args.starting = start_early(args) if start_early is not None else None
    if getattr(args, "reads_settings", True):  # `check` and `help` read no data folder, and skip loading them
        from gui.settings import SettingsError, load_settings

        try:  # read once; never written back
            args.settings = load_settings(data=args.data, store=args.store, connect=args.connect, token=args.token,
                                          lang=lang)
        except SettingsError as exc:
            if args.starting is not None:  # the app started for the command: it has none to serve
                args.starting.abandon()
            print(f"seqdesk: {exc}", file=sys.stderr)
            return 2
    func = getattr(args, "func", None)
    if func is None:
        from gui.app import start_app

        return start_app(args, args.settings)
    _decline_unused_imports()  # a command, not the app (whose pages' libraries may use them)
    try:
        code = int(func(args))
        sys.stdout.flush()  # a reader that left early (`seqdesk help | head`) is met here, not at exit
        return code
    except KeyboardInterrupt:
        print(_("interrupted"), file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader left: nothing more to say, and no traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # as a shell reports a command ended by SIGPIPE
