"""The run's timeline: a row per tool under its group's row, bars from start to end, so parallelism shows.

Segments: grey while queued, blue while running (a finished tool's bar takes its result colour),
violet while waiting for a person, which is not counted as run time. Bars and rows come from the
same record the cards use, so the chart and the list can never disagree. ECharts draws the bars
with a `custom` series; the chart is re-sent only when its data changed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from nicegui import ui

from gui.core.runs import GroupRecord, RunRecord, ToolRecord
from gui.i18n import N_, _, ngettext
from gui.ui.components.run.retry import ToolKey
from gui.ui.components.run.status import (
    AMBER,
    BLUE,
    GREEN,
    GREY,
    LOOKS,
    ORANGE,
    RED,
    VIOLET,
    duration_words,
    group_state,
    tool_state,
)

ROW_PX = 22
VISIBLE_ROWS = 24
QUEUED = "#d1d5db"
MIN_INTERVAL = 1.0  # seconds between two chart updates while the run goes on
COLLAPSE_OVER = 12  # a group with more tools starts as one bar with counts per state
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


# The legend: a colour the chart always shows with its word, then the colours several states share, each
# said with the words of the states drawn in it now (orange: "timed out", amber: "denied by you", …).
ALWAYS = ((QUEUED, N_("queued")), (BLUE, N_("running")), (VIOLET, N_("waiting for you")), (GREEN, N_("succeeded")),
          (RED, N_("failed")))
SHARED = (ORANGE, AMBER, GREY)


def _segment(row: int, start: float, end: float, kind: str, colour: str, tip: str,
             key: tuple[int, int] | None = None, *, state: str) -> dict[str, Any]:
    style: dict[str, Any] = {"color": colour, "opacity": 0.45} if kind == "group" else {"color": colour}
    item: dict[str, Any] = {"value": [row, round(start, 3), round(max(end, start), 3), kind], "itemStyle": style,
                            "tip": tip, "state": state}
    if key is not None:
        item["tool"] = list(key)  # a click on the bar selects this tool
    return item


def _tool_segments(row: int, tool: ToolRecord, group: GroupRecord, t0: float, now: float) -> list[dict[str, Any]]:
    if tool.started_at is None:
        return []
    key = (group.index, tool.index)
    name = f"{tool.index + 1}. {tool.tool}"
    out: list[dict[str, Any]] = []
    if group.started_at is not None and tool.started_at - group.started_at > 0.05:
        out.append(_segment(row, group.started_at - t0, tool.started_at - t0, "queued", QUEUED,
                            _("{name} · queued {time}").format(
                                name=name, time=duration_words(tool.started_at - group.started_at)), key,
                            state="queued"))
    end = tool.finished_at if tool.finished_at is not None else now
    state = tool_state(tool)
    run_colour = BLUE if tool.finished_at is None else LOOKS.get(state, LOOKS["succeeded"]).hex
    run_state = "running" if tool.finished_at is None else state if state in LOOKS else "succeeded"
    cursor = tool.started_at
    for w_start, w_end in tool.waits:
        w_stop = w_end if w_end is not None else end
        if w_start > cursor:
            out.append(_segment(row, cursor - t0, w_start - t0, "run", run_colour,
                                _("{name} · running {time}").format(
                                    name=name, time=duration_words(w_start - cursor)), key, state=run_state))
        out.append(_segment(row, w_start - t0, w_stop - t0, "wait", VIOLET,
                            _("{name} · waiting for you {time}").format(
                                name=name, time=duration_words(w_stop - w_start)), key, state="needs_you"))
        cursor = w_stop
    if end > cursor or not out:
        word = _("running") if tool.finished_at is None else LOOKS.get(state, LOOKS["succeeded"]).word.lower()
        out.append(_segment(row, cursor - t0, end - t0, "run", run_colour,
                            f"{name} · {word} · {duration_words(end - tool.started_at)}", key, state=run_state))
    return out


def state_counts(group: GroupRecord) -> list[tuple[str, int]]:
    """How many of the group's tools are in each state, in the order of `LOOKS` (for a collapsed bar)."""
    counts = Counter("queued" if t.status == "queued" else tool_state(t) for t in group.tools)
    return [(state, counts[state]) for state in LOOKS if counts.get(state)]


