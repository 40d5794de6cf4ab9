"""TinyDB storage behind the core's store protocols.

Writes are crash-safe: a change of the documents still changing (running runs, pending requests)
is a line appended to a journal and fsynced, so it costs the same however many are waiting
(`journal`); every other file is replaced whole (temporary file, fsync, rename, fsync of the
folder). Every file operation runs on one writer thread, which lets the writes queued together
share one fsync before any of them is acknowledged; one process owns a data folder at a time; and
finished runs and answered requests move to bounded history segments with small indexes, so that
writes do not slow down as history grows and a page of a query reads only the segments that hold
it. A damaged file (a journal line cut short by a kill too) is repaired at open (what still parses
is kept, the original moved aside) and reported.
"""

from gui.store.errors import CorruptDatabaseError, StoreError
from gui.store.lock import DataFolderInUseError, DataFolderLostError, InstanceLock
from gui.store.open import Stores, open_stores
from gui.store.recovery import Damage

__all__ = ["CorruptDatabaseError", "Damage", "DataFolderInUseError", "DataFolderLostError", "InstanceLock",
           "StoreError", "Stores", "open_stores"]
