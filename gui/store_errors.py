"""Turning storage failures into one sentence for a terminal (never a traceback)."""

from __future__ import annotations


def friendly_store_error(exc: BaseException) -> str | None:
    """The message to show for a known storage problem, or None for anything else."""
    try:
        from gui.store.lock import DataFolderInUseError
    except ImportError:  # pragma: no cover - the storage layer is part of the package
        return None
    if isinstance(exc, DataFolderInUseError):
        return str(exc)
    try:
        from gui.store.atomic import CorruptDatabaseError
    except ImportError:  # pragma: no cover
        return None
    if isinstance(exc, CorruptDatabaseError):
        return str(exc)
    return None
