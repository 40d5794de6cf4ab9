"""The run's timeline: a row per tool under its group's row, bars from start to end, so parallelism shows.

Segments: grey while queued, blue while running (a finished tool's bar takes its result colour),
violet while waiting for a person, which is not counted as run time. Bars and rows come from the
same record the cards use, so the chart and the list can never disagree. ECharts draws the bars
with a `custom` series; the chart is re-sent only when its data changed.
"""

from __future__ import annotations

from typing import Any

from nicegui import ui

from gui.core.records import GroupRecord, RunRecord, ToolRecord
from gui.ui.components.run.status import BLUE, GREY, LOOKS, VIOLET, duration_words, group_state, tool_state

ROW_PX = 22
VISIBLE_ROWS = 24
QUEUED = "#d1d5db"
MIN_INTERVAL = 1.0  # seconds between two chart updates while the run goes on
RENDER_BAR = """(params, api) => {
  const row = api.value(0);
  const a = api.coord([api.value(1), row]);
  const b = api.coord([api.value(2), row]);
  const h = api.size([0, 1])[1] * (api.value(3) === 'group' ? 0.35 : 0.6);
  const cs = params.coordSys;
  const x = Math.max(a[0], cs.x);
  const w = Math.max(Math.min(b[0], cs.x + cs.width) - x, 2);
  if (a[1] < cs.y || a[1] > cs.y + cs.height || b[0] < cs.x) return null;
  return {type: 'rect', shape: {x: x, y: a[1] - h / 2, width: w, height: h}, style: api.style()};
}"""


def _segment(row: int, start: float, end: float, kind: str, colour: str, tip: str) -> dict[str, Any]:
    style: dict[str, Any] = {"color": colour, "opacity": 0.45} if kind == "group" else {"color": colour}
    return {"value": [row, round(start, 3), round(max(end, start), 3), kind], "itemStyle": style, "tip": tip}


def _tool_segments(row: int, tool: ToolRecord, group: GroupRecord, t0: float, now: float) -> list[dict[str, Any]]:
    if tool.started_at is None:
        return []
    name = f"{tool.index + 1}. {tool.tool}"
    out: list[dict[str, Any]] = []
    if group.started_at is not None and tool.started_at - group.started_at > 0.05:
        out.append(_segment(row, group.started_at - t0, tool.started_at - t0, "queued", QUEUED,
                            f"{name} · queued {duration_words(tool.started_at - group.started_at)}"))
    end = tool.finished_at if tool.finished_at is not None else now
    state = tool_state(tool)
    run_colour = BLUE if tool.finished_at is None else LOOKS.get(state, LOOKS["succeeded"]).hex
    cursor = tool.started_at
    for w_start, w_end in tool.waits:
        w_stop = w_end if w_end is not None else end
        if w_start > cursor:
            out.append(_segment(row, cursor - t0, w_start - t0, "run", run_colour,
                                f"{name} · running {duration_words(w_start - cursor)}"))
        out.append(_segment(row, w_start - t0, w_stop - t0, "wait", VIOLET,
                            f"{name} · waiting for you {duration_words(w_stop - w_start)}"))
        cursor = w_stop
    if end > cursor or not out:
        word = "running" if tool.finished_at is None else LOOKS.get(state, LOOKS["succeeded"]).word.lower()
        out.append(_segment(row, cursor - t0, end - t0, "run", run_colour,
                            f"{name} · {word} · {duration_words(end - tool.started_at)}"))
    return out


def timeline_rows(record: RunRecord, now: float) -> tuple[list[str], list[dict[str, Any]]]:
    """Row labels (groups and their tools, in order) and the bar segments."""
    t0 = record.created_at
    labels: list[str] = []
    data: list[dict[str, Any]] = []
    for group in record.groups:
        row = len(labels)
        labels.append(f"{{g|{group.index + 1}. {group.name}}}")
        if group.started_at is not None:
            end = group.finished_at if group.finished_at is not None else now
            look = LOOKS.get(group_state(group), LOOKS["pending"])
            data.append(_segment(row, group.started_at - t0, end - t0, "group", look.hex,
                                 f"Group {group.index + 1} · {group.name} · {look.word.lower()} · "
                                 f"{duration_words(end - group.started_at)}"))
        for tool in group.tools:
            row = len(labels)
            labels.append(f"{tool.index + 1}. {tool.tool}")
            data.extend(_tool_segments(row, tool, group, t0, now))
    return labels, data


