"""Here-documents (`cat <<EOF … EOF`): the delimiter as the shell compares it, and where a body ends.

A body is read line by line after the line holding `<<`; it ends at the first line equal to the
delimiter (after tabs, for `<<-`). With an unquoted delimiter, a `\\` at the end of a line joins
the next line to it, so that line cannot end the body (dash and bash agree on both).
"""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass


@dataclass
class HereDoc:
    delimiter: str
    strip_tabs: bool  # `<<-`
    quoted: bool  # `<<'EOF'`: its body is text, nothing in it is expanded
    depth: int  # how deep in `$(…)` the `<<` was read


def body_end(src: str, pos: int, doc: HereDoc, holes: Container[int]) -> tuple[int, list[int]]:
    """Where the body that starts at `pos` ends (past its delimiter line), and the holes inside it."""
    inside: list[int] = []
    continued = False
    while pos < len(src):
        end = src.find("\n", pos)
        end = len(src) if end < 0 else end
        line = src[pos:end]
        here = [p for p in range(pos, end) if p in holes]
        check = line.lstrip("\t") if doc.strip_tabs else line
        if not continued and not here and check == doc.delimiter:
            return min(end + 1, len(src)), inside
        inside.extend(here)
        trailing = len(line) - len(line.rstrip("\\"))
        continued = not doc.quoted and trailing % 2 == 1
        pos = end + 1
    return len(src), inside


def unquote(raw: str) -> str:
    """A here-document's delimiter as the shell compares it: quotes and backslashes removed."""
    out: list[str] = []
    i = 0
    while i < len(raw):
        ch = raw[i]
        if ch == "\\" and i + 1 < len(raw):
            out.append(raw[i + 1])
            i += 2
        elif ch in "'\"":
            close = raw.find(ch, i + 1)
            close = len(raw) if close < 0 else close
            out.append(raw[i + 1:close])
            i = close + 1
        else:
            out.append(ch)
            i += 1
    return "".join(out)
