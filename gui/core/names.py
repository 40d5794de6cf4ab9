"""What an input name is, in one place, so `when` conditions and `args` substitution agree.

A name after `$args.` follows the rules of a Python identifier (Unicode XID): it starts with a
letter or `_` and goes on with letters, digits, `_` and combining marks. Letters are Unicode letters,
so `$args.主机` and `$args.nœud` are names: sequences are written in every language. If the two
places that read `$args.<name>` disagreed, a reference the validator accepts could fail to substitute.
"""

from __future__ import annotations

ARGS_PREFIX = "$args."


def is_name_start(ch: str) -> bool:
    """A letter (any script) or `_`: the first character of a name."""
    return len(ch) == 1 and ch.isidentifier()


def is_name_char(ch: str) -> bool:
    """A character that may follow the first one: letters, digits, `_`, combining marks."""
    return len(ch) == 1 and ("a" + ch).isidentifier()


def scan_name(text: str, start: int) -> int:
    """End of the name beginning at `start` in `text`; `start` itself when no name begins there."""
    if start >= len(text) or not is_name_start(text[start]):
        return start
    end = start + 1
    while end < len(text) and is_name_char(text[end]):
        end += 1
    return end


def is_valid_name(name: str) -> bool:
    """Whether `name` can be written after `$args.` (and declared in a group's `in`)."""
    return isinstance(name, str) and name != "" and scan_name(name, 0) == len(name)


def arg_ref(name: str) -> str:
    """`$args.<name>`: the text that binds a value to the input `name`."""
    return ARGS_PREFIX + name
