"""What every request card has in common: its answer controls can be locked, and it answers once.

A card never talks to the engine: it builds a response and hands it to `submit` (a callback from
the page). While that runs the controls are locked, so a double click cannot answer twice; if the
answer is refused because it does not fit, the page calls `unlock` so the person can fix it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from nicegui import ui
from nicegui.elements.mixins.disableable_element import DisableableElement

from gui.core.asks import ApprovalResponse, InteractionRequest, InteractionResponse, Scope
from gui.core.sequences import as_text
from gui.i18n import DATA, _
from gui.ui.components.inbox.keys import key_hint, key_hint_text

Submit = Callable[[InteractionResponse], Awaitable[None]]
E = TypeVar("E", bound=DisableableElement)


class RequestBody(ui.column):
    def __init__(self, submit: Submit) -> None:
        super().__init__()
        self.classes("w-full gap-3")
        self._submit = submit
        self._controls: list[DisableableElement] = []
        self._held: list[DisableableElement] = []  # controls off for good: an answer this person may not give
        self.locked = False

    def control(self, element: E) -> E:
        """Register an input or button that must stop working once the request has ended."""
        self._controls.append(element)
        return element

    def lock(self) -> None:
        self.locked = True
        for element in self._controls:
            element.disable()

    def unlock(self) -> None:
        self.locked = False
        for element in self._controls:
            if element not in self._held:
                element.enable()

    def hold(self, element: DisableableElement) -> None:
        """Keep `element` disabled from now on, unlocked or not (an answer this person may not give)."""
        if element not in self._held:
            self._held.append(element)
        element.disable()

    async def send(self, response: InteractionResponse) -> None:
        if self.locked:
            return
        self.lock()
        await self._submit(response)


class ApprovalBody(RequestBody):
    """A request that is allowed or refused (a command, a tool): the three answers and the note.

    The keyboard shortcuts call `approve`, `deny` and `focus_note` too; nothing but the
    "Allow more…" button opens the scope dialog (`always`), and only its Allow button sends a wider
    approval, so no key and no single click can choose one.

    A card whose input can be changed returns the change from `edit` (None: as asked) and calls
    `edit_changed` whenever it may have changed: `approve` sends the change, the approve button says
    so, and "Allow more…" is off while there is one (`gui.ui.components.inbox.edit` says why).
    """

    note: ui.input
    request: InteractionRequest | None = None
    tool_name: str | None = None
    changed = False  # the input differs from what was asked
    approve_button: ui.button | None = None
    buttons: ui.row
    allow_more_button: ui.button | None = None
    allow_more_off: ui.label | None = None
    hint: ui.html | None = None
    _words: dict[bool, tuple[str, str]]
    _deny_word = ""

    @property
    def deny_word(self) -> str:
        """The deny button's word ("Deny", "Don't run")."""
        return self._deny_word
    approve_off: ui.label | None = None  # why this person may deny it but not approve it, under the buttons

    def deny_only(self, why: str) -> None:
        """This person may deny it (and write a note) but not approve it: the approve side stays off, grey,
        with `why` under it; deny and the note work."""
        held = [self.approve_button, self.allow_more_button, *self._approve_side()]
        for element in held:
            if element is not None:
                self.hold(element)
        if self.approve_button is not None:
            self.approve_button.props("color=grey-7").classes("seqdesk-off")
        if self.approve_off is None:
            with self.buttons:
                self.approve_off = ui.label().classes("text-sm opacity-80 basis-full").mark("approve-off")
        self.approve_off.set_text(why)
        self.unlock()

    def _approve_side(self) -> list[DisableableElement]:
        """The controls that only change what an approval sends (an edit of the input)."""
        return []

    def edit(self) -> dict[str, Any] | None:
        """The input as the person changed it; None while it is as asked."""
        return None

    def show_change(self, edit: dict[str, Any] | None) -> None:
        """Show the change (`edit`) beside what was asked, or none (None); for a card that has one."""

    async def approve(self) -> None:
        if self.approve_off is not None:
            return
        await self.send(ApprovalResponse(decision="approved", edited_input=self.edit()))

    def edit_changed(self) -> None:
        edit = self.edit()
        self.show_change(edit)
        changed = edit is not None
        if changed == self.changed:
            return
        self.changed = changed
        word, icon = self._words[changed]
        if self.approve_button is not None:
            self.approve_button.set_text(word)
            self.approve_button.props(f"icon={icon}")
        if self.allow_more_button is not None and self.allow_more_button not in self._held:
            self.allow_more_button.set_enabled(not changed and not self.locked)
        if self.allow_more_off is not None:
            self.allow_more_off.set_visibility(changed)
        if self.hint is not None:
            self.hint.set_content(key_hint_text(word, self._deny_word))

    def unlock(self) -> None:
        super().unlock()
        if self.changed and self.allow_more_button is not None:
            self.allow_more_button.disable()

    async def always(self) -> None:
        """Open the choice of how far the approval reaches; it is sent once confirmed there."""
        from gui.ui.components.inbox.scope_dialog import ScopeDialog

        if self.locked or self.request is None or self.tool_name is None or self.edit() is not None:
            return
        ScopeDialog(self.request, self.tool_name, self.widen).open()

    async def widen(self, scope: Scope, prefix: str | None) -> None:
        if self.edit() is not None:  # changed while the dialog was open: a rule is never made from a change
            ui.notify(_("Nothing was sent: you changed the input. A change is approved once; undo it to allow "
                        "more."), type="warning", position="bottom")
            return
        await self.send(ApprovalResponse(decision="approved", scope=scope, prefix=prefix))

    def answers(self, *, approve: tuple[str, str], deny: str, allow_more: str | None,
                edited: tuple[str, str] | None = None) -> None:
        """The note and the answer buttons every approval card has: approve (word, icon), "Allow
        more…" (with what it can reach, for a tool with a name) and deny, then the keys' hint.
        `edited` is the approve button's word and icon while the input is changed."""
        self._words = {False: approve, True: edited or approve}
        self._deny_word = deny
        self.note = self.control(
            ui.textarea(placeholder=_("Tell it what to do instead (optional, sent if you choose {deny})").format(
                deny=deny))  # a textarea: on a phone its placeholder wraps instead of being cut off
            .props("dense outlined clearable autogrow rows=1").classes("w-full").mark("deny-reason"))
        asking = self.request.asking if self.request is not None else None
        if asking is not None and asking.gated:  # named approvers or several: one person never makes a rule
            allow_more = None
        with ui.row().classes("gap-2 items-center") as self.buttons:
            self.approve_button = self.control(ui.button(approve[0], icon=approve[1], on_click=self.approve)
                                               .props("no-caps unelevated color=green-9").mark("approve"))
            if self.tool_name and allow_more:
                self.allow_more_button = self.control(
                    ui.button(_("Allow more…"), icon="verified_user", on_click=self.always, color=None)
                    .props("no-caps outline").classes("text-green-800 dark:text-green-300")
                    .tooltip(_("Let {tool} run without asking: {reach}. You choose, then confirm.").format(
                        tool=self.tool_name, reach=allow_more)).mark("always-allow"))
            self.control(ui.button(deny, icon="block", on_click=self.deny)
                         .props("no-caps outline color=negative").mark("deny"))
        if self.tool_name and allow_more and edited:
            self.allow_more_off = ui.label(_("Allow more… is off while you have a change: a change is approved "
                                             "once, and a rule only ever covers requests as they are asked.")) \
                .classes("text-xs opacity-80").mark("allow-more-off")
            self.allow_more_off.set_visibility(False)
        self.hint = key_hint(approve[0], deny)

    async def deny(self) -> None:
        reason = (self.note.value or "").strip() or None
        await self.send(ApprovalResponse(decision="denied", reason=reason))

    def focus_note(self) -> None:
        if not self.locked:
            self.note.run_method("focus")


