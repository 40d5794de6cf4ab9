"""`seqdesk run FILE` on a data folder no app serves: the app it goes through, started as soon as the
command line is read (`start_early`), before the command loads the settings' checks (pydantic), its
client of the app and the event loop, which it then loads while the app comes up: about a sixth of a
second of CPU no longer before the app's own start, which is what such a run waits for.

It is started here only where the settings cannot lead anywhere else: no team server (`--connect`,
SEQDESK_CONNECT), no store named (`--store`, SEQDESK_STORE), no SEQDESK_MEMORY, no `--args` (nor
`--resume`), a data folder that is there and writable, and a file that reads and that the app's API
can carry (`gui.cli.sequence_file`), or a saved sequence's name. Everything else is decided as before,
once the settings are read: the door (`gui.doors.open_operations`) takes this app over, or starts one
itself; a setting that cannot be used, or a door that goes elsewhere after all, ends it at once
(`Starting.abandon`). A file that is no valid sequence is said so as before, once the app serves (it
then ends by itself, its program gone)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING

from gui.environment import seqdesk_environment

if TYPE_CHECKING:
    from gui.second_launch import Starting

DECIDED_ELSEWHERE = ("connect", "store", "memory")  # given, the settings may lead to no app on a folder here


def start_early(args: argparse.Namespace) -> Starting | None:
    """The app `seqdesk run` (its parsed `args`) goes through, started in the background now, when
    the settings will say so (above); None otherwise."""
    from gui.core.errors import Unreadable
    from gui.second_launch import data_folder, read_endpoint, spawn_background

    if args.resume is not None or args.target is None or args.args is not None:
        return None
    flags = {name: getattr(args, name, None) for name in ("data", "store", "connect", "token")}
    given = seqdesk_environment() | {name: value for name, value in flags.items() if value is not None}
    said = {name: value for name, value in given.items() if value.strip()}  # a blank one is unset, as in `gui.settings`
    if any(name in said for name in DECIDED_ELSEWHERE):
        return None
    folder = data_folder(Path(said["data"]) if "data" in said else None)
    if not (folder.is_dir() and os.access(folder, os.W_OK | os.X_OK)):  # made, or said why not, by the door
        return None
    from gui.cli.sequence_file import carried, read_target

    try:
        if not carried({}, read_target(args.target)):
            return None
    except Unreadable:  # said by the command, which starts no app for it
        return None
    if read_endpoint(folder) is not None:  # an app serves the folder: the door goes there
        return None
    return spawn_background(folder, said.get("token"))
