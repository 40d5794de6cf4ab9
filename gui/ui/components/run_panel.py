"""The live view of one run: header with progress and Stop, results, groups with tool cards, timeline.

It knows nothing about the engine: the page hands it records (`show(record, now)`) on its own
rhythm and a Stop callback. Each `show` costs only what changed, and the time it took is kept in
`costs` (seconds) so the benchmark can report what a refresh of 200 live tools costs.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Awaitable, Callable

from nicegui import ui

from gui.core.records import RunRecord
from gui.ui.components.run_group_list import GroupList
from gui.ui.components.run_outputs import RunOutputs
from gui.ui.components.run_progress import RunProgress
from gui.ui.components.run_timeline import RunTimeline


class RunPanel(ui.column):
    def __init__(self, record: RunRecord, *, now: float,
                 on_stop: Callable[[], Awaitable[None]] | None = None) -> None:
        super().__init__()
        self.classes("w-full gap-4")
        self.costs: deque[float] = deque(maxlen=10_000)
        self.finished = False
        with self:
            self.progress = RunProgress(record, on_stop=on_stop)
            self.outputs = RunOutputs().mark("run-outputs")
            ui.label("Steps").classes("text-lg font-semibold")
            self.groups = GroupList(record, now=now)
            ui.label("Timeline").classes("text-lg font-semibold")
            self.timeline = RunTimeline(record, now)
        self.show(record, now)

    def show(self, record: RunRecord, now: float) -> None:
        started = time.perf_counter()
        self.progress.show(record, now)
        self.groups.show(record, now)
        self.timeline.show(record, now)
        self.outputs.show(record.outputs, finished=record.finished)
        self.outputs.set_visibility(record.finished)
        self.finished = record.finished
        self.costs.append(time.perf_counter() - started)
