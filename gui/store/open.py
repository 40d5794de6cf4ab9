"""Opening the persistent stores on a data folder: the lock, the writer, the tables, repairs.

`open_stores` returns the four stores behind the core's ports and what it had to repair; building
the engine on them is the caller's business (`gui.runtime`). One process per data folder: the lock
is taken once per process and folder (`hold_lock`), so the command that starts the app can refuse
early and the stores reuse the same lock; the writer checks it before every operation. A file that
cannot be read is repaired (its readable documents kept, the original moved aside, a `Damage`
reported), never emptied.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import Future, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gui.core.asks import ENDED_STATUSES, InteractionRecord, interaction_fields
from gui.core.runs import FINISHED_RUN, RunRecord, run_fields
from gui.store.adapters import (
    TinyApprovalModes,
    TinyInteractionStore,
    TinyRunStore,
    TinySequenceStore,
    indexer,
    is_interaction,
    is_run,
    is_sequence,
    is_settings,
    report_archive,
)
from gui.store.datadir import data_dir as default_data_dir
from gui.store.history import Indexer
from gui.store.hotcold import HotColdStore, no_fields
from gui.store.lock import InstanceLock, hold_lock, release_lock
from gui.store.recovery import Damage, open_store
from gui.store.salvage import Accept
from gui.store.schedules import TinyScheduleStore, is_schedule
from gui.store.vouching import Vouching, vouching
from gui.store.writer import Writer, WriterClosedError

log = logging.getLogger(__name__)

__all__ = ["Stores", "hold_lock", "open_stores", "release_lock"]


@dataclass
class Stores:
    """The open stores of one data folder; `close()` when done (it finishes queued writes first)."""

    folder: Path
    sequences: TinySequenceStore
    runs: TinyRunStore
    interactions: TinyInteractionStore
    modes: TinyApprovalModes
    writer: Writer
    schedules: TinyScheduleStore
    lock: InstanceLock
    damage: list[Damage] = field(default_factory=list)
    tables: list[HotColdStore] = field(default_factory=list)  # compacted at close

    @property
    def notices(self) -> list[str]:
        """What a person should read about the opening (a damaged file, what was saved from it)."""
        return [d.message for d in self.damage]

    def closing(self) -> None:
        """The app is closing: what its end makes final (the runs and requests still waiting, ended now)
        goes straight to history (`HotColdStore.closing`: written once, not put hot and moved after),
        without vouching for its texts (`History.leave_unvouched`): checking each (read and written
        again by its model) took most of a close with 10,000 runs waiting. A page reads those texts as
        it reads any the store does not vouch for. Queued before the ends' writes."""
        try:
            self.writer.submit(self._closing)
        except WriterClosedError:  # closed already: nothing more is moved
            pass

    def _closing(self) -> None:
        for table in self.tables:
            table.closing()

    def close(self) -> None:
        """Finish the queued writes, move what ended to history (a move is left for a quiet moment
        while the app runs: `Archiver`), compact the journals of hot changes, let go of the folder.
        The writer closes once that housekeeping is done: a move may ask for more (a compaction it
        made due), which a closed writer would refuse, failing the move."""
        housekeeping: list[Future[Any]] = []
        for table in self.tables:
            try:
                housekeeping.append(self.writer.submit_later(table.archive_pending))
                housekeeping[-1].add_done_callback(report_archive)
                housekeeping.append(self.writer.submit_later(table.close))
                housekeeping[-1].add_done_callback(report_compaction)
            except WriterClosedError:  # closed already
                break
        wait(housekeeping)
        self.writer.close()
        release_lock(self.folder)


def report_compaction(done: Future[Any]) -> None:
    exc = done.exception()
    if exc is not None:  # the journal stays as it is, and is read again at the next open
        log.warning("could not compact a journal of hot changes (it is kept as it is): %s", exc)


def status_in(statuses: frozenset[str]) -> Callable[[dict[str, Any]], bool]:
    def final(fields: dict[str, Any]) -> bool:
        return fields.get("status") in statuses

    return final


async def open_stores(folder: Path | None = None, *, segment_docs: int = 1000,
                      on_damage: Callable[[Damage], None] | None = None) -> Stores:
    """The stores on `folder` (default: the data folder); `DataFolderInUseError` if another has it.

    Every damaged file found, at open or later (a history segment is read only when needed), is
    repaired, kept in `Stores.damage` and passed to `on_damage`. `segment_docs` bounds each history
    segment (tests make it small to cross segments)."""
    folder = Path(folder) if folder is not None else default_data_dir()
    folder.mkdir(parents=True, exist_ok=True)
    lock = hold_lock(folder)
    writer = Writer(guard=lock.ensure)
    damage: list[Damage] = []

    def later(call: Callable[[], object]) -> None:
        writer.submit_later(call).add_done_callback(report_compaction)

    def report(found: Damage) -> None:
        damage.append(found)
        if on_damage is not None:
            on_damage(found)

    def store(name: str, accept: Accept, index: Indexer = no_fields, vouched: Vouching | None = None) -> HotColdStore:
        return open_store(folder, name, indexer=index, accept=accept, report=report, segment_docs=segment_docs,
                          sync_later=writer.sync_later, later=later, vouching=vouched)

    # pages sent on as JSON (`GET /api/runs`, `/api/interactions`): as each store keeps its documents
    run_texts, interaction_texts = vouching(RunRecord, by_alias=True), vouching(InteractionRecord, by_alias=False)

    try:
        sequences = await writer.run(store, "sequences", is_sequence)
        runs = await writer.run(store, "runs", is_run, indexer(RunRecord, run_fields), run_texts)
        interactions = await writer.run(store, "interactions", is_interaction,
                                        indexer(InteractionRecord, interaction_fields), interaction_texts)
        settings = await writer.run(store, "settings", is_settings)
        # what a stopped process left final in the hot documents moves to history, behind the first pages
        for table, final in ((runs, FINISHED_RUN), (interactions, ENDED_STATUSES)):
            writer.submit_later(table.archive_hot, status_in(final)).add_done_callback(report_archive)
        modes = TinyApprovalModes(settings, writer)
        schedules = await writer.run(store, "schedules", is_schedule)
    except BaseException:
        writer.close()
        release_lock(folder)
        raise
    return Stores(folder=folder, sequences=TinySequenceStore(sequences, writer),
                  runs=TinyRunStore(runs, writer, run_texts),
                  interactions=TinyInteractionStore(interactions, writer, interaction_texts),
                  modes=modes, writer=writer,
                  schedules=TinyScheduleStore(schedules, writer), lock=lock, damage=damage,
                  tables=[sequences, runs, interactions, settings, schedules])