class RunTimeline(ui.column):
    """A Gantt-like chart of one run, with a Fit button that undoes any zoom."""

    def __init__(self, record: RunRecord, now: float) -> None:
        super().__init__()
        self.classes("w-full gap-1")
        labels, data = timeline_rows(record, now)
        self._data: list[dict[str, Any]] = data
        self._sent_at = now
        rows = len(labels)
        height = min(rows, VISIBLE_ROWS) * ROW_PX + 70
        zoom: list[dict[str, Any]] = [{"type": "inside", "xAxisIndex": 0, "filterMode": "none"}]
        if rows > VISIBLE_ROWS:
            zoom.append({"type": "slider", "yAxisIndex": 0, "startValue": 0, "endValue": VISIBLE_ROWS - 1,
                         "width": 14, "right": 8, "filterMode": "none", "showDetail": False})
        options: dict[str, Any] = {
            "animation": False,
            "grid": {"left": 8, "right": 36 if rows > VISIBLE_ROWS else 16, "top": 10, "bottom": 36,
                     "containLabel": True},
            "tooltip": {"trigger": "item", ":formatter": "(p) => p.data.tip"},
            "xAxis": {"type": "value", "min": 0, "name": "seconds", "nameLocation": "middle", "nameGap": 24,
                      "splitLine": {"lineStyle": {"color": "rgba(128, 128, 128, 0.2)"}}},
            "yAxis": {"type": "category", "data": labels, "inverse": True,
                      "axisLabel": {"width": 160, "overflow": "truncate", "rich": {"g": {"fontWeight": "bold"}}},
                      "axisTick": {"show": False}},
            "dataZoom": zoom,
            "series": [{"type": "custom", ":renderItem": RENDER_BAR, "encode": {"x": [1, 2], "y": 0},
                        "data": data}],
        }
        with self:
            with ui.row().classes("w-full items-center gap-3 text-xs text-gray-600 dark:text-gray-400"):
                for colour, word in ((QUEUED, "queued"), (BLUE, "running"), (VIOLET, "waiting for you"),
                                     (LOOKS["succeeded"].hex, "succeeded"), (LOOKS["failed"].hex, "failed"),
                                     (GREY, "other")):
                    with ui.row().classes("items-center gap-1"):
                        ui.element("span").classes("inline-block w-3 h-3 rounded-sm").style(
                            f"background:{colour}")
                        ui.label(word)
                ui.space()
                ui.button("Fit", icon="fit_screen", on_click=self.fit).props("flat dense no-caps size=sm")
            self.chart = ui.echart(options).classes("w-full").style(f"height:{height}px").mark("timeline")

    @property
    def rows(self) -> int:
        return len(self.chart.options["yAxis"]["data"])

    def show(self, record: RunRecord, now: float) -> None:
        """Re-send the bars when they changed, at most once a second while the run goes on."""
        if not record.finished and now - self._sent_at < MIN_INTERVAL:
            return
        self._sent_at = now
        _, data = timeline_rows(record, now)
        if data == self._data:
            return
        self._data = data
        for zoom in self.chart.options["dataZoom"]:  # keep the person's scroll position from now on
            zoom.pop("startValue", None)
            zoom.pop("endValue", None)
        self.chart.options["series"][0]["data"] = data
        self.chart.update()

    def fit(self) -> None:
        self.chart.run_chart_method("dispatchAction", {"type": "dataZoom", "dataZoomIndex": 0, "start": 0,
                                                       "end": 100})
