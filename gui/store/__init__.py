"""TinyDB storage behind the core's store protocols.

Writes are crash-safe (temporary file, fsync, rename, fsync of the folder), every file operation
runs on one writer thread, one process owns a data folder at a time, and finished runs and answered
requests move to bounded history segments with small indexes, so that writes do not slow down as
history grows and a page of a query reads only the segments that hold it. A damaged file is
repaired at open (what still parses is kept, the original moved aside) and reported.
"""

from gui.store.errors import CorruptDatabaseError, StoreError
from gui.store.lock import DataFolderInUseError, DataFolderLostError, InstanceLock
from gui.store.open import Stores, open_stores
from gui.store.recovery import Damage

__all__ = ["CorruptDatabaseError", "Damage", "DataFolderInUseError", "DataFolderLostError", "InstanceLock",
           "StoreError", "Stores", "open_stores"]
