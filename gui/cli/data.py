"""`seqdesk data export SOURCE FILE` and `seqdesk data import FILE TARGET [--merge]`: a SeqDesk's things
moved between a data folder and a team's `postgresql://` database, either way (`gui.moving`): its
sequences, rules, schedules, MCP servers, history, the record of decisions (its chain verified after
an import), notification settings, preferences and a team's people. Secrets travel sealed with
SEQDESK_SECRET_KEY (never in clear), or not at all
(`--without-secrets`); each command says which."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from gui.i18n import _, ngettext


def add_data_command(sub: Any) -> None:
    data = sub.add_parser("data", help=_("move sequences, rules, schedules, settings and history between stores"))
    moves = data.add_subparsers(dest="move", required=True)
    out = moves.add_parser("export", help=_("write everything a data folder or a database holds to a file"))
    out.add_argument("source", help=_("a data folder, or a postgresql:// database"))
    out.add_argument("file", help=_("the file to write"))
    out.add_argument("--without-secrets", action="store_true",
                     help=_("leave secrets out of the file (else they are sealed with SEQDESK_SECRET_KEY)"))
    out.set_defaults(func=cmd_export)
    into = moves.add_parser("import", help=_("read an exported file into a data folder or a database"))
    into.add_argument("file", help=_("a file `seqdesk data export` wrote"))
    into.add_argument("target", help=_("a data folder, or a postgresql:// database"))
    into.add_argument("--merge", action="store_true", help=_("add to what the target already holds"))
    into.set_defaults(func=cmd_import)


def cmd_export(args: argparse.Namespace) -> int:
    from gui.cli.run import _run_async
    from gui.moving import export

    async def go() -> int:
        moved = await export(args.source, Path(args.file), with_secrets=not args.without_secrets)
        print(_("exported: {counts}").format(counts=_counts(moved.counts)))
        _say_secrets(moved.secrets)
        return 0

    return _run_async(go)


def cmd_import(args: argparse.Namespace) -> int:
    from gui.cli.run import _run_async
    from gui.moving import import_

    async def go() -> int:
        moved = await import_(Path(args.file), args.target, merge=args.merge)
        print(_("imported: {counts}").format(counts=_counts(moved.counts)))
        _say_secrets(moved.secrets)
        people = [name for name in moved.left_out if name.startswith("person/")]
        if people:
            print(_("left out, as a data folder has no people: {things}").format(things=", ".join(people)),
                  file=sys.stderr)
        decisions = [name for name in moved.left_out if name.startswith("audit/")]
        if decisions:
            print(ngettext("left out: {n} decision of the file's record, as the target keeps a record of its own, "
                           "which the file's chain cannot continue",
                           "left out: {n} decisions of the file's record, as the target keeps a record of its own, "
                           "which the file's chain cannot continue", len(decisions)).format(n=len(decisions)),
                  file=sys.stderr)
        if moved.record is not None and moved.record.count:
            if moved.record.ok:
                print(ngettext("record of decisions: the chain of {count} decision is unbroken",
                               "record of decisions: the chain of {count} decisions is unbroken",
                               moved.record.count).format(count=moved.record.count))
            else:
                print(_("seqdesk: the target's record of decisions does not verify: {problem}").format(
                    problem=moved.record.sentence()), file=sys.stderr)
                return 1
        if moved.differences:
            for line in moved.differences[:20]:
                print(f"  {line}", file=sys.stderr)
            print(_("seqdesk: {n} documents differ from the file after the import").format(
                n=len(moved.differences)), file=sys.stderr)
            return 1
        return 0

    return _run_async(go)


def _say_secrets(carried: str) -> None:
    from gui.moving import LEFT_OUT, SEALED

    if carried == SEALED:
        print(_("secrets: sealed in the file with SEQDESK_SECRET_KEY (the same key opens them on import)"))
    elif carried == LEFT_OUT:
        print(_("secrets: left out of the file (MCP header values and Client secrets, notification addresses and "
                "password, people's password hashes and tokens): the target keeps its own"))


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items())) or "nothing"
