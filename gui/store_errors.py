"""Turning storage failures into one sentence for a terminal (never a traceback).

Every failure the store can explain is a `StoreError` with a message written for a person (a data
folder in use, moved away, damaged, not writable); anything else is a bug and is left to surface.
"""

from __future__ import annotations


def friendly_store_error(exc: BaseException) -> str | None:
    """The message to show for a known storage problem, or None for anything else."""
    from gui.store.errors import StoreError

    return str(exc) if isinstance(exc, StoreError) else None
