"""Inputs inside a text argument, shown as labelled marks (`⤷host`) instead of `$args.host`.

Why a mark and not the format: a person reads "checked ⤷host" as "the input host goes here"; the
`$args.` prefix is the format's business. The field shows the marks and writes the format back, so
what is stored never changes; under the field each input used is a chip ("⤷ host ✕") that removes
it. A name follows the rules of `gui.core.sequences.names`, so a mark and a reference always agree.
"""

from __future__ import annotations

from gui.core.sequences import ARGS_PREFIX, arg_ref, scan_name

MARK = "⤷"


def _swap(text: str, old: str, new: str) -> str:
    out: list[str] = []
    pos = 0
    while True:
        found = text.find(old, pos)
        if found < 0:
            out.append(text[pos:])
            return "".join(out)
        end = scan_name(text, found + len(old))
        out.append(text[pos:found])
        out.append((new if end > found + len(old) else old) + text[found + len(old):end])
        pos = end if end > found + len(old) else found + len(old)


def to_display(text: str) -> str:
    """`checked $args.host` as `checked ⤷host`."""
    return _swap(text, ARGS_PREFIX, MARK)


def from_display(text: str) -> str:
    """`checked ⤷host` back as `checked $args.host` (what is stored)."""
    return _swap(text, MARK, ARGS_PREFIX)


def refs(text: str) -> list[str]:
    """The inputs a stored text uses, in order, each once."""
    names: list[str] = []
    pos = 0
    while (found := text.find(ARGS_PREFIX, pos)) >= 0:
        start = found + len(ARGS_PREFIX)
        end = scan_name(text, start)
        if end > start and text[start:end] not in names:
            names.append(text[start:end])
        pos = max(end, start)
    return names


def without(text: str, name: str) -> str:
    """The stored text with every use of the input `name` taken out (and the space it leaves)."""
    ref = arg_ref(name)
    out: list[str] = []
    pos = 0
    while (found := text.find(ref, pos)) >= 0:
        end = found + len(ref)
        if scan_name(text, found + len(ARGS_PREFIX)) != end:  # `$args.hostname` is not `host`
            out.append(text[pos:end])
            pos = end
            continue
        out.append(text[pos:found])
        pos = end
    out.append(text[pos:])
    return " ".join("".join(out).split(" ")).replace("  ", " ").strip()


def put(text: str, name: str) -> str:
    """The stored text with the input `name` added at its end."""
    return f"{text} {arg_ref(name)}" if text else arg_ref(name)
