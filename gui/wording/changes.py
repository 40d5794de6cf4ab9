"""What a person changed in a request's input before approving it, in words: "Changed by you: uptime →
uptime -p", with both texts. Told afterwards in the inbox's History (`requests.outcome`) and in the
run's record (the tool card's "Changed by you"). Pure functions: no NiceGUI.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from gui.i18n import _
from gui.wording.glossary import NOTHING, field_word

_MISSING = object()


WHOLE_EXACTLY = 2 ** 53  # past this a float's digits are not all the number's own: it keeps its JSON form


def _as_written(value: Any) -> Any:
    """`value` with every whole number as a person writes it: 30, not 30.0 (a form's number or a JSON
    answer arrives as a float), inside lists and objects too."""
    if isinstance(value, float) and math.isfinite(value) and value.is_integer() and abs(value) < WHOLE_EXACTLY:
        return int(value)
    if isinstance(value, list):
        return [_as_written(item) for item in value]
    if isinstance(value, dict):
        return {key: _as_written(item) for key, item in value.items()}
    return value


def value_text(value: Any, *, indent: int | None = None) -> str:
    """A value as the person edits and reads it: text as it is, anything else as JSON, its numbers
    as a person writes them (30, never 30.0). The one formatter of argument values on the inbox's
    and the run's screens. `indent`: JSON over several lines, for a nested value."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    return json.dumps(_as_written(value), ensure_ascii=False, indent=indent)


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
