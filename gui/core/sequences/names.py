"""What an input name is, in one place, so `when` conditions and `args` substitution agree.

A name after `$args.` follows the rules of a Python identifier (Unicode XID): it starts with a
letter or `_` and goes on with letters, digits, `_` and combining marks. Letters are Unicode letters,
so `$args.主机` and `$args.nœud` are names: sequences are written in every language. If the two
places that read `$args.<name>` disagreed, a reference the validator accepts could fail to substitute.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

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


def nearest_names(name: str, names: Iterable[str], limit: int = 3) -> list[str]:
    """Known tool names close to `name`: the same tool under another server's prefix first (an agent
    writes `git.git_status` for `git.status`), then names that read alike."""
    pool = sorted(set(names))
    tail = name.rsplit(".", 1)[-1].lower()
    same_tail = [n for n in pool if n.rsplit(".", 1)[-1].lower() == tail and n != name]
    prefix, _, rest = name.partition(".")
    if rest:  # `server.server_tool` → `server.tool`
        stripped = rest.lower().removeprefix(prefix.lower()).lstrip("_-.")
        same_tail += [n for n in pool if n.lower() == f"{prefix.lower()}.{stripped}" and n not in same_tail]
    close = difflib.get_close_matches(name, pool, n=limit, cutoff=0.6)
    lower = {n.lower(): n for n in pool}
    close += [lower[c] for c in difflib.get_close_matches(name.lower(), list(lower), n=limit, cutoff=0.6)]
    ordered: list[str] = []
    for candidate in [*same_tail, *close]:
        if candidate not in ordered and candidate != name:
            ordered.append(candidate)
    return ordered[:limit]
