"""Opening the persistent stores on a data folder: the lock, the writer, the tables, recovery.

One process per data folder: the lock is taken once per process and folder (`hold_lock`), so the
command that starts the app can refuse early and the stores reuse the same lock. A file that is not
valid JSON (written by something else) is moved aside with a clear message, never emptied.
"""

from __future__ import annotations

import logging
from pathlib import Path

from gui.core.engine import Engine
from gui.runtime import Runtime
from gui.store.adapters import (
    TinyApprovalModes,
    TinyInteractionStore,
    TinyRunStore,
    TinySequenceStore,
)
from gui.store.atomic import CorruptDatabaseError, quarantine
from gui.store.datadir import data_dir as default_data_dir
from gui.store.lock import InstanceLock
from gui.store.tables import HotColdStore
from gui.store.writer import Writer
from gui.tools import default_registry

log = logging.getLogger(__name__)

_held: dict[Path, InstanceLock] = {}


def hold_lock(folder: Path) -> InstanceLock:
    """This process's lock on `folder` (taken on first use); DataFolderInUseError if another has it."""
    folder.mkdir(parents=True, exist_ok=True)
    key = folder.resolve()
    lock = _held.get(key)
    if lock is None or not lock.held:
        lock = InstanceLock(key).acquire()
        _held[key] = lock
    return lock


def release_lock(folder: Path) -> None:
    lock = _held.pop(folder.resolve(), None)
    if lock is not None:
        lock.release()


def open_table(folder: Path, name: str, notices: list[str]) -> HotColdStore:
    """The table, moving aside any file of it that is not valid JSON (and saying so)."""
    for _ in range(20):
        try:
            return HotColdStore(folder, name)
        except CorruptDatabaseError as exc:
            moved = quarantine(exc.path)
            message = (f"{exc.path} was not a valid SeqDesk file; it was moved aside to {moved} "
                       "and a new one was started. Nothing was deleted.")
            log.warning(message)
            notices.append(message)
    raise RuntimeError(f"could not open the {name} table in {folder}")


async def open_stores(folder: Path | None = None) -> Runtime:
    folder = Path(folder) if folder is not None else default_data_dir()
    folder.mkdir(parents=True, exist_ok=True)
    hold_lock(folder)
    writer = Writer()
    notices: list[str] = []
    try:
        sequences = writer.run_sync(open_table, folder, "sequences", notices)
        runs = writer.run_sync(open_table, folder, "runs", notices)
        interactions = writer.run_sync(open_table, folder, "interactions", notices)
        settings = writer.run_sync(open_table, folder, "settings", notices)
        engine = Engine(
            registry=default_registry(),
            sequences=TinySequenceStore(sequences, writer),
            runs=TinyRunStore(runs, writer),
            interaction_store=TinyInteractionStore(interactions, writer),
            modes=TinyApprovalModes(settings, writer),
        )
    except BaseException:
        writer.close()
        release_lock(folder)
        raise
    runtime = Runtime(engine=engine, data_dir=folder, notices=notices,
                      extras={"writer": writer, "settings_table": settings})

    def close() -> None:
        writer.close()
        release_lock(folder)

    runtime.closers.append(close)
    return runtime
