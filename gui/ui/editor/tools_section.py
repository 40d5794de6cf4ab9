"""The tools of one group, in order, with "Add a tool" opening the palette.

Reordering moves the row's element instead of drawing the list again, so a long group stays quick
and nothing the person is typing in another row is disturbed.
"""

from __future__ import annotations

from collections.abc import Callable

from nicegui import ui

from gui.i18n import _
from gui.ui.editor.context import EditorContext
from gui.ui.editor.draft import GroupDraft, ToolDraft
from gui.ui.editor.fields import ErrorLabel
from gui.ui.editor.tool_row import ToolRow


class ToolList(ui.column):
    def __init__(self, ctx: EditorContext, group: GroupDraft,
                 on_new_output: Callable[[str, str], None] | None = None) -> None:
        super().__init__()
        self.classes("w-full gap-2").mark("tools")
        self.ctx, self.group, self.on_new_output = ctx, group, on_new_output
        self.rows: dict[str, ToolRow] = {}
        with self:
            with ui.row().classes("w-full items-baseline gap-2"):
                ui.label(_("Tools")).classes("font-medium")
                self.hint = ui.label("").classes("text-xs text-gray-600 dark:text-gray-400")
            self.empty = ui.label(_("No tools yet. Add the tools this group should run.")) \
                .classes("text-sm text-gray-500 dark:text-gray-400 italic")
            self.list = ui.column().classes("w-full gap-2")
            self.error = ErrorLabel("tools-error")
            ctx.fields.register(f"{group.uid}.tools", self, self.error)
            ui.button(_("Add a tool"), icon="add", on_click=self._pick).props("outline dense no-caps").mark("add-tool")
        with self.list:
            for tool in group.tools:
                self._add_row(tool)
        self.refresh()

    def _add_row(self, tool: ToolDraft) -> None:
        self.rows[tool.uid] = ToolRow(self.ctx, self.group, tool, on_move=self._move, on_remove=self._remove,
                                      on_change=self.ctx.changed, on_new_output=self.on_new_output)

    def redraw(self, names: set[str]) -> None:
        """Draw again the rows of the tools named (they came, went or changed), where they stand;
        the other rows, and what is typed in them, stay as they are."""
        for index, tool in enumerate(self.group.tools):
            if tool.tool in names:
                self.rows.pop(tool.uid).delete()
                with self.list:
                    self._add_row(tool)
                self.rows[tool.uid].move(target_index=index)
        self.refresh()

    def refresh(self) -> None:
        for index, tool in enumerate(self.group.tools):
            self.rows[tool.uid].set_index(index)
        self.empty.set_visibility(not self.group.tools)
        self.hint.set_text(_("They run at the same time.") if self.group.parallel
                           else _("They run one by one, in order."))

    def _pick(self) -> None:
        self.ctx.pick_tool(self.add_tool)

    def add_tool(self, name: str) -> None:
        tool = ToolDraft(tool=name, save_to=self._next_output(name))
        self.group.tools.append(tool)
        with self.list:
            self._add_row(tool)
        self.refresh()
        self.ctx.changed()

    def _next_output(self, name: str) -> str | None:
        """Where a new tool's result goes at first: the first output nothing writes yet (of the type
        the tool gives back, when it says), shown in its "Save result to" and changeable there."""
        written = {t.save_to for t in self.group.tools}
        found = self.ctx.tool(name)
        gives = found.result_type if found is not None else None
        for slot, type_name in self.group.declared("out").items():
            if slot not in written and (gives is None or gives == type_name):
                return slot
        return None

    def _move(self, tool: ToolDraft, delta: int) -> None:
        tools = self.group.tools
        index = tools.index(tool)
        target = index + delta
        if not 0 <= target < len(tools):
            return
        tools.insert(target, tools.pop(index))
        self.rows[tool.uid].move(target_index=target)
        self.refresh()
        self.ctx.changed()

    def _remove(self, tool: ToolDraft) -> None:
        self.group.tools.remove(tool)
        self.rows.pop(tool.uid).delete()
        self.refresh()
        self.ctx.changed()

    def update_slots(self) -> None:
        for row in self.rows.values():
            row.update_slots()
