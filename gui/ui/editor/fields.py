"""Which element shows the error of which field, so a problem lands on its own field.

Fields register under a key (`<uid>.<field>`) as they are drawn; `show` puts each issue on its
field (Quasar's `error` / `error-message` on inputs and selects, a small label under switches and
lists). A field drawn later (a group opened after a failed save, a row added) gets the current
message at once, and an input's own message clears as soon as the person edits it.
"""

from __future__ import annotations

from collections.abc import Callable

from nicegui import ui
from nicegui.elements.mixins.validation_element import ValidationElement

from gui.i18n import _
from gui.ui.editor.draft import Issue

Setter = Callable[[str | None], None]


class ErrorLabel(ui.label):
    """The error under a field that has no error slot of its own (switches, lists, cards)."""

    def __init__(self, marker: str = "") -> None:
        super().__init__("")
        self.classes("text-negative text-sm w-full").props('role="alert"')
        if marker:
            self.mark(marker)
        self.set_visibility(False)

    def show(self, message: str | None) -> None:
        self.set_text(message or "")
        self.set_visibility(bool(message))


class FieldErrors:
    def __init__(self) -> None:
        self._setters: dict[str, Setter] = {}
        self._elements: dict[str, ui.element] = {}
        self._messages: dict[str, str] = {}

    def register(self, key: str, element: ui.element, label: ErrorLabel | None = None) -> None:
        """`element` shows the errors of `key` (through `label` when it has no error slot)."""
        if label is not None:
            setter: Setter = label.show
        elif isinstance(element, ValidationElement):
            def setter(message: str | None, el: ValidationElement = element) -> None:
                el.error = message
        else:
            raise TypeError(f"{type(element).__name__} needs an ErrorLabel to show errors")
        self._setters[key] = setter
        self._elements[key] = element
        message = self._messages.get(key)
        if message:
            setter(message)

    def show(self, issues: list[Issue]) -> None:
        messages: dict[str, list[str]] = {}
        for issue in issues:
            text = issue.message if issue.severity == "error" else _("Note: {message}").format(message=issue.message)
            messages.setdefault(issue.key, []).append(text)
        joined = {key: " · ".join(dict.fromkeys(texts)) for key, texts in messages.items()}
        for key in set(self._messages) | set(joined):
            self._set(key, joined.get(key))  # always: the person's edit may have cleared it meanwhile
        self._messages = joined

    def _set(self, key: str, message: str | None) -> None:
        setter = self._setters.get(key)
        element = self._elements.get(key)
        if setter is None or element is None or element.is_deleted:
            return
        setter(message)

    def element(self, key: str) -> ui.element | None:
        element = self._elements.get(key)
        return None if element is None or element.is_deleted else element

    def focus(self, key: str) -> bool:
        """Scroll the field of `key` into view and focus it; False when it is not drawn."""
        element = self.element(key)
        if element is None:
            return False
        ui.run_javascript(
            f"const el = getHtmlElement({element.id}); if (el) {{ el.scrollIntoView({{block: 'center'}});"
            " const f = el.querySelector('input, textarea, [tabindex]'); if (f) f.focus({preventScroll: true}); }"
        )
        return True
