"""Where a decoded value holds text that is not valid Unicode (a lone surrogate, which JSON's `\\ud800`
escape can carry but no file, store or answer can encode as UTF-8).

Checked before anything else looks at a document, so such text is an error with its place rather
than a save that fails later, or an answer that cannot be written and never arrives.
"""

from __future__ import annotations

from typing import Any

Loc = tuple[str | int, ...]


def has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def surrogate_loc(value: Any) -> Loc | None:
    """The path of the first key or text with a lone surrogate; None when every text is valid."""
    stack: list[tuple[Any, Loc]] = [(value, ())]
    while stack:
        item, loc = stack.pop()
        if isinstance(item, str):
            if has_surrogate(item):
                return loc
        elif isinstance(item, dict):
            for key, child in item.items():
                if isinstance(key, str) and has_surrogate(key):
                    return loc
                stack.append((child, (*loc, key)))
        elif isinstance(item, list | tuple):
            stack.extend((child, (*loc, i)) for i, child in enumerate(item))
    return None
