"""The sequence as text in the seed's format, editable, with each problem marked where it is.

The marks come from `gui.core.sequences.textpos.locate`, which follows a problem's `loc` into the
document and, for errors inside the `tools` text or the condition, through the escaped string to the
character. Below the editor the same problems are listed with their line and column; clicking one
scrolls the editor to it. Marks are placed on the text as it was checked and cleared on the next check.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from nicegui import app, ui

from gui.core.sequences import Problem, locate, place_of, scan
from gui.i18n import _

MAX_LISTED = 50  # a broken document of a thousand tools lists the first ones, marks them all


THEMES: dict[bool, Literal["githubLight", "githubDark"]] = {False: "githubLight", True: "githubDark"}
DARK_WATCH_JS = """
if (!window.seqdeskDarkWatch) {
  let last = document.body.classList.contains('body--dark');
  window.seqdeskDarkWatch = new MutationObserver(() => {
    const now = document.body.classList.contains('body--dark');
    if (now !== last) { last = now; emitEvent('seqdesk-dark', now); }
  });
  window.seqdeskDarkWatch.observe(document.body, {attributes: true, attributeFilter: ['class']});
}
emitEvent('seqdesk-dark', document.body.classList.contains('body--dark'));
"""


def _dark_now() -> bool:
    """The person's choice as the header keeps it (the page may not be drawn in the browser yet)."""
    try:
        return bool(app.storage.user.get("dark", False))
    except (RuntimeError, AssertionError):
        return False


class TextView(ui.column):
    def __init__(self, on_change: Callable[[], None]) -> None:
        super().__init__()
        self.classes("w-full gap-2")
        with self:
            ui.label(_("The same sequence in the text format (JSON). Edit it here or in the visual editor; "
                       "switching keeps your changes.")).classes("text-sm text-gray-700 dark:text-gray-300")
            self.editor = ui.codemirror("", language="JSON", line_wrapping=True, theme=THEMES[_dark_now()],
                                        on_change=lambda: on_change()) \
                .classes("w-full h-[60vh] border border-gray-300 dark:border-gray-600 rounded").mark("text-view")
            # The page's dark mode can be switched while the editor is open: follow the body's class.
            ui.on("seqdesk-dark", lambda e: self.editor.set_theme(THEMES[bool(e.args)]))
            ui.timer(0.05, lambda: ui.run_javascript(DARK_WATCH_JS), once=True)
            self.why = ui.label("").classes("text-negative font-medium").mark("text-why")
            self.why.set_visibility(False)
            with ui.row().classes("items-center gap-1").mark("text-clean") as self.clean:
                ui.icon("check_circle", color="positive")
                ui.label(_("No problems found")).classes("text-sm")
            self.clean.set_visibility(False)
            self.list = ui.column().classes("w-full gap-1").mark("text-problems")

    @property
    def text(self) -> str:
        return self.editor.value or ""

    def set_text(self, text: str) -> None:
        if text != self.editor.value:
            self.editor.value = text

    def explain(self, message: str | None) -> None:
        """Why the visual view cannot show this text (shown above the problem list)."""
        self.why.set_text(message or "")
        self.why.set_visibility(bool(message))

    def clear_marks(self) -> None:
        """No marks and no list: the text was replaced and not checked yet."""
        self.list.clear()
        self.editor.decorations = []
        self.editor.line_tooltips = {}
        self.clean.set_visibility(False)

    def show(self, problems: list[Problem], text: str | None = None) -> None:
        """Mark each problem at its character in `text` (the text that was checked; now by default)
        and list them below in the order they appear. Only marks change: never the text or the cursor."""
        text = self.text if text is None else text
        spans = scan(text)
        placed = sorted(((locate(text, p, spans), p) for p in problems), key=lambda item: item[0][0])
        decorations: list[dict[str, Any]] = []
        tooltips: dict[int, str] = {}
        lines: dict[int, str] = {}
        self.list.clear()
        with self.list:
            for n, ((start, end), problem) in enumerate(placed):
                line, column = place_of(text, problem, spans)
                kind = "error" if problem.severity == "error" else "warning"
                if end > start:
                    decorations.append({"kind": "mark", "from": start, "to": end, "class": f"seqdesk-mark-{kind}",
                                        "attributes": {"title": problem.text(_)}})
                if lines.get(line) != "error":
                    lines[line] = kind
                tooltips[line] = (tooltips[line] + "\n" if line in tooltips else "") + problem.text(_)
                if n < MAX_LISTED:
                    self._item(kind, line, column, problem.text(_))
            if len(placed) > MAX_LISTED:
                ui.label(_("… and {count} more").format(count=len(placed) - MAX_LISTED)) \
                    .classes("text-sm text-gray-700 dark:text-gray-300")
        decorations.extend({"kind": "line", "line": line, "class": f"seqdesk-line-{kind}"}
                           for line, kind in lines.items())
        self.editor.decorations = decorations
        self.editor.line_tooltips = tooltips
        self.clean.set_visibility(not problems and bool(text.strip()))

    def _item(self, kind: str, line: int, column: int, message: str) -> None:
        error = kind == "error"
        with ui.row().classes("items-start gap-2 cursor-pointer no-wrap") \
                .on("click", lambda n=line: self.editor.reveal_line(n)).mark(f"text-problem text-{kind}"):
            ui.icon("error" if error else "warning", color="negative" if error else "amber-9")
            ui.label(_("Error") if error else _("Warning")).classes(
                "text-sm font-medium " + ("text-negative" if error else "text-amber-10 dark:text-amber-5"))
            ui.label(_("Line {line}, column {column}: {message}").format(line=line, column=column, message=message)) \
                .classes("text-sm")
