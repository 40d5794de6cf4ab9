"""`seqdesk audit verify|export`: the record of decisions of a data folder (or of a team's database,
`--store postgresql://…`), checked or printed.

`verify` proves the chain of decisions is unbroken, or names the first entry that does not fit (exit
0 unbroken, 1 broken, 2 the folder or an option cannot be used). `export` prints the entries decided
since a time, as JSON lines (each as stored) or CSV with a column of who or what decided in words.
Both read the record as it is, without taking the folder or opening the stores (the app may be
running). On a database, verify also checks that the entries end where the record's head says. Imports only what
the command it runs uses (the CLI starts fast)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from gui.i18n import _, ngettext

if TYPE_CHECKING:
    from gui.core.asks import AuditHead


def add_audit_command(sub: Any) -> None:
    audit = sub.add_parser("audit", help=_("check or print the record of decisions on requests"))
    actions = audit.add_subparsers(dest="audit_action", required=True)
    data_help = _("data folder (default: SEQDESK_DATA or your user data folder)")
    store_help = _("a team's database instead of a data folder: postgresql://… (default: SEQDESK_STORE)")
    verify = actions.add_parser("verify", help=_("prove the chain of decisions is unbroken"))
    verify.add_argument("--data", default=argparse.SUPPRESS, help=data_help)
    verify.add_argument("--store", default=argparse.SUPPRESS, help=store_help)
    verify.set_defaults(func=cmd_audit_verify)
    export = actions.add_parser("export", help=_("print the decisions, oldest first"))
    export.add_argument("--data", default=argparse.SUPPRESS, help=data_help)
    export.add_argument("--store", default=argparse.SUPPRESS, help=store_help)
    export.add_argument("--since", default=None,
                        help=_("only decisions from then on: a date or time (2026-12-01, 2026-12-01T08:00Z) "
                               "or an age (90m, 24h, 7d)"))
    export.add_argument("--format", choices=("jsonl", "csv"), default="jsonl", help=_("jsonl (default) or csv"))
    export.set_defaults(func=cmd_audit_export)


def _record(args: argparse.Namespace) -> tuple[list[dict[str, Any] | None], AuditHead | None] | None:
    """The stored entries (and the head, on a database) of the data folder or database asked for
    (--data or --store before or after the command, else SEQDESK_STORE / SEQDESK_DATA, else the
    user's folder); None after saying why they cannot be read."""
    from gui.app import decision_record  # the composition root opens the store; the command never does
    from gui.core.errors import SeqDeskError

    try:
        return decision_record(args.settings)
    except (SeqDeskError, OSError) as exc:
        print(f"seqdesk audit: {exc}", file=sys.stderr)
        return None


def cmd_audit_verify(args: argparse.Namespace) -> int:
    from gui.core.asks import verify

    record = _record(args)
    if record is None:
        return 2
    verdict = verify(*record)
    if verdict.ok and not verdict.count:  # nothing to prove: not "a chain of 0 decisions"
        print(_("ok: no decisions are recorded yet"))
        return 0
    if verdict.ok:
        print(ngettext("ok: the chain of {count} decision is unbroken",
                       "ok: the chain of {count} decisions is unbroken", verdict.count).format(count=verdict.count))
        return 0
    named = _(" (id {id})").format(id=verdict.broken_id) if verdict.broken_id else ""
    print(_("broken: the chain is broken at entry {position}{named}: {problem}").format(
        position=verdict.broken_at, named=named, problem=verdict.problem), file=sys.stderr)
    return 1


def since_ms(text: str, now: float) -> int:
    """`text` as ms since the epoch: an age (`90m`, `24h`, `7d`) before `now`, or an ISO date or time
    (without a zone: local time). ValueError with a sentence when it is neither."""
    import re
    from datetime import datetime

    age = re.fullmatch(r"\s*(\d+)\s*([smhd])\s*", text)
    if age:
        seconds = int(age.group(1)) * {"s": 1, "m": 60, "h": 3600, "d": 86400}[age.group(2)]
        return int((now - seconds) * 1000)
    try:
        when = datetime.fromisoformat(text.strip().replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise ValueError(f"--since {text!r} is neither a date or time (2026-12-01, 2026-12-01T08:00Z) "
                         "nor an age (90m, 24h, 7d)") from None
    return int(when.timestamp() * 1000)


CSV_COLUMNS = ("position", "when", "who", "decision", "detail", "shown", "kind", "interaction_id", "run_id",
               "sequence_name", "by", "person", "via", "rule_id", "cause", "entry_id", "prev", "hash")


def cmd_audit_export(args: argparse.Namespace) -> int:
    import json
    import time

    from gui.core.asks import entries, verify, who_words

    try:
        since = since_ms(args.since, time.time()) if args.since else None
    except ValueError as exc:
        print(f"seqdesk audit export: {exc}", file=sys.stderr)
        return 2
    record = _record(args)
    if record is None:
        return 2
    documents, head = record
    found = entries(documents, since_ms=since)
    if args.format == "jsonl":
        for entry in found:
            print(json.dumps(entry.model_dump(mode="json"), ensure_ascii=False, separators=(",", ":")))
    else:
        import csv
        from datetime import UTC, datetime

        out = csv.writer(sys.stdout, lineterminator="\n")
        out.writerow(CSV_COLUMNS)
        for entry in found:
            row = entry.model_dump(mode="json")
            row["when"] = datetime.fromtimestamp(entry.at / 1000, UTC).isoformat(timespec="milliseconds")
            row["who"] = who_words(entry)
            out.writerow(["" if row.get(name) is None else row[name] for name in CSV_COLUMNS])
    verdict = verify(documents, head)
    if not verdict.ok:  # printed all the same: the person may need exactly what is there
        print(f"seqdesk audit export: warning: {verdict.sentence()}", file=sys.stderr)
    return 0