def counts_words(group: GroupRecord) -> str:
    return " · ".join(f"{n} {LOOKS[state].word.lower()}" for state, n in state_counts(group))


def _collapsed_segments(row: int, group: GroupRecord, t0: float, now: float) -> list[dict[str, Any]]:
    """One bar for the whole group, cut into a part per state as wide as its share of the tools."""
    if group.started_at is None:
        return []
    start = group.started_at - t0
    end = (group.finished_at if group.finished_at is not None else now) - t0
    total = len(group.tools) or 1
    tip = _("Group {number} · {name}").format(number=group.index + 1, name=group.name) + f" · {counts_words(group)}"
    out: list[dict[str, Any]] = []
    cursor = start
    for state, n in state_counts(group):
        width = (end - start) * n / total
        colour = QUEUED if state == "queued" else LOOKS[state].hex
        out.append(_segment(row, cursor, cursor + width, "run", colour, tip, state=state))
        cursor += width
    return out


def timeline_rows(record: RunRecord, now: float, collapsed: frozenset[int] = frozenset()
                  ) -> tuple[list[str], list[dict[str, Any]]]:
    """Row labels (groups and their tools, in order) and the bar segments. A group in `collapsed`
    is one row, its bar cut by state, its label with the counts."""
    t0 = record.created_at
    labels: list[str] = []
    data: list[dict[str, Any]] = []
    for group in record.groups:
        row = len(labels)
        if group.index in collapsed:
            labels.append(f"{{g|{group.index + 1}. {group.name}}} ("
                          + ngettext("{n} tool", "{n} tools", len(group.tools)).format(n=len(group.tools)) + ")")
            data.extend(_collapsed_segments(row, group, t0, now))
            continue
        labels.append(f"{{g|{group.index + 1}. {group.name}}}")
        if group.started_at is not None:
            end = group.finished_at if group.finished_at is not None else now
            state = group_state(group) if group_state(group) in LOOKS else "pending"
            look = LOOKS[state]
            data.append(_segment(row, group.started_at - t0, end - t0, "group", look.hex,
                                 _("Group {number} · {name}").format(number=group.index + 1, name=group.name)
                                 + f" · {look.word.lower()} · {duration_words(end - group.started_at)}", state=state))
        for tool in group.tools:
            row = len(labels)
            labels.append(f"{tool.index + 1}. {tool.tool}")
            data.extend(_tool_segments(row, tool, group, t0, now))
    return labels, data


