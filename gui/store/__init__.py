"""TinyDB storage behind the core's store protocols.

Writes are crash-safe (temporary file, fsync, rename, fsync of the folder), every file operation
runs on one writer thread, one process owns a data folder at a time, and finished runs and answered
requests move to bounded history segments so that writes do not slow down as history grows.
"""

from gui.store.atomic import CorruptDatabaseError, StoreError
from gui.store.lock import DataFolderInUseError, InstanceLock
from gui.store.open import open_stores

__all__ = ["CorruptDatabaseError", "DataFolderInUseError", "InstanceLock", "StoreError", "open_stores"]
