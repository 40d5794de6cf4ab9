"""`/`: the Sequences list, the app's home page.

Each sequence shows what it needs and what it gives (its signature, with types in words), and
the actions a person takes on it: Run, Edit, Duplicate, Export, Delete (confirmed). Import reads
a `.json` file in the seed's format and either saves it or lists its problems with their line,
offering to open it in the editor to fix. The list follows changes made elsewhere (the CLI, an AI
agent over MCP) through the event bus.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from nicegui import ui

from gui.core.door import Engine
from gui.core.events import SequenceDeleted, SequenceSaved
from gui.core.people import AUTHOR
from gui.core.sequences import DslError, place_of, to_text
from gui.i18n import DATA, N_, _, ngettext
from gui.ui.components.schedules import SchedulesSection
from gui.ui.editor import SequenceDraft, storage, style
from gui.ui.editor.library import ImportCheck, check_import, duplicate
from gui.ui.signed_in import may
from gui.ui.theme import frame
from gui.wording.glossary import type_word

if TYPE_CHECKING:
    from gui.context import AppContext

EMPTY = N_("A sequence is a list of groups that run one after another; the tools inside "
         "a group run at the same time. Build one by clicking, start from the example, or import a file.")


def edit_url(name: str) -> str:
    return f"/sequences/{quote(name, safe='')}/edit"


def _file_name(name: str) -> str:
    return (re.sub(r"[^\w.-]+", "-", name, flags=re.UNICODE).strip("-") or "sequence") + ".json"


class SequencesPage:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.stale = False
        ui.add_css(style.CSS)
        if ui.context.slot.parent is not None:
            ui.context.slot.parent.classes("sd-page sd-editor")  # the editor's colours and phone layout
        with ui.row().classes("w-full items-center gap-3"):
            ui.label(_("Sequences")).classes("text-2xl font-semibold")
            ui.space()
            self.search = ui.input(_("Search"), on_change=self.refresh).props("clearable dense outlined") \
                .classes("w-64").mark("search")
            with self.search.add_slot("prepend"):
                ui.icon("search")
            ui.button(_("Import a file"), icon="upload_file", on_click=self._pick_file) \
                .props("outline no-caps").mark("import")
            ui.button(_("New sequence"), icon="add", on_click=lambda: ui.navigate.to("/sequences/new")) \
                .props("no-caps").mark("new")
        self.upload = ui.upload(on_upload=self._uploaded, auto_upload=True, max_files=1) \
            .props('accept=".json,application/json"').classes("hidden").mark("import-upload")
        self.banner = ui.row().classes("w-full")
        self.list = ui.column().classes("w-full gap-3").mark("sequence-list")
        unsubscribe = engine.subscribe(self._on_event)
        ui.context.client.on_disconnect(unsubscribe)
        ui.timer(1.0, self._follow)

    def _on_event(self, event: Any) -> None:
        if isinstance(event, SequenceSaved | SequenceDeleted):
            self.stale = True

    async def _follow(self) -> None:
        if self.stale:
            self.stale = False
            await self.refresh()

    async def refresh(self) -> None:
        summaries = await self.engine.list_sequences()
        needle = (self.search.value or "").strip().lower()
        shown = [s for s in summaries if not needle or needle in _haystack(s)]
        self._draw_banner()
        self.list.clear()
        with self.list:
            if not summaries:
                self._empty()
            elif not shown:
                ui.label(_("No sequence matches “{words}”.").format(words=self.search.value)).classes(
                    "text-gray-600 dark:text-gray-400")
            for summary in shown:
                self._card(summary)

    def _draw_banner(self) -> None:
        self.banner.clear()
        state = storage.load("new")
        if state is None:
            return
        try:
            name = SequenceDraft.model_validate(state.get("draft") or {}).name
        except ValueError:
            return
        with self.banner, ui.row().classes("w-full items-center gap-2 bg-amber-50 dark:bg-amber-950 rounded p-2") \
                .mark("unsaved-new"):
            ui.icon("edit_note", color="amber-9")
            ui.label(_("You have an unsaved new sequence ({name}).").format(name=name) if name else
                     _("You have an unsaved new sequence.")).classes("text-sm")
            ui.button(_("Continue editing"), on_click=lambda: ui.navigate.to("/sequences/new")) \
                .props("flat dense no-caps").mark("continue-new")

    def _empty(self) -> None:
        with ui.column().classes("w-full items-start gap-3 p-8 border border-dashed rounded").mark("empty"):
            ui.label(_("No sequences yet")).classes("text-xl font-medium")
            ui.label(_(EMPTY)).classes("text-gray-700 dark:text-gray-300 max-w-2xl")
            with ui.row().classes("gap-2"):
                ui.button(_("Create your first sequence"), icon="add",
                          on_click=lambda: ui.navigate.to("/sequences/new")).props("no-caps")
                ui.button(_("Start from the example"), icon="auto_fix_high",
                          on_click=lambda: ui.navigate.to("/sequences/new?example=1")) \
                    .props("outline no-caps").mark("start-example")
                ui.button(_("Import a file"), icon="upload_file", on_click=self._pick_file).props("flat no-caps")

    def _card(self, summary: dict[str, Any]) -> None:
        name = summary["name"]
        sig = summary["signature"]
        drafts = storage.keys()
        with ui.card().classes("w-full gap-2").props("bordered flat").mark(f"sequence-{name} sequence-card"):
            with ui.row().classes("w-full items-start gap-3 no-wrap sd-wrap"):
                with ui.column().classes("gap-1 grow min-w-0 sd-full"):
                    with ui.row().classes("items-center gap-2"):
                        ui.link(name, edit_url(name)).classes(f"text-lg font-medium {DATA}").mark("sequence-name")
                        if storage.edit_key(name) in drafts:
                            ui.badge(_("unsaved changes"), color="amber-3").props("text-color=amber-10")
                    if summary.get("description"):
                        ui.label(summary["description"]).classes(f"text-sm text-gray-700 dark:text-gray-300 {DATA}")
                ui.button(_("Run"), icon="play_arrow",
                          on_click=lambda n=name: ui.navigate.to(f"/run?sequence={quote(n, safe='')}")) \
                    .props("no-caps").mark("run")
                ui.button(_("Edit"), icon="edit", on_click=lambda n=name: ui.navigate.to(edit_url(n))) \
                    .props("outline no-caps").mark("edit")
                with ui.button(icon="more_vert").props("flat round").mark("more") as more:
                    more.props["aria-label"] = _("More actions")
                    with ui.menu():
                        ui.menu_item(_("Duplicate"), lambda n=name: self._duplicate(n)).mark("duplicate")
                        ui.menu_item(_("Export as a file"), lambda n=name: self._export(n)).mark("export")
                        ui.menu_item(_("Delete…"), lambda n=name: self._confirm_delete(n)).mark("delete")
            with ui.row().classes("w-full items-center gap-2"):
                groups = len(summary.get("groups", []))
                ui.label(ngettext("{n} group", "{n} groups", groups).format(n=groups)).classes(
                    "text-sm text-gray-600 dark:text-gray-400 mr-2")
                self._chips("needs", _("Needs:"), sig.get("inputs", {}), "blue-1", "blue-10")
                self._chips("gives", _("Gives:"), sig.get("outputs", {}), "green-1", "green-10")

    @staticmethod
    def _chips(key: str, title: str, slots: dict[str, str], color: str, text: str) -> None:
        ui.label(title).classes("text-sm text-gray-600 dark:text-gray-400")
        if not slots:
            ui.label(_("nothing")).classes("text-sm text-gray-500 dark:text-gray-400 italic mr-2")
        for slot, type_name in slots.items():
            ui.chip(f"{slot} · {_(type_word(type_name))}", color=color).props(f"dense text-color={text}") \
                .mark(f"{key}-chip")

    # -- actions ----------------------------------------------------------------------------------
    async def _duplicate(self, name: str) -> None:
        sequence = await self.engine.get(name)
        if sequence is None:
            return
        try:
            copy, renamed = await duplicate(self.engine, sequence)
        except DslError as exc:
            ui.notify(_("Could not copy '{name}': {problem}").format(
                name=name, problem=exc.problems[0].text(_) if exc.problems else exc), type="negative")
            return
        groups = [r.new for r in renamed if r.what == "group"]
        if groups:
            said = _("Copied as '{name}'; its groups are named {groups} (group names are unique across all "
                     "sequences)").format(name=copy.name, groups=_(", ").join(_("'{name}'").format(name=g)
                                                                          for g in groups))
        else:
            said = _("Copied as '{name}' (group names are unique across all sequences)").format(name=copy.name)
        ui.notify(said, type="positive", multi_line=True)
        await self.refresh()

    async def _export(self, name: str) -> None:
        sequence = await self.engine.get(name)
        if sequence is not None:
            ui.download.content(to_text(sequence).encode("utf-8"), _file_name(name), "application/json")

    def _confirm_delete(self, name: str) -> None:
        with ui.dialog() as dialog, ui.card().classes("sd-page").mark("delete-dialog"):
            ui.label(_("Delete the sequence '{name}'?").format(name=name)).classes("text-lg font-medium")
            ui.label(_("It cannot be brought back. Runs already recorded stay in the Runs history.")) \
                .classes("text-sm text-gray-700 dark:text-gray-300")
            with ui.row().classes("w-full justify-end gap-2"):
                ui.button(_("Keep it"), on_click=dialog.close).props("flat no-caps").mark("cancel-delete")
                ui.button(_("Delete it"), color="negative",
                          on_click=lambda: self._delete(name, dialog)).props("no-caps").mark("confirm-delete")
        dialog.open()

    async def _delete(self, name: str, dialog: ui.dialog) -> None:
        dialog.close()
        if not may(AUTHOR):
            return
        await self.engine.delete(name)
        storage.drop(storage.edit_key(name))
        ui.notify(_("Deleted '{name}'").format(name=name))
        await self.refresh()

    def _pick_file(self) -> None:
        self.upload.run_method("pickFiles")

    async def _uploaded(self, e: Any) -> None:
        self.upload.reset()
        await self.import_bytes(await e.file.read())

    async def import_bytes(self, raw: bytes) -> None:
        check = await check_import(self.engine, raw)
        if check.only_names_conflict and check.copy is not None:
            self._offer_copy(check)
        elif check.errors:
            self._show_import_problems(check)
        elif check.exists:
            self._confirm_replace(check)
        else:
            await self._save_import(check)

    async def _save_import(self, check: ImportCheck, *, as_copy: bool = False) -> None:
        if not may(AUTHOR):
            return
        try:
            sequence, _result = await self.engine.create(check.copy if as_copy and check.copy else check.doc)
        except DslError as exc:
            check.problems = list(exc.problems)
            self._show_import_problems(check)
            return
        ui.notify(_("Imported '{name}'").format(name=sequence.name), type="positive")
        await self.refresh()

    def _confirm_replace(self, check: ImportCheck) -> None:
        async def replace() -> None:
            dialog.close()
            await self._save_import(check)

        with ui.dialog() as dialog, ui.card().classes("sd-page").mark("replace-dialog"):
            ui.label(_("A sequence named '{name}' already exists.").format(name=check.name)) \
                .classes("text-lg font-medium")
            ui.label(_("Replace it with the one from the file?")).classes("text-sm")
            if check.copy is not None:
                ui.label(_("Or keep both: the copy from the file is named '{name}'.").format(name=check.copy["name"])) \
                    .classes("text-sm")
            with ui.row().classes("w-full justify-end gap-2 flex-wrap"):
                ui.button(_("Cancel"), on_click=dialog.close).props("flat no-caps")
                if check.copy is not None:
                    ui.button(_("Import as '{name}'").format(name=check.copy["name"]),
                              on_click=lambda: self._import_copy(check, dialog)) \
                        .props("outline no-caps").mark("import-copy")
                ui.button(_("Replace it"), on_click=replace) \
                    .props("no-caps").mark("confirm-replace")
        dialog.open()

    async def _import_copy(self, check: ImportCheck, dialog: ui.dialog) -> None:
        dialog.close()
        await self._save_import(check, as_copy=True)

    def _offer_copy(self, check: ImportCheck) -> None:
        """Only names stand in the way: say which ones are taken, by whom, and offer free ones."""
        assert check.copy is not None
        with ui.dialog() as dialog, ui.card().classes("w-[40rem] max-w-full sd-page").mark("import-names"):
            ui.label(_("Some names in this file are taken")).classes("text-lg font-medium")
            for problem in check.errors:
                with ui.row().classes("items-start gap-2 no-wrap").mark("import-problem"):
                    ui.icon("badge", color="amber-9")
                    _problem_words(check, problem)
            ui.label(_("It can be imported with these free names instead:")).classes("text-sm font-medium")
            for renamed in check.renamed:
                ui.label((_("Sequence '{old}' → '{new}'") if renamed.what == "sequence" else
                          _("Group '{old}' → '{new}'")).format(old=renamed.old, new=renamed.new)) \
                    .classes("text-sm").mark("import-rename")
            with ui.row().classes("w-full justify-end gap-2 flex-wrap"):
                ui.button(_("Cancel"), on_click=dialog.close).props("flat no-caps")
                ui.button(_("Import as '{name}'").format(name=check.copy["name"]),
                          on_click=lambda: self._import_copy(check, dialog)).props("no-caps").mark("import-copy")
        dialog.open()

    def _show_import_problems(self, check: ImportCheck) -> None:
        with ui.dialog() as dialog, ui.card().classes("w-[44rem] max-w-full sd-page").mark("import-problems"):
            ui.label(_("This file cannot be imported as it is")).classes("text-lg font-medium")
            count = len(check.errors)
            ui.label(ngettext("{n} problem to fix:", "{n} problems to fix:", count).format(n=count)).classes("text-sm")
            with ui.column().classes("w-full gap-1 max-h-[50vh] overflow-y-auto"):
                for problem in check.errors:
                    with ui.row().classes("items-start gap-2 no-wrap").mark("import-problem"):
                        ui.icon("error", color="negative")
                        _problem_words(check, problem)
            with ui.row().classes("w-full justify-end gap-2"):
                ui.button(_("Close"), on_click=dialog.close).props("flat no-caps")
                if check.text:
                    ui.button(_("Open it in the editor to fix"), icon="edit",
                              on_click=lambda: self._fix_in_editor(check)).props("no-caps").mark("fix-import")
        dialog.open()

    @staticmethod
    def _fix_in_editor(check: ImportCheck) -> None:
        storage.save("new", {"draft": SequenceDraft().model_dump(mode="json"), "view": "text", "text": check.text})
        ui.navigate.to("/sequences/new")


def _problem_words(check: ImportCheck, problem: Any) -> None:
    """“line 3, column 5: …”: where in the file (in the person's words), then what the checker says."""
    line, column = place_of(check.text, problem)
    with ui.element("div").classes("text-sm min-w-0"):
        ui.label(_("line {line}, column {column}: ").format(line=line, column=column)).classes("inline") \
            .mark("import-problem-where")
        ui.label(problem.text(_)).classes("inline").mark("import-problem-message")  # the checker's words, in the page's


def _haystack(summary: dict[str, Any]) -> str:
    sig = summary.get("signature", {})
    words = [summary.get("name", ""), summary.get("description", ""), *summary.get("groups", []),
             *sig.get("inputs", {}), *sig.get("outputs", {})]
    return " ".join(str(w) for w in words).lower()


async def sequences_page(ctx: AppContext) -> None:
    with frame("Sequences", ctx):
        page = SequencesPage(ctx.engine)
        await page.refresh()
        SchedulesSection(ctx.engine)
