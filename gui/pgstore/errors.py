"""What can go wrong with the PostgreSQL store, each in one sentence a person can act on."""

from __future__ import annotations

from gui.core.errors import Conflict, Internal, Unavailable


class DatabaseUnreachable(Unavailable):
    """The database cannot be reached (at start: the command exits 2 with this sentence)."""

    code = "database-unreachable"


class DatabaseNewerError(Internal):
    """The database was migrated by a newer SeqDesk than this one: it is left as it is."""

    code = "database-newer"


class SecretKeyError(Internal):
    """`SEQDESK_SECRET_KEY` is missing, malformed, or not the key the secrets were kept with."""

    code = "secret-key"


class WriteConflict(Conflict):
    """Another process changed the record first: this write lost and changed nothing."""

    code = "write-conflict"


class ProcessNameTaken(Conflict):
    """Another live process of the team bears the name this one was given (`gui.pgstore.names`)."""

    code = "process-name-taken"
