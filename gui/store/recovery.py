"""Opening a store whose files may be damaged: save what can be read, keep the original, say so.

A damaged file must neither stop the app nor be emptied by the next write. `open_store` opens the
`HotColdStore`; when one of its files cannot be read, `repair` keeps the original under
`<name>.corrupt-<timestamp>` beside it, writes back the documents that still parse (see `salvage`),
and returns a `Damage` whose `message` tells the person which file it was, how many entries were
saved, and where the original now is. A damaged index is simply rebuilt from its segment. A journal
of hot changes (`gui.store.journal`) keeps its whole lines: a last line cut short by a kill was a
change never acknowledged, and is dropped with the same notice.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from gui.atomic import atomic_write, keep_aside, quarantine
from gui.i18n import _, ngettext
from gui.store.errors import CorruptDatabaseError
from gui.store.files import dumps, read_json
from gui.store.history import INDEX_TABLE, Indexer
from gui.store.hotcold import HotColdStore, no_fields
from gui.store.journal import JOURNAL_SUFFIX, Later, SyncLater, whole_lines
from gui.store.salvage import Accept, any_object, salvage
from gui.store.vouching import Vouching

log = logging.getLogger(__name__)

_MAX_REPAIRS = 50


@dataclass(frozen=True)
class Damage:
    """One damaged file found at open, and what was done about it."""

    path: Path
    moved_to: Path
    saved: int | None  # entries written back; None for an index, which is rebuilt instead

    @property
    def message(self) -> str:
        """In the app's language when it was asked (at open: the one it was started with)."""
        if self.saved is None:
            return _("The history index {name} was damaged and has been rebuilt from the history it indexes; "
                     "nothing was lost. The damaged file was moved aside to {aside}.").format(
                name=self.path.name, aside=self.moved_to)
        return ngettext("The data file {path} was damaged. {n} entry was saved from it; the original was moved "
                        "aside to {aside} (nothing was deleted).",
                        "The data file {path} was damaged. {n} entries were saved from it; the original was moved "
                        "aside to {aside} (nothing was deleted).", self.saved).format(
            path=self.path, n=self.saved, aside=self.moved_to)


def open_store(folder: Path, name: str, *, indexer: Indexer = no_fields, accept: Accept = any_object,
               report: Callable[[Damage], None], segment_docs: int = 1000, sync_later: SyncLater | None = None,
               later: Later | None = None, vouching: Vouching | None = None) -> HotColdStore:
    """The store, repairing (and passing to `report`) any of its files that cannot be read: at open,
    or later for a history segment, which is only read when a document in it is wanted.
    `sync_later`, `later` and `vouching`: see `HotColdStore`."""

    def fix(path: Path) -> None:
        found = repair(path, name, accept)
        log.warning(found.message)
        report(found)

    for _attempt in range(_MAX_REPAIRS):
        try:
            return HotColdStore(folder, name, indexer=indexer, segment_docs=segment_docs, repair=fix,
                                sync_later=sync_later, later=later, vouching=vouching)
        except CorruptDatabaseError as exc:
            fix(exc.path)
    raise RuntimeError(f"could not open the {name} store in {folder}: too many damaged files")


def repair(path: Path, table: str, accept: Accept = any_object) -> Damage:
    """Keep `path` aside and put back what can be read from it (see the module docstring)."""
    path = Path(path)
    if path.name.endswith(".index.json"):
        return Damage(path, quarantine(path), None)
    if path.name.endswith(JOURNAL_SUFFIX):
        lines = whole_lines(path.read_bytes())
        if lines:
            moved = keep_aside(path)
            atomic_write(path, b"".join(lines))
        else:
            moved = quarantine(path)
        return Damage(path, moved, len(lines))
    docs = salvage(path.read_bytes(), table, accept)
    if docs:
        moved = keep_aside(path)
        atomic_write(path, dumps({table: docs}).encode("ascii"))
    else:
        moved = quarantine(path)
    index = path.with_name(path.name[: -len(".json")] + ".index.json")
    if path.parent.name == "history" and index.exists():
        _narrow_index(index, set(docs))
    return Damage(path, moved, len(docs))


def _narrow_index(index: Path, held: set[str]) -> None:
    """After a segment lost documents, its index must not list them (an index lists only what its
    segment holds); an index that cannot be read is moved aside, to be rebuilt from the segment."""
    try:
        entries = (read_json(index) or {}).get(INDEX_TABLE)
    except CorruptDatabaseError:
        entries = None
    if not isinstance(entries, dict):
        quarantine(index)
        return
    kept = {doc_id: fields for doc_id, fields in entries.items() if doc_id in held}
    atomic_write(index, dumps({INDEX_TABLE: kept}).encode("ascii"))
