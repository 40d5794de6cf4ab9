"""A request's input changed by the person before they approve it: the change is the answer.

Once an argument differs from what was asked, the card's primary button sends the change and says so
("Run the edited command", "Approve with your changes"), the A key does the same (both call
`ApprovalBody.approve`), and what was asked is shown struck through above the change. Text changed
back to exactly what was asked is no change: the buttons are as before.

"Allow more…" is off while a change is pending. A rule covers requests *as they are asked* (this
command, this step of this sequence), and the person has just said that, as asked, it should not run:
a rule made now would let the unchanged command run later without anyone seeing it, and a rule made
from the change would cover a command no step asks for. So a change is approved once; the API refuses
`edited_input` with any scope for the same reason (`gui.core.asks.responses`).

`changes` and `change_words` tell an approved change afterwards, with both texts: in the inbox's
History (`format.outcome`) and, through `changed_view.ChangedByYou`, in the run's record (the tool
card). Pure functions: no NiceGUI.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from gui.i18n import _
from gui.ui.words import NOTHING, field_word

STRUCK = "line-through"  # what was asked, once changed (the words say so too: never the line alone)
FADED = "line-through opacity-70"  # the same on the card still to be answered: the change stands out
_MISSING = object()


def value_text(value: Any) -> str:
    """A value as the person edits and reads it: text as it is, anything else as JSON."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    return json.dumps(value, ensure_ascii=False)


def read_value(text: str, original: Any) -> Any:
    """What an edited field holds: text stays text where text was asked; elsewhere the JSON it spells
    (a number, yes/no, a list), or the text itself when it spells none (the tool's check says why)."""
    if isinstance(original, str):
        return text
    if original is None and not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text


def changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[tuple[str, Any, Any]]:
    """(name, as asked, as sent) for every argument that differs; one left out was `None`."""
    names = list(before) + [name for name in after if name not in before]
    found = []
    for name in names:
        old, new = before.get(name, _MISSING), after.get(name, _MISSING)
        if old != new:
            found.append((name, None if old is _MISSING else old, None if new is _MISSING else new))
    return found


def shown(value: Any) -> str:
    """A value in a sentence or a box: never empty, never `null`."""
    return _(NOTHING) if value is None else value_text(value) if value != "" else _("(empty text)")


def change_words(before: Mapping[str, Any] | None, after: Mapping[str, Any]) -> str:
    """"Changed by you: uptime → uptime -p" (the argument named when it is not the command, or
    several changed); only the new text when what was asked is not known."""
    if before is None:
        return _("Changed by you: {after}").format(after=_edit_text(after))
    found = changes(before, after)
    if not found:
        return ""
    named = len(found) > 1 or found[0][0] != "command"
    parts = [(_("{field}: {before} → {after}") if named else _("{before} → {after}")).format(
        field=_(field_word(name)), before=shown(old), after=shown(new)) for name, old, new in found]
    return _("Changed by you: {changes}").format(changes="; ".join(parts))


def asked_words(before: Mapping[str, Any], after: Mapping[str, Any]) -> str:
    """What was asked of the arguments the person changed: the command, or "File: /a; Encoding: utf-8"."""
    found = changes(before, after)
    if len(found) == 1 and found[0][0] == "command":
        return shown(found[0][1])
    return "; ".join(f"{_(field_word(name))}: {shown(old)}" for name, old, _new in found)


def _edit_text(edited: Mapping[str, Any]) -> str:
    command = edited.get("command")
    return command if isinstance(command, str) else json.dumps(dict(edited), ensure_ascii=False)
