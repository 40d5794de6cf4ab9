"""`seqdesk serve`: a team's SeqDesk server on a PostgreSQL database: the app's pages and HTTP API,
with no window and no browser opened. Any number of them can serve one database (`gui.pgstore`).
People sign in there (no shared token); desktops reach one with `seqdesk --connect URL`, the CLI's
doors with `--connect URL` and a personal token in SEQDESK_TOKEN."""

from __future__ import annotations

import argparse
import re
import socket
import sys
from typing import Any

from gui.i18n import _

DEFAULT_PORT = 8765  # a team server keeps one address, which desktops and scripts are given


def add_serve_command(sub: Any) -> None:
    serve = sub.add_parser(
        "serve", help=_("serve a team's SeqDesk on a PostgreSQL database (no window; desktops connect to it)"),
        description=_("Serve SeqDesk's pages and API for a team, on a PostgreSQL database that any number of "
                      "such servers can share. Desktops open it with: seqdesk --connect URL"))
    # SUPPRESS: given here or before the command (`seqdesk --store … serve`), either is kept
    serve.add_argument("--store", default=argparse.SUPPRESS,
                       help=_("the team's database: postgresql://user@host/name (or SEQDESK_STORE)"))
    serve.add_argument("--host", default=argparse.SUPPRESS,
                       help=_("address to bind (default 127.0.0.1; 0.0.0.0 for every one: people sign in)"))
    serve.add_argument("--port", type=int, default=argparse.SUPPRESS,
                       help=_("port to serve on (default {port})").format(port=DEFAULT_PORT))
    serve.add_argument("--name", action="append", default=[], metavar="HOST", dest="names",
                       help=_("a name desktops reach this server by (e.g. seqdesk.example); repeat for more. "
                              "Addresses need none"))
    serve.add_argument("--process-name", default=None, metavar="NAME",
                       help=_("this server's name among the team's servers on the database (default: this host's "
                              "name and the port, e.g. node1-8765; or SEQDESK_PROCESS_NAME). Runs on Temporal go to "
                              "the server that started them: restarted under the same name, a server takes its "
                              "runs back; two live servers cannot share a name"))
    serve.set_defaults(func=cmd_serve)


def default_process_name(port: int) -> str:
    """This host's name (its first label, in the letters a process name allows) and the port."""
    host = re.sub(r"[^A-Za-z0-9_-]", "-", socket.gethostname().split(".")[0]).strip("-_") or "seqdesk"
    return f"{host[:33]}-{port}"


def cmd_serve(args: argparse.Namespace) -> int:
    from gui.app import serve_team
    from gui.settings import PROCESS_NAME

    port = args.port or DEFAULT_PORT
    name = args.process_name or args.settings.process_name or default_process_name(port)
    if not re.match(PROCESS_NAME, name):
        print(_("seqdesk serve: --process-name: '{name}' is not a process's name: use 1 to 40 letters, digits, "
                "'.', '_' and '-'").format(name=name), file=sys.stderr)
        return 2
    settings = args.settings.model_copy(update={"process_name": name})
    return serve_team(args.host or "127.0.0.1", port, settings, names=args.names)
