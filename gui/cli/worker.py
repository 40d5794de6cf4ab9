"""`seqdesk worker --name NAME --executor temporal://…`: serve a team's steps on this host.

The worker dials out to the Temporal service (no port opens here), registers as the host NAME in
the hosts list, and runs the steps that say `"on": "NAME"` until it is stopped (Ctrl-C, SIGTERM),
when it says it left. A service that does not answer yet is tried again until it does. It runs only
the steps the team's app signed (`--trust steps.pub`, or SEQDESK_WORKER_TRUST: the app's public step
key, `gui.temporal.signing`); without one it does not start. It reads no data folder: the app that
runs the sequence keeps the record and asks for approvals; only the tool's call runs here (`gui.temporal.worker`).
It keeps one file, in its state folder (`--state`; by default one per host name in this user's state
folder): the steps it took, until they expire, so that it refuses them again after a restart.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from pathlib import Path
from typing import Any

from gui.i18n import _

TAKEN_FILE = "taken-steps.json"  # in the worker's state folder: the steps it took (`gui.temporal.signing.TakenSteps`)


def add_worker_command(sub: Any) -> None:
    worker = sub.add_parser("worker", help=_("run a team's steps on this host (steps that say \"on\": NAME)"))
    worker.add_argument("--name", required=True, help=_("this host's name, as steps name it (\"on\": NAME)"))
    worker.add_argument("--executor", default=argparse.SUPPRESS,
                        help=_("the team's Temporal service: temporal://host:port/namespace (or SEQDESK_EXECUTOR)"))
    worker.add_argument("--trust", default=None, metavar="KEYFILE",
                        help=_("the app's public step key (PEM): only steps it signed run here "
                               "(or SEQDESK_WORKER_TRUST)"))
    worker.add_argument("--state", default=None, metavar="FOLDER",
                        help=_("where this worker remembers the steps it took (default: a folder of this user's "
                               "state folder, one per host name)"))
    worker.set_defaults(func=cmd_worker, reads_settings=False)


def cmd_worker(args: argparse.Namespace) -> int:
    from gui.core.errors import SeqDeskError
    from gui.core.sequences import HOST_NAME

    if not HOST_NAME.match(args.name):
        print(_("seqdesk worker: --name: '{name}' is not a host's name: use 1 to 63 letters, digits, '.', '_' "
                "and '-'").format(name=args.name), file=sys.stderr)
        return 2
    address = (getattr(args, "executor", None) or os.environ.get("SEQDESK_EXECUTOR") or "").strip()
    if address in ("", "in-process"):
        print(_("seqdesk worker: give the team's Temporal service: --executor temporal://host:port/namespace"),
              file=sys.stderr)
        return 2
    try:
        import asyncio

        import platformdirs

        from gui.temporal import StepKeyError, parse_target
        from gui.temporal.signing import TakenSteps, trust_from
        from gui.temporal.worker import HostWorker

        target = parse_target(address)
        state = Path(args.state).expanduser() if args.state else \
            Path(platformdirs.user_state_dir("SeqDesk", appauthor=False)) / "workers" / args.name
        try:
            state.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError as exc:
            print(_("seqdesk worker: --state: the folder {folder} cannot be made ({reason}): give one this user can "
                    "write to").format(folder=state, reason=exc.strerror or exc), file=sys.stderr)
            return 2
        try:
            trust = trust_from(args.trust, TakenSteps(state / TAKEN_FILE))
        except StepKeyError as exc:
            print(f"seqdesk worker: {exc}", file=sys.stderr)
            return 2
        worker = HostWorker(args.name, target, trust, refused=_say_refused)
        return asyncio.run(_serve(worker))
    except SeqDeskError as exc:
        print(f"seqdesk worker: {exc}", file=sys.stderr)
        return 1


def _say_refused(words: str) -> None:
    print(f"seqdesk worker: {words}", file=sys.stderr, flush=True)


async def _serve(worker: Any) -> int:
    import asyncio

    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, worker.stop)

    def ready() -> None:
        print(_("seqdesk worker: serving as the host {name} (its steps come from the queue {queue}; it runs "
                "those signed by the key {keys})").format(
            name=worker.name, queue=f"seqdesk-host-{worker.name}", keys=", ".join(worker.trust.key_ids)), flush=True)

    def waiting(reason: str) -> None:
        print(f"seqdesk worker: {reason}", file=sys.stderr, flush=True)

    await worker.run(ready, waiting)
    return 0
