"""Moving a SeqDesk's things between stores: `seqdesk data export SOURCE FILE` and `seqdesk data import
FILE TARGET`, where SOURCE and TARGET are a data folder (TinyDB) or a `postgresql://` database.

What moves is `places`' (sequences, rules, schedules, MCP servers, history, the record of decisions,
notification settings, preferences, a team's people); how its secrets travel, sealed with
`SEQDESK_SECRET_KEY`, `sealing`'s;
the file, the emptiness check and the comparison after an import, `moves`'.
Part of the composition root: it opens the stores, which the commands (`gui.cli`) may not.
"""

from gui.moving.errors import BadExport, BrokenRecord, CannotSeal, CannotWrite, NotEmpty
from gui.moving.moves import Moved, export, import_
from gui.moving.places import documents, opened
from gui.moving.sealing import LEFT_OUT, SEALED

__all__ = ["LEFT_OUT", "SEALED", "BadExport", "BrokenRecord", "CannotSeal", "CannotWrite", "Moved", "NotEmpty",
           "documents", "export", "import_", "opened"]
