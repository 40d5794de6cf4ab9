"""The editor pages: `/sequences/new` and `/sequences/{name}/edit`.

Opening a page brings back the person's unsaved draft for that sequence, if one was kept, so
leaving the editor never loses work; `?example=1` starts a new sequence from the help's example.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from nicegui import ui

from gui.core.door import Operations
from gui.i18n import N_, _
from gui.ui.editor import SequenceDraft, SequenceEditor, from_document, storage, to_document
from gui.ui.editor.baseline import canonical, opening, text_document
from gui.ui.editor.view import page_head
from gui.ui.theme import frame

if TYPE_CHECKING:
    from gui.context import AppContext


def _restored(key: str, base: SequenceDraft) -> tuple[SequenceDraft, dict[str, Any] | None]:
    """The kept draft for `key` when there is one whose content differs from `base` (a draft that
    only looked at another view, or was typed back to what is saved, is no draft: it is dropped)."""
    state = storage.load(key)
    if state is None:
        return base, None
    try:
        draft = SequenceDraft.model_validate(state.get("draft") or {})
    except ValueError:
        storage.drop(key)
        return base, None
    saved = to_document(base)[0]
    if state.get("view") == "text":
        doc = text_document(str(state.get("text") or ""))
        converted = from_document(doc)[0] if doc is not None else None
        if doc is not None and canonical(doc) == saved:
            storage.drop(key)
            return base, None
        if converted is not None:  # the text fits the visual editor: reopen there
            return converted, {**state, "view": "visual"}
        return draft, state
    if to_document(draft)[0] == saved:
        storage.drop(key)
        return base, None
    return draft, state


async def open_editor(ctx: AppContext, name: str | None, *, example: bool = False) -> SequenceEditor | None:
    page_head()  # before the first await (see `page_head`)
    engine: Operations = ctx.engine  # the door only: the editor works over `RemoteEngine` too
    opened = await opening(engine, name, example=example)
    if opened is None:
        ui.label(_("There is no saved sequence named '{name}'.").format(name=name)).classes("text-lg") \
            .mark("not-found")
        ui.button(_("Back to the sequences"), on_click=lambda: ui.navigate.to("/")).props("no-caps")
        return None
    base = opened.base
    draft, restored = _restored(storage.edit_key(name), base)
    if example and restored is not None:
        draft, restored = base, None
    editor = SequenceEditor(engine, opened.original, draft, opened.tools, restored=restored, base=base,
                            saved_names=opened.taken, team=ctx.team)
    if example:
        editor.show_renamed(opened.renamed)
    return editor


async def new_sequence_page(ctx: AppContext, example: str = "") -> None:
    with frame(N_("New sequence"), ctx):
        await open_editor(ctx, None, example=bool(example))


async def edit_sequence_page(ctx: AppContext, name: str) -> None:
    with frame(_("Edit {name}").format(name=name), ctx):
        await open_editor(ctx, name)
