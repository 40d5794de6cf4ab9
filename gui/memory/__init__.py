"""The in-memory stores behind the core's ports: what the tests run on, and the app with
`SEQDESK_MEMORY=1` (nothing on disk). The persistent ones are `gui.store`'s; both keep the same
contract (`tests/store/test_contract.py` runs the same cases over both). Never a default inside the
core: whoever builds an engine chooses its stores (`gui.runtime.compose_engine`).
"""

from dataclasses import dataclass, field

from gui.memory.asks import MemoryApprovalModes, MemoryAuditLog, MemoryInteractionStore
from gui.memory.people import MemoryPeopleStore
from gui.memory.runs import MemoryRunStore, MemoryScheduleStore
from gui.memory.sequences import MemorySequenceStore


@dataclass
class MemoryStores:
    """One of each store, empty unless given: the parts of an engine that keep things."""

    sequences: MemorySequenceStore = field(default_factory=MemorySequenceStore)
    runs: MemoryRunStore = field(default_factory=MemoryRunStore)
    interactions: MemoryInteractionStore = field(default_factory=MemoryInteractionStore)
    modes: MemoryApprovalModes = field(default_factory=MemoryApprovalModes)
    schedules: MemoryScheduleStore = field(default_factory=MemoryScheduleStore)


__all__ = [
    "MemoryApprovalModes",
    "MemoryAuditLog",
    "MemoryInteractionStore",
    "MemoryPeopleStore",
    "MemoryRunStore",
    "MemoryScheduleStore",
    "MemorySequenceStore",
    "MemoryStores",
]
