"""The words a non-developer sees for the format's terms, in one place so every screen agrees (the glossary).

The format says `string`, `on_error: retry`, `==`; people read "text", "Try again up to 3 times",
"is". Keeping the vocabulary here means the list page, the editor and the tests use one spelling.
"""

from __future__ import annotations

import re
from typing import TypeVar

from gui.i18n import N_, _

K = TypeVar("K")

NOTHING_WORD = N_("nothing")  # N_: marked for the catalogue; screens that translate call _() on these

TYPE_WORDS: dict[str, str] = {
    "string": N_("text"),
    "number": N_("number"),
    "boolean": N_("yes/no"),
    "array": N_("list"),
    "object": N_("group of values"),
}

# Words for JSON-schema types that are not slot types (shown, never offered in a type picker).
OTHER_TYPE_WORDS: dict[str, str] = {"integer": N_("whole number"), "null": NOTHING_WORD, "any": N_("anything")}

# A tool's common argument names as a person reads them ("Folder", not `cwd`).
FIELD_WORDS: dict[str, str] = {
    "cwd": N_("Folder"),
    "timeout": N_("Time limit"),
    "command": N_("Command"),
    "path": N_("File"),
    "url": N_("Address"),
    "env": N_("Environment"),
    "value": N_("Value"),
    "seconds": N_("Seconds"),
    "encoding": N_("Encoding"),
    "content": N_("Content"),
}

# What an empty value reads as on screen, never `null` or `None`.
NOTHING = NOTHING_WORD

ON_ERROR_WORDS: dict[str, str] = {
    "abort": N_("Stop everything"),
    "continue": N_("Skip it and continue"),
    "retry": N_("Try again up to 3 times"),
}

MISSING_WORDS: dict[str, str] = {
    "fail": N_("Stop with an error"),
    "skip": N_("Skip that tool"),
    "degrade": N_("Skip it and mark the run as incomplete"),
}

OPERATOR_WORDS: dict[str, str] = {
    "==": N_("is"),
    "!=": N_("is not"),
    ">": N_("is more than"),
    ">=": N_("is at least"),
    "<": N_("is less than"),
    "<=": N_("is at most"),
    "contains": N_("contains"),
}

UNIT_WORDS: dict[str, str] = {"ms": N_("milliseconds"), "s": N_("seconds"), "m": N_("minutes"),
                              "h": N_("hours")}

JOINER_WORDS: dict[str, str] = {"and": N_("all of these hold"), "or": N_("any of these holds")}


def type_word(type_name: str) -> str:
    return TYPE_WORDS.get(type_name) or OTHER_TYPE_WORDS.get(type_name, type_name)


def field_word(name: str) -> str:
    """An argument's name as a label: the glossary's word, else the name with its first letter up."""
    word = FIELD_WORDS.get(name)
    return word if word is not None else name.replace("_", " ")[:1].upper() + name.replace("_", " ")[1:]


def plural(count: int, one: str, many: str | None = None) -> str:
    return f"{count} {one if count == 1 else (many or one + 's')}"


def value_words(value: object) -> str:
    """A condition's value as a person reads it: “text” in quotes, yes/no, "empty" for ""."""
    if value == "":
        return "empty"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return f"\u201c{value}\u201d"
    return str(value)


def rule_words(arg: str, op: str, value: object) -> str:
    """`$args.folder != ""` as "folder is not empty"."""
    return f"{arg} {OPERATOR_WORDS.get(op, op)} {value_words(value)}"


_TYPE_IN_TEXT = re.compile(r'\b(is|a|an|as|it|not|be|but|of|takes) "?(string|boolean|array|object|null)"?'
                           r"(?=[\s:;,.)]|$)")
_REF_IN_TEXT = re.compile(r"\$args\.(\w+)")


def plain(message: str, *, marks: bool = True) -> str:
    """A core message as the visual editor says it: `$args.host` as ⤷host, `string` as text, `null` as
    nothing (the format's words stay in the text view, where they are what is written). `marks=False`
    keeps `$args.host` as it is: for a box where that is what a person writes (a condition as text),
    so a message never names a notation the box refuses."""
    if marks:
        message = _REF_IN_TEXT.sub(lambda m: f"⤷{m.group(1)}", message)
    return _TYPE_IN_TEXT.sub(lambda m: f"{m.group(1)} {type_word(m.group(2))}", message)


# -- the same words in the person's language (the functions above stay English: messages are built from them) --

def said(text: str) -> str:
    """`text` from the catalogue, where it is there ("" stays "": gettext would give the catalogue's header)."""
    return _(text) if text else text


def said_choices(words: dict[K, str]) -> dict[K, str]:
    """A glossary's choices for a select, each said in the person's language (the keys stay as they are)."""
    return {key: said(word) for key, word in words.items()}


def said_type(type_name: str) -> str:
    """`type_word` in the person's language ("text", "文本")."""
    return said(type_word(type_name))


def said_value(value: object) -> str:
    """`value_words` in the person's language: "empty", yes/no translated; a text stays in quotes."""
    if value == "":
        return _("empty")
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    return value_words(value)


def said_rule(arg: str, op: str, value: object) -> str:
    """`rule_words` in the person's language ("folder is not empty", "folder 不为 空")."""
    return _("{input} {compare} {value}").format(input=arg, compare=_(OPERATOR_WORDS.get(op, op)),
                                                 value=said_value(value))