def section_label(text: str) -> ui.label:
    return ui.label(text).classes("text-xs uppercase tracking-wide opacity-70")


def mono_block(text: str, *, marker: str = "", inputs: Mapping[str, str | tuple[str, ...]] | None = None) -> ui.element:
    """A wrapped monospace block with a Copy button: commands must be readable in full. `inputs`
    maps an input's name to the text (or the texts) it put into `text`: those parts are highlighted,
    with the name."""
    with ui.row().classes("w-full no-wrap items-start gap-1 rounded inbox-mono") as box:
        parts = highlight_parts(text, inputs or {})
        if len(parts) == 1 and parts[0][1] is None:
            ui.label(text).classes(f"font-mono text-sm whitespace-pre-wrap break-all grow p-3 {DATA}").mark(marker)
        else:
            with ui.element("div").classes(
                    f"font-mono text-sm whitespace-pre-wrap break-all grow p-3 {DATA}").mark(marker):
                for piece, name in parts:
                    label = ui.label(piece).classes("inline")
                    if name is not None:
                        label.classes("bg-amber-100 dark:bg-amber-900 rounded px-0.5").tooltip(
                            _("from the input {name}").format(name=name)).mark(f"bound-{name}")
        ui.button(icon="content_copy", on_click=lambda: ui.clipboard.write(text)).props(
            "flat dense round size=sm").tooltip(_("Copy")).props('aria-label="' + _("Copy") + '"')
    return box


