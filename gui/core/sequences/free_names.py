"""Free names for a copy: `fetch-one-node` taken becomes `fetch-one-node-2` (then `-3`, …).

Why here: a sequence's name and every group name are unique across all saved sequences (a group is
callable by its name: the seed's rule), so anything that makes a copy (start from the example,
duplicate, import) must propose names nobody holds yet, and say which ones it changed.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable
from typing import Any, NamedTuple

from gui.core.sequences.model import Sequence

# The validator's codes for a name someone else holds (a saved sequence, a group anywhere).
NAMING_CODES = frozenset({"name-taken", "duplicate-group", "duplicate-name"})

_NUMBERED = re.compile(r"^(.*\S)-(\d+)$")


class Renamed(NamedTuple):
    old: str
    new: str
    what: str  # "sequence" or "group"


def taken_names(sequences: Iterable[Sequence]) -> set[str]:
    """Every name a new sequence or group may not take: the sequences' and all their groups'."""
    taken: set[str] = set()
    for sequence in sequences:
        taken.add(sequence.name)
        taken.update(g.name for g in sequence.groups)
    return taken


def free_name(base: str, taken: set[str] | frozenset[str]) -> str:
    """`base` when free, else `base-2`, `base-3`, …; `name-2` taken goes on as `name-3`."""
    if base not in taken:
        return base
    match = _NUMBERED.match(base)
    stem, number = (match.group(1), int(match.group(2)) + 1) if match else (base, 2)
    while f"{stem}-{number}" in taken:
        number += 1
    return f"{stem}-{number}"


def with_free_names(doc: dict[str, Any], taken: set[str] | frozenset[str]) -> tuple[dict[str, Any], list[Renamed]]:
    """A copy of the document whose sequence and group names are all free (and distinct), with what
    was renamed. A name that is not text is left for the validator to report."""
    out = copy.deepcopy(doc)
    used = set(taken)
    renamed: list[Renamed] = []

    def fix(holder: dict[str, Any], what: str) -> None:
        name = holder.get("name")
        if not isinstance(name, str) or not name.strip():
            return
        new = free_name(name, used)
        used.add(new)
        if new != name:
            holder["name"] = new
            renamed.append(Renamed(name, new, what))

    fix(out, "sequence")
    groups = out.get("groups")
    for group in groups if isinstance(groups, list) else []:
        if isinstance(group, dict):
            fix(group, "group")
    return out, renamed


def renamed_words(renamed: list[Renamed]) -> str:
    """ "'a' is taken, so this is 'a-2'; groups: 'g' → 'g-2'" for a notice; "" when nothing changed."""
    if not renamed:
        return ""
    parts = [f"'{r.old}' → '{r.new}'" for r in renamed]
    return "Those names are taken, so these are new: " + ", ".join(parts)
