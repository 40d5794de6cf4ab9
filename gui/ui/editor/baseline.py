"""What the editor compares a draft with, and what it starts from.

A draft exists only while its content differs from what is saved: `canonical` writes a document as
the visual editor would (spacing inside `tools` and defaults aside), so the text view and the
visual view compare alike, and looking at a view is never a change. A new sequence from the example
starts with free names (`fetch-one-node-2` once the example is saved), and says which it changed.
What the editor opens with is read from the door alone (`opening`), so it opens over `RemoteEngine` too.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from gui.core.door import Operations
from gui.core.sequences import EXAMPLE, DslError, Renamed, Sequence, load_json_text, with_free_names
from gui.core.tools import ToolListing
from gui.ui.editor.convert import from_document, from_sequence
from gui.ui.editor.draft import SequenceDraft, to_document


def text_document(text: str) -> Any:
    """The document the text view holds, or None while it is not JSON."""
    try:
        return load_json_text(text)
    except DslError:
        return None


def canonical(doc: Any) -> Any:
    """A document as the visual editor would write it (spacing inside `tools` and defaults aside)."""
    draft, _ = from_document(doc)
    return to_document(draft)[0] if draft is not None else doc


async def example_draft(engine: Operations) -> tuple[SequenceDraft, list[Renamed]]:
    """The help's example with free names (`fetch-one-node-2` once the example is saved), and which."""
    doc, renamed = with_free_names(json.loads(EXAMPLE), await engine.taken_names())
    draft, _ = from_document(doc)
    assert draft is not None
    return draft, renamed


@dataclass
class Opening:
    """What the editor opens with: the saved sequence (None for a new one), the draft it starts from,
    what the example's names became, the names saved sequences and groups hold, and the tools."""

    original: Sequence | None
    base: SequenceDraft
    renamed: list[Renamed]
    taken: frozenset[str]
    tools: ToolListing


async def opening(engine: Operations, name: str | None, *, example: bool = False) -> Opening | None:
    """What the editor of `name` (None: a new sequence, from the example when `example`) opens with;
    None when no sequence of that name is saved."""
    original: Sequence | None = None
    renamed: list[Renamed] = []
    if name is not None:
        original = await engine.get(name)
        if original is None:
            return None
        base = from_sequence(original)
    elif example:
        base, renamed = await example_draft(engine)
    else:
        base = SequenceDraft()
    return Opening(original, base, renamed, frozenset(await engine.taken_names()), await engine.list_tools())