def highlight_parts(text: str, inputs: Mapping[str, str | tuple[str, ...]]) -> list[tuple[str, str | None]]:
    """`text` cut into pieces, each with the name of the input it came from (None: written as is).
    The longest inserted texts are found first, left to right; an empty one is never a part."""
    marks: list[tuple[int, int, str]] = []
    forms = [(name, form) for name, given in inputs.items() for form in ((given,) if isinstance(given, str) else given)]
    for name, inserted in sorted(forms, key=lambda kv: -len(kv[1])):
        if not inserted:
            continue
        start = text.find(inserted)
        while start >= 0:
            end = start + len(inserted)
            if not any(s < end and start < e for s, e, _name in marks):
                marks.append((start, end, name))
            start = text.find(inserted, end)
    parts: list[tuple[str, str | None]] = []
    at = 0
    for start, end, name in sorted(marks):
        if start > at:
            parts.append((text[at:start], None))
        parts.append((text[start:end], name))
        at = end
    if at < len(text) or not parts:
        parts.append((text[at:], None))
    return parts


def bound_inputs_view(bound: Mapping[str, Any], run_as_code: Mapping[str, str] | None = None) -> None:
    """Which parts of the request came from the run's inputs (an agent or another step chose them).
    `run_as_code`: the inputs a program will run as a command, each with that program ("": the input
    is the command, or names its program); each says so beside its value."""
    if not bound:
        return
    as_code = run_as_code or {}
    with ui.column().classes("w-full gap-1").mark("bound-inputs"):
        section_label(_("Parts that came from inputs") if as_code else
                      _("Parts that came from inputs (inserted as text, never as commands)"))
        with ui.grid(columns="auto 1fr").classes("gap-x-4 gap-y-1 text-sm items-baseline"):
            for name, value in bound.items():
                ui.label(name).classes(f"font-mono opacity-70 {DATA}")
                with ui.column().classes("gap-0 min-w-0"):
                    ui.label(as_text(value)).classes(f"font-mono whitespace-pre-wrap break-all {DATA}").mark(
                        f"bound-value-{name}")
                    if name in as_code:
                        _runs_as_code(name, as_code[name])


def _runs_as_code(name: str, program: str) -> None:
    with ui.row().classes("items-center gap-1 no-wrap font-medium text-orange-800 dark:text-orange-300") \
            .mark(f"runs-as-code-{name}"):
        ui.icon("warning", size="xs")
        if program:
            ui.label(_("This input will be run as a command (by {program})").format(program=program))
        else:
            ui.label(_("This input will be run as a command"))
