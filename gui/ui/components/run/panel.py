"""The live view of one run: header with progress and Stop, results, then the steps on the left and,
on the right, the selected tool's details and the timeline as tabs *Details | Timeline* (below the
steps on narrow windows).

It knows nothing about the engine: the page hands it records (`show(record, now)`) on its own
rhythm, the `tool.retrying` events (`note_event`), a Stop callback and a way to describe a tool.
The selection is kept here as (group index, tool index), so it survives every refresh. Each `show`
costs only what changed, and the time it took is kept in `costs` (seconds) so the benchmark can
report what a refresh of 200 live tools costs.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from nicegui import ui

from gui.core.events import Event
from gui.core.runs import GroupRecord, RunRecord, ToolRecord
from gui.i18n import _
from gui.ui.components.run.group_list import GroupList
from gui.ui.components.run.link import RunOf
from gui.ui.components.run.outputs import RunOutputs
from gui.ui.components.run.progress import RunProgress
from gui.ui.components.run.retry import RetryInfo, ToolKey
from gui.ui.components.run.timeline import RunTimeline
from gui.ui.components.run.tool_card import Answer
from gui.ui.components.run.tool_detail import Describe, ToolDetail

SIDE = "w-full min-w-0 gap-0 p-0 lg:sticky lg:top-16 lg:max-h-[calc(100vh-5rem)] lg:overflow-y-auto"
NARROW_SCROLL = ("(() => { const el = getHtmlElement({id}); "
                 "if (el && window.innerWidth < 1024) el.scrollIntoView({{behavior: 'smooth', block: 'start'}}); })()")


def find_tool(record: RunRecord, key: ToolKey | None) -> tuple[GroupRecord | None, ToolRecord | None]:
    if key is None or not 0 <= key[0] < len(record.groups):
        return None, None
    group = record.groups[key[0]]
    tool = next((t for t in group.tools if t.index == key[1]), None)
    return (group, tool) if tool is not None else (None, None)


class RunPanel(ui.column):
    def __init__(self, record: RunRecord, *, now: float,
                 on_stop: Callable[[], Awaitable[None]] | None = None, describe: Describe | None = None,
                 on_answer: Answer | None = None, planned: Mapping[int, Sequence[Any]] | None = None,
                 run_of: RunOf | None = None) -> None:
        super().__init__()
        self.classes("w-full gap-4")
        self.costs: deque[float] = deque(maxlen=10_000)
        self.finished = False
        self.selected: ToolKey | None = None
        self.retries: dict[ToolKey, RetryInfo] = {}
        self._record, self._now = record, now
        with self:
            self.progress = RunProgress(record, on_stop=on_stop, on_answer=on_answer)
            self.outputs = RunOutputs().mark("run-outputs")
            with ui.element("div").classes("w-full grid grid-cols-1 lg:grid-cols-2 gap-4 items-start"):
                with ui.column().classes("w-full min-w-0 gap-2"):
                    ui.label(_("Steps")).classes("text-lg font-semibold")
                    ui.label(_("Click a tool to see what it was sent and what it gave back.")).classes(
                        "text-sm text-gray-600 dark:text-gray-400 -mt-2")
                    self.groups = GroupList(record, now=now, on_select=self.select, on_answer=on_answer,
                                            planned=planned, run_of=run_of)
                with ui.card().classes(SIDE).props("flat bordered") as self.side:
                    with ui.tabs().classes("w-full").props(
                            "dense align=left no-caps active-color=primary indicator-color=primary") as self.tabs:
                        ui.tab("details", label=_("Details"), icon="info").mark("tab-details")
                        ui.tab("timeline", label=_("Timeline"), icon="view_timeline").mark("tab-timeline")
                    # by name, before the panels bind to it (NiceGUI types `ui.tabs(value=)` as a Tab only)
                    self.tabs.set_value("timeline")
                    ui.separator()
                    with ui.tab_panels(self.tabs, value="timeline").classes("w-full"):
                        with ui.tab_panel("details").classes("p-4"):
                            self.detail = ToolDetail(describe, on_answer=on_answer)
                        with ui.tab_panel("timeline").classes("p-3"):
                            self.timeline = RunTimeline(record, now, on_select=self.select)
        self.show(record, now)

    def note_event(self, event: Event) -> None:
        """Keep what a `tool.retrying` event says (when the next try starts) for the retry countdown."""
        parsed = RetryInfo.from_event(event)
        if parsed is not None:
            self.retries[parsed[0]] = parsed[1]

    def select(self, key: ToolKey | None) -> None:
        """Show the tool `key` in the Details tab (None clears the selection)."""
        self.selected = key
        self.groups.select(key)
        self._show_detail()
        if key is not None:
            self.tabs.value = "details"
            ui.run_javascript(NARROW_SCROLL.replace("{id}", str(self.side.id)))

    def _show_detail(self) -> None:
        group, tool = find_tool(self._record, self.selected)
        retry = self.retries.get(self.selected) if self.selected is not None else None
        self.detail.show(group, tool, retry, self._now)

    def show(self, record: RunRecord, now: float) -> None:
        started = time.perf_counter()
        self._record, self._now = record, now
        self.progress.show(record, now)
        self.groups.show(record, now, self.retries)
        self.timeline.show(record, now)
        self._show_detail()
        self.outputs.show(record.outputs, finished=record.finished)
        self.outputs.set_visibility(record.finished)
        self.finished = record.finished
        self.costs.append(time.perf_counter() - started)
