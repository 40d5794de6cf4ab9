"""What a tool gives back, known at save: so a result that cannot fit its output is refused then,
not after a person has answered.

Every tool may say the JSON type of its result (`Tool.result_type_for`): `ask_user` an object, `cmd_run`
and `file_read` text, `echo` the type of its value, an MCP tool what its `outputSchema` says. None
means unknown (`http_get` returns an object for JSON and text otherwise): checked at run time only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gui.core.marks import N_, Sentence, sentence, term
from gui.core.sequences.model import SlotType, json_type_name
from gui.core.sequences.substitution import whole_reference

WORDS = {"string": N_("text"), "number": N_("a number"), "boolean": N_("yes/no"), "array": N_("a list"),
         "object": N_("a group of values"), "null": N_("nothing")}


def literal_type(value: Any, ins: Mapping[str, SlotType]) -> SlotType | None:
    """The type a literal argument (or a whole `$args.x`) has; None when it cannot be known."""
    name = whole_reference(value) if isinstance(value, str) else None
    if name is not None:
        return ins.get(name)
    if isinstance(value, str) and "$args." in value:
        return SlotType.STRING
    kind = json_type_name(value)
    return SlotType(kind) if kind in SlotType._value2member_map_ else None


def mismatch_words(title: str, got: SlotType, slot: str, declared: SlotType) -> Sentence:
    """The message for a result that cannot be saved to its output, as a template and its parameters
    (a screen words it in its language)."""
    return sentence(N_("{tool} gives back {got}, but the output '{slot}' holds {declared}: "
                       "make '{slot}' {got} ({type})"),
                    tool=term(title), got=sentence(WORDS[got.value]), slot=slot,
                    declared=sentence(WORDS[declared.value]), type=got.value)
