"""What can go wrong moving a SeqDesk's things between stores, each a sentence (`gui.core.errors`)."""

from __future__ import annotations

from gui.core.errors import Conflict, Invalid, Unavailable


class NotEmpty(Conflict):
    """The target already holds things: importing would mix two SeqDesks (`--merge` says to)."""

    code = "target-not-empty"


class BrokenRecord(Conflict):
    """The record of decisions to export does not verify: moved, it would not prove anything where it arrives."""

    code = "broken-record"


class BadExport(Invalid):
    """The file is not a SeqDesk export (or a line of it cannot be read, or its secrets not unsealed)."""

    code = "bad-export"


class CannotSeal(Invalid):
    """The things to export hold secrets, and no key was given to seal them with."""

    code = "cannot-seal"


class CannotWrite(Unavailable):
    """The export file cannot be written there."""

    code = "cannot-write"