def legend(data: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(colour, words) for every colour the bars in `data` are drawn in: the usual ones always, and each
    colour several states share (orange, amber, grey) said with the states drawn in it ("timed out")."""
    drawn = {(item["itemStyle"]["color"], item["state"]) for item in data}
    out = [(colour, _(word)) for colour, word in ALWAYS]
    for colour in SHARED:
        states = [state for state in LOOKS if (colour, state) in drawn]
        if states:
            out.append((colour, _(" or ").join(LOOKS[state].word.lower() for state in states)))
    return out


def big_groups(record: RunRecord) -> frozenset[int]:
    return frozenset(g.index for g in record.groups if len(g.tools) > COLLAPSE_OVER)


class RunTimeline(ui.column):
    """A Gantt-like chart of one run, with a Fit button that undoes any zoom. A click on a tool's bar
    selects that tool (`on_select`); big groups start collapsed, and a switch shows every tool."""

    def __init__(self, record: RunRecord, now: float, on_select: Callable[[ToolKey], None] | None = None) -> None:
        super().__init__()
        self.classes("w-full gap-1")
        self._on_select = on_select
        self._record = record
        self.big = big_groups(record)
        self.collapsed: frozenset[int] = self.big
        labels, data = timeline_rows(record, now, self.collapsed)
        self._data: list[dict[str, Any]] = data
        self._sent_at = now
        rows = len(labels)
        options: dict[str, Any] = {
            "animation": False,
            "grid": {"left": 8, "right": 16, "top": 10, "bottom": 36, "containLabel": True},
            "tooltip": {"trigger": "item", ":formatter": "(p) => p.data.tip"},
            "xAxis": {"type": "value", "min": 0, "name": _("seconds"), "nameLocation": "middle", "nameGap": 24,
                      "splitLine": {"lineStyle": {"color": "rgba(128, 128, 128, 0.2)"}}},
            "yAxis": {"type": "category", "data": labels, "inverse": True,
                      "axisLabel": {"width": 200, "overflow": "truncate", "rich": {"g": {"fontWeight": "bold"}}},
                      "axisTick": {"show": False}},
            "dataZoom": [{"type": "inside", "xAxisIndex": 0, "filterMode": "none"}],
            "series": [{"type": "custom", ":renderItem": RENDER_BAR, "encode": {"x": [1, 2], "y": 0},
                        "data": data}],
        }
        self._fit_rows(options, rows)
        with self:
            with ui.row().classes("w-full items-center gap-3 text-xs text-gray-700 dark:text-gray-300"):
                self.legend = ui.row().classes("items-center gap-3").mark("timeline-legend")
                self._draw_legend()
                ui.space()
                if self.big:
                    self.collapse_switch = ui.switch(_("One bar for big groups"), value=True,
                                                     on_change=lambda e: self.set_collapsed(bool(e.value))).props(
                        "dense").mark("timeline-collapse")
                ui.button(_("Fit"), icon="fit_screen", on_click=self.fit).props("flat dense no-caps size=sm")
            # SVG, so the page's dark theme can colour the chart's text (a canvas ignores CSS)
            self.chart = ui.echart(options, on_point_click=self._clicked, renderer="svg").classes(
                "w-full seqdesk-timeline").mark("timeline")
            self.chart.style(self._height())

    def _draw_legend(self) -> None:
        """The legend of the bars drawn now: redrawn only when a colour or its words change."""
        entries = legend(self._data)
        if entries == getattr(self, "_legend", None):
            return
        self._legend = entries
        self.legend.clear()
        with self.legend:
            for colour, words in entries:
                with ui.row().classes("items-center gap-1"):
                    ui.element("span").classes("inline-block w-3 h-3 rounded-sm").style(f"background:{colour}")
                    ui.label(words)

    @staticmethod
    def _fit_rows(options: dict[str, Any], rows: int) -> None:
        zoom: list[dict[str, Any]] = [{"type": "inside", "xAxisIndex": 0, "filterMode": "none"}]
        if rows > VISIBLE_ROWS:
            zoom.append({"type": "slider", "yAxisIndex": 0, "startValue": 0, "endValue": VISIBLE_ROWS - 1,
                         "width": 14, "right": 8, "filterMode": "none", "showDetail": False})
        options["dataZoom"] = zoom
        options["grid"]["right"] = 36 if rows > VISIBLE_ROWS else 16

    def _height(self) -> str:
        return f"height:{min(self.rows, VISIBLE_ROWS) * ROW_PX + 70}px"

    @property
    def rows(self) -> int:
        return len(self.chart.options["yAxis"]["data"]) if hasattr(self, "chart") else 0

    def _clicked(self, event: Any) -> None:
        data = getattr(event, "data", None)
        key = data.get("tool") if isinstance(data, dict) else None
        if key is not None and self._on_select is not None:
            self._on_select((int(key[0]), int(key[1])))

    def set_collapsed(self, collapsed: bool) -> None:
        """Big groups as one bar each (True), or every tool on its own row (False)."""
        self.collapsed = self.big if collapsed else frozenset()
        labels, data = timeline_rows(self._record, self._sent_at, self.collapsed)
        self._data = data
        options = self.chart.options
        options["yAxis"]["data"] = labels
        options["series"][0]["data"] = data
        self._fit_rows(options, len(labels))
        self.chart.style(self._height())
        self.chart.update()
        self._draw_legend()

    def show(self, record: RunRecord, now: float) -> None:
        """Re-send the bars when they changed, at most once a second while the run goes on."""
        self._record = record
        if not record.finished and now - self._sent_at < MIN_INTERVAL:
            return
        self._sent_at = now
        _, data = timeline_rows(record, now, self.collapsed)
        if data == self._data:
            return
        self._data = data
        for zoom in self.chart.options["dataZoom"]:  # keep the person's scroll position from now on
            zoom.pop("startValue", None)
            zoom.pop("endValue", None)
        self.chart.options["series"][0]["data"] = data
        self.chart.update()
        self._draw_legend()

    def fit(self) -> None:
        self.chart.run_chart_method("dispatchAction", {"type": "dataZoom", "dataZoomIndex": 0, "start": 0,
                                                       "end": 100})
