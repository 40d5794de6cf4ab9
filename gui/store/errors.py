"""The store's failures, one family, so a caller can catch all of them or exactly one.

Each carries a stable `code` (for the API and the CLI) and a message written for people::

    StoreError
    ├── CorruptDatabaseError   a file exists but is not one of ours (here)
    ├── DataFolderInUseError   another SeqDesk holds the folder (lock.py)
    ├── DataFolderLostError    the folder was moved or replaced under a running app (lock.py)
    ├── DataFolderError        the folder cannot be created or written (datadir.py)
    └── WriterClosedError      an operation after the store was closed (writer.py)
"""

from __future__ import annotations

from pathlib import Path

from gui.core.errors import Internal


class StoreError(Internal):
    """Base of every error the store raises on purpose; `code` is stable, the message is for people."""

    code = "store-error"


class CorruptDatabaseError(StoreError):
    """A database file exists but cannot be read as one: it was not written by SeqDesk's store.

    The opener (`recovery.repair`) salvages the documents that still parse, keeps the original
    under another name and says so; nothing reads such a file as "empty".
    """

    code = "corrupt-database"

    def __init__(self, path: Path, reason: str = "it is not valid JSON") -> None:
        self.path = Path(path)
        self.reason = reason
        super().__init__(
            f"The database file {self.path} cannot be read: {reason}. "
            "It was left untouched; move it aside (quarantine) to start with an empty one."
        )
